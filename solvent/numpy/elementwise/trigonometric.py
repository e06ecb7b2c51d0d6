"""sin, cos, tan and their hyperbolic kin: XLA's, with C99's (and NumPy's npymath) special values
for complex arguments whose parts are zero, infinite or NaN; arctanh and arccosh of real numbers
written out (XLA's `chlo` ops have wrong derivatives in enzyme-ad, and its atanh is off by up to
129 ulps where glibc's formula, followed here, stays within 2)."""

from __future__ import annotations

import numpy as np

from solvent.numpy.elementwise.bodies import branch_cut, chlo_unary, const, copysign, isfinite, isinf, parts
from solvent.ops import elementwise as ew
from solvent.ops.base import dtype_of, is_complex


def _by_parts(z, cosine_first: bool):
    """sinh (cosh) of complex z = x + iy as npymath computes it: sinh x cos y + i cosh x sin y (cosh x
    cos y + i sinh x sin y). XLA's (e^z - e^-z) / 2 cancels away a small part: the complex-step
    derivative sin(x + 1e-20j).imag / 1e-20 came out 0."""
    x, y = parts(z)
    sinh_x, cosh_x = chlo_unary("sinh")(x), chlo_unary("cosh")(x)
    first, second = (cosh_x, sinh_x) if cosine_first else (sinh_x, cosh_x)
    return ew.binary("complex", ew.binary("multiply", first, ew.unary("cosine", y)),
                     ew.binary("multiply", second, ew.unary("sine", y)))


def _hyperbolic(name, fix):
    """Complex `name`, with C99's (and NumPy's npymath) values where a part is zero, infinite or NaN;
    `fix(x, y, re, im)` gives the corrected parts."""
    native = {"sinh": chlo_unary("sinh"), "cosh": chlo_unary("cosh"), "tanh": lambda v: ew.unary("tanh", v)}[name]

    def apply(z):
        if not is_complex(dtype_of(z)):
            return native(z)
        result = native(z) if name == "tanh" else _by_parts(z, cosine_first=name == "cosh")
        return ew.binary("complex", *fix(*parts(z), *parts(result)))
    return apply


def _stuck(x, y):
    """An infinite real part with an infinite or NaN imaginary part."""
    return ew.binary("and", isinf(x), ew.unary("not", isfinite(y)))


def _sinh_parts(x, y, re, im):
    zero_x, zero_y, stuck = ew.compare("EQ", x, const(x, 0)), ew.compare("EQ", y, const(y, 0)), _stuck(x, y)
    re = ew.select(zero_y, chlo_unary("sinh")(x), ew.select(zero_x, x, ew.select(stuck, ew.unary("abs", x), re)))
    im = ew.select(zero_x, ew.unary("sine", y), ew.select(zero_y, y, ew.select(stuck, const(im, np.nan), im)))
    return re, im


def _cosh_parts(x, y, re, im):
    zero_x, zero_y, stuck = ew.compare("EQ", x, const(x, 0)), ew.compare("EQ", y, const(y, 0)), _stuck(x, y)
    re = ew.select(zero_y, chlo_unary("cosh")(x),
                   ew.select(zero_x, ew.unary("cosine", y), ew.select(stuck, ew.unary("abs", x), re)))
    at_zero_x = ew.select(isfinite(y), ew.binary("multiply", x, ew.unary("sine", y)), const(im, 0))
    im = ew.select(zero_y, ew.binary("multiply", copysign(const(x, 0), x), y),  # signed zeros as npymath's
                   ew.select(zero_x, at_zero_x, ew.select(stuck, const(im, np.nan), im)))
    return re, im


def _tanh_parts(x, y, re, im):
    zero_x, zero_y = ew.compare("EQ", x, const(x, 0)), ew.compare("EQ", y, const(y, 0))
    re = ew.select(zero_y, ew.unary("tanh", x), ew.select(zero_x, x, re))
    im = ew.select(zero_y, y, ew.select(zero_x, ew.unary("tan", y), im))
    return re, im


sinh = _hyperbolic("sinh", _sinh_parts)
cosh = _hyperbolic("cosh", _cosh_parts)
tanh = _hyperbolic("tanh", _tanh_parts)


def _circular(hyperbolic, real_op, turn_back, glibc_inf=False):
    """sin, cos, tan of complex z from the hyperbolic function of i*z (sin z = -i sinh(iz),
    cos z = cosh(iz), tan z = -i tanh(iz)); an infinite imaginary part with a NaN or infinite
    real part gives sin NaN + i*inf (`glibc_inf`), as NumPy (glibc's csin)."""
    def apply(z):
        if not is_complex(dtype_of(z)):
            return real_op(z)
        x, y = parts(z)
        w = hyperbolic(ew.binary("complex", ew.unary("negate", y), x))
        if not turn_back:
            return w
        re, im = parts(w)
        if glibc_inf:
            re = ew.select(_stuck(y, x), const(re, -np.inf), re)
        return ew.binary("complex", im, ew.unary("negate", re))
    return apply


sin = _circular(sinh, lambda x: ew.unary("sine", x), True, glibc_inf=True)
cos = _circular(cosh, lambda x: ew.unary("cosine", x), False)
tan = _circular(tanh, lambda x: ew.unary("tan", x), True)


def arctanh(x):
    """atanh(x) = sign(x) log1p(r) / 2, with a = |x| and r = 2a + 2a^2 / (1 - a) below a half and
    2a / (1 - a) from a half up (glibc's); at a = 1 as log1p(a) - log1p(-a), so that the derivative
    there is infinite, not NaN. Each branch is fed only the a it is for: a NaN derivative of another
    would reach the result. The sign is taken by a select, whose derivative at 0 is 1."""
    if is_complex(dtype_of(x)):
        return chlo_unary("atanh")(x)
    zero = const(x, 0.0)
    negative_zero = ew.binary("and", ew.compare("EQ", x, zero),  # (1 / -0.0 is -inf): atanh(-0.0) is -0.0
                              ew.compare("LT", ew.binary("divide", const(x, 1.0), x), zero))
    negative = ew.binary("or", ew.compare("LT", x, zero), negative_zero)
    a = ew.select(negative, ew.unary("negate", x), x)
    small, edge = ew.compare("LT", a, const(x, 0.5)), ew.compare("EQ", a, const(x, 1.0))
    a_small = ew.select(small, a, const(x, 0.25))
    a_large = ew.select(ew.binary("or", small, edge), const(x, 0.75), a)
    a_edge = ew.select(edge, a, const(x, 0.0))
    twice = ew.binary("add", a_small, a_small)
    r_small = ew.binary("add", twice, ew.binary("divide", ew.binary("multiply", twice, a_small),
                                                ew.binary("subtract", const(x, 1.0), a_small)))
    r_large = ew.binary("divide", ew.binary("add", a_large, a_large), ew.binary("subtract", const(x, 1.0), a_large))
    y = ew.unary("log_plus_one", ew.select(small, r_small, r_large))
    at_edge = ew.binary("subtract", ew.unary("log_plus_one", a_edge),
                        ew.unary("log_plus_one", ew.unary("negate", a_edge)))
    y = ew.binary("multiply", ew.select(edge, at_edge, y), const(x, 0.5))
    return ew.select(negative, ew.unary("negate", y), y)


#: Past this, x + sqrt(x^2 - 1) is 2x within rounding, and 2x could overflow.
_ACOSH_LARGE = 2.0 ** 500


def arccosh(x):
    """acosh(x) = log1p(x - 1 + sqrt(x - 1) sqrt(x + 1)), and log(x) + log(2) for large x, each branch
    fed only the x it is for. At 1, where it is infinite, the derivative comes out 1: Enzyme's
    derivative of sqrt at 0 is 0."""
    if is_complex(dtype_of(x)):
        return branch_cut(chlo_unary("acosh"), real_sign=1)(x)
    large = ew.compare("GT", x, const(x, _ACOSH_LARGE))
    moderate = ew.select(large, const(x, 2.0), x)
    below = ew.binary("subtract", moderate, const(x, 1.0))
    root = ew.binary("multiply", ew.unary("sqrt", below), ew.unary("sqrt", ew.binary("add", moderate, const(x, 1.0))))
    near = ew.unary("log_plus_one", ew.binary("add", below, root))
    far = ew.binary("add", ew.unary("log", ew.select(large, x, const(x, 2.0))), const(x, np.log(2.0)))
    return ew.select(large, far, near)
