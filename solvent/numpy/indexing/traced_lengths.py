"""Lengths of slices known only when the program runs: when two are one, and NumPy's broadcasting
of a length of 1, which spreads an operand's first element over the other's length."""

from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir

from solvent.ir.module import constant_integer, defining_op, same_value
from solvent.numpy.values import full
from solvent.ops import elementwise as ew, shape as ops
from solvent.ops.base import shape_of

DEPTH = 12  # how many ops deep two lengths are compared (`same_value`): `k` clamped to an axis


def same(n: ir.Value, m: ir.Value) -> bool:
    """Whether lengths `n` and `m` are one value (what CSE would merge)."""
    return same_value(n, m, DEPTH)


def same_unless_one(n: ir.Value, m: ir.Value) -> bool:
    """Whether length `n` is `m` wherever `m` is not 1, so that writing `n` elements into `m` never
    spreads one: `m` itself, or what broadcasting made of such a length `y` and another,
    select(y == 1, other, y) (`dp[w:] = np.maximum(dp[w:], dp[:k])`)."""
    if same(n, m):
        return True
    op = defining_op(n)
    if op is None or op.name != "stablehlo.select":
        return False
    test, _, y = op.operands
    compare = defining_op(test)
    return (compare is not None and compare.name == "stablehlo.compare" and compare.operands[0] == y
            and "EQ" in str(compare.attributes["comparison_direction"]) and constant_integer(compare.operands[1]) == 1
            and same_unless_one(y, m))


def is_one(n: ir.Value) -> ir.Value:
    return ew.compare("EQ", n, full(1, (), np.int64))


def spread_first(v: ir.Value, axis: int, n: ir.Value) -> ir.Value:
    """`v` (its valid part at the front of `axis`), or where that part's length `n` is 1, its first
    element along `axis` everywhere (NumPy's broadcasting of a length of 1)."""
    shape = list(shape_of(v))
    first = ops.slice(v, [0] * len(shape), [1 if d == axis else m for d, m in enumerate(shape)], [1] * len(shape))
    spread = ops.broadcast_in_dim(ops.reshape(first, [m for d, m in enumerate(shape) if d != axis]), shape,
                                  [d for d in range(len(shape)) if d != axis])
    return ew.select(is_one(n), spread, v)
