"""Values a loop computes from its counters in integers other than int64 (`np.uint8(250) + i`, a
uint64 span from the index): two Enzyme patterns reason about such values as int64s that never wrap
(`pipelines.NARROW_COUNTERS`), so `pipelines.run` leaves them out of modules that have one."""

from __future__ import annotations

from jaxlib.mlir import ir

from solvent.ir.module import ops_where

#: Element types that wrap where int64 would not, or hold values int64 reads as negative.
_NARROW = frozenset({"i8", "i16", "i32", "ui8", "ui16", "ui32", "ui64"})
_WIDE = frozenset({"i64"})
#: Ops whose values are data even where a counter indexes them, and control flow (an inner loop is
#: looked at on its own); the counter flows through the rest, calls of outlined functions among them.
_INDEXING = frozenset(f"stablehlo.{name}" for name in ("dynamic_slice", "dynamic_update_slice", "gather", "scatter",
                                                       "while", "if", "case"))


def found(module: ir.Module) -> bool:
    """Whether a loop body computes, from a scalar integer it carries (its counter), a value of a
    narrow or unsigned integer type."""
    return any(_narrowed(loop) for loop in ops_where(module, lambda op: op.name == "stablehlo.while"))


def _narrowed(loop: ir.Operation) -> bool:
    body = loop.regions[1].blocks[0]
    derived = {arg for arg in body.arguments if _element(arg) in _WIDE and not arg.type.shape}
    narrow = []

    def visit(op):
        if op.name not in _INDEXING and any(operand in derived for operand in op.operands):
            for result in op.results:
                element = _element(result)
                if element in _NARROW:
                    narrow.append(op)
                    return ir.WalkResult.INTERRUPT
                if element in _WIDE:
                    derived.add(result)
        return ir.WalkResult.ADVANCE
    for op in body.operations:
        op.operation.walk(visit)
        if narrow:
            return True
    return False


def _element(value: ir.Value) -> str | None:
    return str(value.type.element_type) if isinstance(value.type, ir.RankedTensorType) else None
