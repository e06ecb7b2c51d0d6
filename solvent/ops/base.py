"""Shared pieces of the op builders: types of values and generic op creation."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from jaxlib.mlir import ir

from solvent.ir.types import SUPPORTED_DTYPES, element_type, tensor_type

_DTYPE_BY_ELEMENT = {}
#: tensor type -> (shape, dtype): MLIR keeps every type of its context for good, and reading
#: them back through the bindings cost a trace about 2 us per value (Game of Life: 8,000 reads).
_TYPES: dict = {}


def _described(t: ir.Type) -> tuple[tuple[int, ...], np.dtype]:
    found = _TYPES.get(t)
    if found is None:
        if not _DTYPE_BY_ELEMENT:
            for dtype in SUPPORTED_DTYPES:
                _DTYPE_BY_ELEMENT[str(element_type(dtype))] = dtype
        ranked = ir.RankedTensorType(t)
        found = _TYPES[t] = (tuple(ranked.shape), _DTYPE_BY_ELEMENT[str(ranked.element_type)])
    return found


def dtype_of(value: ir.Value) -> np.dtype:
    """The NumPy dtype of a tensor value."""
    return _described(value.type)[1]


def shape_of(value: ir.Value) -> tuple[int, ...]:
    return _described(value.type)[0]


def create(name: str, operands: Sequence[ir.Value], result_types: Sequence[ir.Type],
           attributes: dict | None = None, regions: int = 0) -> ir.Operation:
    """Emit one StableHLO operation at the current insertion point and location."""
    return ir.Operation.create(name, results=list(result_types), operands=list(operands),
                               attributes=attributes or {}, regions=regions)


def one(name: str, operands: Sequence[ir.Value], shape, dtype, **attributes) -> ir.Value:
    """Emit an op with a single result of the given shape and dtype."""
    return create(name, operands, [tensor_type(shape, dtype)], attributes).result


def i64_array(values: Sequence[int]) -> ir.Attribute:
    return ir.DenseI64ArrayAttr.get([int(v) for v in values])


def check(condition: bool, message: str) -> None:
    """Shape/dtype rule violation: a bug in the NumPy layer, not in user code."""
    if not condition:
        raise ValueError(message)


def is_complex(dtype) -> bool:
    return np.dtype(dtype).kind == "c"  # (kinds, not np.issubdtype: a trace asks thousands of times)


def is_float(dtype) -> bool:
    return np.dtype(dtype).kind == "f"


def is_unsigned(dtype) -> bool:
    return np.dtype(dtype).kind == "u"


def is_bool(dtype) -> bool:
    return np.dtype(dtype).kind == "b"
