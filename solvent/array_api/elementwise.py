"""The Array API's elementwise functions, as NumPy's ufuncs under the standard's names."""

from __future__ import annotations

import numpy as np

from solvent.array_api.common import program

#: Array API name -> NumPy function, for those whose NumPy behaviour is the standard's.
UNARY = {
    "abs": np.abs, "acos": np.arccos, "acosh": np.arccosh, "asin": np.arcsin, "asinh": np.arcsinh,
    "atan": np.arctan, "atanh": np.arctanh, "bitwise_invert": np.invert, "conj": np.conj, "cos": np.cos,
    "cosh": np.cosh, "exp": np.exp, "expm1": np.expm1, "imag": np.imag, "isfinite": np.isfinite,
    "isinf": np.isinf, "isnan": np.isnan, "log": np.log, "log1p": np.log1p, "log2": np.log2,
    "log10": np.log10, "logical_not": np.logical_not, "negative": np.negative, "positive": np.positive,
    "real": np.real, "sign": np.sign, "signbit": np.signbit, "sin": np.sin, "sinh": np.sinh,
    "square": np.square, "sqrt": np.sqrt, "tan": np.tan, "tanh": np.tanh,
}
BINARY = {
    "add": np.add, "atan2": np.arctan2, "bitwise_and": np.bitwise_and, "bitwise_left_shift": np.left_shift,
    "bitwise_or": np.bitwise_or, "bitwise_right_shift": np.right_shift, "bitwise_xor": np.bitwise_xor,
    "copysign": np.copysign, "divide": np.divide, "equal": np.equal, "floor_divide": np.floor_divide,
    "greater": np.greater, "greater_equal": np.greater_equal, "hypot": np.hypot, "less": np.less,
    "less_equal": np.less_equal, "logaddexp": np.logaddexp, "logical_and": np.logical_and,
    "logical_or": np.logical_or, "logical_xor": np.logical_xor, "maximum": np.maximum,
    "minimum": np.minimum, "multiply": np.multiply, "not_equal": np.not_equal, "pow": np.power,
    "remainder": np.remainder, "subtract": np.subtract,
}


def _named(function, name: str, numpy_function):
    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"Array API `{name}`: NumPy's `{numpy_function.__name__}`."
    return program(function)


def _unary(name: str, numpy_function):
    def function(x, /):
        return numpy_function(x)
    return _named(function, name, numpy_function)


def _binary(name: str, numpy_function):
    def function(x1, x2, /):
        return numpy_function(x1, x2)
    return _named(function, name, numpy_function)


globals().update({name: _unary(name, f) for name, f in UNARY.items()})
globals().update({name: _binary(name, f) for name, f in BINARY.items()})


def _integral(x) -> bool:
    return np.dtype(x.dtype).kind in "biu"


def _rounding(name: str, numpy_function):
    """Rounding that keeps integer arrays as they are (NumPy would return floats)."""
    def function(x, /):
        return np.copy(x) if _integral(x) else numpy_function(x)
    return _named(function, name, numpy_function)


ceil = _rounding("ceil", np.ceil)
floor = _rounding("floor", np.floor)
trunc = _rounding("trunc", np.trunc)
round = _rounding("round", np.rint)  # noqa: A001  (half to even, as the standard asks)


@program
def clip(x, /, min=None, max=None):  # noqa: A002  (the standard's parameter names)
    """`x` limited to [min, max]; the result keeps `x`'s dtype."""
    if min is None and max is None:
        return np.copy(x)
    out = np.clip(x, min, max)
    return out if out.dtype == x.dtype else out.astype(x.dtype)


__all__ = [*UNARY, *BINARY, "ceil", "floor", "trunc", "round", "clip"]
