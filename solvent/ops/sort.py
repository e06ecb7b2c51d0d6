"""`stablehlo.sort`: sort several same-shaped tensors together along one dimension."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from jaxlib.mlir import ir

from solvent.ir.types import tensor_type
from solvent.ops.base import check, create, dtype_of, shape_of
from solvent.ops.region import fill_region


def sort(operands: Sequence[ir.Value], dimension: int, less: Callable, stable: bool = True) -> list[ir.Value]:
    """Sort `operands` along `dimension` by `less(lhs_0, rhs_0, lhs_1, rhs_1, ...)` (a bool scalar).

    The comparator sees one scalar pair per operand, in operand order, as the spec defines;
    every operand is permuted the same way (argsort sorts values and an iota together).
    """
    shape = shape_of(operands[0])
    check(all(shape_of(v) == shape for v in operands), "sort: operands differ in shape")
    check(0 <= dimension < max(len(shape), 1), f"sort: dimension {dimension} out of range for {shape}")
    dtypes = [dtype_of(v) for v in operands]
    op = create("stablehlo.sort", operands, [tensor_type(shape, d) for d in dtypes],
                {"dimension": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), dimension),
                 "is_stable": ir.BoolAttr.get(stable)}, regions=1)
    fill_region(op, 0, [d for d in dtypes for _ in range(2)], lambda *pairs: [less(*pairs)])
    return list(op.results)
