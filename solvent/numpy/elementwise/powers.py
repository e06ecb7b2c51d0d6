"""Powers as NumPy's loops compute them: integers by squaring (wrapping), complex numbers by npymath's
npy_cpow, the rest by XLA's power."""

from __future__ import annotations

import numpy as np

from solvent.ir.module import splat_float, splat_integer
from solvent.numpy.elementwise.bodies import divide, parts
from solvent.ops import elementwise as ew
from solvent.ops.base import dtype_of, is_bool, is_complex, is_float, is_unsigned, shape_of
from solvent.ops.constant import splat
from solvent.ops.elementwise import const


def power(a, b):
    if is_bool(dtype_of(a)):
        return ew.binary("or", a, ew.unary("not", b))
    if is_float(dtype_of(a)) and splat_float(b) == 0.5:  # NumPy's loop takes sqrt there (sqrt(-0) is -0)
        return ew.unary("sqrt", a)
    known = splat_integer(b)
    if not is_float(dtype_of(a)) and not is_complex(dtype_of(a)) and not (known is not None and 0 <= known < 64):
        return _integer_power(a, b)
    if is_complex(dtype_of(a)):
        return _complex_power(a, b)
    return ew.binary("power", a, b)


def _complex_power(a, b):
    """npymath's npy_cpow: 1 for b = 0; at a = 0, 0 for b of positive real part and nan + nanj otherwise; for
    an integral real b below 100 in size, products by squaring, and 1 / that for a negative b; XLA's
    exp(b log a) for the rest (1j ** 4 was 1 - 2e-16j). npymath's first factor is 1 * a, which XLA
    would fold to a: a zero part's sign can differ (1j ** 4 is 1 - 0j, NumPy's 1 + 0j)."""
    br, bi = parts(b)
    one = const(a, 1)
    small = ew.binary("and", ew.binary("and", ew.compare("EQ", bi, const(bi, 0)),
                                       ew.compare("EQ", br, ew.unary("floor", br))),
                      ew.compare("LT", ew.unary("abs", br), const(br, 100)))
    n = ew.convert(ew.select(small, ew.unary("abs", br), const(br, 0)), np.int32)
    product, square, started = one, a, splat(False, shape_of(n), np.bool_)  # (the first factor is taken as is)
    for bit in range(7):
        odd = ew.compare("NE", ew.binary("and", n, const(n, 1 << bit)), const(n, 0))
        product = ew.select(odd, ew.select(started, ew.binary("multiply", product, square), square), product)
        started, square = ew.binary("or", started, odd), ew.binary("multiply", square, square)
    result = ew.select(small, ew.select(ew.compare("LT", br, const(br, 0)), divide(one, product), product),
                       ew.binary("power", a, b))
    at_zero = ew.select(ew.compare("GT", br, const(br, 0)), const(a, 0), const(a, complex(np.nan, np.nan)))
    result = ew.select(ew.compare("EQ", a, const(a, 0)), at_zero, result)
    return ew.select(ew.compare("EQ", b, const(b, 0)), one, result)


def _integer_power(a, b):
    """a ** b by squaring over every bit of b, wrapping as NumPy's loop does. XLA's integer power
    reads only b's low 6 bits (3 ** 64 gave 1, NumPy 8733086111712066817); it is kept where b < 0,
    which NumPy refuses."""
    result, base, exponent = const(a, 1), a, b
    for _ in range(8 * dtype_of(b).itemsize - (0 if is_unsigned(dtype_of(b)) else 1)):
        odd = ew.compare("NE", ew.binary("and", exponent, const(b, 1)), const(b, 0))
        result = ew.select(odd, ew.binary("multiply", result, base), result)
        base, exponent = ew.binary("multiply", base, base), ew.binary("shift_right_logical", exponent, const(b, 1))
    if is_unsigned(dtype_of(b)):
        return result
    return ew.select(ew.compare("LT", b, const(b, 0)), ew.binary("power", a, b), result)
