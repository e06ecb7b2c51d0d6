"""Numerical functions that are not ufuncs: rounding, tolerance tests, differences, gradients,
convolution, interpolation, integration, polynomials, and the vecdot/matvec/vecmat gufuncs.

Most are compositions of registered NumPy calls on traced arrays (so promotion stays NumPy's);
slices along an axis are taken on SSA values directly.
"""

from __future__ import annotations

import operator

import numpy as np
from numpy.lib._function_base_impl import _i0A, _i0B

from solvent.errors import UnsupportedError
from solvent.numpy.registry import implements
from solvent.numpy.values import (full, is_traced, normalize_axis, result_type, shape, value, wrap,
                                  write_out)
from solvent.ops import elementwise as ew, shape as shape_ops
from solvent.ops.convolution import correlate_1d


def _array(a):
    return a if is_traced(a) else np.asarray(a)


def _take(x, axis, start, stop):
    """x[..., start:stop, ...] along `axis` (static, non-negative bounds) as a traced array."""
    n = len(shape(x))
    lo = [start if d == axis else 0 for d in range(n)]
    hi = [stop if d == axis else size for d, size in enumerate(shape(x))]
    return wrap(shape_ops.slice(value(x), lo, hi, [1] * n), scalar=False)


def _element(x, i):
    """x[i] of a 1-D array (static i >= 0) as a traced scalar."""
    return wrap(shape_ops.reshape(value(_take(x, 0, i, i + 1)), ()))


def _concat(pieces, axis, dtype=None):
    """Concatenate traced or host pieces along `axis`, promoted together (or to `dtype`)."""
    dtype = dtype or result_type(*pieces)
    return wrap(shape_ops.concatenate([value(p, dtype) for p in pieces], axis), scalar=False)


def _as(x, dtype):
    """`x` converted to `dtype` (unsafe casting, as NumPy's out= with casting='unsafe')."""
    return wrap(value(x, dtype), scalar=shape(x) == ())


# -- rounding and elementwise tests ----------------------------------------------------------

@implements(np.round, np.around)
def round_(a, decimals=0, out=None):
    """Half to even at 10**-decimals, computed as NumPy does (x * 10**d, rint, / 10**d)."""
    a, decimals = _array(a), operator.index(decimals)
    kind = np.dtype(a.dtype).kind
    if kind == "b" and decimals != 0:
        raise TypeError("Cannot cast ufunc 'multiply' output from dtype('float64') to dtype('bool')")
    if kind in "iu" and decimals >= 0:
        result = _as(a, a.dtype)
    elif decimals == 0:
        result = np.rint(a)
    elif kind in "iu":  # through float64, then back with the integer's wrap-around
        factor = 10 ** -decimals
        quotient = _as(np.rint(np.true_divide(a, float(factor))), a.dtype)
        bits = np.dtype(a.dtype).itemsize * 8
        result = np.multiply(quotient, np.array(factor % 2 ** bits, f"u{bits // 8}").view(a.dtype))
    else:
        factor = np.array(10.0 ** abs(decimals), np.finfo(a.dtype).dtype)
        if decimals > 0:
            result = np.true_divide(np.rint(np.multiply(a, factor)), factor)
        else:
            result = np.multiply(np.rint(np.true_divide(a, factor)), factor)
    return write_out(out, result) if out is not None else result


@implements(np.fix)
def fix(x, out=None):
    return np.trunc(x, out=out)


@implements(np.nan_to_num)
def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """NaN and infinities replaced part by part; `copy=False` changes the argument in place."""
    x = _array(x)
    kind = np.dtype(x.dtype).kind
    if kind not in "fc":
        return x if not copy else _as(x, x.dtype)
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
    return _as(result, x.dtype)


@implements(np.sinc)
def sinc(x):
    y = np.multiply(np.pi, np.where(np.equal(x, 0), 1.0e-20, x))
    return np.true_divide(np.sin(y), y)


@implements(np.angle)
def angle(z, deg=False):
    z = _array(z)
    if np.dtype(z.dtype).kind == "c":
        a = np.arctan2(np.imag(z), np.real(z))
    else:
        a = np.arctan2(0, z)
    return np.multiply(a, 180 / np.pi) if deg else a


@implements(np.real_if_close)
def real_if_close(a, tol=100):
    raise UnsupportedError("np.real_if_close: its result dtype depends on the data; use np.real(a) "
                           "(after checking np.allclose(np.imag(a), 0)) instead")


@implements(np.isclose)
def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    x = a if type(a) in (int, float, complex) else _array(a)
    y = b if type(b) in (int, float, complex) else _array(b)
    if hasattr(y, "dtype"):
        y = _as(y, np.result_type(y.dtype, 1.0))
    elif isinstance(y, int):
        y = float(y)
    close = np.less_equal(np.absolute(np.subtract(x, y)), np.add(atol, np.multiply(rtol, np.absolute(y))))
    result = np.logical_or(np.logical_and(close, np.isfinite(y)), np.equal(x, y))
    if equal_nan:
        result = np.logical_or(result, np.logical_and(np.isnan(x), np.isnan(y)))
    return result


@implements(np.allclose)
def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """A traced bool scalar (NumPy returns a Python bool, which a traced value cannot become)."""
    return np.all(isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))


@implements(np.array_equal)
def array_equal(a1, a2, equal_nan=False):
    """False when the shapes differ (a static answer); otherwise a traced bool scalar."""
    a1, a2 = _array(a1), _array(a2)
    if shape(a1) != shape(a2):
        return False
    equal = np.equal(a1, a2)
    if equal_nan and any(np.dtype(x.dtype).kind in "fc" for x in (a1, a2)):
        nan1, nan2 = np.isnan(a1), np.isnan(a2)
        equal = np.logical_and(np.equal(nan1, nan2), np.logical_or(equal, nan1))
    return np.all(equal)


@implements(np.array_equiv)
def array_equiv(a1, a2):
    a1, a2 = _array(a1), _array(a2)
    try:
        np.broadcast_shapes(shape(a1), shape(a2))
    except ValueError:
        return False
    return np.all(np.equal(a1, a2))


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
    x = _array(x)
    if np.dtype(x.dtype).kind == "c":
        return np.not_equal(np.imag(x), 0)
    return wrap(full(False, shape(x), np.bool_))


def _signed_infinity(negative):
    def apply(x, out=None):
        x = _array(x)
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
    x = _array(x)
    kind = np.dtype(x.dtype).kind
    if kind == "c":
        raise TypeError("i0 not supported for complex values")
    x = np.absolute(x if kind == "f" else _as(x, np.float64))
    small = np.multiply(np.exp(x), _chebyshev(np.subtract(np.true_divide(x, 2.0), 2), _i0A))
    large = np.true_divide(np.multiply(np.exp(x), _chebyshev(np.subtract(np.true_divide(32.0, x), 2.0), _i0B)),
                           np.sqrt(x))
    return np.where(np.less_equal(x, 8.0), small, large)


# -- differences and gradients -------------------------------------------------------------------

@implements(np.diff)
def diff(a, n=1, axis=-1, prepend=np._NoValue, append=np._NoValue):
    if n == 0:
        return a
    if n < 0:
        raise ValueError(f"order must be non-negative but got {n!r}")
    a = _array(a)
    if len(shape(a)) == 0:
        raise ValueError("diff requires input that is at least one dimensional")
    axis = normalize_axis(axis, len(shape(a)))
    edge = [1 if d == axis else size for d, size in enumerate(shape(a))]
    pieces = [_array(p) for p in (prepend, a, append) if p is not np._NoValue]
    if len(pieces) > 1:  # a 0-d prepend or append is broadcast to one slice along the axis
        a = _concat([p if len(shape(p)) else wrap(value(p, to_shape=edge), scalar=False) for p in pieces], axis)
    op = np.not_equal if a.dtype == np.bool_ else np.subtract
    for _ in range(n):
        length = shape(a)[axis]
        a = op(_take(a, axis, 1, length), _take(a, axis, 0, max(length - 1, 0)))
    return a


@implements(np.ediff1d)
def ediff1d(ary, to_end=None, to_begin=None):
    ary = np.ravel(_array(ary))
    n = shape(ary)[0]
    differences = np.subtract(_take(ary, 0, 1, n), _take(ary, 0, 0, max(n - 1, 0)))

    def flat(extra, name):
        extra = np.ravel(_array(extra))
        if not np.can_cast(extra.dtype, ary.dtype, casting="same_kind"):
            raise TypeError(f"dtype of `{name}` must be compatible with input `ary` under the `same_kind` rule.")
        return extra
    if to_begin is None and to_end is None:
        return differences
    pieces = ([] if to_begin is None else [flat(to_begin, "to_begin")]) + [differences] + (
        [] if to_end is None else [flat(to_end, "to_end")])
    return _concat(pieces, 0, np.dtype(ary.dtype))


def _spacings(f, varargs, axes):
    """One spacing per axis: a static scalar, or a 1-D coordinate array (made float64 if integer)."""
    if not varargs:
        return [1.0] * len(axes)
    if len(varargs) == 1 and np.ndim(varargs[0]) == 0:
        return list(varargs) * len(axes)
    if len(varargs) != len(axes):
        raise TypeError("invalid number of arguments")
    spacings = []
    for distances, axis in zip(varargs, axes):
        distances = _array(distances)
        if len(shape(distances)) == 0:
            spacings.append(distances)
            continue
        if len(shape(distances)) != 1:
            raise ValueError("distances must be either scalars or 1d")
        if shape(distances)[0] != shape(f)[axis]:
            raise ValueError("when 1d, distances must match the length of the corresponding dimension")
        if np.dtype(distances.dtype).kind in "iub":
            distances = _as(distances, np.float64)
        spacings.append(diff(distances) if is_traced(distances) else _uniform(np.diff(distances)))
    return spacings


def _uniform(steps):
    """A host array of steps that are all equal collapses to a scalar, as NumPy's gradient does."""
    return steps[0] if len(steps) and np.all(steps == steps[0]) else steps


def _along(v, axis, ndim):
    """A 1-D array shaped to broadcast along `axis` of an ndim-array."""
    return np.reshape(v, [-1 if d == axis else 1 for d in range(ndim)])


@implements(np.gradient)
def gradient(f, *varargs, axis=None, edge_order=1):
    f = _array(f)
    ndim = len(shape(f))
    axes = tuple(range(ndim)) if axis is None else tuple(
        normalize_axis(a, ndim) for a in (axis if isinstance(axis, (tuple, list)) else (axis,)))
    if len(set(axes)) != len(axes):
        raise ValueError("duplicate value in 'axis'")
    if edge_order > 2:
        raise ValueError("'edge_order' greater than 2 not supported")
    if f.dtype == np.bool_:
        raise TypeError("numpy boolean subtract, the `-` operator, is not supported")
    out_dtype = np.dtype(np.float64) if np.dtype(f.dtype).kind in "iu" else np.dtype(f.dtype)
    f = _as(f, out_dtype) if is_traced(f) else f.astype(out_dtype)
    results = [_gradient_along(f, dx, a, ndim, edge_order, out_dtype)
               for dx, a in zip(_spacings(f, varargs, axes), axes)]
    return results[0] if len(results) == 1 else tuple(results)


def _gradient_along(f, dx, axis, ndim, edge_order, out_dtype):
    """Second-order central differences inside, one-sided differences of `edge_order` at the ends
    (NumPy's formulas, written with the same operators so that promotion matches)."""
    n = shape(f)[axis]
    if n < edge_order + 1:
        raise ValueError("Shape of array too small to calculate a numerical gradient, "
                         "at least (edge_order + 1) elements are required.")

    def at(start, stop=None):
        start %= n
        return _take(f, axis, start, start + 1 if stop is None else stop)
    if np.ndim(dx) == 0:
        interior = (at(2, n) - at(0, n - 2)) / (2. * dx)
        if edge_order == 1:
            first, last = (at(1) - at(0)) / dx, (at(-1) - at(-2)) / dx
        else:
            first = -1.5 / dx * at(0) + 2. / dx * at(1) - 0.5 / dx * at(2)
            last = 0.5 / dx * at(-3) - 2. / dx * at(-2) + 1.5 / dx * at(-1)
    else:
        def step(i, stop=None):
            i %= n - 1
            return _take(dx, 0, i, i + 1 if stop is None else stop)
        dx1, dx2 = (_along(d, axis, ndim) for d in (step(0, n - 2), step(1, n - 1)))
        a, b, c = -dx2 / (dx1 * (dx1 + dx2)), (dx2 - dx1) / (dx1 * dx2), dx1 / (dx2 * (dx1 + dx2))
        interior = a * at(0, n - 2) + b * at(1, n - 1) + c * at(2, n)
        if edge_order == 1:
            first, last = (at(1) - at(0)) / step(0), (at(-1) - at(-2)) / step(-1)
        else:
            dx1, dx2 = step(0), step(1)
            first = (-(2. * dx1 + dx2) / (dx1 * (dx1 + dx2)) * at(0) + (dx1 + dx2) / (dx1 * dx2) * at(1)
                     - dx1 / (dx2 * (dx1 + dx2)) * at(2))
            dx1, dx2 = step(-2), step(-1)
            last = (dx2 / (dx1 * (dx1 + dx2)) * at(-3) - (dx2 + dx1) / (dx1 * dx2) * at(-2)
                    + (2. * dx2 + dx1) / (dx2 * (dx1 + dx2)) * at(-1))
    return _concat([first, interior, last], axis, out_dtype)


@implements(np.unwrap)
def unwrap(p, discont=None, axis=-1, *, period=2 * np.pi):
    """NumPy's unwrap: differences folded into [-period/2, period/2), accumulated from the first value."""
    p = _array(p)
    axis = normalize_axis(axis, len(shape(p)))
    dd = diff(p, axis=axis)
    discont = period / 2 if discont is None else discont
    dtype = np.result_type(dd.dtype, period)
    if np.issubdtype(dtype, np.integer):
        high, rem = divmod(period, 2)
        ambiguous = rem == 0
    else:
        high, ambiguous = period / 2, True
    ddmod = np.mod(dd - -high, period) + -high
    if ambiguous:
        ddmod = np.where(np.logical_and(ddmod == -high, dd > 0), high, ddmod)
    correction = np.where(np.absolute(dd) < discont, 0, ddmod - dd)
    n = shape(p)[axis]
    rest = _take(p, axis, 1, n) + np.cumsum(correction, axis=axis)
    return _concat([_take(p, axis, 0, min(n, 1)), rest], axis, dtype)


# -- convolution and correlation -----------------------------------------------------------------

_MODES = {"valid": 0, "same": 1, "full": 2}


def _mode(mode) -> int:
    """NumPy's mode names (exact) or their numbers 0, 1, 2."""
    number = _MODES.get(mode) if isinstance(mode, str) else operator.index(mode)
    if number not in (0, 1, 2):
        raise ValueError("Use one of 'valid', 'same', or 'full' for convolve/correlate mode")
    return number


def _sliding(a, v, mode):
    """out[k] = sum_j a_padded[k + j] * v[j] for the longer `a` (NumPy's _pyarray_correlate).
    Real floats use one `stablehlo.convolution`; other dtypes, which not every XLA backend
    convolves (complex, integers, bool), one shifted slice per coefficient of the shorter `v`."""
    n = shape(v)[0]
    left = {0: 0, 1: n // 2, 2: n - 1}[mode]
    right = {0: 0, 1: n - n // 2 - 1, 2: n - 1}[mode]
    dtype = result_type(a, v)
    work = np.dtype(np.float32) if dtype == np.float16 else dtype  # NumPy's half dot sums in float
    if work.kind == "f":
        return _as(wrap(correlate_1d(value(a, work), value(v, work), left, right), scalar=False), dtype)
    padded = wrap(shape_ops.pad(value(a, work), full(0, (), work), [left], [right], [0]), scalar=False)
    length = shape(padded)[0] - n + 1
    total = None
    for j in range(n):
        term = np.multiply(_take(padded, 0, j, j + length), _take(v, 0, j, j + 1))
        total = term if total is None else np.add(total, term)
    return _as(total, dtype)


def _vector(a):
    """A 1-D operand of convolve and correlate (0-d becomes length 1, as np.array(ndmin=1))."""
    a = _array(a)
    if len(shape(a)) > 1:
        raise ValueError("object too deep for desired array")
    return wrap(shape_ops.reshape(value(a), (-1,)), scalar=False) if shape(a) == () else a


def _reversed(v):
    return wrap(shape_ops.reverse(value(v), [0]), scalar=False)


@implements(np.convolve)
def convolve(a, v, mode="full"):
    a, v = _vector(a), _vector(v)
    if shape(v)[0] > shape(a)[0]:
        a, v = v, a
    if shape(a)[0] == 0:
        raise ValueError("a cannot be empty")
    if shape(v)[0] == 0:
        raise ValueError("v cannot be empty")
    return _sliding(a, _reversed(v), _mode(mode))


@implements(np.correlate)
def correlate(a, v, mode="valid"):
    """c[k] = sum_n a[n + k] * conj(v[n]); a longer `v` is handled as NumPy does (swapped, reversed)."""
    a, v = _vector(a), _vector(v)
    if shape(a)[0] == 0 or shape(v)[0] == 0:
        raise ValueError(f"{'a' if shape(a)[0] == 0 else 'v'} cannot be empty")
    v = np.conjugate(v) if np.dtype(v.dtype).kind == "c" else v
    if shape(v)[0] > shape(a)[0]:
        return _reversed(_sliding(v, a, _mode(mode)))
    return _sliding(a, v, _mode(mode))


# -- interpolation and integration ----------------------------------------------------------------

def _pick(table, index, n):
    """table[index] for every entry of a traced int index array in [0, n): a select and a sum."""
    hit = np.equal(np.reshape(index, shape(index) + (1,)), np.arange(n))
    return np.sum(np.where(hit, table, 0), axis=-1)


@implements(np.interp)
def interp(x, xp, fp, left=None, right=None, period=None):
    """Piecewise-linear interpolation; the interval of each x is found by counting xp <= x."""
    xp, fp = _array(xp), _array(fp)
    dtype = np.dtype(np.complex128 if np.dtype(fp.dtype).kind == "c" else np.float64)
    if len(shape(xp)) != 1 or len(shape(fp)) != 1:
        raise ValueError("object too deep for desired array")
    if shape(xp)[0] != shape(fp)[0]:
        raise ValueError("fp and xp are not of the same length.")
    if shape(xp)[0] == 0:
        raise ValueError("array of sample points is empty")
    if dtype.kind == "c":  # each part on its own, as NumPy's complex loop
        parts = [interp(x, xp, part(fp), *(None if e is None else part(e) for e in (left, right)), period)
                 for part in (np.real, np.imag)]
        return wrap(ew.binary("complex", *(value(p) for p in parts)), scalar=shape(parts[0]) == ())
    left, right = (float(e) if e is not None and not is_traced(e) else e for e in (left, right))
    x, xp, fp = _as(_array(x), np.float64), _as(xp, np.float64), _as(fp, dtype)
    if period is not None:
        if period == 0:
            raise ValueError("period must be a non-zero value")
        period, left, right = abs(period), None, None
        x, xp = np.mod(x, period), np.mod(xp, period)
        order = np.argsort(xp)
        xp, fp = np.take(xp, order), np.take(fp, order)
        n = shape(xp)[0]
        xp = _concat([_take(xp, 0, n - 1, n) - period, xp, _take(xp, 0, 0, 1) + period], 0)
        fp = _concat([_take(fp, 0, n - 1, n), fp, _take(fp, 0, 0, 1)], 0)
    n = shape(xp)[0]
    j = np.sum(np.less_equal(xp, np.reshape(x, shape(x) + (1,))), axis=-1, dtype=np.int64) - 1
    lo, hi = np.clip(j, 0, n - 1), np.clip(j + 1, 0, n - 1)
    x0, x1, y0, y1 = _pick(xp, lo, n), _pick(xp, hi, n), _pick(fp, lo, n), _pick(fp, hi, n)
    slope = (y1 - y0) / (x1 - x0)
    inner = slope * (x - x0) + y0
    inner = np.where(np.isnan(inner), slope * (x - x1) + y1, inner)
    inner = np.where(np.logical_and(np.isnan(inner), y0 == y1), y0, inner)
    inner = np.where(x0 == x, y0, inner)
    last = _element(fp, n - 1)
    low = _element(fp, 0) if left is None else left
    high = last if right is None else right
    result = np.where(x > _element(xp, n - 1), high, np.where(j < 0, low, np.where(j == n - 1, last, inner)))
    return _as(np.where(np.isnan(x), np.nan, result), dtype)


@implements(np.trapezoid)
def trapezoid(y, x=None, dx=1.0, axis=-1):
    y = _array(y)
    axis = normalize_axis(axis, len(shape(y)))
    if x is None:
        d = dx
    else:
        x = _array(x)
        d = diff(x, axis=axis) if len(shape(x)) != 1 else _along(diff(x), axis, len(shape(y)))
    n = shape(y)[axis]
    return np.sum(d * (_take(y, axis, 1, n) + _take(y, axis, 0, max(n - 1, 0))) / 2.0, axis=axis)


# -- polynomials -------------------------------------------------------------------------------

@implements(np.polyval)
def polyval(p, x):
    p = _array(p)
    x = _array(x)
    y = wrap(full(0, shape(x), x.dtype), scalar=False) if is_traced(x) else np.zeros_like(x)
    for i in range(shape(p)[0]):
        y = y * x + (_element(p, i) if is_traced(p) else p[i])
    return y


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
    """convolve of the coefficients. NumPy first strips leading zeros: solvent can only do that
    for host coefficients (a traced one keeps them, which gives the same polynomial)."""
    a1, a2 = (np.trim_zeros(np.atleast_1d(a), "f") if not is_traced(a) else a for a in (a1, a2))
    a1, a2 = (np.zeros(1, a.dtype) if not is_traced(a) and a.size == 0 else a for a in (a1, a2))
    return convolve(a1, a2)


@implements(np.polyder)
def polyder(p, m=1):
    m = int(m)
    if m < 0:
        raise ValueError("Order of derivative must be positive (see polyint)")
    p = _array(p)
    for _ in range(m):
        n = shape(p)[0] - 1
        p = _take(p, 0, 0, max(n, 0)) * np.arange(n, 0, -1)
    return p


@implements(np.polyint)
def polyint(p, m=1, k=None):
    m = int(m)
    if m < 0:
        raise ValueError("Order of integral must be positive (see polyder)")
    k = np.zeros(m, float) if k is None else k
    k = np.atleast_1d(k) if not is_traced(k) else (np.reshape(k, (1,)) if shape(k) == () else k)
    if shape(k)[0] == 1 and m > 1:
        k = _take(k, 0, 0, 1) * np.ones(m, float)
    if shape(k)[0] < m:
        raise ValueError("k must be a scalar or a rank-1 array of length 1 or >m.")
    p = _array(p)
    for i in range(m):
        p = _concat([p / np.arange(shape(p)[0], 0, -1), _take(k, 0, i, i + 1)], 0)
    return p


@implements(np.vander)
def vander(x, N=None, increasing=False):
    x = _array(x)
    if len(shape(x)) != 1:
        raise ValueError("x must be a one-dimensional array or sequence.")
    n = shape(x)[0] if N is None else N
    dtype = np.promote_types(x.dtype, int)
    column = np.reshape(_as(x, dtype), (-1, 1))
    columns, power = [], wrap(full(1, (shape(x)[0], 1), dtype), scalar=False)
    for _ in range(n):
        columns.append(power)
        power = power * column
    if not columns:
        return wrap(full(0, (shape(x)[0], 0), dtype), scalar=False)
    return _concat(columns if increasing else columns[::-1], 1, dtype)


@implements(np.poly)
def poly(seq_of_zeros):
    """Coefficients of the monic polynomial with the given real roots, one root multiplied in at a time."""
    roots = _array(seq_of_zeros)
    if len(shape(roots)) != 1 or roots.dtype.kind == "c":
        raise UnsupportedError("np.poly of a matrix or of complex roots: NumPy's result dtype then depends on "
                               "the values (real when the roots pair up as conjugates); pass real roots")
    if shape(roots)[0] == 0:
        return 1.0
    dtype = np.dtype(np.mintypecode(roots.dtype.char))  # NumPy's: float64 unless float32
    coefficients = np.ones(1, dtype)
    for k in range(shape(roots)[0]):
        root = _as(_element(roots, k), dtype)
        coefficients = (np.concatenate([coefficients, np.zeros(1, dtype)])
                        - root * np.concatenate([np.zeros(1, dtype), coefficients]))
    return coefficients


@implements(np.polyfit)
def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
    """Least squares on the column-scaled Vandermonde matrix, as NumPy solves it. NumPy's warning for
    a rank-deficient fit depends on the data (the rank is traced), so solvent does not emit it."""
    order = int(deg) + 1
    x, y = _array(x) + 0.0, _array(y) + 0.0
    if deg < 0:
        raise ValueError("expected deg >= 0")
    if len(shape(x)) != 1 or shape(x)[0] == 0:
        raise TypeError("expected a non-empty 1D vector for x")
    if not 1 <= len(shape(y)) <= 2 or shape(x)[0] != shape(y)[0]:
        raise TypeError("expected 1D or 2D y with as many rows as x")
    lhs, rhs = vander(x, order), y
    if w is not None:
        w = _array(w) + 0.0
        if len(shape(w)) != 1 or shape(w)[0] != shape(y)[0]:
            raise TypeError("expected a 1-d array of weights with the length of y")
        lhs = lhs * np.reshape(w, (-1, 1))
        rhs = rhs * (np.reshape(w, (-1, 1)) if len(shape(y)) == 2 else w)
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


# -- the vector gufuncs (np.matmul lives in products.py) -------------------------------------------

#: Operand shapes with the core dimensions of each gufunc, for asking NumPy its result dtype.
_CORE = {"vecdot": ((1,), (1,)), "matvec": ((1, 1), (1,)), "vecmat": ((1,), (1, 1))}


def _gufunc(name, contract):
    """vecdot, matvec, vecmat: products summed over the core dimension, in the ufunc's loop dtype."""
    ufunc = getattr(np, name)

    def apply(method, x1, x2, out=None, axes=None, axis=None, dtype=None, **kwargs):
        if method != "__call__" or kwargs or axes is not None or (axis is not None and name != "vecdot"):
            raise UnsupportedError(f"np.{name}.{method} or with axes=/{', '.join(kwargs)}")
        probes = [np.ones(core, result_type(x)) for core, x in zip(_CORE[name], (x1, x2))]
        loop = ufunc(*probes, dtype=dtype).dtype
        x1, x2 = _as(_array(x1), loop), _as(_array(x2), loop)
        result = contract(x1, x2, -1 if axis is None else axis)
        result = _as(result, loop)
        return write_out(out, result) if out is not None else result
    return apply


def _vecdot(x1, x2, axis):
    return np.add.reduce(np.multiply(np.conjugate(x1), x2), axis=axis, dtype=x1.dtype)


def _matvec(a, v, axis):
    return np.add.reduce(np.multiply(a, np.expand_dims(v, -2)), axis=-1, dtype=a.dtype)


def _vecmat(v, a, axis):
    return np.add.reduce(np.multiply(np.expand_dims(np.conjugate(v), -1), a), axis=-2, dtype=a.dtype)


implements(np.vecdot)(_gufunc("vecdot", _vecdot))
implements(np.matvec)(_gufunc("matvec", _matvec))
implements(np.vecmat)(_gufunc("vecmat", _vecmat))
