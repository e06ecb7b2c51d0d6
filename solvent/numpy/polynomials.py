"""NumPy's polynomial functions on traced arrays: polyval, polymul, polyder, polyint, vander,
poly, polyfit.
"""

from __future__ import annotations


import numpy as np

from solvent.errors import UnsupportedError
from solvent.numpy.calculus import UNROLLED, convolve
from solvent.numpy.indexing.traced_bounds import FUNCTIONS, MaskedArray
from solvent.numpy.registry import implements
from solvent.numpy.repeat import repeat_while
from solvent.numpy.values import (as_array, cast, concatenated, element_of, full, is_traced, shape,
                                  slice_along, value, wrap)
from solvent.ops import shape as shape_ops


@implements(np.polyval)
def polyval(p, x):
    p = as_array(p)
    x = as_array(x)
    if len(shape(p)) != 1:
        if not shape(p):
            raise TypeError("iteration over a 0-d array")
        raise UnsupportedError(f"np.polyval of coefficients of shape {shape(p)}: give a 1-d array of them")
    y = wrap(full(0, shape(x), x.dtype), scalar=False) if is_traced(x) else np.zeros_like(x)
    n = shape(p)[0]
    for i in range(n if n <= UNROLLED else 1):  # Horner's steps; past the first, their dtype is fixed
        y = y * x + (element_of(p, i) if is_traced(p) else p[i])
    return _horner(wrap(value(p), scalar=False), x, y, 1, n) if n > UNROLLED else y


def _horner(p, x, y, first: int, count):
    """Horner's steps y * x + p[i] from i = `first` while i < `count` (static or traced), rolled."""
    reads = (p, x, count) if is_traced(count) else (p, x)
    return repeat_while(lambda i, _: i < count, lambda i, y: (i + 1, y * x + element_of(p, i)),
                        (np.int64(first), y), reads=reads)[1]


def _padded(a, length):
    """A 1-D coefficient array with leading zeros up to `length`."""
    a = np.atleast_1d(a) if not is_traced(a) else (np.reshape(a, (1,)) if shape(a) == () else a)
    extra = length - shape(a)[0]
    if extra <= 0:
        return a
    if not is_traced(a):
        return np.concatenate([np.zeros(extra, a.dtype), a])
    return wrap(shape_ops.pad(value(a), full(0, (), a.dtype), [extra], [0], [0]), scalar=False)


def _poly_binary(ufunc):
    """polyadd, polysub: the shorter coefficient array padded with leading zeros."""
    def apply(a1, a2):
        length = max(shape(a)[0] if shape(a) else 1 for a in (a1, a2))
        return ufunc(_padded(a1, length), _padded(a2, length))
    return apply


implements(np.polyadd)(_poly_binary(np.add))
implements(np.polysub)(_poly_binary(np.subtract))


@implements(np.polymul)
def polymul(a1, a2):
    """convolve of the coefficients, their leading zeros stripped first (all zeros: one zero), as
    NumPy's poly1d strips them; for traced coefficients the product's length is then traced: its
    leading zeros are theirs together, cut off (`c[k1 + k2:]`)."""
    a1, a2 = (np.trim_zeros(np.atleast_1d(a), "f") if not is_traced(a) else np.atleast_1d(a) for a in (a1, a2))
    a1, a2 = (a if shape(a)[0] else np.zeros(1, a.dtype) for a in (a1, a2))
    product = convolve(a1, a2)
    return product if not (is_traced(a1) or is_traced(a2)) else product[_leading_zeros(a1) + _leading_zeros(a2):]


def _leading_zeros(a):
    """How many leading zeros poly1d strips from `a` (all but one of all zeros)."""
    if not is_traced(a):
        return 0  # (stripped already)
    nonzero = np.not_equal(a, 0)
    return np.where(np.any(nonzero), np.argmax(nonzero), shape(a)[0] - 1)


def _polyval_of_traced_count(p, x):
    """polyval of coefficients whose count is traced (a product of traced ones): Horner's steps over
    the valid part."""
    if isinstance(x, MaskedArray) or not isinstance(p, MaskedArray) or len(shape(p)) != 1:
        raise UnsupportedError("np.polyval of points, or of coefficients not in one row, whose count is traced")
    x, p, count = as_array(x), wrap(p.value, scalar=False), wrap(p.lengths[0], scalar=True)
    return _horner(p, x, wrap(full(0, shape(x), np.result_type(x.dtype, p.dtype)), scalar=False), 0, count)


FUNCTIONS[np.polyval] = _polyval_of_traced_count


@implements(np.polyder)
def polyder(p, m=1):
    m = int(m)
    if m < 0:
        raise ValueError("Order of derivative must be positive (see polyint)")
    p = as_array(p)
    for _ in range(m):
        n = shape(p)[0] - 1
        p = slice_along(p, 0, 0, max(n, 0)) * np.arange(n, 0, -1)
    return p


@implements(np.polyint)
def polyint(p, m=1, k=None):
    m = int(m)
    if m < 0:
        raise ValueError("Order of integral must be positive (see polyder)")
    k = np.zeros(m, float) if k is None else k
    k = np.atleast_1d(k) if not is_traced(k) else (np.reshape(k, (1,)) if shape(k) == () else k)
    if shape(k)[0] == 1 and m > 1:
        k = slice_along(k, 0, 0, 1) * np.ones(m, float)
    if shape(k)[0] < m:
        raise ValueError("k must be a scalar or a rank-1 array of length 1 or >m.")
    p = as_array(p)
    for i in range(m):
        p = concatenated([p / np.arange(shape(p)[0], 0, -1), slice_along(k, 0, i, i + 1)], 0)
    return p


@implements(np.vander)
def vander(x, N=None, increasing=False):
    x = as_array(x)
    if len(shape(x)) != 1:
        raise ValueError("x must be a one-dimensional array or sequence.")
    n = shape(x)[0] if N is None else N
    dtype = np.promote_types(x.dtype, int)
    column = np.reshape(cast(x, dtype), (-1, 1))
    power = wrap(full(1, (shape(x)[0], 1), dtype), scalar=False)
    if n > UNROLLED:  # the powers one column an iteration, each the last times x (NumPy's order)
        def step(j, power, out):
            at = [value(np.int64(0)), value(j if increasing else n - 1 - j)]
            out = shape_ops.dynamic_update_slice(value(out), value(power), at)
            return j + 1, power * column, wrap(out, scalar=False)
        start = (np.int64(0), power, wrap(full(0, (shape(x)[0], n), dtype), scalar=False))
        return repeat_while(lambda j, *_: j < n, step, start)[2]
    columns = []
    for _ in range(n):
        columns.append(power)
        power = power * column
    if not columns:
        return wrap(full(0, (shape(x)[0], 0), dtype), scalar=False)
    return concatenated(columns if increasing else columns[::-1], 1, dtype)


@implements(np.poly)
def poly(seq_of_zeros):
    """Coefficients of the monic polynomial with the given real roots, one root multiplied in at a
    time (in a loop over the coefficients at full length past UNROLLED roots)."""
    roots = as_array(seq_of_zeros)
    if len(shape(roots)) != 1 or roots.dtype.kind == "c":
        raise UnsupportedError("np.poly of a matrix or of complex roots: NumPy's result dtype then depends on "
                               "the values (real when the roots pair up as conjugates); pass real roots")
    n = shape(roots)[0]
    if n == 0:
        return 1.0
    dtype = np.dtype(np.mintypecode(roots.dtype.char))  # NumPy's: float64 unless float32
    if n > UNROLLED and is_traced(roots):
        return _poly_rolled(cast(roots, dtype), n, dtype)
    coefficients = np.ones(1, dtype)
    for k in range(n):
        root = cast(element_of(roots, k), dtype)
        coefficients = _times_root(np.concatenate([coefficients, np.zeros(1, dtype)]), root, k, np.arange(k + 2))
    return coefficients


def _poly_rolled(roots, n: int, dtype):
    """np.poly's products as a loop over the coefficients at full length (0 past the last)."""
    positions = np.arange(n + 1)

    def step(k, coefficients):
        return k + 1, _times_root(coefficients, element_of(roots, k), k, positions)
    start = (np.int64(0), (positions == 0).astype(dtype))
    return repeat_while(lambda k, _: k < n, step, start, reads=(roots,))[1]


def _times_root(c, root, k, positions):
    """c(x) (x - root) as NumPy's np.convolve(c, [1, -root]) of c's k + 1 coefficients gives it: the
    first coefficient kept, the last -root times c's, c[m] - root * c[m - 1] between (0 past them);
    no product of root with the zeros around c (an infinite root made the first one NaN)."""
    shifted = np.concatenate([np.zeros(1, c.dtype), c[:-1]])
    inner = np.where(positions == k + 1, -root * shifted, c - root * shifted)
    return np.where(positions == 0, c, np.where(positions <= k + 1, inner, 0)).astype(c.dtype)


@implements(np.polyfit)
def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
    """Least squares on the column-scaled Vandermonde matrix, as NumPy solves it. NumPy's warning for
    a rank-deficient fit depends on the data (the rank is traced), so solvent does not emit it."""
    order = int(deg) + 1
    x, y = as_array(x) + 0.0, as_array(y) + 0.0
    if deg < 0:
        raise ValueError("expected deg >= 0")
    if len(shape(x)) != 1 or shape(x)[0] == 0:
        raise TypeError("expected a non-empty 1D vector for x")
    if not 1 <= len(shape(y)) <= 2 or shape(x)[0] != shape(y)[0]:
        raise TypeError("expected 1D or 2D y with as many rows as x")
    lhs, rhs = vander(x, order), y
    if w is not None:
        w = as_array(w) + 0.0
        if len(shape(w)) != 1 or shape(w)[0] != shape(y)[0]:
            raise TypeError("expected a 1-d array of weights with the length of y")
        lhs *= np.reshape(w, (-1, 1))  # in place, as NumPy: complex weights of real data raise
        rhs *= np.reshape(w, (-1, 1)) if len(shape(y)) == 2 else w
    rcond = shape(x)[0] * np.finfo(x.dtype).eps if rcond is None else rcond
    scale = np.sqrt(np.sum(lhs * lhs, axis=0))
    lhs = lhs / scale
    c, residuals, rank, singular = np.linalg.lstsq(lhs, rhs, rcond)
    c = (c.T / scale).T
    if full:
        return c, residuals, rank, singular, rcond
    if not cov:
        return c
    covariance = np.linalg.inv(lhs.T @ lhs) / np.outer(scale, scale)
    if cov != "unscaled":
        if shape(x)[0] <= order:
            raise ValueError("the number of data points must exceed order to scale the covariance matrix")
        covariance = (covariance[:, :, None] if len(shape(y)) == 2 else covariance) * (
            residuals / (shape(x)[0] - order))
    elif len(shape(y)) == 2:
        covariance = covariance[:, :, None]
    return c, covariance
