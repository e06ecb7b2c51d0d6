"""Explicit control flow on traced values: `cond`, `switch`, `while_loop`, `fori_loop`, `scan`.

Each traces its Python functions into the regions of `stablehlo.case` or
`stablehlo.while`. Carries and results may be any structure the structure walker
supports; Python and NumPy scalars in them become traced NumPy scalars so they can
change from one iteration to the next. Mutation and identity are NumPy's: a body that
writes into an array from outside (an argument, a closure, a view, a carried name)
changes that array in place (such arrays are found by tracing once, then carried),
and a name bound to an existing array by a branch or loop stays that array afterwards
(see `identity`), so later in-place updates reach the caller.
"""

from __future__ import annotations

import numpy as np

from solvent.core import trace
from solvent.errors import ControlFlowError
from solvent.numpy.values import full, is_traced, value, wrap
from solvent.ops import elementwise as ew
from solvent.ops.base import dtype_of, shape_of
from solvent.transforms.branches import Case
from solvent.transforms.loops import loop
from solvent.transforms.regions import leaves_of, probe, rebuild, takes_branch

__all__ = ["traced_case", "cond", "fori_loop", "index_scalar", "leaf_count", "loop", "probe", "scan",
           "switch", "takes_branch", "while_loop"]



def while_loop(cond_fn, body_fn, init):
    """`while cond_fn(carry): carry = body_fn(carry)`, as one `stablehlo.while`.

    Example::

        i, x = solvent.while_loop(lambda c: c[1] > 1e-6, lambda c: (c[0] + 1, c[1] / 2), (0, x))
    """
    return loop(cond_fn, body_fn, init)


def index_scalar(b):
    """A loop bound as an int64 NumPy scalar: static stays static, traced becomes a traced scalar."""
    if not is_traced(b):
        return np.int64(b)
    return wrap(ew.convert(value(b), np.int64), scalar=True)


def fori_loop(lower, upper, body_fn, init):
    """`for i in range(lower, upper): carry = body_fn(i, carry)`, as one `stablehlo.while`."""
    def keep_going(carry):
        return carry[0] < carry[1]

    def step(carry):
        i, stop, inner = carry
        return i + 1, stop, body_fn(i, inner)

    with trace.current().emitting():
        bounds = (index_scalar(lower), index_scalar(upper))
    return loop(keep_going, step, (*bounds, init))[2]


def leaf_count(tree) -> int:
    """How many carried leaves `tree` adds to a loop (to line up `fixed` flags)."""
    return len(leaves_of(tree))


def scan(f, init, xs=None, length=None):
    """`carry, y = f(carry, x)` for each x along xs's first axis; returns (carry, stacked ys).

    Example::

        total, partial_sums = solvent.scan(lambda c, x: (c + x, c + x), 0.0, values)
    """
    with trace.current().emitting():
        return _scan(f, init, xs, length)


def _scan(f, init, xs, length):
    xs_leaves = [leaf if is_traced(leaf) else wrap(value(leaf), scalar=False) for leaf in leaves_of(xs)]
    lengths = {leaf.shape[0] for leaf in xs_leaves} | ({length} if length is not None else set())
    if len(lengths) != 1:
        raise ControlFlowError(f"scan needs one length along the first axis of xs, got {sorted(lengths)}")
    n = lengths.pop()
    xs = rebuild(xs, xs_leaves) if xs is not None else None

    def item(i):
        return rebuild(xs, [leaf[i] for leaf in xs_leaves]) if xs is not None else None

    index = wrap(value(np.asarray(0, dtype=np.int64)))
    _, first_y = probe(lambda: f(init, item(index)))
    y_leaves = leaves_of(first_y)
    buffers = [np.zeros((n,) + tuple(np.shape(y) if not is_traced(y) else y.shape),
                        y.dtype if hasattr(y, "dtype") else np.result_type(y)) for y in y_leaves]

    def body(state):
        i, carry, stacked = state
        carry, y = f(carry, item(i))
        for buffer, leaf in zip(stacked, leaves_of(y)):
            buffer[i] = leaf
        return i + 1, carry, stacked

    fixed = [False] * (1 + leaf_count(init)) + [True] * len(buffers)
    _, carry, stacked = loop(lambda state: state[0] < n, body, (np.int64(0), init, list(buffers)), fixed,
                              runs_once=n > 0)
    return carry, rebuild(first_y, stacked) if y_leaves else first_y


# -- branches ---------------------------------------------------------------------------------

def cond(pred, true_fn, false_fn, *operands):
    """`true_fn(*operands) if pred else false_fn(*operands)` with a traced `pred`."""
    index = np.logical_not(pred) if is_traced(pred) else (0 if pred else 1)
    return switch(index, [true_fn, false_fn], *operands)


def switch(index, branches, *operands):
    """`branches[index](*operands)`, the index clamped into range, as one `stablehlo.case`."""
    branches = list(branches)
    if not is_traced(index):
        return branches[int(np.clip(int(index), 0, len(branches) - 1))](*operands)
    case = traced_case(index, branches, operands)
    with trace.current().emitting():
        return case.finish()


def traced_case(index, branches, operands) -> Case:
    """The `stablehlo.case` of a traced `index` with every branch traced, not yet finished: its
    `finish()` binds the results and writes the arrays the branches wrote; `discard()` drops it."""
    session = trace.current()
    with session.emitting():
        i = value(index)
        if shape_of(i) != ():
            raise ControlFlowError(f"a branch index must be a scalar, got shape {shape_of(i)}")
        if dtype_of(i).kind in "iu":  # (clamped in its own type: 2**32 converted to int32 first would be 0)
            last = min(len(branches) - 1, np.iinfo(dtype_of(i)).max)
            i = ew.clamp(full(0, (), dtype_of(i)), i, full(last, (), dtype_of(i)))
        i = ew.convert(i, np.int32)
        i = ew.clamp(value(np.int32(0)), i, value(np.int32(len(branches) - 1)))  # case picks the last
        return Case(session, i, list(branches), operands)
