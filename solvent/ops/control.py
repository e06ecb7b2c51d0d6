"""Builders of StableHLO's control flow ops, their regions left for the caller to fill (with blocks
whose arguments the op's spec fixes): `stablehlo.while` and `stablehlo.case`."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from jaxlib.mlir import ir

from solvent.ops.base import check, create, dtype_of, shape_of


def while_op(operands: Sequence[ir.Value]) -> ir.Operation:
    """A `stablehlo.while` carrying `operands`: region 0 (the condition) and region 1 (the body)
    each take one block argument per operand; its results have the operands' types."""
    types = [v.type for v in operands]
    return create("stablehlo.while", operands, types, regions=2)


def case_op(index: ir.Value, result_types: Sequence[ir.Type], branches: int) -> ir.Operation:
    """A `stablehlo.case` on a 0-d int32 `index` with `branches` regions (no block arguments),
    each returning values of `result_types`; an index out of range runs the last."""
    check(shape_of(index) == () and dtype_of(index) == np.int32, f"a case index must be a 0-d int32, got {index.type}")
    return create("stablehlo.case", [index], result_types, regions=branches)
