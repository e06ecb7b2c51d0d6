"""Reductions of floats by maximum or minimum written as the test they are, so that NaN wins.

XLA:CPU reduces 4,096 floats or more by its maximum or minimum in a way that drops NaN: np.max of
ones with one NaN gave 1.0, or -inf where the NaN came last; np.max(x, axis=1) of 64 rows did the
same (JAX's max on CPU does too; openxla/xla#21461 is of the kind). NumPy's max is NaN where any
element is. The same reducer written as `select(a != a or a > b, a, b)` keeps NaN, at up to 1.5x
NumPy's time over millions of elements (np.max of 10^7: 7.6 ms, NumPy 5.6). It runs last, on the
module XLA compiles: Enzyme differentiates only reductions by maximum itself.

XLA's partitioner all-reduces only reducers it knows, and the all-reduce by maximum drops NaN too
(np.max of a sharded 16 x 8 array with NaN gave 127.0). A module sharded over several devices keeps
its reduction and is told of NaN by a second one, `flag`'s.
"""

from __future__ import annotations

import numpy as np

from jaxlib.mlir import ir

from solvent.ir.module import ops_where
from solvent.ops import elementwise as ew
from solvent.ops.base import dtype_of, is_float
from solvent.ops.reduction import reduce

_REDUCTIONS = ("stablehlo.reduce", "stablehlo.reduce_window")
#: The reducer's op -> the comparison that makes its left operand win.
_WINS = {"stablehlo.maximum": "GT", "stablehlo.minimum": "LT"}


def _extremum(op: ir.Operation, kinds=_REDUCTIONS) -> ir.Operation | None:
    """The maximum or minimum of floats that is the whole body of a one-result reduction."""
    if op.name not in kinds or len(op.results) != 1:
        return None
    body = op.regions[0].blocks[0]
    ops = list(body.operations)
    if len(ops) != 2 or ops[0].name not in _WINS or not is_float(dtype_of(ops[0].results[0])):
        return None
    return ops[0] if list(ops[0].operands) == list(body.arguments) else None


def rewrite(module: ir.Module) -> bool:
    """Rewrite every such reducer in `module`; whether any was."""
    found = [e for e in map(_extremum, ops_where(module, lambda op: op.name in _REDUCTIONS)) if e is not None]
    with module.context:
        for extremum in found:
            a, b = extremum.operands
            with extremum.location, ir.InsertionPoint(extremum):
                wins = ew.binary("or", ew.compare("NE", a, a), ew.compare(_WINS[extremum.name], a, b))
                extremum.results[0].replace_all_uses_with(ew.select(wins, a, b))
            extremum.erase()
    return bool(found)


def flag(module: ir.Module) -> bool:
    """Make each reduction of floats by maximum or minimum in a sharded `module`, of `x` from
    `init`, NaN where `x` or `init` holds one: a second reduction, by maximum of `x != x` as
    integers, says where (the partitioner all-reduces it exactly). Whether any was."""
    found = ops_where(module, lambda op: _extremum(op, ("stablehlo.reduce",)) is not None)
    with module.context:
        for op in found:
            (x, init), dims, kept = op.operands, list(ir.DenseI64ArrayAttr(op.attributes["dimensions"])), op.result
            with op.location, ir.InsertionPoint.after(op):
                x_nan, init_nan = (ew.convert(ew.compare("NE", v, v), np.int8) for v in (x, init))
                nan = reduce([x_nan], [init_nan], dims, lambda a, b: [ew.binary("maximum", a, b)])[0]
                result = ew.select(ew.compare("NE", nan, ew.const(nan, 0)), ew.const(kept, np.nan), kept)
            kept.replace_all_uses_except(result, result.owner.operation)
    return bool(found)
