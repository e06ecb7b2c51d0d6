"""Lengths and starts of slices known only when the program runs: the valid part's mask, data moved
by a start or brought to another extent, when two lengths are one, and NumPy's broadcasting of a
length of 1, which spreads an operand's first element over the other's length."""

from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir

from solvent.ir.module import constant_integer, defining_op, same_value
from solvent.numpy.values import full, value
from solvent.ops import elementwise as ew, shape as ops
from solvent.ops.base import dtype_of, shape_of
from solvent.ops.constant import iota

_I64 = np.int64
DEPTH = 12  # how many ops deep two lengths are compared (`same_value`): `k` clamped to an axis


def mask(shape, lengths, starts=None) -> ir.Value:
    """True on the valid part: start <= iota < start + length on every axis that has a length (the
    start 0 where `starts` has None). Each axis's test is made in one dimension and broadcast: the
    optimizer precomputes such tests for every iteration of a loop, which must not cost n^3."""
    result = full(True, shape, np.bool_)
    for axis, length in enumerate(lengths):
        if length is None:
            continue
        n, start = (shape[axis],), (starts or [None] * len(lengths))[axis]
        position, inside = iota(n, _I64, 0), full(True, n, np.bool_)
        if start is not None:
            length = ew.binary("add", start, length)
            inside = ew.compare("GE", position, ops.broadcast_in_dim(start, n, []))
        inside = ew.binary("and", inside, ew.compare("LT", position, ops.broadcast_in_dim(length, n, [])))
        result = ew.binary("and", result, ops.broadcast_in_dim(inside, shape, [axis]))
    return result


def shifted(v, axis, start, forward):
    """`v` moved along `axis` by a traced `start`: forward, element j lands at j + start; backward,
    element start + j lands at j. Zero where nothing lands. Only this block is padded, never the
    array it came from."""
    n, rank = shape_of(v)[axis], len(shape_of(v))
    widths = [n if i == axis else 0 for i in range(rank)]
    none = [0] * rank
    padded = ops.pad(v, full(0, (), dtype_of(v)), widths if forward else none, none if forward else widths, none)
    at = ew.binary("subtract", full(n, (), _I64), start) if forward else start
    zero = full(0, (), _I64)
    return ops.dynamic_slice(padded, [at if i == axis else zero for i in range(rank)], shape_of(v))


def resized(v, axis, extent: int) -> ir.Value:
    """`v` (its valid part at the front of `axis`) cut or padded with zeros to `extent` there: slices
    of bases of different extents (`x[:m] * y[:m]`) meet on one."""
    shape = list(shape_of(v))
    if shape[axis] >= extent:
        return ops.slice(v, [0] * len(shape), [extent if d == axis else n for d, n in enumerate(shape)],
                         [1] * len(shape))
    grow = [extent - n if d == axis else 0 for d, n in enumerate(shape)]
    return ops.pad(v, full(0, (), dtype_of(v)), [0] * len(shape), grow, [0] * len(shape))


def one_extent(values, axes, longest=False) -> list:
    """`values` (their valid parts at the front of their `axes`, one each) brought to one extent
    there: the shortest, or the longest where one may spread its first element over the others."""
    if not values:
        return []
    extent = (max if longest else min)(shape_of(v)[axis] for v, axis in zip(values, axes))
    return [resized(v, axis, extent) for v, axis in zip(values, axes)]


def fill(v, lengths, filler, starts=None) -> ir.Value:
    """`v` with every element outside the valid part (see `mask`) replaced by `filler`."""
    if all(length is None for length in lengths):
        return v
    return ew.select(mask(shape_of(v), lengths, starts), v, full(filler, shape_of(v), dtype_of(v)))


def of_span(span, n: int) -> ir.Value:
    """The sum of scale * index + constant of an `affine.span` on an axis of `n`, clamped to [0, n]
    (no more than n is ever needed: it is a slice's length), written the same way for every
    slice of that span, so that the lengths of `T[i, i + 1:j]` and `T[i + 2:j + 1, j]` are `same`."""
    terms, constant = span
    total = None
    for index, scale in terms:
        term = value(index, _I64)
        if scale != 1:
            term = ew.binary("multiply", term, full(scale, (), _I64))
        total = term if total is None else ew.binary("add", total, term)
    if total is None:
        return full(max(constant, 0), (), _I64)
    if constant:
        total = ew.binary("add", total, full(constant, (), _I64))
    return ew.clamp(full(0, (), _I64), total, full(n, (), _I64))


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
    """Whether length `n` is 1 (a traced bool): where it is, NumPy spreads that operand."""
    return ew.compare("EQ", n, full(1, (), _I64))


def spread_first(v: ir.Value, axis: int, n: ir.Value, first: ir.Value | None = None) -> ir.Value:
    """`v` (its valid part at the front of `axis`), or where that part's length `n` is 1, its first
    element along `axis` everywhere (NumPy's broadcasting of a length of 1); `first` is that element
    (one long along `axis`) where the caller has it from the data before they moved."""
    shape = list(shape_of(v))
    if first is None:
        first = ops.slice(v, [0] * len(shape), [1 if d == axis else m for d, m in enumerate(shape)], [1] * len(shape))
    spread = ops.broadcast_in_dim(ops.reshape(first, [m for d, m in enumerate(shape) if d != axis]), shape,
                                  [d for d in range(len(shape)) if d != axis])
    return ew.select(is_one(n), spread, v)
