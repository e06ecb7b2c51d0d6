"""Equivalent StableHLO for ops that enzyme-ad 0.0.16 cannot differentiate or batch.

A table of rewrites, each a rule (which ops it matches) and an expansion into
ops Enzyme has derivative and batching rules for. Autodiff and batching run
them over the functions they transform before emitting their Enzyme op:

- a product reduction (`np.prod`) has no forward-mode rule: a tree of pairwise
  multiplications replaces it;
- a cumulative `reduce_window` (`np.cumsum`, `np.cumprod`) has a reverse rule
  only for sums of one dimension, and a long axis's pairwise scan (`ops.scan`)
  is made of barriers, which have none: a log-step prefix scan of slices and
  pads replaces either (the pairwise scan's inner barriers, left unused, are
  taken for their operands);
- Enzyme's rule for a reduction by maximum or minimum gives the whole cotangent to
  every element that ties for the extremum, so the gradient of `np.max([3., 3.])`
  was [1, 1] (no subgradient: it sums to 2): the extremum plus the mean of the
  tied elements' distances from it (zero, so the value is unchanged) gives each
  of the k tied elements 1/k, as JAX's rule does;
- `stablehlo.tan` of real numbers has no rule: sine over cosine replaces it
  (within 2 ulps of NumPy's tan, where the op is within 1);
- a `stablehlo.case` cannot be batched over its index: under `vmap`, every
  branch runs and a `select` picks the results, as JAX does for `cond`.
"""

from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir

from solvent.ops import elementwise as ew, shape as shape_ops
from solvent.ops.base import dtype_of, is_float, shape_of
from solvent.ops.constant import constant, splat
from solvent.ops.reduction import reduce
from solvent.ops.scan import SCAN_ATTRIBUTE

_COMBINE = {"stablehlo.add": "add", "stablehlo.multiply": "multiply", "stablehlo.maximum": "maximum",
            "stablehlo.minimum": "minimum"}


def _combiner(op) -> str | None:
    """The binary op a reduction body applies to its two arguments, if that is all it does."""
    block = op.regions[0].blocks[0]
    body = list(block.operations)
    if len(body) != 2 or body[0].name not in _COMBINE or len(op.results) != 1:
        return None
    return _COMBINE[body[0].name]


def _integers(op, name: str, default) -> list[int]:
    if name not in op.attributes:
        return list(default)
    attribute = op.attributes[name]
    if isinstance(attribute, ir.DenseI64ArrayAttr):
        return list(attribute)
    return [int(v) for v in np.asarray(ir.DenseIntElementsAttr(attribute)).reshape(-1)]


# -- np.prod: a tree of multiplications ---------------------------------------------------------


def _is_product(op) -> bool:
    return op.name == "stablehlo.reduce" and _combiner(op) == "multiply"


def _product(op) -> ir.Value:
    x, init = op.operands
    dims = _integers(op, "dimensions", [])
    shape = shape_of(x)
    kept = [d for d in range(len(shape)) if d not in dims]
    size = int(np.prod([shape[d] for d in dims], dtype=np.int64))
    v = shape_ops.transpose(x, kept + dims)
    v = shape_ops.reshape(v, [shape[d] for d in kept] + [size])
    one = shape_ops.broadcast_in_dim(init, (), [])
    while size > 1:
        if size % 2:
            v = shape_ops.pad(v, one, [0] * len(kept) + [0], [0] * len(kept) + [1], [0] * (len(kept) + 1))
            size += 1
        half = size // 2
        outer = [shape[d] for d in kept]
        low = shape_ops.slice(v, [0] * len(kept) + [0], outer + [half], [1] * (len(kept) + 1))
        high = shape_ops.slice(v, [0] * len(kept) + [half], outer + [size], [1] * (len(kept) + 1))
        v, size = ew.binary("multiply", low, high), half
    v = shape_ops.reshape(v, [shape[d] for d in kept])
    return ew.binary("multiply", v, shape_ops.broadcast_in_dim(init, shape_of(v), []))


# -- cumulative reduce_window: a log-step prefix scan ------------------------------------------------


def _cumulative_axis(op) -> int | None:
    """The axis of a cumulative reduce_window (window n along it, padding (n-1, 0)), or None."""
    if op.name != "stablehlo.reduce_window" or len(op.results) != 1 or _combiner(op) is None:
        return None
    x = op.operands[0]
    shape = shape_of(x)
    rank = len(shape)
    window = _integers(op, "window_dimensions", [])
    padding = _integers(op, "padding", [0] * 2 * rank)
    ones = [1] * rank
    if (_integers(op, "window_strides", ones) != ones or _integers(op, "base_dilations", ones) != ones
            or _integers(op, "window_dilations", ones) != ones):
        return None
    axes = [d for d in range(rank) if window[d] != 1]
    if len(axes) != 1:
        return None
    a = axes[0]
    expected = [0] * 2 * rank
    expected[2 * a] = shape[a] - 1
    return a if window[a] == shape[a] and padding == expected else None


def _prefix_scan(op) -> ir.Value:
    x, init = op.operands
    return _log_step_scan(x, _cumulative_axis(op), _combiner(op), init)


def _is_pairwise_scan(op) -> bool:
    return (op.name == "stablehlo.optimization_barrier" and SCAN_ATTRIBUTE in op.attributes
            and ir.StringAttr(op.attributes[SCAN_ATTRIBUTE]).value.split()[0] in _COMBINE.values())


def _rescanned(op) -> list[ir.Value]:
    """A pairwise scan (`ops.scan`, whose barriers Enzyme cannot differentiate) done again as a log-step scan of
    its input; the barrier's other results are its input and identity."""
    _, x, init = op.operands
    name, axis = ir.StringAttr(op.attributes[SCAN_ATTRIBUTE]).value.split()
    return [_log_step_scan(x, int(axis), name, init), x, init]


def _log_step_scan(x, a: int, combine: str, init) -> ir.Value:
    shape, rank = shape_of(x), len(shape_of(x))
    identity = shape_ops.broadcast_in_dim(init, (), [])
    v, shift = x, 1
    while shift < shape[a]:
        limit = list(shape)
        limit[a] -= shift
        earlier = shape_ops.slice(v, [0] * rank, limit, [1] * rank)
        low = [0] * rank
        low[a] = shift
        earlier = shape_ops.pad(earlier, identity, low, [0] * rank, [0] * rank)
        v, shift = ew.binary(combine, v, earlier), shift * 2
    return ew.binary(combine, shape_ops.broadcast_in_dim(init, shape, []), v)


# -- max and min: ties share the cotangent ---------------------------------------------------------


def _is_float_extremum(op) -> bool:
    return (op.name == "stablehlo.reduce" and _combiner(op) in ("maximum", "minimum")
            and is_float(dtype_of(op.operands[0])))


def _tie_shared(op) -> ir.Value:
    """m + sum(where(x == m, x - m, 0)) / max(count(x == m), 1): m's value, and a derivative of
    1/k for each of k finite elements tied at m (the terms through m cancel)."""
    x, init = op.operands
    dims = _integers(op, "dimensions", [])
    combine = _combiner(op)
    m = reduce([x], [init], dims, lambda a, b: [ew.binary(combine, a, b)])[0]
    shape, dtype = shape_of(x), dtype_of(x)
    at = shape_ops.broadcast_in_dim(m, shape, [d for d in range(len(shape)) if d not in dims])
    tied = ew.binary("and", ew.compare("EQ", x, at), ew.unary("is_finite", x))
    zero = splat(0, shape, dtype)

    def total(v):
        return reduce([v], [constant(np.array(0, dtype))], dims, lambda a, b: [ew.binary("add", a, b)])[0]
    count = ew.binary("maximum", total(ew.select(tied, splat(1, shape, dtype), zero)), splat(1, shape_of(m), dtype))
    excess = total(ew.select(tied, ew.binary("subtract", x, at), zero))
    return ew.binary("add", m, ew.binary("divide", excess, count))


# -- tan of real numbers: sine over cosine ---------------------------------------------------------


def _is_real_tan(op) -> bool:
    return op.name == "stablehlo.tan" and is_float(dtype_of(op.operands[0]))


def _tan(op) -> ir.Value:
    x = op.operands[0]
    return ew.binary("divide", ew.unary("sine", x), ew.unary("cosine", x))


# -- case: every branch, then select --------------------------------------------------------------


def _is_case(op) -> bool:
    return op.name == "stablehlo.case" and len(op.results) > 0


def _selected(op) -> list[ir.Value]:
    index = op.operands[0]
    branches = []
    for region in op.regions:
        block = region.blocks[0]
        body = list(block.operations)
        for inner in body[:-1]:
            inner.move_before(op)
        branches.append(list(body[-1].operands))
    results = branches[-1]
    for k in range(len(branches) - 2, -1, -1):
        chosen = ew.compare("EQ", index, _constant_like(index, k))
        results = [ew.select(chosen, mine, rest) for mine, rest in zip(branches[k], results)]
    return results


def _constant_like(v: ir.Value, number: int) -> ir.Value:
    return constant(np.array(number, dtype=dtype_of(v)))


#: (which ops, their replacement values, needed for) — "derivative" rules run before any
#: Enzyme op, "batch" rules only before enzyme.batch.
RULES = [
    (_is_product, lambda op: [_product(op)], "derivative"),
    (lambda op: _cumulative_axis(op) is not None, lambda op: [_prefix_scan(op)], "derivative"),
    (_is_pairwise_scan, _rescanned, "derivative"),
    (lambda op: op.name == "stablehlo.optimization_barrier", lambda op: list(op.operands), "derivative"),
    (_is_float_extremum, lambda op: [_tie_shared(op)], "derivative"),
    (_is_real_tan, lambda op: [_tan(op)], "derivative"),
    (_is_case, _selected, "batch"),
]


def rewrite(functions, purpose: str) -> None:
    """Replace, in `functions`, every op a rule for `purpose` ("derivative" or "batch") matches."""
    rules = [(matches, expand) for matches, expand, needed in RULES
             if needed == "derivative" or needed == purpose]
    for function in functions:
        found = []

        def visit(op):
            for matches, expand in rules:
                if matches(op):
                    found.append((op, expand))
                    break
            return ir.WalkResult.ADVANCE
        function.operation.walk(visit, ir.WalkOrder.POST_ORDER)
        for op, expand in found:
            with op.location, ir.InsertionPoint(op):
                new = expand(op)
            for old, value in zip(op.results, new):
                old.replace_all_uses_with(value)
            op.erase()
