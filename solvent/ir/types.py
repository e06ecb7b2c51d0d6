"""Mapping between NumPy dtypes and MLIR element and tensor types."""

from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir

from solvent.errors import UnsupportedError

_ELEMENT_TYPES = {
    np.dtype(np.bool_): lambda: ir.IntegerType.get_signless(1),
    np.dtype(np.int8): lambda: ir.IntegerType.get_signless(8),
    np.dtype(np.int16): lambda: ir.IntegerType.get_signless(16),
    np.dtype(np.int32): lambda: ir.IntegerType.get_signless(32),
    np.dtype(np.int64): lambda: ir.IntegerType.get_signless(64),
    np.dtype(np.uint8): lambda: ir.IntegerType.get_unsigned(8),
    np.dtype(np.uint16): lambda: ir.IntegerType.get_unsigned(16),
    np.dtype(np.uint32): lambda: ir.IntegerType.get_unsigned(32),
    np.dtype(np.uint64): lambda: ir.IntegerType.get_unsigned(64),
    np.dtype(np.float16): ir.F16Type.get,
    np.dtype(np.float32): ir.F32Type.get,
    np.dtype(np.float64): ir.F64Type.get,
    np.dtype(np.complex64): lambda: ir.ComplexType.get(ir.F32Type.get()),
    np.dtype(np.complex128): lambda: ir.ComplexType.get(ir.F64Type.get()),
}

SUPPORTED_DTYPES = frozenset(_ELEMENT_TYPES)


def element_type(dtype) -> ir.Type:
    """The MLIR element type of a NumPy dtype (unsigned integers keep their signedness)."""
    try:
        return _ELEMENT_TYPES[np.dtype(dtype)]()
    except KeyError:
        raise UnsupportedError(f"an array of dtype {np.dtype(dtype)}: solvent compiles arrays of booleans, integers, "
                               "floats and complex numbers; keep this one outside the compiled function") from None


def tensor_type(shape, dtype) -> ir.RankedTensorType:
    """`tensor<shape x dtype>`."""
    return ir.RankedTensorType.get(list(shape), element_type(dtype))
