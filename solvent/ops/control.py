"""Builders of StableHLO's control flow ops, their regions left for the caller to fill (with blocks
whose arguments the op's spec fixes): `stablehlo.while` and `stablehlo.case`."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo

from solvent.ops.base import check, create, dtype_of, shape_of


def while_op(operands: Sequence[ir.Value]) -> ir.Operation:
    """A `stablehlo.while` carrying `operands`: region 0 (the condition) and region 1 (the body)
    each take one block argument per operand; its results have the operands' types."""
    types = [v.type for v in operands]
    return create("stablehlo.while", operands, types, regions=2)


def loops_allowed() -> bool:
    """Whether a `stablehlo.while` may go at the insertion point: not inside the scalar body of a
    reduce, scatter or sort, whose regions XLA takes only as straight-line code."""
    op = ir.InsertionPoint.current.block.owner.operation
    while op is not None and op.name not in ("func.func", "builtin.module"):
        if op.name in ("stablehlo.reduce", "stablehlo.reduce_window", "stablehlo.scatter",
                       "stablehlo.select_and_scatter", "stablehlo.sort"):
            return False
        op = op.parent
    return True


def repeat(test, step, carried: Sequence[ir.Value]) -> list[ir.Value]:
    """`while test(*carried): carried = step(*carried)` as one `stablehlo.while` (`test` gives a
    0-d i1, `step` the new values)."""
    op = while_op(carried)
    types = [v.type for v in carried]
    for region, body in ((0, lambda *c: [test(*c)]), (1, step)):
        with ir.InsertionPoint(op.regions[region].blocks.append(*types)) as point:
            stablehlo.ReturnOp(list(body(*point.block.arguments)))
    return list(op.results)


def case_op(index: ir.Value, result_types: Sequence[ir.Type], branches: int) -> ir.Operation:
    """A `stablehlo.case` on a 0-d int32 `index` with `branches` regions (no block arguments),
    each returning values of `result_types`; an index out of range runs the last."""
    check(shape_of(index) == () and dtype_of(index) == np.int32, f"a case index must be a 0-d int32, got {index.type}")
    return create("stablehlo.case", [index], result_types, regions=branches)
