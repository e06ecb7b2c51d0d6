"""Building, locating, verifying and printing one StableHLO module."""

from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import func, stablehlo

from solvent.ir.context import context


def location(where: tuple[str, int] | None) -> ir.Location:
    """An MLIR file location for the user's (file, line), or unknown."""
    if where is None:
        return ir.Location.unknown(context())
    return ir.Location.file(where[0], where[1], 0, context())


def new_module() -> ir.Module:
    with context(), ir.Location.unknown():
        return ir.Module.create()


def verify(module: ir.Module) -> None:
    """Raise MLIRError if the module is not valid StableHLO."""
    module.operation.verify()


def to_text(module: ir.Module, debug_info: bool = True) -> str:
    """The module as MLIR text, with the user's file:line locations when `debug_info`."""
    return module.operation.get_asm(enable_debug_info=debug_info)


def parse(text: str) -> ir.Module:
    with context():
        return ir.Module.parse(text)


def defining_op(value: ir.Value) -> ir.Operation | None:
    """The operation whose result `value` is; None for a block argument."""
    owner = value.owner
    owner = owner.operation if hasattr(owner, "operation") else owner
    return owner if isinstance(owner, ir.Operation) else None


def dense_constant(op: ir.Operation) -> ir.DenseElementsAttr | None:
    """The value of a `stablehlo.constant`, None for a complex one: jaxlib's bindings cannot read a
    complex dense attribute (the cast raises, and reading a named attribute aborts the process)."""
    if ir.RankedTensorType(op.results[0].type).element_type.typeid == ir.ComplexType.static_typeid:
        return None
    return ir.DenseElementsAttr(op.attributes["value"])


def constant_integer(value: ir.Value) -> int | None:
    """The number a 0-d integer `stablehlo.constant` holds; None for any other value."""
    op = defining_op(value)
    if op is None or op.name != "stablehlo.constant" or ir.RankedTensorType(value.type).shape:
        return None
    attribute = dense_constant(op)
    try:
        return None if attribute is None else int(np.asarray(ir.DenseIntElementsAttr(attribute))[()])
    except ValueError:  # a float constant
        return None


def splat_element(op: ir.Operation | None) -> ir.Attribute | None:
    """The one value of every element of a `stablehlo.constant` op, as an attribute; None for any other op."""
    attribute = dense_constant(op) if op is not None and op.name == "stablehlo.constant" else None
    return attribute.get_splat_value() if attribute is not None and attribute.is_splat else None


def _splat_of(value: ir.Value) -> ir.Attribute | None:
    """The one element a splat `stablehlo.constant`, or a broadcast of one, holds; None for any other value."""
    op = defining_op(value)
    if op is not None and op.name == "stablehlo.broadcast_in_dim":
        op = defining_op(op.operands[0])
    return splat_element(op)


def splat_float(value: ir.Value) -> float | None:
    """The one float a splat constant (or a broadcast of one) holds; None for any other value."""
    element = _splat_of(value)
    return element.value if isinstance(element, ir.FloatAttr) else None


def splat_integer(value: ir.Value) -> int | None:
    """The one integer a splat constant (or a broadcast of one) holds; None for any other value."""
    element = _splat_of(value)
    return ir.IntegerAttr(element).value if isinstance(element, ir.IntegerAttr) else None


def named_attributes(op: ir.Operation) -> dict:
    """An op's attributes by name, to create its like (iterating `op.attributes` gives names only)."""
    attributes = op.attributes
    return {named.name: named.attr for named in (attributes[i] for i in range(len(attributes)))}


def comparison_direction(op: ir.Operation) -> str:
    """"LT", "EQ", ... of a `stablehlo.compare`."""
    return str(stablehlo.ComparisonDirectionAttr(op.attributes["comparison_direction"]).value)


def same_value(a: ir.Value, b: ir.Value, depth: int = 8) -> bool:
    """Whether `a` and `b` are one value or the same pure op of the same operands, to `depth` ops
    deep: what CSE would merge. The tracer computes `A[i, j]`'s index anew at every use."""
    if a == b:
        return True
    x, y = defining_op(a), defining_op(b)
    if x is None or y is None or depth == 0 or x.name != y.name or len(x.regions) or len(y.regions):
        return False
    if a.type != b.type or len(x.results) != 1 or len(y.results) != 1 or len(x.operands) != len(y.operands):
        return False
    if x.name == "stablehlo.constant" and dense_constant(x) is None:  # complex: attributes not readable
        return False
    if {k: x.attributes[k] for k in x.attributes} != {k: y.attributes[k] for k in y.attributes}:
        return False
    return all(same_value(p, q, depth - 1) for p, q in zip(x.operands, y.operands))


def ancestors(op: ir.Operation):
    """The ops whose regions hold `op`, innermost first, up to the module."""
    parent = op.parent
    while parent is not None and parent.name != "builtin.module":
        yield parent
        parent = parent.parent


def holder(op: ir.Operation, block: ir.Block) -> ir.Operation | None:
    """The op of `block` that is `op` or holds it in its regions; None where none does."""
    return next((a.operation for a in (op, *ancestors(op)) if a.operation.block == block), None)


def in_loop(op: ir.Operation) -> bool:
    """Whether `op` lies inside a stablehlo.while."""
    return any(parent.name == "stablehlo.while" for parent in ancestors(op))


def ops_where(root, predicate) -> list:
    """The ops under `root` (a module or an op, nested ones included) for which `predicate(op)`
    holds, in walk order: what a rewrite then replaces."""
    found = []

    def visit(op):
        if predicate(op):
            found.append(op)
        return ir.WalkResult.ADVANCE
    (root.operation if isinstance(root, ir.Module) else root).walk(visit)
    return found


def find_function(module: ir.Module, name: str) -> func.FuncOp:
    for op in module.body.operations:
        if isinstance(op, func.FuncOp) and op.sym_name.value == name:
            return op
    raise KeyError(name)
