"""`stablehlo.gather` of slices at integer index vectors (fancy-index reads, np.take)."""

from __future__ import annotations

from collections.abc import Sequence

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo

from solvent.ops.base import check, dtype_of, i64_array, one, shape_of


def gather(x: ir.Value, indices: ir.Value, indexed_dims: Sequence[int]) -> ir.Value:
    """`x[indices[..., 0], indices[..., 1], ...]` over `indexed_dims`, whole along the other dimensions.

    `indices` has shape (*batch, len(indexed_dims)); the result has shape
    (*batch, *rest) where rest are `x`'s dimensions not in `indexed_dims`, in order.
    Indices out of bounds are clamped into bounds, as the spec says.
    """
    shape = shape_of(x)
    batch = shape_of(indices)[:-1]
    check(shape_of(indices)[-1] == len(indexed_dims), "gather: one index per indexed dimension")
    rest = [d for d in range(len(shape)) if d not in indexed_dims]
    numbers = stablehlo.GatherDimensionNumbers.get(
        offset_dims=list(range(len(batch), len(batch) + len(rest))), collapsed_slice_dims=sorted(indexed_dims),
        operand_batching_dims=[], start_indices_batching_dims=[], start_index_map=list(indexed_dims),
        index_vector_dim=len(batch))
    sizes = [1 if d in indexed_dims else n for d, n in enumerate(shape)]
    return one("stablehlo.gather", [x, indices], [*batch, *(shape[d] for d in rest)], dtype_of(x),
               dimension_numbers=numbers, slice_sizes=i64_array(sizes))
