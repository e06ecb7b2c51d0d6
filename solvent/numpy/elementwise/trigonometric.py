"""sin, cos, tan and their hyperbolic kin: XLA's, with C99's (and NumPy's npymath) special values
for complex arguments whose parts are zero, infinite or NaN."""

from __future__ import annotations

import numpy as np

from solvent.numpy.elementwise.bodies import chlo_unary, const, isfinite, isinf, parts
from solvent.ops import elementwise as ew
from solvent.ops.base import dtype_of, is_complex


def _hyperbolic(name, fix):
    """XLA's complex `name`, with C99's (and NumPy's npymath) values where a part is zero,
    infinite or NaN; `fix(x, y, re, im)` gives the corrected parts."""
    native = chlo_unary(name) if name != "tanh" else (lambda v: ew.unary("tanh", v))

    def apply(z):
        result = native(z)
        if not is_complex(dtype_of(z)):
            return result
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
    im = ew.select(ew.binary("or", zero_x, zero_y), const(im, 0), ew.select(stuck, const(im, np.nan), im))
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
