"""A module's Shardy shardings rewritten as GSPMD's `mhlo.sharding` attributes, for
`shardy_passes="to_mhlo_shardings"`: XLA then partitions with GSPMD instead of Shardy.

Reactant runs Shardy's own export passes for this; the enzyme-ad build solvent
uses does not register them, so the few forms solvent writes (`sdy.sharding`
on main's arguments and results, `sdy.sharding_constraint`, `sdy.mesh`) are
translated here, each through jax's NamedSharding -> HloSharding conversion.
"""

from __future__ import annotations

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import sdy

from solvent.ir.context import context
from solvent.ir.module import find_function, ops_where
from solvent.runtime import sharding as layouts
from solvent.runtime.sharding import Mesh, NamedSharding


def export(module: ir.Module, mesh: Mesh) -> None:
    """Every `sdy` sharding of `module` as `mhlo.sharding`, and no `sdy` op left, in place.

    Example (what changes)::

        %arg0: tensor<8xf64> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>}
        %arg0: tensor<8xf64> {mhlo.sharding = "{devices=[4]<=[4]}"}
    """
    with context(), ir.Location.unknown():
        main = find_function(module, "main")
        for key in ("arg_attrs", "res_attrs"):
            if key in main.attributes:
                main.attributes[key] = ir.ArrayAttr.get(
                    [_entries(ir.DictAttr(a), mesh) for a in main.attributes[key]])
        for op in ops_where(module, lambda op: op.name == "sdy.sharding_constraint"):
            _to_custom_call(op, mesh)
        for op in list(module.body.operations):
            if op.operation.name == "sdy.mesh":
                op.erase()


def hlo_sharding(attribute: ir.Attribute, mesh: Mesh, ndim: int) -> str:
    """The HLO sharding text of a `#sdy.sharding<...>` attribute on `mesh`."""
    tensor = sdy.TensorShardingAttr(attribute)
    axes = []
    for dimension in tensor.dimension_shardings:
        refs = [sdy.AxisRefAttr(a) for a in sdy.DimensionShardingAttr(dimension).axes]
        if any(ref.sub_axis_info is not None for ref in refs):
            raise NotImplementedError(f"sub-axis shardings ({attribute}) have no mhlo.sharding form here; "
                                      "use shardy_passes='none'")
        axes.append([ref.name for ref in refs])
    spec = layouts.partition_spec_of(axes)
    return layouts.hlo_sharding(NamedSharding(mesh, spec), ndim)


def _entries(attributes: ir.DictAttr, mesh: Mesh) -> ir.DictAttr:
    entries = {a.name: a.attr for a in attributes}
    if "sdy.sharding" in entries:
        attribute = entries.pop("sdy.sharding")
        ndim = len(sdy.TensorShardingAttr(attribute).dimension_shardings)
        entries["mhlo.sharding"] = ir.StringAttr.get(hlo_sharding(attribute, mesh, ndim))
    return ir.DictAttr.get(entries)


def _to_custom_call(op, mesh: Mesh) -> None:
    """`sdy.sharding_constraint` as GSPMD spells it: `stablehlo.custom_call @Sharding`."""
    value = op.operands[0]
    ndim = len(ir.RankedTensorType(value.type).shape)
    text = hlo_sharding(op.attributes["sharding"], mesh, ndim)
    with ir.InsertionPoint(op), op.location:
        call = ir.Operation.create("stablehlo.custom_call", results=[value.type], operands=[value], attributes={
            "call_target_name": ir.StringAttr.get("Sharding"), "mhlo.sharding": ir.StringAttr.get(text)})
    op.results[0].replace_all_uses_with(call.result)
    op.erase()
