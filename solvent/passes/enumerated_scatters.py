"""Scatters whose indices, known when compiling, enumerate every element of their operand in
order: a reshape of the updates (selected by a mask where the indices of the slots it leaves out
point out of bounds), not a scatter.

`times[rows[escaped], cols[escaped]] = i` over a working set held in place (`rows`, `cols` from
`np.mgrid`, raveled) is a scatter at `select(escaped, [rows, cols], out of bounds)`. XLA's CPU
scatter writes one element at a time (65,536 of them: 0.4 ms, where the select is 10 us), and
the optimizer does not see through it: the indices are only constant once it has moved them out
of the loop, so this runs after it.
"""

from __future__ import annotations

import math

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo

from solvent.ir.context import context
from solvent.ir.module import comparison_direction, defining_op, dense_constant, ops_where
from solvent.ops import elementwise as ew, shape as ops
from solvent.ops.base import shape_of

#: The most elements of indices worked out while compiling.
LIMIT = 1 << 22

_COMPARE = {"EQ": np.equal, "NE": np.not_equal, "LT": np.less, "LE": np.less_equal, "GT": np.greater,
            "GE": np.greater_equal}
_BINARY = {"stablehlo.add": np.add, "stablehlo.subtract": np.subtract, "stablehlo.multiply": np.multiply,
           "stablehlo.and": np.logical_and, "stablehlo.or": np.logical_or}


def rewrite(module: ir.Module) -> bool:
    """Every such scatter of `module` as a reshape (and select), in place; False when there was none."""
    found = [(op, form) for op in ops_where(module, lambda op: op.name == "stablehlo.scatter")
             if (form := _enumerating(op)) is not None]
    with context():
        for op, (mask,) in found:
            operand, _, updates = op.operands
            shape = shape_of(operand)
            with ir.InsertionPoint(op), op.location:
                new = ops.reshape(updates, shape)
                if mask is not None:
                    new = ew.select(ops.reshape(mask, shape), new, operand)
            op.results[0].replace_all_uses_with(new)
            op.erase()
    return bool(found)


def _enumerating(op):
    """For a scatter that replaces each element of its operand by the update at its own position
    in row-major order: (None,) when every update counts, (mask,) when the indices are
    `select(broadcast(mask), enumeration, out of bounds)`; None for any other scatter."""
    if len(op.operands) != 3 or not _replaces(op):
        return None
    operand, indices, updates = op.operands
    shape, count = shape_of(operand), math.prod(shape_of(operand))
    if not shape or count * len(shape) > LIMIT:
        return None
    numbers = stablehlo.ScatterDimensionNumbers(op.attributes["scatter_dimension_numbers"])
    if (list(numbers.update_window_dims) or list(numbers.inserted_window_dims) != list(range(len(shape)))
            or list(numbers.scattered_dims_to_operand_dims) != list(range(len(shape)))
            or numbers.index_vector_dim != 1 or list(numbers.input_batching_dims)
            or tuple(shape_of(indices)) != (count, len(shape)) or tuple(shape_of(updates)) != (count,)):
        return None
    enumeration = np.stack(np.unravel_index(np.arange(count), shape), axis=1)
    known = _known(indices)
    if known is not None:
        return (None,) if np.array_equal(known, enumeration) else None
    select = defining_op(indices)
    if select is None or select.name != "stablehlo.select":
        return None
    pred, chosen, other = select.operands
    chosen, other, mask = _known(chosen), _known(other), _row_mask(pred, count)
    if chosen is None or other is None or mask is None or not np.array_equal(chosen, enumeration):
        return None
    outside = np.any((other < 0) | (other >= np.array(shape)), axis=1)
    return (mask,) if outside.all() else None


def _replaces(op) -> bool:
    """Whether the scatter's update computation returns the new value as it is."""
    block = op.regions[0].blocks[0]
    last = list(block.operations)[-1]
    return len(block.arguments) == 2 and len(last.operands) == 1 and last.operands[0] == block.arguments[1]


def _row_mask(pred: ir.Value, count: int) -> ir.Value | None:
    """The (count,) boolean a (count, r) predicate broadcasts along its rows, or None."""
    op = defining_op(pred)
    if op is None or op.name != "stablehlo.broadcast_in_dim":
        return None
    source = op.operands[0]
    dims = list(ir.DenseI64ArrayAttr(op.attributes["broadcast_dimensions"]))
    return source if tuple(shape_of(source)) == (count,) and dims == [0] else None


def _known(value: ir.Value, depth: int = 8):
    """`value` as a NumPy array when constants and a few elementwise and shape ops compute it (what
    the optimizer leaves unfolded in large integer tables), else None."""
    op = defining_op(value)
    if op is None or depth == 0 or math.prod(shape_of(value)) > LIMIT:
        return None
    if op.name == "stablehlo.constant":
        attr = dense_constant(op)
        if attr is None:  # complex: never an index
            return None
        try:
            data = ir.DenseIntElementsAttr(attr)
        except ValueError:  # a float constant: never an index
            return None
        return np.full(shape_of(value), data[0]) if attr.is_splat else np.asarray(data).reshape(shape_of(value))
    operands = [_known(v, depth - 1) for v in op.operands]
    if any(x is None for x in operands):
        return None
    if op.name in _BINARY:
        return _BINARY[op.name](*operands)
    if op.name == "stablehlo.compare":
        return _COMPARE[comparison_direction(op)](*operands)
    if op.name == "stablehlo.select":
        return np.where(*operands)
    if op.name == "stablehlo.concatenate":
        return np.concatenate(operands, axis=ir.IntegerAttr(op.attributes["dimension"]).value)
    if op.name == "stablehlo.reshape":
        return operands[0].reshape(shape_of(value))
    if op.name == "stablehlo.broadcast_in_dim":
        dims = list(ir.DenseI64ArrayAttr(op.attributes["broadcast_dimensions"]))
        shape = shape_of(value)
        kept = [shape[d] if d in dims else 1 for d in range(len(shape))]
        source = np.transpose(operands[0], np.argsort(dims)) if dims else operands[0]
        return np.broadcast_to(source.reshape(kept), shape)
    return None
