"""Elementwise math on SSA values with NumPy's exact semantics (one function per formula).

These are the bodies of the ufunc table: inputs arrive already cast to the
ufunc's loop dtype and broadcast to one shape.
"""

from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir

from solvent.ir.module import defining_op
from solvent.ops import control, elementwise as ew, reduction
from solvent.ops.constant import splat
from solvent.ops.elementwise import const
from solvent.ops.base import dtype_of, is_bool, is_complex, is_float, is_unsigned, one, shape_of
from solvent.numpy.values import full


def real_dtype(dtype) -> np.dtype:
    return np.dtype(np.float32 if np.dtype(dtype) == np.complex64 else np.float64) if is_complex(dtype) else np.dtype(dtype)


def chlo_unary(name: str):
    return lambda x: one(f"chlo.{name}", [x], shape_of(x), dtype_of(x))


def branch_cut(body, real_sign=None, imag_sign=1):
    """`body`, with the signs of a complex result's parts fixed as C99 (and NumPy) do on branch
    cuts: the imaginary part follows the sign of the input's (`imag_sign=-1`: the opposite), the
    real part is non-negative where `real_sign=1` and follows the input's where `real_sign="input"`
    (an odd function: asinh(-0.0 + 2j) has a negative real part)."""
    def apply(z):
        result = body(z)
        if not is_complex(dtype_of(z)):
            return result
        (re, im), z_im = parts(result), ew.unary("imag", z)
        if real_sign == 1:
            re = ew.unary("abs", re)
        elif real_sign == "input":
            re = copysign(re, ew.unary("real", z))
        im = copysign(im, z_im if imag_sign == 1 else ew.unary("negate", z_im))
        return ew.binary("complex", re, im)
    return apply


def sqrt(z):
    """Square root; complex as C99's csqrt: an infinite imaginary part gives inf + i*that part,
    +inf + i*y gives +inf, -inf + i*NaN gives NaN + i*inf."""
    root = branch_cut(lambda v: ew.unary("sqrt", v))(z)
    if not is_complex(dtype_of(z)):
        return root
    (re, im), (z_re, z_im) = parts(root), parts(z)
    inf = const(re, np.inf)
    minus_inf = ew.compare("EQ", z_re, const(re, -np.inf))
    re = ew.select(ew.binary("or", isinf(z_im), ew.compare("EQ", z_re, inf)), inf,
                   ew.select(ew.binary("and", minus_inf, isnan(z_im)), z_im, re))
    im = ew.select(isinf(z_im), z_im, ew.select(ew.binary("and", minus_inf, isnan(z_im)), inf, im))
    return ew.binary("complex", re, im)


def exp(z):
    """e**z; complex with an infinite real part and an infinite or NaN imaginary part as C99's cexp."""
    result = ew.unary("exponential", z)
    if not is_complex(dtype_of(z)):
        return result
    (re, im), (z_re, z_im) = parts(result), parts(z)
    odd = ew.unary("not", isfinite(z_im))
    to_zero = ew.binary("and", odd, ew.compare("EQ", z_re, const(z_re, -np.inf)))
    to_inf = ew.binary("and", odd, ew.compare("EQ", z_re, const(z_re, np.inf)))
    re = ew.select(to_zero, const(re, 0), ew.select(to_inf, z_re, re))
    im = ew.select(to_zero, const(im, 0), ew.select(to_inf, const(im, np.nan), im))
    return ew.binary("complex", re, im)


def log(z):
    """Natural logarithm; complex with an infinite part has an infinite real part, NaN or not."""
    result = ew.unary("log", z)
    if not is_complex(dtype_of(z)):
        return result
    re, im = parts(result)
    return ew.binary("complex", ew.select(isinf(z), const(re, np.inf), re), im)


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
        (ar, ai), (br, bi) = parts(a), parts(b)
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
    as_int = bitcast(x, int_like(dtype_of(x)))
    return ew.compare("LT", as_int, const(as_int, 0))


def int_like(dtype, signed=True) -> np.dtype:
    """The integer dtype of `dtype`'s width (the bits of a float, the unsigned twin of an int)."""
    return np.dtype(f"{'i' if signed else 'u'}{np.dtype(dtype).itemsize}")


def bitcast(x, dtype):
    return one("stablehlo.bitcast_convert", [x], shape_of(x), dtype)


def copysign(a, b):
    magnitude = ew.unary("abs", a)
    return ew.select(signbit(b), ew.unary("negate", magnitude), magnitude)


def sign(x):
    if is_bool(dtype_of(x)):
        return x
    if is_unsigned(dtype_of(x)):
        return ew.convert(ew.compare("NE", x, const(x, 0)), dtype_of(x))
    if is_complex(dtype_of(x)):
        return _complex_sign(x)
    if is_float(dtype_of(x)):  # XLA's sign keeps -0; NumPy's is +0
        return ew.select(ew.compare("EQ", x, const(x, 0)), const(x, 0), ew.unary("sign", x))
    return ew.unary("sign", x)


def _complex_sign(z):
    """NumPy 2's z / |z|, with an infinite part giving the unit vector along it (loops.c.src)."""
    re, im = parts(z)
    unit = ew.unary("sign", z)
    inf_re, inf_im = isinf(re), isinf(im)
    zero = const(re, 0)
    along_re = ew.binary("complex", ew.unary("sign", re), zero)
    along_im = ew.binary("complex", zero, ew.unary("sign", im))
    along = ew.select(inf_re, ew.select(inf_im, const(z, complex(np.nan, np.nan)), along_re), along_im)
    origin = ew.binary("and", ew.compare("EQ", re, zero), ew.compare("EQ", im, zero))  # -0-0j gives +0+0j
    return ew.select(ew.binary("or", inf_re, inf_im), along, ew.select(origin, const(z, 0), unit))


def absolute(x):
    if is_bool(dtype_of(x)) or is_unsigned(dtype_of(x)):
        return x
    if is_complex(dtype_of(x)):
        return hypot(*parts(x))
    return ew.unary("abs", x)


def negative(x):
    return ew.unary("negate", x)


def _is_quotient(x: ir.Value) -> bool:
    """Whether `x` is a quotient, or a negated one (the passes move a negation into the dividend)."""
    op = defining_op(x)
    while op is not None and op.name == "stablehlo.negate":
        op = defining_op(op.operands[0])
    return op is not None and op.name == "stablehlo.divide"


#: A NaN's bits no computation makes (a signalling NaN), for `kept`.
_NEVER = {np.dtype(np.float64): np.int64(0x7FF0DEADBEEF0001), np.dtype(np.float32): np.int32(0x7F80BEEF),
          np.dtype(np.float16): np.int16(0x7C01)}


def kept(x: ir.Value) -> ir.Value:
    """`x` itself, as a select on its bits that XLA cannot see through, so that it does not
    reassociate the op that made `x` with the one that uses it. (A test of x == x would be folded
    away where the compiler knows x is no NaN, a product of converted integers, say.)"""
    dtype = dtype_of(x)
    if dtype not in _NEVER:
        return x
    never = _NEVER[dtype]
    bits = ew.bitcast(x, never.dtype)
    return ew.select(ew.compare("NE", bits, full(never, shape_of(x), never.dtype)), x, const(x, np.nan))


def parts(z):
    return ew.unary("real", z), ew.unary("imag", z)


def divide(a, b):
    """a / b; complex numbers by NumPy's Smith division, so that z / 0 has NumPy's inf and nan parts.
    A quotient divided or dividing again is kept apart (`kept`): XLA rewrites (a / b) / c as a / (b * c),
    whose product can overflow where NumPy's quotients do not (nine x = x / x of 0.057 gave NaN)."""
    if not is_complex(dtype_of(a)):
        return ew.binary("divide", *(kept(x) if _is_quotient(x) else x for x in (a, b)))
    (ar, ai), (br, bi) = parts(a), parts(b)
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
        return divide(const(x, 1), x)
    (re, im), op = parts(x), ew.binary
    wide_r = op("divide", im, re)  # for |im| <= |re|
    wide_d = op("add", re, op("multiply", im, wide_r))
    tall_r = op("divide", re, im)
    tall_d = op("add", op("multiply", re, tall_r), im)
    first = ew.compare("LE", ew.unary("abs", im), ew.unary("abs", re))
    real = ew.select(first, op("divide", const(re, 1), wide_d), divide(tall_r, tall_d))
    imag = ew.select(first, divide(wide_r, wide_d), op("divide", const(re, 1), tall_d))
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


#: log_b(e), correctly rounded: what log2 and log10 scale the natural log by. (1 / np.log(b) is
#: off by a rounding: log10's results then differed from NumPy's three times as often.)
_LOG_E = {2: 1.4426950408889634074, 10: 0.43429448190325182765}


def log_base(base):
    """log2, log10: the natural log scaled part by part (a complex division would turn inf into nan)."""
    def scaled(v):
        return ew.binary("multiply", v, const(v, _LOG_E[base]))

    def apply(x):
        if is_complex(dtype_of(x)):
            return ew.binary("complex", *map(scaled, parts(log(x))))
        return scaled(ew.unary("log", x))
    return apply


def logaddexp(a, b, base=None):
    """log(exp(a) + exp(b)) without overflow; `base=2` for logaddexp2."""
    big, diff = maximum(a, b), ew.unary("abs", ew.binary("subtract", a, b))
    if base == 2:  # (npymath's log2_1p: log1p times log2(e))
        tail = ew.binary("multiply", ew.unary("log_plus_one", exp2(ew.unary("negate", diff))),
                         const(a, _LOG_E[2]))
    else:
        tail = ew.unary("log_plus_one", ew.unary("exponential", ew.unary("negate", diff)))
    # where a == b: a + log(2), with a written as a + (b - a) / 2 (the same there, infinities apart) so
    # that each of a and b has half the derivative, as everywhere the two are close
    half_gap = ew.binary("multiply", ew.binary("subtract", b, a), const(a, 0.5))
    mean = ew.select(isinf(a), a, ew.binary("add", a, half_gap))
    equal = ew.binary("add", mean, const(a, 1.0 if base == 2 else np.log(2.0)))
    return ew.select(ew.compare("EQ", a, b), equal, ew.binary("add", big, tail))


def hypot(a, b):
    """sqrt(a**2 + b**2) without overflow; infinite if either is (even with a NaN), as C99. The larger
    magnitude (a NaN, if either is) and the smaller are picked by one test, so that where they are
    equal each still has its own derivative (two maximum/minimum ops both gave it to `a`); at zero
    the derivative is 0 (jax.grad's of a complex abs)."""
    size_a, size_b = ew.unary("abs", a), ew.unary("abs", b)
    a_larger = ew.binary("or", ew.compare("GE", size_a, size_b), isnan(size_a))
    big, small = ew.select(a_larger, size_a, size_b), ew.select(a_larger, size_b, size_a)
    zero = ew.compare("EQ", big, const(big, 0))
    ratio = ew.binary("divide", small, ew.select(zero, const(big, 1), big))
    root = ew.unary("sqrt", ew.binary("add", const(big, 1), multiply(ratio, ratio)))
    inf = ew.binary("or", isinf(a), isinf(b))
    result = ew.select(zero, const(big, 0), multiply(big, root))
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



def _magnitudes(a, b):
    """|a|, |b| in the unsigned type of their width (so that |int8(-128)| is 128, as in C)."""
    unsigned = int_like(dtype_of(a), signed=False)
    return [ew.convert(absolute(v), unsigned) for v in (a, b)]


def gcd(a, b):
    """Euclid's algorithm: a loop until every remainder is 0, or, inside the body of a reduce
    (where XLA takes no loops), unrolled to its worst case for the width (consecutive Fibonacci
    numbers). Unrolled outside, XLA took seconds to compile gcd and lcm of the same arrays."""
    x, y = _magnitudes(a, b)
    if control.loops_allowed():
        x, y = control.repeat(lambda x, y: _any(ew.compare("NE", y, const(y, 0))), _euclid_step, [x, y])
    else:
        for _ in range(int(1.45 * 8 * dtype_of(x).itemsize) + 2):
            x, y = _euclid_step(x, y)
    return ew.convert(x, dtype_of(a))


def _euclid_step(x, y):
    """(y, x mod y) where y is not 0; (x, 0) where it is."""
    zero = const(y, 0)
    nonzero = ew.compare("NE", y, zero)
    rest = ew.binary("remainder", x, ew.select(nonzero, y, const(y, 1)))
    return ew.select(nonzero, y, x), ew.select(nonzero, rest, zero)


def _any(flags):
    """A 0-d i1: whether any of the booleans `flags` is set."""
    if not shape_of(flags):
        return flags
    return reduction.reduce([flags], [splat(False, (), np.bool_)], range(len(shape_of(flags))),
                            lambda acc, e: [ew.binary("or", acc, e)])[0]


def lcm(a, b):
    """|a| / gcd(a, b) * |b|, and 0 where both are 0 (NumPy's npy_lcm)."""
    x, y = _magnitudes(a, b)
    divisor = ew.convert(gcd(a, b), dtype_of(x))
    zero = ew.compare("EQ", divisor, const(x, 0))
    quotient = ew.binary("divide", x, ew.select(zero, const(x, 1), divisor))
    return ew.convert(ew.select(zero, const(x, 0), ew.binary("multiply", quotient, y)), dtype_of(a))


def bitwise_count(x):
    """Set bits of |x| (NumPy counts the magnitude of negative integers)."""
    return ew.unary("popcnt", ew.convert(absolute(x), int_like(dtype_of(x), signed=False)))


def frexp(x):
    """(mantissa in [0.5, 1), exponent) from the bits, a subnormal's shifted up by its leading zeros
    in integers (XLA's CPU flushes subnormal floats to zero in arithmetic); zero, inf and NaN come
    back as (x, 0)."""
    info, bits = np.finfo(dtype_of(x)), int_like(dtype_of(x))
    bias, width = info.maxexp - 2, info.nmant
    raw = bitcast(x, bits)
    sign = const(raw, np.iinfo(bits).min)
    magnitude = ew.binary("and", raw, ew.unary("not", sign))
    field = ew.binary("shift_right_logical", magnitude, const(raw, width))
    tiny = ew.compare("EQ", field, const(raw, 0))
    shift = ew.select(tiny, ew.binary("subtract", ew.unary("count_leading_zeros", magnitude), const(raw, info.nexp)),
                      const(raw, 0))
    normal = ew.binary("shift_left", magnitude, shift)  # (a subnormal's leading bit where a normal's is)
    exponent = ew.binary("subtract", ew.binary("shift_right_logical", normal, const(raw, width)),
                         ew.binary("add", shift, const(raw, bias)))
    exponent_mask = ((1 << info.nexp) - 1) << width
    mantissa = bitcast(ew.binary("or", ew.binary("and", ew.binary("or", normal, ew.binary("and", raw, sign)),
                                                 const(raw, ~exponent_mask)), const(raw, bias << width)), dtype_of(x))
    special = ew.binary("or", ew.compare("EQ", magnitude, const(raw, 0)),
                        ew.compare("EQ", field, const(raw, (1 << info.nexp) - 1)))
    return ew.select(special, x, mantissa), ew.select(special, const(raw, 0), exponent)


def modf(x):
    """(fractional part, integral part), both with x's sign; inf gives (±0, ±inf)."""
    whole = trunc(x)
    fraction = ew.select(isinf(x), const(x, 0), ew.binary("subtract", x, whole))
    return copysign(fraction, x), whole


def nextafter(x, y):
    """The next float after x towards y: one unit in the last place, by the bits."""
    raw = bitcast(x, int_like(dtype_of(x)))
    one_ulp = const(raw, 1)
    away = ew.compare("EQ", ew.compare("GT", y, x), ew.compare("GT", x, const(x, 0)))
    step = bitcast(ew.select(away, ew.binary("add", raw, one_ulp), ew.binary("subtract", raw, one_ulp)), dtype_of(x))
    smallest = np.finfo(dtype_of(x)).smallest_subnormal
    from_zero = ew.select(signbit(y), const(x, -smallest), const(x, smallest))
    result = ew.select(ew.compare("EQ", x, const(x, 0)), from_zero, step)
    result = ew.select(ew.compare("EQ", x, y), y, result)
    return ew.select(ew.binary("or", isnan(x), isnan(y)), ew.binary("add", x, y), result)


def spacing(x):
    """Distance from x to the next float away from zero (negative for negative x); NaN for inf.
    float16 goes towards +inf instead, as NumPy's npy_half_spacing does."""
    outward = const(x, np.inf) if dtype_of(x) == np.float16 else copysign(const(x, np.inf), x)
    distance = ew.binary("subtract", nextafter(x, outward), x)
    return ew.select(isinf(x), const(x, np.nan), distance)
