"""`stablehlo.convolution` builders."""

from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo

from solvent.ir.types import tensor_type
from solvent.ops import elementwise as ew, shape as shape_ops
from solvent.ops.base import create, dtype_of, i64_array, is_complex, shape_of


def correlate_1d(a: ir.Value, v: ir.Value, left: int, right: int) -> ir.Value:
    """Cross-correlation of two 1-D values, `a` padded by `left`/`right` zeros: one `stablehlo.convolution`
    with one batch and one feature; complex ones as four real ones (XLA's CPU convolves no complex
    values, and a slice per coefficient made a module and a run time linear in `v`'s length)."""
    if is_complex(dtype_of(a)):
        (ar, ai), (vr, vi) = ((ew.unary("real", x), ew.unary("imag", x)) for x in (a, v))
        real = ew.binary("subtract", correlate_1d(ar, vr, left, right), correlate_1d(ai, vi, left, right))
        imag = ew.binary("add", correlate_1d(ar, vi, left, right), correlate_1d(ai, vr, left, right))
        return ew.binary("complex", real, imag)
    length = shape_of(a)[0] + left + right - shape_of(v)[0] + 1
    dims = stablehlo.ConvDimensionNumbers.get(
        input_batch_dimension=0, input_feature_dimension=1, input_spatial_dimensions=[2],
        kernel_output_feature_dimension=0, kernel_input_feature_dimension=1, kernel_spatial_dimensions=[2],
        output_batch_dimension=0, output_feature_dimension=1, output_spatial_dimensions=[2])
    one_attr = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 1)
    operands = [shape_ops.reshape(x, (1, 1, shape_of(x)[0])) for x in (a, v)]
    result = create("stablehlo.convolution", operands, [tensor_type((1, 1, length), dtype_of(a))], {
        "dimension_numbers": dims, "feature_group_count": one_attr, "batch_group_count": one_attr,
        "window_strides": i64_array([1]), "lhs_dilation": i64_array([1]), "rhs_dilation": i64_array([1]),
        "padding": ir.DenseElementsAttr.get(np.array([[left, right]], np.int64)),
        "window_reversal": ir.DenseBoolArrayAttr.get([False])}).result
    return shape_ops.reshape(result, (length,))
