"""`stablehlo.dot_general`: batched contraction of two tensors."""

from __future__ import annotations

from collections.abc import Sequence

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo

from solvent.ops.base import check, dtype_of, one, shape_of


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
