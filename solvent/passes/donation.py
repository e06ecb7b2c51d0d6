"""Donation: each mutated input aliased to the output that holds its new value, so that XLA
writes that value into the input's own buffer (XLA's concern, kept out of `code_hlo`)."""

from __future__ import annotations

from jaxlib.mlir import ir

from solvent.ir.module import find_function


def alias(module: ir.Module, aliases: dict[int, int]) -> bool:
    """Mark `main`'s input i as `tf.aliasing_output` k for each i -> k of `aliases`, in place;
    False when there is none (nothing changed)."""
    if not aliases:
        return False
    main = find_function(module, "main")
    with module.context:
        attributes = list(main.arg_attrs) if "arg_attrs" in main.attributes else [
            ir.DictAttr.get({}) for _ in main.type.inputs]
        for i, k in aliases.items():
            entries = {a.name: a.attr for a in ir.DictAttr(attributes[i])}
            entries["tf.aliasing_output"] = ir.IntegerAttr.get(ir.IntegerType.get_signless(32), k)
            attributes[i] = ir.DictAttr.get(entries)
        main.attributes["arg_attrs"] = ir.ArrayAttr.get(attributes)
    return True
