"""Reshapes that only add or drop dimensions of size 1, moved below the elementwise ops that follow
them with constants: the ops then run on the shape their operand was made in.

Enzyme-JAX moves reshapes up through elementwise ops, so `dist3 = (np.sum(d * d, axis=-1) + 0.01)
** 1.5` read as `dist3[:, :, None]` computes the sum and the power on (n, n, 1). XLA:CPU lays that
out apart from the (n, n) sum and copies it, and then no longer fuses the all-pairs product around
it: an n-body step at n=1024 wrote its 25 MB difference array out and took 18.5 ms; with the
reshape below the power, 10.4 ms (jax.jit on the same code: 11.0). The Enzyme pattern itself stays:
without it the optimizer no longer batches covariance's and symm's loops (2-5x slower).
"""

from __future__ import annotations

from jaxlib.mlir import ir

from solvent.ir.module import defining_op, named_attributes, ops_where, splat_element
from solvent.ops.base import create, shape_of
from solvent.ops.elementwise import BINARY, UNARY

#: Elementwise ops that a reshape can move below when their other operands are splat constants.
_ELEMENTWISE = {f"stablehlo.{name}" for name in (*UNARY, *BINARY, "compare", "clamp", "convert")}


def _unit_reshape(op: ir.Operation) -> bool:
    if op.name != "stablehlo.reshape":
        return False
    before, after = shape_of(op.operands[0]), shape_of(op.results[0])
    return before != after and [n for n in before if n != 1] == [n for n in after if n != 1]


def _next(reshape: ir.Operation) -> ir.Operation | None:
    """The one elementwise op that uses the reshape, its other operands splat constants; or None."""
    uses = list(reshape.results[0].uses)
    if len(uses) != 1:
        return None
    user = uses[0].owner
    user = user.operation if hasattr(user, "operation") else user
    if user.name not in _ELEMENTWISE or len(user.results) != 1:
        return None
    others = [x for x in user.operands if x != reshape.results[0]]
    return user if all(splat_element(defining_op(x)) is not None for x in others) else None


def _reshaped_type(value: ir.Value, shape) -> ir.Type:
    return ir.RankedTensorType.get(list(shape), ir.RankedTensorType(value.type).element_type)


def _sink(reshape: ir.Operation, user: ir.Operation) -> ir.Operation:
    """`user` made on the reshape's operand (its constants re-made in that shape), reshaped after;
    returns the new reshape."""
    source, result = reshape.operands[0], reshape.results[0]
    shape = shape_of(source)
    with user.location, ir.InsertionPoint(user):
        operands = [source if x == result else create(
            "stablehlo.constant", [], [_reshaped_type(x, shape)],
            {"value": ir.DenseElementsAttr.get_splat(_reshaped_type(x, shape), splat_element(defining_op(x)))}).result
            for x in user.operands]
        made = create(user.name, operands, [_reshaped_type(user.results[0], shape)], named_attributes(user)).result
        moved = create("stablehlo.reshape", [made], [user.results[0].type])
    user.results[0].replace_all_uses_with(moved.result)
    user.erase()
    reshape.erase()
    return moved


def rewrite(module: ir.Module) -> bool:
    """Each unit reshape of `module` moved below the elementwise ops with constants after it;
    whether one moved."""
    moved = False
    with module.context:
        for reshape in ops_where(module, _unit_reshape):
            user = _next(reshape)
            while user is not None:
                reshape, moved = _sink(reshape, user), True
                user = _next(reshape)
    return moved
