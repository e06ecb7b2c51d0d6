"""Arguments that share memory (a view and its base, two views of one array) as views of one input.

`f(a, a[1:])` must see a write through one argument in the other, as NumPy does. The
array owning the memory becomes a single program input, and every argument sharing it
a traced view of that input: a basic index (and a transpose) where the argument's
offset and strides allow one, a gather and scatter of its elements otherwise.
"""

from __future__ import annotations

import numpy as np

from solvent.core.aval import Aval
from solvent.core.structure import Shared
from solvent.core.traced import TracedArray
from solvent.errors import UnsupportedError
from solvent.numpy.indexing.basic import parse, read, write
from solvent.numpy.indexing.strided import flat_positions, gathered
from solvent.ops import shape as ops


def view_of_owner(owner: TracedArray, shared: Shared, aval: Aval) -> TracedArray:
    """The traced argument described by `shared`, reading and writing through `owner`; its layout
    is the caller's (the call key holds `shared`). A write raises where the argument is read-only
    (NumPy's error) or its own elements overlap (the owner would see one of several values)."""
    memory = tuple(s * aval.dtype.itemsize for s in shared.strides)
    refusal = _REFUSALS.get(shared.refusal)
    found = _basic(owner.shape, shared.offset, shared.strides, aval.shape) if refusal is None else None
    if found is not None:
        index, order = parse(found[0], owner.shape), found[1]
        middle = tuple(index.result_shape[p] for p in order)
        inverse = list(np.argsort(order))

        def read_basic(v):
            return ops.reshape(ops.transpose(read(v, index), order), aval.shape)

        def write_basic(parent, new):
            return write(parent, index, ops.transpose(ops.reshape(new, middle), inverse))
        return TracedArray.view_of(owner, aval, read_basic, write_basic, memory)
    return gathered(owner, flat_positions(shared.offset, shared.strides, aval.shape), refusal and refusal(), memory)


_REFUSALS = {"read-only": lambda: ValueError("assignment destination is read-only"),
             "overlapping": lambda: UnsupportedError(
                 "writing into an argument whose elements overlap in memory (np.lib.stride_tricks.as_strided, "
                 "sliding_window_view(writeable=True)): NumPy's writes to one element show in the others; pass "
                 "the array it views and write into that")}


def _basic(owner_shape, offset: int, strides: tuple, shape: tuple):
    """(basic key into the owner, order of its kept axes) giving the argument, or None."""
    owner_strides = [int(np.prod(owner_shape[d + 1:])) for d in range(len(owner_shape))]
    start = np.unravel_index(offset, owner_shape) if owner_shape else ()
    mapped: dict[int, tuple[int, int]] = {}  # owner axis -> (argument axis, step)
    for j, (stride, n) in enumerate(zip(strides, shape)):
        if n == 1:
            continue
        for d, unit in enumerate(owner_strides):
            if d not in mapped and stride % unit == 0 and 0 < abs(stride // unit) * (n - 1) < owner_shape[d]:
                mapped[d] = (j, stride // unit)
                break
        else:
            return None
    key = []
    for d, first in enumerate(start):
        if d in mapped:
            j, step = mapped[d]
            stop = int(first) + step * shape[j]
            key.append(slice(int(first), stop if stop >= 0 else None, step))
        else:
            key.append(int(first))
    axes = [mapped[d][0] for d in sorted(mapped)]
    order = list(np.argsort(axes))
    try:
        chosen = np.arange(int(np.prod(owner_shape))).reshape(owner_shape)[tuple(key)].transpose(order)
    except (IndexError, ValueError):
        return None
    if chosen.size != int(np.prod(shape)) or not np.array_equal(chosen.reshape(shape), flat_positions(offset, strides, shape)):
        return None
    return tuple(key), order
