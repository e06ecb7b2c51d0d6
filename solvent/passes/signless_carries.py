"""Loops carry unsigned integers as signless ones of the same width, before `enzyme-batch`.

Batching a `stablehlo.while` makes `arith.constant`s of its carried types, which MLIR refuses
for unsigned integers ("integer return type must be signless"): `solvent.vmap` of a function
counting in a `np.uint32` inside a loop, or drawing integers from a Generator (whose state is
uint64), failed to compile. Each such carry goes in and out of the loop, and into its regions,
through a `bitcast_convert` (no work: the same bits), so the ops inside see unsigned values as
before.
"""

from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir

from solvent.ir.context import context
from solvent.ir.module import ops_where, parse, to_text
from solvent.ops import elementwise as ew
from solvent.ops.base import dtype_of, is_unsigned


def signless(module_text: str) -> str:
    """`module_text` with every unsigned carry of every while loop signless (the text itself
    when there is none)."""
    if "xui" not in module_text and "<ui" not in module_text:
        return module_text
    module = parse(module_text)
    loops = ops_where(module, lambda op: op.name == "stablehlo.while" and _unsigned(op))
    if not loops:
        return module_text
    with context():
        for loop in loops:
            _rewrite(loop)
    return to_text(module)


def _unsigned(loop) -> list[int]:
    return [k for k, v in enumerate(loop.operands) if is_unsigned(dtype_of(v))]


def _signed(dtype) -> np.dtype:
    return np.dtype(f"i{np.dtype(dtype).itemsize}")


def _rewrite(loop) -> None:
    unsigned = _unsigned(loop)
    kinds = {k: dtype_of(loop.operands[k]) for k in unsigned}
    with loop.location:
        with ir.InsertionPoint(loop):
            for k in unsigned:
                loop.operands[k] = ew.bitcast(loop.operands[k], _signed(kinds[k]))
        for region in loop.regions:
            block = region.blocks[0]
            with ir.InsertionPoint.at_block_begin(block):
                for k in unsigned:
                    _retyped(block.arguments[k], kinds[k])
        returned = list(loop.regions[1].blocks[0].operations)[-1]  # the body's stablehlo.return
        with ir.InsertionPoint(returned):
            for k in unsigned:
                returned.operands[k] = ew.bitcast(returned.operands[k], _signed(kinds[k]))
        with ir.InsertionPoint.after(loop):
            for k in reversed(unsigned):
                _retyped(loop.results[k], kinds[k])


def _retyped(value: ir.Value, dtype) -> None:
    """`value` made signless, its users given its unsigned bits at the insertion point."""
    value.set_type(ir.RankedTensorType.get(ir.RankedTensorType(value.type).shape,
                                           ir.IntegerType.get_signless(8 * np.dtype(dtype).itemsize)))
    back = ew.bitcast(value, dtype)
    value.replace_all_uses_except(back, back.owner.operation)
