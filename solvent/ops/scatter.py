"""`stablehlo.scatter` of slices at integer index vectors (for ufunc.at and index writes)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo

from solvent.ir.types import tensor_type
from solvent.ops.base import check, create, dtype_of, shape_of
from solvent.ops.region import fill_region


def scatter(x: ir.Value | Sequence[ir.Value], indices: ir.Value, updates: ir.Value | Sequence[ir.Value],
            indexed_dims: Sequence[int], combine: Callable, unique: bool = False):
    """Combine `updates[k..., ...]` into `x` at `x[indices[k..., :]]` over `indexed_dims`.

    `indices` has shape (*batch, len(indexed_dims)); `updates` has shape (*batch, *rest)
    where rest are `x`'s dimensions not in `indexed_dims`. Repeated indices all apply,
    in an unspecified order; `unique=True` promises there are none. With sequences of
    operands and updates (variadic scatter), `combine` takes all old then all new
    elements and the result is a list.
    """
    xs = [x] if isinstance(x, ir.Value) else list(x)
    news = [updates] if isinstance(updates, ir.Value) else list(updates)
    shape = shape_of(xs[0])
    batch = len(shape_of(indices)) - 1
    check(shape_of(indices)[-1] == len(indexed_dims), "scatter: one index per indexed dimension")
    window = [d for d in range(len(shape)) if d not in indexed_dims]
    numbers = stablehlo.ScatterDimensionNumbers.get(
        update_window_dims=list(range(batch, batch + len(window))), inserted_window_dims=sorted(indexed_dims),
        input_batching_dims=[], scatter_indices_batching_dims=[],
        scattered_dims_to_operand_dims=list(indexed_dims), index_vector_dim=batch)
    attributes = {"scatter_dimension_numbers": numbers, "unique_indices": ir.BoolAttr.get(unique)}
    op = create("stablehlo.scatter", [*xs, indices, *news], [tensor_type(shape, dtype_of(v)) for v in xs],
                attributes, regions=1)
    fill_region(op, 0, [dtype_of(v) for v in xs] * 2, combine)
    return op.result if isinstance(x, ir.Value) else list(op.results)
