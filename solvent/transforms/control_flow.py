"""Explicit control flow on traced values: `cond`, `switch`, `while_loop`, `fori_loop`.

Each traces its Python functions once into the regions of `stablehlo.if`,
`stablehlo.case` or `stablehlo.while`. Carried values may be any structure the
structure walker supports; Python numbers in a carry become 0-d arrays so they
can change from one iteration to the next. Functions must return what they
change (arrays from outside a body are read, not written).
"""

from __future__ import annotations

import functools

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo

from solvent.core import structure, trace
from solvent.errors import SolventError
from solvent.numpy.values import is_traced, value, wrap
from solvent.ops import elementwise as ew
from solvent.ops.base import create, dtype_of, shape_of


class ControlFlowError(SolventError, TypeError):
    """A branch or loop body returned another structure, shape or dtype than it must."""


def _numbers_to_arrays(tree):
    """Python and NumPy scalars in a carry become 0-d arrays (their NumPy dtypes)."""
    if type(tree) in (bool, int, float, complex) or isinstance(tree, np.generic):
        return np.asarray(tree)
    kids = structure.children(tree)
    if kids is None:
        return tree
    if isinstance(tree, (tuple, list, dict)) and type(tree) in (tuple, list, dict):
        items = [(step[1], _numbers_to_arrays(v)) for step, v in kids]
        return dict(items) if isinstance(tree, dict) else type(tree)(v for _, v in items)
    return tree


def _leaves(tree) -> list:
    return structure.copy_structure(tree, lambda leaf, i: leaf).leaves


def _rebuild(tree, new_leaves):
    """`tree` with its i-th distinct array replaced by `new_leaves[i]`."""
    return structure.copy_structure(tree, lambda leaf, i: new_leaves[i]).tree


def _outputs(result, expected_avals, what: str) -> list[ir.Value]:
    """Flatten a body's result and convert it to the carry's avals."""
    leaves = _leaves(_numbers_to_arrays(result))
    if expected_avals is not None and len(leaves) != len(expected_avals):
        raise ControlFlowError(f"{what} returned {len(leaves)} arrays where {len(expected_avals)} are carried")
    values = []
    for i, leaf in enumerate(leaves):
        v = value(leaf)
        if expected_avals is not None:
            shape, dtype = expected_avals[i]
            if shape_of(v) != shape or not np.can_cast(dtype_of(v), dtype, "same_kind"):
                raise ControlFlowError(f"{what} changed a carried array from {dtype}{list(shape)} to "
                                       f"{dtype_of(v)}{list(shape_of(v))}; keep shapes and dtypes fixed")
            v = ew.convert(v, dtype)
        values.append(v)
    return values


def _trace_region(session, region, types, fn, tree=None):
    """Trace `fn` into a new block of `region`; block arguments stand for `tree`'s arrays."""
    block = region.blocks.append(*types)
    with session.inside(block):
        tracers = [wrap(arg, scalar=False) for arg in block.arguments]
        return block, fn(_rebuild(tree, tracers) if tree is not None else None)


def _predicate(pred) -> ir.Value:
    v = value(pred)
    if shape_of(v) != ():
        raise ControlFlowError(f"a condition must be a scalar, got shape {shape_of(v)}")
    if dtype_of(v) != np.bool_:
        v = ew.compare("NE", v, value(np.zeros((), dtype_of(v))))
    return v


def _outside_jit(kind, *functions):
    from solvent.api import jit  # noqa: PLC0415  (api sits above transforms; only for eager use)
    return _eager_program(kind, functions, jit)


@functools.lru_cache(maxsize=256)
def _eager_program(kind, functions, jit):
    return jit(lambda *args: _FORMS[kind](*functions, *args))


def while_loop(cond_fn, body_fn, init):
    """`while cond_fn(carry): carry = body_fn(carry)`, as one `stablehlo.while`.

    Example::

        i, x = solvent.while_loop(lambda c: c[1] > 1e-6, lambda c: (c[0] + 1, c[1] / 2), (0, x))
    """
    session = trace.current()
    if session is None:
        return _outside_jit("while_loop", cond_fn, body_fn)(init)
    init = _numbers_to_arrays(init)
    with session.emitting():
        values = [value(leaf) for leaf in _leaves(init)]
        avals = [(shape_of(v), dtype_of(v)) for v in values]
        types = [v.type for v in values]
        op = create("stablehlo.while", values, types, regions=2)
        block, pred = _trace_region(session, op.regions[0], types, cond_fn, init)
        with session.inside(block):
            stablehlo.ReturnOp([_predicate(pred)])
        block, new = _trace_region(session, op.regions[1], types, body_fn, init)
        with session.inside(block):
            stablehlo.ReturnOp(_outputs(new, avals, "the loop body"))
        return _rebuild(init, [wrap(r, scalar=False) for r in op.results])


def fori_loop(lower, upper, body_fn, init):
    """`for i in range(lower, upper): carry = body_fn(i, carry)`, as one `stablehlo.while`."""
    def keep_going(carry):
        return carry[0] < carry[1]

    def step(carry):
        i, stop, inner = carry
        return i + 1, stop, body_fn(i, inner)

    bounds = [b if is_traced(b) else np.asarray(b, dtype=np.int64) for b in (lower, upper)]
    return while_loop(keep_going, step, (*bounds, init))[2]


def cond(pred, true_fn, false_fn, *operands):
    """`true_fn(*operands) if pred else false_fn(*operands)` with a traced `pred`."""
    index = np.logical_not(pred) if is_traced(pred) else (0 if pred else 1)
    return switch(index, [true_fn, false_fn], *operands)


def switch(index, branches, *operands):
    """`branches[index](*operands)`, the index clamped into range, as one `stablehlo.case`."""
    branches = list(branches)
    if not is_traced(index):
        return branches[int(np.clip(int(index), 0, len(branches) - 1))](*operands)
    session = trace.current()
    with session.emitting():
        i = ew.convert(value(index), np.int32)
        if shape_of(i) != ():
            raise ControlFlowError(f"a branch index must be a scalar, got shape {shape_of(i)}")
        i = ew.clamp(value(np.int32(0)), i, value(np.int32(len(branches) - 1)))  # case picks the last
        # Branches are traced into a result-less scratch op first: their results give the types.
        scratch = create("stablehlo.case", [i], [], regions=len(branches))
        results, avals, types = [], None, None
        for k, branch in enumerate(branches):
            block, result = _trace_region(session, scratch.regions[k], [], lambda _: branch(*operands))
            with session.inside(block):
                values = _outputs(result, avals, f"branch {k}")
                avals = avals or [(shape_of(v), dtype_of(v)) for v in values]
                types = types or [v.type for v in values]
                stablehlo.ReturnOp(values)
            results.append(result)
        op = create("stablehlo.case", [i], types, regions=len(branches))
        for k in range(len(branches)):
            scratch.regions[k].blocks[0].append_to(op.regions[k])
        scratch.erase()
        return _rebuild(_numbers_to_arrays(results[0]), [wrap(r, scalar=False) for r in op.results])


_FORMS = {"while_loop": while_loop}
