"""`stablehlo.constant` and `stablehlo.iota`."""

from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir

from solvent.ir.types import tensor_type
from solvent.ops.base import create, one


def constant(array) -> ir.Value:
    """A dense constant holding a host NumPy array (any supported dtype)."""
    array = np.asarray(array, order="C")
    kind = tensor_type(array.shape, array.dtype)
    if array.dtype == np.bool_:
        attr = ir.DenseElementsAttr.get(array)  # i1 elements: MLIR packs NumPy bools itself
    else:
        attr = ir.DenseElementsAttr.get(array, type=kind.element_type, shape=list(array.shape))
    return create("stablehlo.constant", [], [kind], {"value": attr}).result


def splat(value, shape, dtype) -> ir.Value:
    """A constant of `shape` holding `value` everywhere (one element stored, whatever the shape)."""
    one_element = np.array([value], dtype)
    kind = tensor_type(tuple(shape), one_element.dtype)
    attr = ir.DenseElementsAttr.get(one_element, type=kind.element_type, shape=list(shape))
    return create("stablehlo.constant", [], [kind], {"value": attr}).result


def iota(shape, dtype, dimension: int) -> ir.Value:
    return one("stablehlo.iota", [], shape, dtype,
               iota_dimension=ir.IntegerAttr.get(ir.IntegerType.get_signless(64), dimension))
