"""A block that the branches of a traced `if` write at one place (`A[i, j] = ...` in each, or in
one): the branches give the block and one write after the case puts it in the array.

XLA updates an array in place inside a conditional's branch only by copying it around the
conditional: Nussinov's `if` in its inner loop copied its 500x500 table three times per cell.
"""

from __future__ import annotations

import math

from jaxlib.mlir import ir

from solvent.ir.module import ancestors, defining_op, same_value
from solvent.ops import elementwise as ew, shape as shapes
from solvent.ops.base import shape_of

#: Ops copied out of a branch to compute a write's position before the case: pure index arithmetic.
_PURE_SCALAR = {"stablehlo." + name for name in (
    "constant", "add", "subtract", "multiply", "divide", "remainder", "negate", "abs", "maximum", "minimum",
    "clamp", "select", "compare", "convert", "reshape", "and", "or", "not", "broadcast_in_dim", "dynamic_slice",
    "slice")}


class Hoisted:
    """Where the writing branches put their one block into `before`: its starts, computed
    before the case, and its shape."""

    def __init__(self, before: ir.Value, starts: list[ir.Value], sizes: tuple[int, ...]):
        self.before, self.starts, self.sizes = before, starts, sizes

    def given_by(self, written: ir.Value | None) -> ir.Value:
        """What a branch yields for the array: its block (read from the array where it did not write)."""
        if written is None:  # (at starts clamped as the op would clamp them: see `_read_back`)
            return shapes.dynamic_slice(self.before, self._read_back(), self.sizes)
        return defining_op(written).operands[1]

    def _read_back(self) -> list[ir.Value]:
        """The starts, clamped into the array as the ops clamp them. Where no branch writes, the block
        is read and written back at a start that may lie out of range (`if i < n - 1: cp[i] = ...` at
        i = n - 1); patterns that take such a start as given read another element than the op
        does (and the element written at n - 2 came back as it was before the loop)."""
        return [ew.clamp(ew.const(s, 0), s, ew.const(s, n - size))
                for s, n, size in zip(self.starts, shape_of(self.before), self.sizes)]

    def write(self, block: ir.Value) -> ir.Value:
        return shapes.dynamic_update_slice(self.before, block, self.starts)


def hoist(before: ir.Value, written: list[ir.Value | None], branches: ir.Operation) -> Hoisted | None:
    """The one block every writing branch of `branches` (the op whose regions hold them) writes
    into `before` at the same place, or None: no branch writes, one writes elsewhere or more
    than one block, or a position cannot be computed outside the branches."""
    found = None
    for value in written:
        if value is None:
            continue
        write = defining_op(value)
        if write is None or write.name != "stablehlo.dynamic_update_slice":
            return None
        update, starts = write.operands[1], list(write.operands[2:])
        if shapes.under_same_block(write.operands[0], update, starts, stop=before) != before:
            return None
        if found is None:
            found = (shape_of(update), starts)
        elif found[0] != shape_of(update) or not all(same_value(a, b) for a, b in zip(found[1], starts)):
            return None
    if found is None:
        return None
    copies: list = []
    outside = [_outside(start, branches, copies) for start in found[1]]
    return None if any(s is None for s in outside) else Hoisted(before, outside, found[0])


def _outside(value: ir.Value, branches: ir.Operation, copies: list) -> ir.Value | None:
    """`value` as computed before `branches`: itself where made outside them, else a copy (at the
    insertion point) of its pure scalar computation; None where it cannot be copied."""
    op = defining_op(value)
    if not _within(op if op is not None else value.owner.owner, branches):
        return value
    if op is None or op.name not in _PURE_SCALAR or math.prod(shape_of(value)) != 1:
        return None
    for original, copy in copies:
        if original == value:
            return copy
    operands = [_outside(v, branches, copies) for v in op.operands]
    if any(v is None for v in operands):
        return None
    copy = op.clone(ip=ir.InsertionPoint.current)
    for k, v in enumerate(operands):
        copy.operands[k] = v
    copies.append((value, copy.results[0]))
    return copy.results[0]


def _within(op, branches: ir.Operation) -> bool:
    return any(o.operation == branches.operation for o in (op, *ancestors(op)))
