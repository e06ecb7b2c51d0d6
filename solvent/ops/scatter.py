"""`stablehlo.scatter` of slices at integer index vectors (for ufunc.at and index writes)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo

from solvent.ir.types import tensor_type
from solvent.ops.base import create, dtype_of, shape_of
from solvent.ops.region import fill_region


def scatter(x: ir.Value, indices: ir.Value, updates: ir.Value, indexed_dims: Sequence[int],
            combine: Callable) -> ir.Value:
    """Combine `updates[k, ...]` into `x` at `x[indices[k, :]]` over `indexed_dims`.

    `indices` has shape (K, len(indexed_dims)); `updates` has shape (K, *rest) where
    rest are `x`'s dimensions not in `indexed_dims`. Repeated indices all apply.
    """
    rank = len(shape_of(x))
    window = [d for d in range(rank) if d not in indexed_dims]
    numbers = stablehlo.ScatterDimensionNumbers.get(
        update_window_dims=list(range(1, 1 + len(window))), inserted_window_dims=list(indexed_dims),
        input_batching_dims=[], scatter_indices_batching_dims=[],
        scattered_dims_to_operand_dims=list(indexed_dims), index_vector_dim=1)
    op = create("stablehlo.scatter", [x, indices, updates], [tensor_type(shape_of(x), dtype_of(x))],
                {"scatter_dimension_numbers": numbers}, regions=1)
    fill_region(op, 0, [dtype_of(x)] * 2, combine)
    return op.result
