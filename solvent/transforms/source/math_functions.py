"""Python's `math` functions on traced numbers, as the NumPy ufuncs that compute them.

`math.sqrt(dt)` of a traced scalar would convert it with float(), which a traced value cannot
answer before the program runs. Rewritten code calls these in its place (`rewrite.converted`);
with no traced argument each is the `math` function itself. Each gives what Python's would: a
Python float (a weak float64, NEP 50), a Python int for floor/ceil/trunc and a bool for the
tests. Where Python raises (math.sqrt(-1.0), math.log(0.0)) the compiled program cannot: it gives
NumPy's NaN or infinity there.
"""

from __future__ import annotations

import functools
import math
import warnings

import numpy as np

from solvent.errors import UnsupportedError, user_stacklevel
from solvent.numpy.folding import static
from solvent.numpy.registry import builtin, refuses_builtin
from solvent.numpy.values import holds_traced, is_traced
from solvent.transforms.source.builtins import scalar_of

#: math function -> the ufunc computing it on float64 (a Python float's precision).
FLOAT = {math.sqrt: np.sqrt, math.exp: np.exp, math.expm1: np.expm1, math.log10: np.log10, math.log2: np.log2,
         math.log1p: np.log1p, math.sin: np.sin, math.cos: np.cos, math.tan: np.tan, math.asin: np.arcsin,
         math.acos: np.arccos, math.atan: np.arctan, math.sinh: np.sinh, math.cosh: np.cosh, math.tanh: np.tanh,
         math.asinh: np.arcsinh, math.acosh: np.arccosh, math.atanh: np.arctanh, math.fabs: np.fabs,
         math.degrees: np.degrees, math.radians: np.radians, math.atan2: np.arctan2,
         math.pow: np.power, math.copysign: np.copysign, math.fmod: np.fmod, math.cbrt: np.cbrt,
         math.exp2: np.exp2}
#: math function -> the ufunc whose float result Python gives as an int.
INTEGER = {math.floor: np.floor, math.ceil: np.ceil, math.trunc: np.trunc}
#: math function -> the ufunc testing a float.
TEST = {math.isnan: np.isnan, math.isinf: np.isinf, math.isfinite: np.isfinite}


def _traced(args) -> bool:
    return any(is_traced(a) for a in args)


def _real(args, fn) -> list:
    """The arguments as float64 scalars, as Python's float() takes them (an array of one element with
    NumPy's DeprecationWarning)."""
    for a in args:
        if np.size(a) != 1 or np.result_type(a).kind == "c":
            raise TypeError(f"math.{fn.__name__}() takes real numbers, not {np.result_type(a)}"
                            f"{list(np.shape(a)) if np.ndim(a) else ''}")
        if np.ndim(a):
            warnings.warn("Conversion of an array with ndim > 0 to a scalar is deprecated, and will error in "
                          "future. Ensure you extract a single element from your array before performing this "
                          "operation. (Deprecated NumPy 1.25.)", DeprecationWarning, stacklevel=user_stacklevel())
    return [np.reshape(a, ()).astype(np.float64) if is_traced(a) else np.float64(a) for a in args]


def _registered(table, result):
    for fn, ufunc in table.items():
        def traced(*args, fn=fn, ufunc=ufunc):
            args = [static(a) for a in args]
            if not _traced(args) or len(args) != ufunc.nin:
                return fn(*args)  # (for another count of arguments: Python's TypeError)
            if table is INTEGER and np.result_type(args[0]).kind in "iub":  # of an int, itself (not via a float,
                return result(args[0].astype(np.int64))                     # which made 2**53 + 1 2**53)
            return result(ufunc(*_real(args, fn)))
        traced.__name__ = fn.__name__
        builtin(fn)(traced)


_registered(FLOAT, lambda v: scalar_of(v, np.float64, weak=True))
_registered(INTEGER, lambda v: scalar_of(v, np.int64, weak=True))
_registered(TEST, lambda v: scalar_of(v, np.bool_, weak=True))


@builtin(math.hypot)
def hypot(*coordinates):
    """The length of a vector of any number of coordinates, a Python float."""
    args = [static(a) for a in coordinates]
    if not _traced(args):
        return math.hypot(*args)
    values = _real(args, math.hypot)
    return scalar_of(functools.reduce(np.hypot, values) if len(values) > 1 else np.abs(values[0]), np.float64,
                     weak=True)


@builtin(math.ldexp)
def ldexp(x, i):
    """x * 2**i, a Python float."""
    x, i = static(x), static(i)
    if not _traced([x, i]):
        return math.ldexp(x, i)
    return scalar_of(np.ldexp(_real([x], math.ldexp)[0], i), np.float64, weak=True)


@builtin(math.frexp)
def frexp(x):
    """(mantissa, exponent) of x: a Python float and a Python int."""
    x = static(x)
    if not is_traced(x):
        return math.frexp(x)
    mantissa, exponent = np.frexp(_real([x], math.frexp)[0])
    return scalar_of(mantissa, np.float64, weak=True), scalar_of(exponent, np.int64, weak=True)


@builtin(math.modf)
def modf(x):
    """(fractional part, integral part) of x, both Python floats."""
    x = static(x)
    if not is_traced(x):
        return math.modf(x)
    return tuple(scalar_of(part, np.float64, weak=True) for part in np.modf(_real([x], math.modf)[0]))


@builtin(math.log)
def log(x, base=None):
    """math.log(x) or math.log(x, base) = log(x) / log(base), as Python computes it."""
    args = [static(x)] + ([] if base is None else [static(base)])
    if not _traced(args):
        return math.log(*args)
    values = _real(args, math.log)
    result = np.log(values[0]) if base is None else np.log(values[0]) / np.log(values[1])
    return scalar_of(result, np.float64, weak=True)


@builtin(math.isclose)
def isclose(a, b, *, rel_tol=1e-09, abs_tol=0.0):
    """math.isclose as Python tests it: |a - b| <= max(rel_tol * max(|a|, |b|), abs_tol), an infinity
    close to itself only, a NaN to nothing."""
    a, b = static(a), static(b)
    if not _traced([a, b]):
        return math.isclose(a, b, rel_tol=rel_tol, abs_tol=abs_tol)
    a, b = _real([a, b], math.isclose)
    within = np.abs(a - b) <= np.maximum(rel_tol * np.maximum(np.abs(a), np.abs(b)), abs_tol)
    close = np.logical_or(a == b, np.isfinite(a) & np.isfinite(b) & within)
    return scalar_of(close, np.bool_, weak=True)


def _integers(args, fn) -> list:
    """The arguments as int64 scalars, as Python's integer functions take them (a float is a TypeError)."""
    for a in args:
        if np.ndim(a) != 0 or np.result_type(a).kind not in "biu":
            raise TypeError(f"'{np.result_type(a)}' object cannot be interpreted as an integer (math.{fn.__name__})")
    return [a.astype(np.int64) if is_traced(a) else np.int64(a) for a in args]


def _folded(fn, ufunc):
    """math.gcd and math.lcm of Python ints: the ufunc folded over them, a Python int."""
    def traced(*args):
        args = [static(a) for a in args]
        if not _traced(args):
            return fn(*args)
        return scalar_of(functools.reduce(ufunc, _integers(args, fn)), np.int64, weak=True)
    traced.__name__ = fn.__name__
    builtin(fn)(traced)


_folded(math.gcd, np.gcd)
_folded(math.lcm, np.lcm)


@builtin(math.isqrt)
def isqrt(n):
    """The integer square root of a Python int: the float root, corrected by one either way."""
    n = static(n)
    if not is_traced(n):
        return math.isqrt(n)
    (n,) = _integers([n], math.isqrt)
    root = np.floor(np.sqrt(n.astype(np.float64))).astype(np.int64)  # (squares compared by division: no overflow)
    root = np.where((root > 0) & (root > n // np.maximum(root, 1)), root - 1, root)
    root = np.where(root + 1 <= n // (root + 1), root + 1, root)
    return scalar_of(root, np.int64, weak=True)


def _without_numpy(fn):
    """A math function NumPy has no counterpart of: refused for traced numbers, naming it (float() of
    one raised, naming nothing)."""
    def traced(*args, **kwargs):
        if not any(holds_traced(a) or is_traced(static(a)) for a in (*args, *kwargs.values())):
            return fn(*args, **kwargs)
        raise UnsupportedError(
            f"math.{fn.__name__} of a traced value: solvent compiles the math functions NumPy has (math.exp as "
            f"np.exp), and NumPy has no {fn.__name__}; compute it with NumPy's functions, or outside solvent.jit")
    traced.__name__ = fn.__name__
    refuses_builtin(fn)(traced)


for _fn in (math.erf, math.erfc, math.gamma, math.lgamma, math.fsum, math.dist, math.comb, math.perm,
            math.factorial, math.nextafter, math.ulp, math.remainder):
    _without_numpy(_fn)
