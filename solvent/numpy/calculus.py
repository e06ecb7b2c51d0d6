"""Differences, gradients, convolution, interpolation and integration on traced arrays: diff,
ediff1d, gradient, unwrap, convolve, correlate, interp, trapezoid.

Most are compositions of registered NumPy calls (so promotion stays NumPy's); slices along an
axis are taken on SSA values directly.
"""

from __future__ import annotations

import operator

import numpy as np

from solvent.numpy.registry import implements
from solvent.numpy.repeat import repeat_while
from solvent.numpy.values import (as_array, cast, concatenated, element_of, full, is_traced, normalize_axis,
                                  result_type, shape, slice_along, value, wrap)
from solvent.ops import elementwise as ew, shape as shape_ops
from solvent.ops.convolution import correlate_1d


@implements(np.diff)
def diff(a, n=1, axis=-1, prepend=np._NoValue, append=np._NoValue):
    if n == 0:
        return a
    if n < 0:
        raise ValueError(f"order must be non-negative but got {n!r}")
    a = as_array(a)
    if len(shape(a)) == 0:
        raise ValueError("diff requires input that is at least one dimensional")
    axis = normalize_axis(axis, len(shape(a)))
    edge = [1 if d == axis else size for d, size in enumerate(shape(a))]
    pieces = [as_array(p) for p in (prepend, a, append) if p is not np._NoValue]
    if len(pieces) > 1:  # a 0-d prepend or append is broadcast to one slice along the axis
        a = concatenated([p if len(shape(p)) else wrap(value(p, to_shape=edge), scalar=False) for p in pieces], axis)
    op = np.not_equal if a.dtype == np.bool_ else np.subtract
    for _ in range(n):
        length = shape(a)[axis]
        a = op(slice_along(a, axis, 1, length), slice_along(a, axis, 0, max(length - 1, 0)))
    return a


@implements(np.ediff1d)
def ediff1d(ary, to_end=None, to_begin=None):
    ary = np.ravel(as_array(ary))
    n = shape(ary)[0]
    differences = np.subtract(slice_along(ary, 0, 1, n), slice_along(ary, 0, 0, max(n - 1, 0)))

    def flat(extra, name):
        extra = np.ravel(as_array(extra))
        if not np.can_cast(extra.dtype, ary.dtype, casting="same_kind"):
            raise TypeError(f"dtype of `{name}` must be compatible with input `ary` under the `same_kind` rule.")
        return extra
    if to_begin is None and to_end is None:
        return differences
    pieces = ([] if to_begin is None else [flat(to_begin, "to_begin")]) + [differences] + (
        [] if to_end is None else [flat(to_end, "to_end")])
    return concatenated(pieces, 0, np.dtype(ary.dtype))


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
        distances = as_array(distances)
        if len(shape(distances)) == 0:
            spacings.append(distances)
            continue
        if len(shape(distances)) != 1:
            raise ValueError("distances must be either scalars or 1d")
        if shape(distances)[0] != shape(f)[axis]:
            raise ValueError("when 1d, distances must match the length of the corresponding dimension")
        if np.dtype(distances.dtype).kind in "iub":
            distances = cast(distances, np.float64)
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
    f = as_array(f)
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
    f = cast(f, out_dtype) if is_traced(f) else f.astype(out_dtype)
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
        start += n if start < 0 else 0  # (from the end; at(2, n) of 2 elements is empty, not all)
        return slice_along(f, axis, start, start + 1 if stop is None else stop)
    if np.ndim(dx) == 0:
        interior = (at(2, n) - at(0, n - 2)) / (2. * dx)
        if edge_order == 1:
            first, last = (at(1) - at(0)) / dx, (at(-1) - at(-2)) / dx
        else:
            first = -1.5 / dx * at(0) + 2. / dx * at(1) - 0.5 / dx * at(2)
            last = 0.5 / dx * at(-3) - 2. / dx * at(-2) + 1.5 / dx * at(-1)
    else:
        def step(i, stop=None):
            i += n - 1 if i < 0 else 0
            return slice_along(dx, 0, i, i + 1 if stop is None else stop)
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
    return concatenated([first, interior, last], axis, out_dtype)


@implements(np.unwrap)
def unwrap(p, discont=None, axis=-1, *, period=2 * np.pi):
    """NumPy's unwrap: differences folded into [-period/2, period/2), accumulated from the first value."""
    p = as_array(p)
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
    rest = slice_along(p, axis, 1, n) + np.cumsum(correction, axis=axis)
    return concatenated([slice_along(p, axis, 0, min(n, 1)), rest], axis, dtype)


# -- convolution and correlation -----------------------------------------------------------------

_MODES = {"valid": 0, "same": 1, "full": 2}
#: Integer filters with more coefficients than this are applied in a loop.
UNROLLED = 16


def _mode(mode) -> int:
    """NumPy's mode names (exact) or their numbers 0, 1, 2."""
    number = _MODES.get(mode) if isinstance(mode, str) else operator.index(mode)
    if number not in (0, 1, 2):
        raise ValueError("Use one of 'valid', 'same', or 'full' for convolve/correlate mode")
    return number


def _sliding(a, v, mode):
    """out[k] = sum_j a_padded[k + j] * v[j] for the longer `a` (NumPy's _pyarray_correlate).
    Floats and complex values use `stablehlo.convolution` (`correlate_1d`); integers and bool, which
    XLA's CPU does not convolve, a shifted slice per coefficient of the shorter `v` (in a loop past
    UNROLLED coefficients: the module stays small however long `v` is)."""
    n = shape(v)[0]
    left = {0: 0, 1: n // 2, 2: n - 1}[mode]
    right = {0: 0, 1: n - n // 2 - 1, 2: n - 1}[mode]
    dtype = result_type(a, v)
    work = np.dtype(np.float32) if dtype == np.float16 else dtype  # NumPy's half dot sums in float
    if work.kind in "fc":
        return cast(wrap(correlate_1d(value(a, work), value(v, work), left, right), scalar=False), dtype)
    padded = wrap(shape_ops.pad(value(a, work), full(0, (), work), [left], [right], [0]), scalar=False)
    length = shape(padded)[0] - n + 1
    if n > UNROLLED:
        v = cast(v, work)

        def step(j, total):
            shifted = wrap(shape_ops.dynamic_slice(value(padded), [value(j)], [length]), scalar=False)
            return j + 1, np.add(total, np.multiply(shifted, element_of(v, j)))
        start = (np.int64(0), wrap(full(0, (length,), work), scalar=False))
        return cast(repeat_while(lambda j, _: j < n, step, start, reads=(padded,))[1], dtype)
    total = None
    for j in range(n):
        term = np.multiply(slice_along(padded, 0, j, j + length), slice_along(v, 0, j, j + 1))
        total = term if total is None else np.add(total, term)
    return cast(total, dtype)


def _vector(a):
    """A 1-D operand of convolve and correlate (0-d becomes length 1, as np.array(ndmin=1))."""
    a = as_array(a)
    if len(shape(a)) > 1:
        raise ValueError("object too deep for desired array")
    return wrap(shape_ops.reshape(value(a), (1,)), scalar=False) if shape(a) == () else a


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
    """c[k] = sum_n a[n + k] * conj(v[n]); a longer `v` is handled as NumPy does (swapped, reversed).
    Unlike convolve, NumPy's takes no number or 0-d array."""
    if 0 in (len(shape(a)), len(shape(v))):
        raise ValueError("object of too small depth for desired array")
    a, v = _vector(a), _vector(v)
    if shape(a)[0] == 0 or shape(v)[0] == 0:
        raise ValueError(f"{'a' if shape(a)[0] == 0 else 'v'} cannot be empty")
    v = np.conjugate(v) if np.dtype(v.dtype).kind == "c" else v
    if shape(v)[0] > shape(a)[0]:
        return _reversed(_sliding(v, a, _mode(mode)))
    return _sliding(a, v, _mode(mode))


# -- interpolation and integration ----------------------------------------------------------------

@implements(np.interp)
def interp(x, xp, fp, left=None, right=None, period=None):
    """Piecewise-linear interpolation, NumPy's arithmetic; the interval of each x found by a binary search
    (counting the xp <= each x cost len(x) * len(xp): 28 s and 8 GB for 10^6 points in 256)."""
    xp, fp = as_array(xp), as_array(fp)
    dtype = np.dtype(np.complex128 if np.dtype(fp.dtype).kind == "c" else np.float64)
    for points in (as_array(x), xp):  # (NumPy's safe cast to float64)
        if not np.can_cast(points.dtype, np.float64, "safe"):
            raise TypeError(f"Cannot cast array data from {points.dtype!r} to dtype('float64') according to the "
                            "rule 'safe'")
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
    x, xp, fp = cast(as_array(x), np.float64), cast(xp, np.float64), cast(fp, dtype)
    if period is not None:
        if not is_traced(period) and period == 0:  # (a traced zero gives NaN, as NumPy's mod by it)
            raise ValueError("period must be a non-zero value")
        period, left, right = abs(period), None, None
        x, xp = np.mod(x, period), np.mod(xp, period)
        order = np.argsort(xp)
        xp, fp = np.take(xp, order), np.take(fp, order)
        n = shape(xp)[0]
        xp = concatenated([slice_along(xp, 0, n - 1, n) - period, xp, slice_along(xp, 0, 0, 1) + period], 0)
        fp = concatenated([slice_along(fp, 0, n - 1, n), fp, slice_along(fp, 0, 0, 1)], 0)
    n = shape(xp)[0]
    j = np.searchsorted(xp, x, side="right").astype(np.int64) - 1  # (a binary search, as NumPy's)
    lo, hi = np.clip(j, 0, n - 1), np.clip(j + 1, 0, n - 1)
    x0, x1, y0, y1 = np.take(xp, lo), np.take(xp, hi), np.take(fp, lo), np.take(fp, hi)
    slope = (y1 - y0) / np.where(lo == hi, 1.0, x1 - x0)  # (clamped past the ends, where its 0 / 0 is never
    # chosen but would make the gradient NaN)
    inner = slope * (x - x0) + y0
    inner = np.where(np.isnan(inner), slope * (x - x1) + y1, inner)
    inner = np.where(np.logical_and(np.isnan(inner), y0 == y1), y0, inner)
    inner = np.where(x0 == x, y0, inner)
    last = element_of(fp, n - 1)
    low = element_of(fp, 0) if left is None else left
    high = last if right is None else right
    result = np.where(x > element_of(xp, n - 1), high, np.where(j < 0, low, np.where(j == n - 1, last, inner)))
    return cast(np.where(np.isnan(x), np.nan, result) if n > 1 else result, dtype)  # (NumPy: fp[0] for one xp)


@implements(np.trapezoid)
def trapezoid(y, x=None, dx=1.0, axis=-1):
    y = as_array(y)
    axis = normalize_axis(axis, len(shape(y)))
    if x is None:
        d = dx
    else:
        x = as_array(x)
        d = diff(x, axis=axis) if len(shape(x)) != 1 else _along(diff(x), axis, len(shape(y)))
    n = shape(y)[axis]
    return np.sum(d * (slice_along(y, axis, 1, n) + slice_along(y, axis, 0, max(n - 1, 0))) / 2.0, axis=axis)
