"""Elementwise math on SSA values with NumPy's exact semantics (one function per formula).

These are the bodies of the ufunc table: inputs arrive already cast to the
ufunc's loop dtype and broadcast to one shape.
"""

from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir

from solvent.ops import elementwise as ew
from solvent.ops.base import dtype_of, is_bool, is_complex, is_float, is_unsigned, one, shape_of
from solvent.numpy.values import full


def const(x: ir.Value, c) -> ir.Value:
    """The scalar `c` broadcast to `x`'s shape and dtype."""
    return full(c, shape_of(x), dtype_of(x))


def real_dtype(dtype) -> np.dtype:
    return np.dtype(np.float32 if np.dtype(dtype) == np.complex64 else np.float64) if is_complex(dtype) else np.dtype(dtype)


def chlo_unary(name: str):
    return lambda x: one(f"chlo.{name}", [x], shape_of(x), dtype_of(x))


def add(a, b):
    return ew.binary("or" if is_bool(dtype_of(a)) else "add", a, b)


def multiply(a, b):
    return ew.binary("and" if is_bool(dtype_of(a)) else "multiply", a, b)


def compare(direction: str):
    """A comparison body; complex numbers order lexicographically, as NumPy's CLT & co."""
    def apply(a, b):
        if dtype_of(a) != dtype_of(b):
            return _mixed_sign_compare(direction, a, b)
        if not is_complex(dtype_of(a)) or direction in ("EQ", "NE"):
            return ew.compare(direction, a, b)
        (ar, ai), (br, bi) = _parts(a), _parts(b)
        strict = {"LE": "LT", "GE": "GT"}.get(direction, direction)
        imag_ok = ew.unary("not", ew.binary("or", isnan(ai), isnan(bi)))
        by_real = ew.binary("and", ew.compare(strict, ar, br), imag_ok)
        by_imag = ew.binary("and", ew.compare("EQ", ar, br), ew.compare(direction, ai, bi))
        return ew.binary("or", by_real, by_imag)
    return apply


def _mixed_sign_compare(direction: str, a, b):
    """NumPy 2's exact int64-vs-uint64 comparison loops (qQ->?, Qq->?): a negative signed side
    is below every unsigned value."""
    signed_first = not is_unsigned(dtype_of(a))
    signed = a if signed_first else b
    negative = ew.compare("LT", signed, const(signed, 0))
    as_unsigned = [ew.convert(v, np.uint64) for v in (a, b)]
    below = direction in ("LT", "LE", "NE") if signed_first else direction in ("GT", "GE", "NE")
    return ew.select(negative, full(below, shape_of(a), np.bool_), ew.compare(direction, *as_unsigned))


def maximum(a, b):
    if is_complex(dtype_of(a)):
        return ew.select(ew.binary("or", isnan(a), compare("GE")(a, b)), a, b)
    return ew.binary("or" if is_bool(dtype_of(a)) else "maximum", a, b)


def minimum(a, b):
    if is_complex(dtype_of(a)):
        return ew.select(ew.binary("or", isnan(a), compare("LE")(a, b)), a, b)
    return ew.binary("and" if is_bool(dtype_of(a)) else "minimum", a, b)


def isnan(x):
    if not (is_float(dtype_of(x)) or is_complex(dtype_of(x))):
        return full(False, shape_of(x), np.bool_)
    return ew.compare("NE", x, x)


def fmax(a, b):
    return ew.select(isnan(b), a, ew.select(isnan(a), b, maximum(a, b)))


def fmin(a, b):
    return ew.select(isnan(b), a, ew.select(isnan(a), b, minimum(a, b)))


def _int_remainder(a, b):
    """NumPy integer `%`: sign of the divisor, and 0 where the divisor is 0."""
    zero = const(b, 0)
    safe_b = ew.select(ew.compare("EQ", b, zero), const(b, 1), b)
    r = ew.binary("remainder", a, safe_b)
    if not is_unsigned(dtype_of(a)):
        fix = ew.binary("and", ew.compare("NE", r, zero),
                        ew.compare("NE", ew.compare("LT", r, zero), ew.compare("LT", safe_b, zero)))
        r = ew.select(fix, ew.binary("add", r, safe_b), r)
    return ew.select(ew.compare("EQ", b, zero), zero, r)


def _float_remainder(a, b):
    """NumPy float `%`: fmod moved to the divisor's sign; zero takes the divisor's sign."""
    mod = ew.binary("remainder", a, b)
    zero = const(mod, 0)
    fix = ew.binary("and", ew.compare("NE", mod, zero),
                    ew.compare("NE", ew.compare("LT", b, zero), ew.compare("LT", mod, zero)))
    mod = ew.select(fix, ew.binary("add", mod, b), mod)
    return ew.select(ew.compare("EQ", mod, zero), copysign(zero, b), mod)


def remainder(a, b):
    return _float_remainder(a, b) if is_float(dtype_of(a)) else _int_remainder(a, b)


def floor_divide(a, b):
    if not is_float(dtype_of(a)):
        zero = const(b, 0)
        safe_b = ew.select(ew.compare("EQ", b, zero), const(b, 1), b)
        q = ew.binary("divide", a, safe_b)
        if not is_unsigned(dtype_of(a)):
            r = ew.binary("remainder", a, safe_b)
            fix = ew.binary("and", ew.compare("NE", r, zero),
                            ew.compare("NE", ew.compare("LT", r, zero), ew.compare("LT", safe_b, zero)))
            q = ew.select(fix, ew.binary("subtract", q, const(q, 1)), q)
        return ew.select(ew.compare("EQ", b, zero), zero, q)
    # NumPy's npy_divmod: exact floor of the quotient, correcting fmod's rounding.
    mod = ew.binary("remainder", a, b)
    zero = const(a, 0)
    div = ew.binary("divide", ew.binary("subtract", a, mod), b)
    fix = ew.binary("and", ew.compare("NE", mod, zero),
                    ew.compare("NE", ew.compare("LT", b, zero), ew.compare("LT", mod, zero)))
    div = ew.select(fix, ew.binary("subtract", div, const(div, 1)), div)
    floor = ew.unary("floor", div)
    floor = ew.select(ew.compare("GT", ew.binary("subtract", div, floor), const(div, 0.5)),
                      ew.binary("add", floor, const(div, 1)), floor)
    quotient = ew.binary("divide", a, b)
    floor = ew.select(ew.compare("EQ", div, zero), copysign(zero, quotient), floor)
    return ew.select(ew.compare("EQ", b, zero), quotient, floor)


def divmod(a, b):
    return floor_divide(a, b), remainder(a, b)


def fmod(a, b):
    if is_float(dtype_of(a)):
        return ew.binary("remainder", a, b)
    zero = const(b, 0)
    safe_b = ew.select(ew.compare("EQ", b, zero), const(b, 1), b)
    return ew.select(ew.compare("EQ", b, zero), zero, ew.binary("remainder", a, safe_b))


def signbit(x):
    if not is_float(dtype_of(x)):
        return ew.compare("LT", x, const(x, 0)) if not is_unsigned(dtype_of(x)) else full(False, shape_of(x), np.bool_)
    bits = {2: np.int16, 4: np.int32, 8: np.int64}[dtype_of(x).itemsize]
    as_int = one("stablehlo.bitcast_convert", [x], shape_of(x), bits)
    return ew.compare("LT", as_int, full(0, shape_of(x), bits))


def copysign(a, b):
    magnitude = ew.unary("abs", a)
    return ew.select(signbit(b), ew.unary("negate", magnitude), magnitude)


def power(a, b):
    if is_bool(dtype_of(a)):
        return ew.binary("or", a, ew.unary("not", b))
    return ew.binary("power", a, b)


def sign(x):
    if is_bool(dtype_of(x)):
        return x
    if is_unsigned(dtype_of(x)):
        return ew.convert(ew.compare("NE", x, const(x, 0)), dtype_of(x))
    if is_complex(dtype_of(x)):
        return _complex_sign(x)
    return ew.unary("sign", x)


def _complex_sign(z):
    """NumPy 2's z / |z|, with an infinite part giving the unit vector along it (loops.c.src)."""
    re, im = _parts(z)
    unit = ew.unary("sign", z)
    inf_re, inf_im = isinf(re), isinf(im)
    zero = const(re, 0)
    along_re = ew.binary("complex", ew.unary("sign", re), zero)
    along_im = ew.binary("complex", zero, ew.unary("sign", im))
    along = ew.select(inf_re, ew.select(inf_im, const(z, complex(np.nan, np.nan)), along_re), along_im)
    return ew.select(ew.binary("or", inf_re, inf_im), along, unit)


def absolute(x):
    if is_bool(dtype_of(x)) or is_unsigned(dtype_of(x)):
        return x
    return ew.unary("abs", x)


def negative(x):
    return ew.unary("negate", x)


def _parts(z):
    return ew.unary("real", z), ew.unary("imag", z)


def divide(a, b):
    """a / b; complex numbers by NumPy's Smith division, so that z / 0 has NumPy's inf and nan parts."""
    if not is_complex(dtype_of(a)):
        return ew.binary("divide", a, b)
    (ar, ai), (br, bi) = _parts(a), _parts(b)
    op = ew.binary
    abs_br, abs_bi = ew.unary("abs", br), ew.unary("abs", bi)
    rat = op("divide", bi, br)  # for |br| >= |bi|
    scale = op("divide", const(br, 1), op("add", br, op("multiply", bi, rat)))
    wide = (op("multiply", op("add", ar, op("multiply", ai, rat)), scale),
            op("multiply", op("subtract", ai, op("multiply", ar, rat)), scale))
    rat = op("divide", br, bi)  # for |br| < |bi|
    scale = op("divide", const(br, 1), op("add", bi, op("multiply", br, rat)))
    tall = (op("multiply", op("add", op("multiply", ar, rat), ai), scale),
            op("multiply", op("subtract", op("multiply", ai, rat), ar), scale))
    by_zero = (op("divide", ar, abs_br), op("divide", ai, abs_br))
    zero = op("and", ew.compare("EQ", abs_br, const(br, 0)), ew.compare("EQ", abs_bi, const(bi, 0)))
    first = ew.compare("GE", abs_br, abs_bi)
    re, im = (ew.select(first, ew.select(zero, z, w), t) for z, w, t in zip(by_zero, wide, tall))
    return op("complex", re, im)


def reciprocal(x):
    """1 / x; complex as NumPy's loop (1 / 0j is nan, not inf)."""
    if not is_complex(dtype_of(x)):
        return ew.binary("divide", const(x, 1), x)
    (re, im), op = _parts(x), ew.binary
    wide_r = op("divide", im, re)  # for |im| <= |re|
    wide_d = op("add", re, op("multiply", im, wide_r))
    tall_r = op("divide", re, im)
    tall_d = op("add", op("multiply", re, tall_r), im)
    first = ew.compare("LE", ew.unary("abs", im), ew.unary("abs", re))
    real = ew.select(first, op("divide", const(re, 1), wide_d), op("divide", tall_r, tall_d))
    imag = ew.select(first, op("divide", wide_r, wide_d), op("divide", const(re, 1), tall_d))
    return op("complex", real, ew.unary("negate", imag))


def square(x):
    return multiply(x, x)


def conjugate(x):
    if not is_complex(dtype_of(x)):
        return x
    real, imag = ew.unary("real", x), ew.unary("imag", x)
    return ew.binary("complex", real, ew.unary("negate", imag))


def exp2(x):
    return ew.binary("power", const(x, 2), x)


def log_base(base):
    return lambda x: ew.binary("divide", ew.unary("log", x), const(x, np.log(base)))


def logaddexp(a, b, base=None):
    """log(exp(a) + exp(b)) without overflow; `base=2` for logaddexp2."""
    scale = np.log(2.0) if base == 2 else 1.0
    big, diff = maximum(a, b), ew.unary("abs", ew.binary("subtract", a, b))
    if base == 2:
        tail = ew.binary("divide", ew.unary("log_plus_one", exp2(ew.unary("negate", diff))), const(a, scale))
    else:
        tail = ew.unary("log_plus_one", ew.unary("exponential", ew.unary("negate", diff)))
    equal = ew.binary("add", a, const(a, 1.0 if base == 2 else np.log(2.0)))
    return ew.select(ew.compare("EQ", a, b), equal, ew.binary("add", big, tail))


def hypot(a, b):
    """sqrt(a**2 + b**2) without overflow; infinite if either is (even with a NaN), as C99."""
    big = maximum(ew.unary("abs", a), ew.unary("abs", b))
    small = minimum(ew.unary("abs", a), ew.unary("abs", b))
    zero = ew.compare("EQ", big, const(big, 0))
    ratio = ew.binary("divide", small, ew.select(zero, const(big, 1), big))
    root = ew.unary("sqrt", ew.binary("add", const(big, 1), multiply(ratio, ratio)))
    inf = ew.binary("or", isinf(a), isinf(b))
    result = ew.select(zero, big, multiply(big, root))
    return ew.select(inf, const(big, np.inf), result)


def trunc(x):
    if not is_float(dtype_of(x)):
        return x
    return ew.select(signbit(x), ew.unary("ceil", x), ew.unary("floor", x))


def rounding(name):
    def apply(x):
        if is_complex(dtype_of(x)):  # np.rint rounds both parts
            return ew.binary("complex", apply(ew.unary("real", x)), apply(ew.unary("imag", x)))
        return ew.unary(name, x) if is_float(dtype_of(x)) else x
    return apply


def logical(name):
    def apply(a, b):
        t = lambda v: ew.compare("NE", v, const(v, 0)) if not is_bool(dtype_of(v)) else v
        return ew.binary(name, t(a), t(b))
    return apply


def logical_not(x):
    return ew.unary("not", x if is_bool(dtype_of(x)) else ew.compare("NE", x, const(x, 0)))


def isinf(x):
    if not (is_float(dtype_of(x)) or is_complex(dtype_of(x))):
        return full(False, shape_of(x), np.bool_)
    magnitude = ew.unary("abs", x) if is_float(dtype_of(x)) else None
    if magnitude is None:
        return ew.binary("or", isinf(ew.unary("real", x)), isinf(ew.unary("imag", x)))
    return ew.compare("EQ", magnitude, const(magnitude, np.inf))


def isfinite(x):
    if is_complex(dtype_of(x)):
        return ew.binary("and", isfinite(ew.unary("real", x)), isfinite(ew.unary("imag", x)))
    if not is_float(dtype_of(x)):
        return full(True, shape_of(x), np.bool_)
    return ew.unary("is_finite", x)


def heaviside(x, h0):
    zero = const(x, 0)
    step = ew.select(ew.compare("LT", x, zero), zero, const(x, 1))
    return ew.select(isnan(x), x, ew.select(ew.compare("EQ", x, zero), h0, step))


def scale(c):
    return lambda x: ew.binary("multiply", x, const(x, c))


def ldexp(x, e):
    """x * 2**e, in two factors so that 2**e itself neither overflows nor underflows early."""
    e = ew.convert(e, dtype_of(x))
    half = ew.unary("floor", ew.binary("multiply", e, const(e, 0.5)))
    two = const(x, 2)
    scaled = ew.binary("multiply", x, ew.binary("power", two, half))
    return ew.binary("multiply", scaled, ew.binary("power", two, ew.binary("subtract", e, half)))


def cbrt(x):
    return ew.unary("cbrt", x)

