"""`stablehlo.dot_general` (batched contraction of two tensors), and LAPACK pivots as a permutation."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo

from solvent.ops.base import check, dtype_of, one, shape_of
from solvent.ops.constant import constant, iota
from solvent.ops.control import repeat
from solvent.ops.elementwise import binary, compare, select
from solvent.ops.reduction import reduce
from solvent.ops.shape import broadcast_in_dim, dynamic_slice, reshape


def dot_general(lhs: ir.Value, rhs: ir.Value, contract: tuple[Sequence[int], Sequence[int]],
                batch: tuple[Sequence[int], Sequence[int]] = ((), ())) -> ir.Value:
    """Result dims: batch dims, then lhs free dims, then rhs free dims (spec order)."""
    ls, rs = shape_of(lhs), shape_of(rhs)
    check(dtype_of(lhs) == dtype_of(rhs), "dot_general: dtypes differ")
    for a, b in zip(*contract):
        check(ls[a] == rs[b], f"dot_general: contracting sizes {ls[a]} != {rs[b]}")
    used_l, used_r = set(contract[0]) | set(batch[0]), set(contract[1]) | set(batch[1])
    shape = ([ls[d] for d in batch[0]] + [n for i, n in enumerate(ls) if i not in used_l]
             + [n for i, n in enumerate(rs) if i not in used_r])
    numbers = stablehlo.DotDimensionNumbers.get(
        lhs_batching_dimensions=list(batch[0]), rhs_batching_dimensions=list(batch[1]),
        lhs_contracting_dimensions=list(contract[0]), rhs_contracting_dimensions=list(contract[1]))
    return one("stablehlo.dot_general", [lhs, rhs], shape, dtype_of(lhs), dot_dimension_numbers=numbers)


def pivots_to_permutation(pivots: ir.Value, m: int) -> ir.Value:
    """The row order (batch..., m), int32, that LAPACK's sequential 1-based row swaps `pivots` produce.

    One `stablehlo.while` over the swaps: row i trades places with row pivots[i] - 1.
    """
    *batch, k = shape_of(pivots)
    start = [constant(np.int32(0)), iota((*batch, m), np.dtype(np.int32), len(batch)), pivots]
    return repeat(lambda i, order, swaps: compare("LT", i, constant(np.int32(k))), _swap_step, start)[1]


def _swap_step(i: ir.Value, order: ir.Value, swaps: ir.Value) -> list[ir.Value]:
    """One loop step: exchange entries i and swaps[..., i] - 1 of every row of `order`."""
    shape = shape_of(order)
    batch = len(shape) - 1
    zeros = [constant(np.int32(0))] * batch
    one = constant(np.int32(1))
    target = _spread(binary("subtract", dynamic_slice(swaps, [*zeros, i], (*shape[:-1], 1)),
                            broadcast_in_dim(one, (*shape[:-1], 1), [])), shape)
    position = iota(shape, np.int32, batch)
    at_target = compare("EQ", position, target)
    (moved,) = reduce([select(at_target, order, broadcast_in_dim(constant(np.int32(0)), shape, []))],
                      [constant(np.int32(0))], [batch], lambda acc, e: [binary("add", acc, e)])
    at_i = compare("EQ", position, broadcast_in_dim(i, shape, []))
    current = _spread(dynamic_slice(order, [*zeros, i], (*shape[:-1], 1)), shape)
    swapped = select(at_i, _spread(moved, shape), select(at_target, current, order))
    return [binary("add", i, one), swapped, swaps]


def _spread(v: ir.Value, shape) -> ir.Value:
    """A (batch..., 1) or (batch...) value repeated along a new last dimension of `shape`."""
    return broadcast_in_dim(reshape(v, shape[:-1]), shape, range(len(shape) - 1))
