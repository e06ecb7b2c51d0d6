"""NumPy's memory layout of traced arrays, where it decides what a program means: whether
`reshape` and `ravel` give a view of their array (writes through the result reach it) or a copy.

A traced array's `memory` is "C" (C-contiguous, the class default: what creation functions and
most results are), its byte strides, or None where solvent does not know them: a result of two
or more dimensions computed from operands that are not all C-contiguous (NumPy lays such
results out by its K-order rules) or an F-contiguous result other than from operands of its
own shape. Views take theirs from their parent's. An argument has the caller's; a decision
that reads it is recorded (`layout_read`) so that the program is compiled again for arguments
of other strides.
"""

from __future__ import annotations

import numpy as np

from solvent.core.traced import TracedArray


def c_strides(shape, itemsize: int) -> tuple[int, ...]:
    strides, step = [], itemsize
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


def f_strides(shape, itemsize: int) -> tuple[int, ...]:
    return tuple(reversed(c_strides(tuple(reversed(shape)), itemsize)))


def strides_of(x: TracedArray) -> tuple[int, ...] | None:
    """`x`'s byte strides as NumPy would have them, or None where they are not known."""
    memory = x.memory
    return c_strides(x.aval.shape, x.aval.dtype.itemsize) if memory == "C" else memory


def consulted(x: TracedArray) -> tuple[int, ...] | None:
    """`strides_of(x)` for a decision that depends on them: the layouts of the arguments they come
    from are then part of the program's signature."""
    _depend(x.root(), set())
    return strides_of(x)


def _depend(root: TracedArray, seen: set) -> None:
    """Mark the arguments whose layouts `root`'s comes from (through the operands of the op that
    made it, and an argument of an outlined function through what it stands for) as read."""
    if id(root) in seen:
        return
    seen.add(id(root))
    if root.argument and root.host_array:
        root.layout_read = True
    for source in (root.stands_for, *root.layout_from):
        if source is not None:
            _depend(source.root(), seen)


def contiguous(shape, strides, itemsize: int, order: str = "C") -> bool:
    """NumPy's C_CONTIGUOUS (or F_CONTIGUOUS) flag for these strides: axes of length 1 do not count."""
    if 0 in shape:
        return True
    step = itemsize
    for n, s in (zip(reversed(shape), reversed(strides)) if order == "C" else zip(shape, strides)):
        if n != 1:
            if s != step:
                return False
            step *= n
    return True


def reshaped(shape, strides, new_shape, itemsize: int) -> tuple[int, ...] | None:
    """The strides of `new_shape` as a view of an array of `shape` and `strides` (C order), or None
    where NumPy must copy: NumPy's `_attempt_nocopy_reshape`, merging runs of old axes that lie
    contiguously and splitting them into the new ones."""
    if int(np.prod(shape, dtype=np.int64)) == 0 or contiguous(shape, strides, itemsize):
        return c_strides(new_shape, itemsize)
    old = [(n, s) for n, s in zip(shape, strides) if n != 1]
    new = [0] * len(new_shape)
    oi, oj, ni, nj = 0, 1, 0, 1
    while ni < len(new_shape) and oi < len(old):
        np_, op = new_shape[ni], old[oi][0]
        while np_ != op:
            if np_ < op:
                np_ *= new_shape[nj]
                nj += 1
            else:
                op *= old[oj][0]
                oj += 1
        if any(old[k][1] != old[k + 1][0] * old[k + 1][1] for k in range(oi, oj - 1)):
            return None  # the old axes of this run do not lie one after another
        new[nj - 1] = old[oj - 1][1]
        for k in range(nj - 1, ni, -1):
            new[k - 1] = new[k] * new_shape[k]
        ni, nj, oi, oj = nj, nj + 1, oj, oj + 1
    last = new[ni - 1] if ni >= 1 else itemsize
    for k in range(ni, len(new_shape)):
        new[k] = last  # trailing axes of length 1
    return tuple(new)


def _is_c(x) -> bool:
    if isinstance(x, TracedArray):
        strides = strides_of(x)
        return strides is not None and contiguous(x.aval.shape, strides, x.aval.dtype.itemsize)
    return not isinstance(x, np.ndarray) or x.flags.c_contiguous


def _is_f(x, shape) -> bool:
    if isinstance(x, TracedArray):
        strides = strides_of(x)
        return x.aval.shape == shape and strides is not None and \
            contiguous(shape, strides, x.aval.dtype.itemsize, order="F")
    return isinstance(x, np.ndarray) and x.shape == shape and x.flags.f_contiguous


def _arrays(values):
    for x in values:
        if isinstance(x, (list, tuple)):
            yield from _arrays(x)
        elif isinstance(x, (TracedArray, np.ndarray)) and x.size > 1:
            yield x


def of_results(result, inputs) -> None:
    """Give each new traced array in `result` (not one of `inputs`, not a view) NumPy's layout for
    a result of these operands: C-contiguous where all are, F-contiguous where all are and have its
    shape, else unknown (results of one dimension are always contiguous)."""
    results = [r for r in (result if isinstance(result, (tuple, list)) else (result,))
               if isinstance(r, TracedArray) and r._parent is None and "memory" not in r.__dict__
               and len(r.aval.shape) > 1]
    if not results:
        return
    operands = list(_arrays(inputs))
    seen = {id(x) for x in operands}
    results = [r for r in results if id(r) not in seen]
    traced = tuple(x for x in operands if isinstance(x, TracedArray))
    for r in results:
        r.layout_from = traced  # (a decision on r's layout depends on theirs)
    if all(_is_c(x) for x in operands):
        return
    for r in results:
        f_order = operands and all(_is_f(x, r.aval.shape) for x in operands)
        r.memory = f_strides(r.aval.shape, r.aval.dtype.itemsize) if f_order else None
