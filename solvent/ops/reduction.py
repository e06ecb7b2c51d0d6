"""`stablehlo.reduce` and `stablehlo.reduce_window` with a scalar body."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from jaxlib.mlir import ir

from solvent.ir.types import tensor_type
from solvent.ops.base import check, create, dtype_of, i64_array, shape_of
from solvent.ops.region import fill_region
from solvent.ops.shape import broadcast_in_dim


def reduce(operands: Sequence[ir.Value], inits: Sequence[ir.Value], dims: Sequence[int],
           body: Callable) -> list[ir.Value]:
    """Reduce `operands` over `dims`; `body(*accumulators, *elements)` returns new accumulators."""
    check(len(operands) == len(inits), "reduce: one init per operand")
    shape = [n for i, n in enumerate(shape_of(operands[0])) if i not in dims]
    if any(shape_of(operands[0])[d] == 0 for d in dims):
        # Nothing to fold: the spec's result is the inits. Emitted directly because Enzyme-HLO
        # folds a reduce of an empty broadcast constant to the constant instead.
        return [broadcast_in_dim(init, shape, []) for init in inits]
    dtypes = [dtype_of(v) for v in operands]
    op = create("stablehlo.reduce", [*operands, *inits], [tensor_type(shape, d) for d in dtypes],
                {"dimensions": i64_array(sorted(dims))}, regions=1)
    fill_region(op, 0, dtypes * 2, body)
    return list(op.results)


def reduce_window(x: ir.Value, init: ir.Value, window: Sequence[int], padding: Sequence[tuple[int, int]],
                  body: Callable) -> ir.Value:
    """Sliding-window reduction with unit strides (used for cumulative ufuncs)."""
    shape = [n + lo + hi - w + 1 for n, w, (lo, hi) in zip(shape_of(x), window, padding)]
    pad = ir.DenseElementsAttr.get(np.array(padding, dtype=np.int64).reshape(len(window), 2))
    op = create("stablehlo.reduce_window", [x, init], [tensor_type(shape, dtype_of(x))],
                {"window_dimensions": i64_array(window), "padding": pad}, regions=1)
    fill_region(op, 0, [dtype_of(x)] * 2, body)
    return op.result
