"""Explicit control flow on traced values: `cond`, `switch`, `while_loop`, `fori_loop`.

Each traces its Python functions into the regions of `stablehlo.case` or
`stablehlo.while`. Carries may be any structure the structure walker supports;
Python and NumPy scalars in a carry become 0-d arrays so they can change from
one iteration to the next. Mutation is NumPy's: a body that writes into a
carried array, or into any array from outside (a closure, an argument, a view),
changes that array in place; such outside arrays are found by tracing once,
then carried implicitly.
"""

from __future__ import annotations

import functools

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo

from solvent.core import structure, trace
from solvent.core.traced import Region, TracedArray, TracedScalar
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
    if type(tree) in (tuple, list, dict):
        items = [(step[1], _numbers_to_arrays(v)) for step, v in kids]
        return dict(items) if isinstance(tree, dict) else type(tree)(v for _, v in items)
    return tree


def _leaves(tree) -> list:
    return structure.copy_structure(tree, lambda leaf, i: leaf).leaves


def _rebuild(tree, new_leaves):
    """`tree` with its i-th distinct array replaced by `new_leaves[i]`."""
    return structure.copy_structure(tree, lambda leaf, i: new_leaves[i]).tree


class _Carry:
    """The arrays a region carries: explicit leaves of a structure, then implicit outside arrays."""

    def __init__(self, tree):
        self.tree = _numbers_to_arrays(tree)
        self.leaves = _leaves(self.tree)
        self.values = [value(leaf) for leaf in self.leaves]
        self.implicit: list[TracedArray] = []

    @property
    def avals(self):
        return [(shape_of(v), dtype_of(v)) for v in self.values + [t.value for t in self.implicit]]

    @property
    def types(self):
        return [v.type for v in self.values] + [t.value.type for t in self.implicit]

    def operands(self):
        return self.values + [t.value for t in self.implicit]

    def outputs(self, result, tracers, what: str) -> list[ir.Value]:
        """The region's return values: `result`'s leaves converted to the carry, then implicit arrays."""
        leaves = _leaves(_numbers_to_arrays(result))
        if len(leaves) != len(self.leaves):
            raise ControlFlowError(f"{what} returned {len(leaves)} arrays where {len(self.leaves)} are carried")
        return _convert(leaves, self.avals, what) + [t.value for t in self.implicit]

    def finish(self, results, body_leaves=None):
        """After the op: implicit arrays take their new values; explicit ones rebuild the structure.

        An explicit array the body returned as itself (mutated in place) is
        updated in place too, so its aliases and views see the change.
        """
        explicit, implicit = results[:len(self.leaves)], results[len(self.leaves):]
        for array, new in zip(self.implicit, implicit):
            array.assign(new)
        out = []
        for i, (leaf, new) in enumerate(zip(self.leaves, explicit)):
            if body_leaves and body_leaves[i] and isinstance(leaf, TracedArray) and not isinstance(leaf, TracedScalar):
                leaf.assign(new)
                out.append(leaf)
            else:
                out.append(wrap(new, scalar=False))
        return _rebuild(self.tree, out)


def _convert(leaves, avals, what):
    values = []
    for leaf, (shape, dtype) in zip(leaves, avals):
        v = value(leaf)
        if shape_of(v) != shape or not np.can_cast(dtype_of(v), dtype, "same_kind"):
            raise ControlFlowError(f"{what} changed a carried array from {dtype}{list(shape)} to "
                                   f"{dtype_of(v)}{list(shape_of(v))}; keep shapes and dtypes fixed")
        values.append(ew.convert(v, dtype))
    return values


def _trace_region(session, region, carry: _Carry, fn, what, eraser, with_arguments=True):
    """Trace `fn` into a new block of `region`; returns (returned-itself flags, new writes).

    Writes to outside arrays not yet carried are undone and reported, so the
    caller can carry them and trace again. Whatever happens, every outside array
    holds its value from before the region afterwards; `eraser` learns the
    region, to retire its arrays if the op is thrown away.
    """
    types = carry.types if with_arguments else []
    block = region.blocks.append(*types)
    outer = [t.value for t in carry.implicit]
    record = Region()
    try:
        with session.inside(block) as record:
            eraser.regions.append(record)
            if with_arguments:
                n = len(carry.leaves)
                tracers = [wrap(arg, scalar=False) for arg in list(block.arguments)[:n]]
                for array, arg in zip(carry.implicit, list(block.arguments)[n:]):
                    array.restore(arg)
                result = fn(_rebuild(carry.tree, tracers))
            else:
                tracers, result = [], fn(None)
            returned_itself = []
            if result is not _PREDICATE_ONLY:
                stablehlo.ReturnOp(carry.outputs(result, tracers, what))
                returned_itself = [i < len(tracers) and leaf is tracers[i]
                                   for i, leaf in enumerate(_leaves(_numbers_to_arrays(result)))]
    finally:
        for array, old in zip(carry.implicit, outer):
            array.restore(old)
        known = {id(t) for t in carry.implicit}
        fresh = [(array, old) for key, (array, old) in record.writes.items() if key not in known]
        for array, old in fresh:
            array.restore(old)
    return returned_itself, [array for array, _ in fresh]


class _Eraser:
    """Context for building an op with regions: if tracing fails, the half-built op is
    erased and the arrays made in its regions are retired (so no Python object can
    hand out a value of an erased op)."""

    def __init__(self, op):
        self.op = op
        self.regions: list[Region] = []

    def __enter__(self):
        return self

    def __exit__(self, kind, error, tb):
        if kind is not None:
            self.erase()
        return False

    def erase(self):
        for record in self.regions:
            record.discard()
        self.op.erase()


_PREDICATE_ONLY = object()


def _predicate(pred) -> ir.Value:
    v = value(pred)
    if shape_of(v) != ():
        raise ControlFlowError(f"a condition must be a scalar, got shape {shape_of(v)}")
    if dtype_of(v) != np.bool_:
        v = ew.compare("NE", v, value(np.zeros((), dtype_of(v))))
    return v


def probe(fn):
    """`fn()` traced once into a throwaway region, to learn what it returns; its writes are undone.

    The result's arrays are only good for their shapes and dtypes.
    """
    session = trace.current()
    with session.emitting():
        scratch = create("stablehlo.case", [value(np.int32(0))], [], regions=1)
        block = scratch.regions[0].blocks.append()
        record = Region()
        try:
            with session.inside(block) as record:
                result = fn()
        finally:
            for array, old in record.writes.values():
                array.restore(old)
            record.discard()
            scratch.erase()
    return result


@functools.lru_cache(maxsize=256)
def _eager_program(kind, functions):
    from solvent.api import jit  # noqa: PLC0415  (api sits above transforms; eager use only)
    return jit(lambda *args: _FORMS[kind](*functions, *args))


def while_loop(cond_fn, body_fn, init):
    """`while cond_fn(carry): carry = body_fn(carry)`, as one `stablehlo.while`.

    Example::

        i, x = solvent.while_loop(lambda c: c[1] > 1e-6, lambda c: (c[0] + 1, c[1] / 2), (0, x))
    """
    session = trace.current()
    if session is None:
        return _eager_program("while_loop", (cond_fn, body_fn))(init)
    with session.emitting():
        carry = _Carry(init)
        while True:
            op = create("stablehlo.while", carry.operands(), carry.types, regions=2)

            def test(tree):
                pred = _predicate(cond_fn(tree))
                stablehlo.ReturnOp([pred])
                return _PREDICATE_ONLY

            with _Eraser(op) as eraser:
                _, cond_writes = _trace_region(session, op.regions[0], carry, test, "the loop condition", eraser)
                itself, body_writes = _trace_region(session, op.regions[1], carry, body_fn, "the loop body",
                                                    eraser)
            new = cond_writes + [a for a in body_writes if a not in cond_writes]
            if not new:
                return carry.finish(list(op.results), itself)
            eraser.erase()
            carry.implicit += new


def fori_loop(lower, upper, body_fn, init):
    """`for i in range(lower, upper): carry = body_fn(i, carry)`, as one `stablehlo.while`."""
    def keep_going(carry):
        return carry[0] < carry[1]

    def step(carry):
        i, stop, inner = carry
        return i + 1, stop, body_fn(i, inner)

    bounds = [b if is_traced(b) else np.asarray(b, dtype=np.int64) for b in (lower, upper)]
    return while_loop(keep_going, step, (*bounds, init))[2]


def scan(f, init, xs=None, length=None):
    """`carry, y = f(carry, x)` for each x along xs's first axis; returns (carry, stacked ys).

    Example::

        total, partial_sums = solvent.scan(lambda c, x: (c + x, c + x), 0.0, values)
    """
    session = trace.current()
    if session is None:
        return _eager_program("scan", (f,))(init, xs, length)
    with session.emitting():
        return _scan(f, init, xs, length)


def _scan(f, init, xs, length):
    xs_leaves = [leaf if is_traced(leaf) else wrap(value(leaf), scalar=False) for leaf in _leaves(xs)]
    lengths = {leaf.shape[0] for leaf in xs_leaves} | ({length} if length is not None else set())
    if len(lengths) != 1:
        raise ControlFlowError(f"scan needs one length along the first axis of xs, got {sorted(lengths)}")
    n = lengths.pop()
    xs = _rebuild(xs, xs_leaves) if xs is not None else None

    def item(i):
        return _rebuild(xs, [leaf[i] for leaf in xs_leaves]) if xs is not None else None

    index = wrap(value(np.asarray(0, dtype=np.int64)))
    _, first_y = probe(lambda: f(_numbers_to_arrays(init), item(index)))
    y_leaves = _leaves(_numbers_to_arrays(first_y))
    buffers = [np.zeros((n,) + tuple(np.shape(y) if not is_traced(y) else y.shape),
                        y.dtype if hasattr(y, "dtype") else np.result_type(y)) for y in y_leaves]

    def body(state):
        i, carry, stacked = state
        carry, y = f(carry, item(i))
        for buffer, leaf in zip(stacked, _leaves(_numbers_to_arrays(y))):
            buffer[i] = leaf
        return i + 1, carry, stacked

    _, carry, stacked = while_loop(lambda state: state[0] < n, body,
                                   (np.asarray(0, dtype=np.int64), init, list(buffers)))
    return carry, _rebuild(_numbers_to_arrays(first_y), stacked) if y_leaves else first_y


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
        implicit: list[TracedArray] = []
        while True:
            eraser, result, new = _trace_branches(session, i, branches, operands, implicit)
            if not new:
                outputs = list(eraser.op.results)
                for array, new_value in zip(implicit, outputs[len(outputs) - len(implicit):]):
                    array.assign(new_value)
                return result
            eraser.erase()
            implicit += new


def _trace_branches(session, index, branches, operands, implicit):
    """One `stablehlo.case` whose branch k returns branches[k](*operands) and the implicit arrays."""
    scratch = create("stablehlo.case", [index], [], regions=len(branches))
    first, new = None, []
    with _Eraser(scratch) as eraser:
        for k, branch in enumerate(branches):
            def run(_, branch=branch):
                return branch(*operands)

            probe_carry = _BranchCarry(first, implicit)
            _, writes = _trace_region(session, scratch.regions[k], probe_carry, run, f"branch {k}", eraser,
                                      with_arguments=False)
            first = first if first is not None else probe_carry.result
            new += [a for a in writes if a not in new]
    types = list(scratch.regions[0].blocks[0].operations[-1].operands)
    op = create("stablehlo.case", [index], [v.type for v in types], regions=len(branches))
    for k in range(len(branches)):
        scratch.regions[k].blocks[0].append_to(op.regions[k])
    scratch.erase()
    eraser.op = op
    results = list(op.results)
    n = len(results) - len(implicit)
    return eraser, _rebuild(_numbers_to_arrays(first), [wrap(r, scalar=False) for r in results[:n]]), new


class _BranchCarry(_Carry):
    """A branch carries nothing in; its results must match the first branch's."""

    def __init__(self, first_result, implicit):
        self.first = first_result
        self.implicit = implicit
        self.result = None

    def outputs(self, result, tracers, what):
        self.result = result
        leaves = _leaves(_numbers_to_arrays(result))
        if self.first is None:
            values = [value(leaf) for leaf in leaves]
        else:
            expected = _leaves(_numbers_to_arrays(self.first))
            if len(leaves) != len(expected):
                raise ControlFlowError(f"{what} returned {len(leaves)} arrays where branch 0 returned {len(expected)}")
            values = _convert(leaves, [(x.shape, x.dtype) for x in expected], what)
        return values + [t.value for t in self.implicit]


_FORMS = {"while_loop": while_loop, "scan": scan}
