"""Broadcasts that enzyme's while-loop batch fission precomputes for every iteration of a loop
that stays a loop, and the module that keeps them inside it.

`greedy_while_loop_batch_fission` hoists out of a loop what depends only on its index. Where
that removes the loop (syrk's rows become one matrix product) it is the point; where the loop
stays, a scalar broadcast of the index (`u = u * 0.5 + i`) becomes a table of the trip count
times the array, written once and sliced every iteration (50 steps over 90,000 elements: 6x
slower than NumPy). `pipelines.run` therefore looks for large such tables in its output and, where it
finds one, optimizes again the module with each scalar a loop body broadcasts passed through an
optimization barrier, which batch fission does not look through.
"""

from __future__ import annotations

import math

from jaxlib.mlir import ir

from solvent.ir.context import context
from solvent.ir.module import defining_op, dense_constant, in_loop, ops_where, parse, to_text
from solvent.ops.base import create, dtype_of, shape_of

#: A value computed only from at most 1/TABLE_GROWTH of its size (iotas, broadcasts, constants)
#: and sliced by a loop is taken for such a table; one of fewer than TABLE_BYTES costs little to
#: write and read, where keeping its broadcasts in the loop may cost more (the loops of
#: covariance and correlation, partly batched through such tables of masks: 1.0 -> 5.1 ms).
TABLE_GROWTH = 64
TABLE_BYTES = 1 << 22


def precomputed(module: ir.Module) -> bool:
    """Whether a loop of `module` slices a table of per-iteration broadcasts made before it."""
    def slices_a_table(op):
        if op.name == "stablehlo.dynamic_slice" and in_loop(op) and len(shape_of(op.operands[0])) > 1:
            source = defining_op(op.operands[0])
            return source is not None and not in_loop(source) and _table(op.operands[0]) and \
                _bytes(op.operands[0]) >= TABLE_BYTES
        return False
    return bool(ops_where(module, slices_a_table))


def _bytes(v: ir.Value) -> int:
    return math.prod(shape_of(v)) * dtype_of(v).itemsize


def _table(v: ir.Value, depth: int = 6) -> bool:
    """Whether `v` is computed from iotas, constant splats and broadcasts of far smaller values only."""
    op = defining_op(v)
    if op is None or depth == 0:
        return False
    if op.name == "stablehlo.iota":
        return True
    if op.name == "stablehlo.broadcast_in_dim":
        return math.prod(shape_of(op.results[0])) >= TABLE_GROWTH * math.prod(shape_of(op.operands[0]))
    if op.name == "stablehlo.constant":
        attr = dense_constant(op)
        return attr is not None and attr.is_splat
    return len(op.results) == 1 and bool(op.operands) and not op.regions and all(
        shape_of(x) == shape_of(v) and _table(x, depth - 1) for x in op.operands)


def kept_in_loops(module_text: str) -> str:
    """The module with every non-constant scalar that a loop body broadcasts passed through an
    optimization barrier first."""
    module = parse(module_text)

    def broadcasts_a_variable(op):
        if op.name == "stablehlo.broadcast_in_dim" and not shape_of(op.operands[0]) and in_loop(op):
            source = defining_op(op.operands[0])
            return source is None or source.name != "stablehlo.constant"
        return False
    with context():
        for op in ops_where(module, broadcasts_a_variable):
            with ir.InsertionPoint(op), op.location:
                barrier = create("stablehlo.optimization_barrier", [op.operands[0]], [op.operands[0].type])
            op.operands[0] = barrier.results[0]
    return to_text(module)
