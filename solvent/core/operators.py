"""Python operators as NumPy ufunc calls, shared by traced and device arrays (as ndarray does)."""

from __future__ import annotations

import numpy as np

BINARY = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "truediv": np.true_divide,
    "floordiv": np.floor_divide, "mod": np.remainder, "pow": np.power, "matmul": np.matmul,
    "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor,
    "lshift": np.left_shift, "rshift": np.right_shift,
}
SYMBOLS = {"add": "+", "sub": "-", "mul": "*", "truediv": "/", "floordiv": "//", "mod": "%", "pow": "**",
           "matmul": "@", "and": "&", "or": "|", "xor": "^", "lshift": "<<", "rshift": ">>"}
COMPARISONS = {"lt": np.less, "le": np.less_equal, "gt": np.greater, "ge": np.greater_equal,
               "eq": np.equal, "ne": np.not_equal}
UNARY = {"neg": np.negative, "pos": np.positive, "abs": np.absolute, "invert": np.invert}


def _python(result, *operands):
    """Python's arithmetic on Python numbers (a loop's index, `int(x)`: weak scalars) gives Python
    numbers; NumPy's functions of them give NumPy's (`np.sqrt(float(x))` is an np.float64)."""
    if any(getattr(x, "weak", False) for x in operands) and \
            all(getattr(x, "weak", False) or type(x) in (bool, int, float, complex) for x in operands):
        for r in result if isinstance(result, tuple) else (result,):
            r.weak = True
    return result


def _forward(ufunc):
    return lambda self, other: _python(ufunc(self, other), self, other)


#: ndarray's `**` of a float or complex array by these Python numbers calls these ufuncs (z ** 0.5 is
#: np.sqrt(z): exact where exp(0.5 log z) is not).
_FAST_POWERS = {(int, -1): np.reciprocal, (int, 2): np.square, (float, 0.5): np.sqrt}


def _power(self, other):
    """`**`, which takes `np.square` for a Python 2 as ndarray's does: bools square to int8; and for
    float and complex arrays `_FAST_POWERS`. A Python int (`int(x)`, a weak int) to a negative Python
    int is Python's float, as `2 ** -3` is."""
    if type(other) is int and other == 2 and self.dtype == np.bool_:
        return np.square(self)
    fast = _FAST_POWERS.get((type(other), other)) if type(other) in (int, float) else None
    if fast is not None and not self.is_scalar and self.dtype.kind in "fc":
        return fast(self)
    if type(other) is int and other < 0 and getattr(self, "weak", False) and self.dtype.kind in "iu":
        result = np.power(self.astype(np.float64), other)
        result.weak = True
        return result
    return _python(np.power(self, other), self, other)


def _reflected(ufunc):
    return lambda self, other: _python(ufunc(other, self), self, other)


def _inplace(ufunc):
    return lambda self, other: ufunc(self, other, out=(self,))


def _deferring(operator):
    """`operator`, giving way to an operand that opts out of ufuncs (`__array_ufunc__ = None`) so that
    Python calls its own reflected operator, as ndarray's binary operators do (in-place ones do not)."""
    def method(self, other):
        if getattr(type(other), "__array_ufunc__", False) is None:
            return NotImplemented
        return operator(self, other)
    return method


def install(cls) -> None:
    """Give `cls` every arithmetic, comparison and in-place operator of ndarray."""
    for name, ufunc in BINARY.items():
        setattr(cls, f"__{name}__", _deferring(_forward(ufunc)))
        setattr(cls, f"__r{name}__", _deferring(_reflected(ufunc)))
        setattr(cls, f"__i{name}__", _inplace(ufunc))
    for name, ufunc in COMPARISONS.items():
        setattr(cls, f"__{name}__", _deferring(_forward(ufunc)))
    for name, ufunc in UNARY.items():
        setattr(cls, f"__{name}__", lambda self, ufunc=ufunc: _python(ufunc(self), self))
    cls.__pow__ = _deferring(_power)
    cls.__divmod__ = _deferring(lambda self, other: _python(np.divmod(self, other), self, other))
    cls.__rdivmod__ = _deferring(lambda self, other: _python(np.divmod(other, self), self, other))
    cls.__hash__ = lambda self: id(self)


def rebinding(cls) -> None:
    """Make `cls`'s in-place operators its plain ones, as a NumPy scalar's: `x += 1` binds a new object."""
    for name in BINARY:
        setattr(cls, f"__i{name}__", getattr(cls, f"__{name}__"))
