"""Builders of Enzyme's ops on a function of the module: reverse and forward derivatives
(`enzyme.autodiff`, `enzyme.fwddiff`) and batching (`enzyme.batch`), lowered by the pass pipeline.

Activities are Enzyme's names without the `enzyme_` prefix: "active", "const", "dup", and
"activenoneed", "constnoneed", "dupnoneed" for a result whose primal value is not wanted.
"""

from __future__ import annotations

from collections.abc import Sequence

from jaxlib.mlir import ir

from solvent.ops.base import create, i64_array


def _activity(name: str) -> ir.Attribute:
    return ir.Attribute.parse(f"#enzyme<activity<enzyme_{name}>>")


def _differentiate(name: str, fn: str, operands, result_types, activity, returns) -> list[ir.Value]:
    attributes = {"fn": ir.FlatSymbolRefAttr.get(fn), "activity": ir.ArrayAttr.get([_activity(a) for a in activity]),
                  "ret_activity": ir.ArrayAttr.get([_activity(r) for r in returns])}
    return list(create(name, operands, result_types, attributes).results)


def autodiff(fn: str, operands: Sequence[ir.Value], result_types: Sequence[ir.Type], activity: Sequence[str],
             returns: Sequence[str]) -> list[ir.Value]:
    """Reverse mode of `@fn`: `operands` are its arguments then one cotangent per "active" result;
    the results are the wanted primal results, then one gradient per "active" argument."""
    return _differentiate("enzyme.autodiff", fn, operands, result_types, activity, returns)


def fwddiff(fn: str, operands: Sequence[ir.Value], result_types: Sequence[ir.Type], activity: Sequence[str],
            returns: Sequence[str]) -> list[ir.Value]:
    """Forward mode of `@fn`: each "dup" argument is followed by its tangent in `operands`; each
    result gives its primal value unless "noneed", then its tangent if "dup"."""
    return _differentiate("enzyme.fwddiff", fn, operands, result_types, activity, returns)


def batch(fn: str, operands: Sequence[ir.Value], result_types: Sequence[ir.Type], size: int) -> list[ir.Value]:
    """`@fn` mapped over a new leading axis of `size` on every operand and result."""
    attributes = {"fn": ir.FlatSymbolRefAttr.get(fn), "batch_shape": i64_array([size])}
    return list(create("enzyme.batch", operands, result_types, attributes).results)
