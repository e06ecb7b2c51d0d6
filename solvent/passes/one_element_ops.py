"""Elementwise ops on one-element arrays (`tensor<1x1xf64>`) whose operands the module also holds as
scalars, as the same ops on scalars, reshaped: XLA's common-subexpression pass then merges them with
their scalar twins.

Enzyme-JAX moves reshapes up through elementwise ops, so a scalar that a loop body both tests and
writes (`table[i, j] = max(table[i, j], ...)` in a dynamic-programming loop: the write needs a 1x1
update) ends up computed twice, once on scalars and once on 1x1 arrays. XLA fuses each copy on its
own, and a loop body of more than 8 kernels runs concurrently on XLA's CPU runtime, at tens of
nanoseconds per kernel instead of a few (nussinov's inner loop: 9 kernels, 8 without the copy).
Ops on one-element arrays alone are left as they are: as scalars they would not fuse with the
dynamic slices they read (cholesky's inner body: 6 kernels, 8 so).
"""

from __future__ import annotations

import math

from jaxlib.mlir import ir

from solvent.ir.module import defining_op, named_attributes, ops_where, splat_element
from solvent.ops.base import create, shape_of

#: Elementwise ops whose operands all have their result's shape.
ELEMENTWISE = {f"stablehlo.{name}" for name in (
    "add", "subtract", "multiply", "divide", "remainder", "maximum", "minimum", "and", "or", "xor", "not",
    "negate", "abs", "select", "compare", "convert", "clamp")}


def _one_element(op: ir.Operation) -> bool:
    if op.name not in ELEMENTWISE or len(op.results) != 1:
        return False
    shape = shape_of(op.results[0])
    return len(shape) > 0 and math.prod(shape) == 1 and all(shape_of(x) == shape for x in op.operands)


class _Scalars:
    """Which one-element values the module also computes as scalars: reshapes of scalars or into
    scalars, splat constants, and elementwise ops of such values."""

    def __init__(self):
        self.found: dict = {}

    def known(self, v: ir.Value) -> bool:
        if v not in self.found:
            self.found[v] = False  # (a cycle through a loop's arguments is not known)
            self.found[v] = self._known(v)
        return self.found[v]

    def _known(self, v: ir.Value) -> bool:
        op = defining_op(v)
        if op is not None and (op.name == "stablehlo.reshape" and not shape_of(op.operands[0])
                               or splat_element(op) is not None):
            return True
        if any(use.owner.operation.name == "stablehlo.reshape" and not shape_of(use.owner.operation.results[0])
               for use in v.uses):
            return True
        return op is not None and _one_element(op) and all(self.known(x) for x in op.operands)


def _scalar_type(value: ir.Value) -> ir.Type:
    return ir.RankedTensorType.get([], ir.RankedTensorType(value.type).element_type)


def rewrite(module: ir.Module) -> bool:
    """Each one-element elementwise op of `module` on values also computed as scalars, as that op on
    scalars reshaped, which XLA's common-subexpression pass merges with the scalar one; whether
    there was one."""
    scalars = _Scalars()
    found = [op for op in ops_where(module, _one_element) if all(scalars.known(x) for x in op.operands)]
    with module.context:
        for op in found:
            with op.location, ir.InsertionPoint(op):
                operands = [create("stablehlo.reshape", [x], [_scalar_type(x)]).result for x in op.operands]
                result = op.results[0]
                scalar = create(op.name, operands, [_scalar_type(result)], named_attributes(op)).result
                shaped = create("stablehlo.reshape", [scalar], [result.type]).result
            result.replace_all_uses_with(shaped)
            op.erase()
    return bool(found)
