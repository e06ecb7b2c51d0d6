"""NumPy functions on traced arrays that round or test elements: round, fix, nan_to_num, sinc,
angle, real_if_close, isclose, allclose, array_equal and the is*obj tests, i0.

Most are compositions of registered NumPy calls (so promotion stays NumPy's).
"""

from __future__ import annotations

import operator

import numpy as np
from numpy.lib._function_base_impl import _i0A, _i0B

from solvent.errors import UnsupportedError
from solvent.numpy.registry import implements
from solvent.numpy.values import as_array, cast, full, is_traced, result_type, shape, value, wrap, write_out
from solvent.ops import elementwise as ew
from solvent.ops.base import create


def _divided(x, factor: np.ndarray):
    """x / factor, a true division: XLA divides by a constant, or by a broadcast scalar, as it multiplies
    by the reciprocal, so the divisor is an array it cannot see through, behind one barrier with `x`
    (a loop batched over its steps widens both alike, not the divisor by a broadcast)."""
    x = as_array(x)
    v = [value(x), value(factor, to_shape=shape(x))]
    barrier = create("stablehlo.optimization_barrier", v, [u.type for u in v])
    return np.true_divide(wrap(barrier.results[0]), wrap(barrier.results[1]))


@implements(np.round, np.around)
def round_(a, decimals=0, out=None):
    """Half to even at 10**-decimals, computed as NumPy does (x * 10**d, rint, / 10**d)."""
    a, decimals = as_array(a), operator.index(decimals)
    kind = np.dtype(a.dtype).kind
    if kind == "b" and decimals != 0:
        raise TypeError("Cannot cast ufunc 'multiply' output from dtype('float64') to dtype('bool')")
    if kind in "iu" and decimals >= 0:
        result = cast(a, a.dtype)
    elif decimals == 0:
        result = np.rint(a)
    elif kind in "iu":  # through float64, then back with the integer's wrap-around
        factor = 10 ** -decimals
        quotient = cast(np.rint(np.true_divide(a, float(factor))), a.dtype)
        bits = np.dtype(a.dtype).itemsize * 8
        result = np.multiply(quotient, np.array(factor % 2 ** bits, f"u{bits // 8}").view(a.dtype))
    else:
        with np.errstate(over="ignore"):  # (inf past 10**308, NumPy's nan results)
            factor = np.array(np.float64(10.0) ** abs(decimals), np.finfo(a.dtype).dtype)
        if decimals > 0:  # true divisions by it: as products with 1 / factor, 10% of results were one ulp off
            result = _divided(np.rint(np.multiply(a, factor)), factor)
        else:
            result = np.multiply(np.rint(_divided(a, factor)), factor)
    return write_out(out, result) if out is not None else result


def python_round(x, ndigits: int):
    """Python's `round(x, ndigits)` of a float (traced float64, `ndigits` static): the float nearest
    x's exact value rounded half to even at 10**-ndigits, as its decimal digits are (round(2.675, 2)
    is 2.67, where NumPy's rint(x * 100) / 100 gives 2.68). Exact while |ndigits| <= 22 (10**d is a
    float64); beyond, within an ulp.

    Only an exact half can round either way: then the sign of what a product lost to its rounding,
    found by Dekker's exact product of halves (`_lost`), decides: of x * 10**d for d >= 0, and of the
    half times 10**-d, against x, for d < 0."""
    if ndigits > 308:  # (x has fewer digits; 10**309 is no float)
        return x
    if ndigits < -308:
        return np.where(np.isfinite(x), np.where(np.signbit(x), -0.0, 0.0), x)
    scale = 10.0 ** abs(ndigits)
    if ndigits < 0:
        q = _divided(x, scale)
        n = np.rint(q)
        product = np.multiply(q, scale)  # (q is the half where it matters: x against it times 10**-d)
        above = (x - product) - _lost(q, scale, product)
        n = _stepped(n, (q - n == 0.5) & (above > 0), (n - q == 0.5) & (above < 0))
        return np.where(np.abs(q) < 2.0 ** 53, np.multiply(n, scale), x)  # (then x is its own nearest, as below)
    hi = np.multiply(x, scale)
    n = np.rint(hi)
    lost = _lost(x, scale, hi)
    odd = np.fmod(n, 2) != 0  # (from 2**52 on, hi is a whole number and a half can be lost)
    n = _stepped(n, ((hi - n == 0.5) & (lost > 0)) | ((lost == 0.5) & odd),
                 ((n - hi == 0.5) & (lost < 0)) | ((lost == -0.5) & odd))
    # (from 2**53 on, an ulp of x is more than 10**-d: x is its own nearest)
    return np.where(np.abs(hi) < 2.0 ** 53, _divided(n, scale), x)


def _lost(a, scale: float, product):
    """a * scale - product exactly (its sign exact), where `product` is a * scale rounded: Dekker's
    sum of the products of halves of a and `scale`, each exact."""
    ah, sh = _upper_half(as_array(a)), _upper_half(np.float64(scale))
    al, sl = a - ah, scale - sh
    return (((ah * sh - product) + ah * sl) + al * sh) + al * sl


def _stepped(n, up, down):
    """n + 1 where `up`, n - 1 where `down`, n (with its sign, -0.0 too) elsewhere."""
    return np.where(up, n + 1, np.where(down, n - 1, n))


def _upper_half(x):
    """x rounded to its upper 26 significant bits (Dekker's split, by its bits): the rest, x minus it,
    holds 26 at most, so that products of halves are exact."""
    bits = np.bitwise_and(x.view(np.int64) + 2 ** 26, -(2 ** 27))
    return bits.view(np.float64)


@implements(np.fix)
def fix(x, out=None):
    return np.trunc(x, out=out)


@implements(np.nan_to_num)
def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """NaN and infinities replaced part by part; `copy=False` changes the argument in place."""
    x = as_array(x)
    kind = np.dtype(x.dtype).kind
    if kind not in "fc":
        return x if not copy else cast(x, x.dtype)
    part = np.finfo(x.dtype).dtype

    def clean(v):
        v = np.where(np.isnan(v), np.array(nan, part), v)
        v = np.where(np.isposinf(v), np.array(np.finfo(part).max if posinf is None else posinf, part), v)
        return np.where(np.isneginf(v), np.array(np.finfo(part).min if neginf is None else neginf, part), v)
    if kind == "c":
        result = wrap(ew.binary("complex", value(clean(np.real(x))), value(clean(np.imag(x)))), scalar=False)
    else:
        result = clean(x)
    if not copy and is_traced(x):
        x.assign(value(result))
        return x
    return cast(result, x.dtype)


@implements(np.sinc)
def sinc(x):
    """NumPy's: sin(y) / y of y = pi * x, with y = eps of a float dtype where it is 0 (1e-20 was 0 in float16)."""
    x = np.multiply(np.pi, x)
    y = np.where(x, x, np.finfo(x.dtype).eps if np.dtype(x.dtype).kind == "f" else 1e-20)
    return np.true_divide(np.sin(y), y)


@implements(np.angle)
def angle(z, deg=False):
    z = as_array(z)
    if np.dtype(z.dtype).kind == "c":
        a = np.arctan2(np.imag(z), np.real(z))
    else:
        a = np.arctan2(0, z)
    return np.multiply(a, 180 / np.pi) if deg else a


@implements(np.real_if_close)
def real_if_close(a, tol=100):
    """`a` itself when it is not complex; refused when it is, since the data decide the dtype."""
    a = as_array(a)
    if np.dtype(a.dtype).kind != "c":
        return a
    raise UnsupportedError("np.real_if_close: its result dtype depends on the data; use np.real(a) "
                           "(after checking np.allclose(np.imag(a), 0)) instead")


@implements(np.isclose)
def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """NumPy's test, Python numbers (and traced stand-ins for them: float(x[0])) weak in it."""
    x = a if type(a) in (int, float, complex) else as_array(a)
    y = b if type(b) in (int, float, complex) else as_array(b)
    if getattr(y, "weak", False):
        y = wrap(value(y, np.result_type(y.dtype, 1.0)))
        y.weak = True
    elif hasattr(y, "dtype"):
        y = cast(y, np.result_type(y.dtype, 1.0))
    elif isinstance(y, int):
        y = float(y)
    close = np.less_equal(np.absolute(np.subtract(x, y)), np.add(atol, np.multiply(rtol, np.absolute(y))))
    result = np.logical_or(np.logical_and(close, np.isfinite(y)), np.equal(x, y))
    if equal_nan:
        result = np.logical_or(result, np.logical_and(np.isnan(x), np.isnan(y)))
    return result


@implements(np.allclose)
def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """A traced stand-in for the Python bool NumPy returns (see `python_bool`)."""
    return python_bool(np.all(isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)))


def python_bool(x):
    """A traced bool scalar standing for a Python bool (weak, NEP 50): Python's arithmetic on it
    is on ints (np.allclose(a, b) + np.allclose(c, d) is 2, where np.True_ + np.True_ is True)."""
    x.weak = True
    return x


@implements(np.array_equal)
def array_equal(a1, a2, equal_nan=False):
    """False when the shapes differ (a static answer); otherwise a traced bool scalar."""
    a1, a2 = as_array(a1), as_array(a2)
    if shape(a1) != shape(a2):
        return False
    equal = np.equal(a1, a2)
    if equal_nan and any(np.dtype(x.dtype).kind in "fc" for x in (a1, a2)):
        nan1, nan2 = np.isnan(a1), np.isnan(a2)
        equal = np.logical_and(np.equal(nan1, nan2), np.logical_or(equal, nan1))
    return python_bool(np.all(equal))


@implements(np.array_equiv)
def array_equiv(a1, a2):
    a1, a2 = as_array(a1), as_array(a2)
    try:
        np.broadcast_shapes(shape(a1), shape(a2))
    except ValueError:
        return False
    return python_bool(np.all(np.equal(a1, a2)))


@implements(np.iscomplexobj)
def iscomplexobj(x):
    return np.dtype(x.dtype if hasattr(x, "dtype") else result_type(x)).kind == "c"


@implements(np.isrealobj)
def isrealobj(x):
    return not iscomplexobj(x)


@implements(np.isreal)
def isreal(x):
    return np.equal(np.imag(x), 0)


@implements(np.iscomplex)
def iscomplex(x):
    x = as_array(x)
    if np.dtype(x.dtype).kind == "c":
        return np.not_equal(np.imag(x), 0)
    return wrap(full(False, shape(x), np.bool_))


def _signed_infinity(negative):
    def apply(x, out=None):
        x = as_array(x)
        if np.dtype(x.dtype).kind == "c":
            raise TypeError("This operation is not supported for complex values because it would be ambiguous.")
        sign = np.signbit(x) if negative else np.logical_not(np.signbit(x))
        return np.logical_and(np.isinf(x), sign, out=out)
    return apply


implements(np.isneginf)(_signed_infinity(True))
implements(np.isposinf)(_signed_infinity(False))


def _chebyshev(x, coefficients):
    """NumPy's _chbevl: a Chebyshev series by Clenshaw's recurrence."""
    b0, b1, b2 = coefficients[0], 0.0, 0.0
    for c in coefficients[1:]:
        b2, b1 = b1, b0
        b0 = np.add(np.subtract(np.multiply(x, b1), b2), c)
    return np.multiply(0.5, np.subtract(b0, b2))


@implements(np.i0)
def i0(x):
    """Modified Bessel function of order 0 by NumPy's two Chebyshev expansions (Cephes)."""
    x = as_array(x)
    kind = np.dtype(x.dtype).kind
    if kind == "c":
        raise TypeError("i0 not supported for complex values")
    x = np.absolute(x if kind == "f" else cast(x, np.float64))
    small = np.multiply(np.exp(x), _chebyshev(np.subtract(np.true_divide(x, 2.0), 2), _i0A))
    large = np.true_divide(np.multiply(np.exp(x), _chebyshev(np.subtract(np.true_divide(32.0, x), 2.0), _i0B)),
                           np.sqrt(x))
    return np.where(np.less_equal(x, 8.0), small, large)
