"""NumPy functions on arrays with traced bounds where order matters, one rule per kind: scans (and
ufunc.accumulate) run over the data from the valid part's start, which the padding after it cannot
reach; flips, rolls and differences move elements within the valid part; sorts put the padding last,
and searches and order statistics read the sorted valid part at traced positions."""

from __future__ import annotations

import numpy as np

from solvent.errors import UnsupportedError
from solvent.numpy import statistics
from solvent.numpy.indexing.bounded_functions import extent, extreme, masked_sum, valid_length
from solvent.numpy.indexing.traced_bounds import (FUNCTIONS, UFUNC_METHODS, MaskedArray, lengths_of, masked_result,
                                                  ndim_of, plain_value, read_only_view)
from solvent.numpy.indexing.traced_lengths import fill, shifted
from solvent.numpy.sorting import argsort_value, check_kind, is_stable, sorted_value
from solvent.numpy.values import full, normalize_axes, normalize_axis, shape, slice_along, value, wrap
from solvent.ops import elementwise as ew, shape as ops
from solvent.ops.base import shape_of
from solvent.ops.constant import iota

_I64 = np.int64


# -- scans: an element's result reads only the elements before it ----------------------------------

def _one_axis(a, axis, name):
    """The axis a scan, flip or sort runs along (axis=None: the only one of a 1-d array)."""
    if axis is None and len(a.aval.shape) != 1:
        raise UnsupportedError(f"np.{name} of a {len(a.aval.shape)}-d array whose lengths depend on traced values "
                               "needs axis=")
    return normalize_axis(0 if axis is None else axis, len(a.aval.shape))


def _scan(numpy_function):
    """cumsum and its kin: run on the data from the valid part's start (`value`), where the padding
    comes after every valid element, so it reaches none of their results."""
    def apply(a, axis=None, dtype=None):
        axis = _one_axis(a, axis, numpy_function.__name__)
        return masked_result(numpy_function(plain_value(a), axis=axis, dtype=dtype).value, list(a.lengths))
    return apply


def _ufunc_accumulate(ufunc, a, axis=0, dtype=None):
    return masked_result(ufunc.accumulate(plain_value(a), axis=axis, dtype=dtype).value, list(a.lengths))


# -- flips, rolls and differences: elements moved within the valid part ----------------------------

def _flip(a, axis=None):
    """A view (`read_only_view`): reversed whole, then moved back by the padding's length, so that
    element j is a[length - 1 - j]."""
    ndim = len(a.aval.shape)
    axes = range(ndim) if axis is None else normalize_axes(axis, ndim)

    def read(v):
        v = ops.reverse(v, list(axes))
        for axis in axes:
            if a.lengths[axis] is not None:
                past = ew.binary("subtract", full(a.aval.shape[axis], (), _I64), a.lengths[axis])
                v = shifted(v, axis, past, forward=False)
        return v
    return read_only_view(a, read, a.lengths, "np.flip")


def _roll(a, shift, axis=None):
    """Within the valid part of length L, element j is a[(j - shift) mod L]: the last `shift mod L`
    elements moved to the front, the others after them."""
    if np.ndim(shift) or isinstance(axis, tuple):
        raise UnsupportedError("np.roll of a slice whose bounds are traced takes one shift and one axis")
    axis = _one_axis(a, axis, "roll")
    if a.lengths[axis] is None:
        return masked_result(np.roll(plain_value(a), shift, axis).value, list(a.lengths))
    length = wrap(a.lengths[axis])
    turn = value(np.where(length > 0, np.mod(shift, np.maximum(length, 1)), 0), _I64)
    front = shifted(a.value, axis, ew.binary("subtract", a.lengths[axis], turn), forward=False)
    back = shifted(a.value, axis, turn, forward=True)
    shape = shape_of(a.value)
    v = ew.select(ew.compare("LT", iota(shape, _I64, axis), ops.broadcast_in_dim(turn, shape, [])), front, back)
    return masked_result(v, list(a.lengths))


def _diff(a, n=1, axis=-1, prepend=np._NoValue, append=np._NoValue):
    if prepend is not np._NoValue or append is not np._NoValue:
        raise UnsupportedError("np.diff with prepend= or append= on a slice whose bounds are traced")
    axis = normalize_axis(axis, len(a.aval.shape))
    return masked_result(np.diff(plain_value(a), n, axis).value, _shortened(a.lengths, axis, n))


def _shortened(lengths, axis, n):
    """`lengths` with the one along `axis` (if traced) n shorter, down to 0."""
    lengths = list(lengths)
    if lengths[axis] is not None:
        lengths[axis] = ew.binary("maximum", ew.binary("subtract", lengths[axis], full(n, (), _I64)),
                                  full(0, (), _I64))
    return lengths


# -- sorts and searches: the padding sorts after every valid element -------------------------------

def _sorting(which):
    """np.sort (which 0) or np.argsort (1) along one axis: of the data with the padding set to what
    sorts last, so that the valid part comes first in NumPy's order (a stable sort keeps valid
    elements before padding equal to them), and argsort counts from its start."""
    def apply(a, axis=-1, kind=None, order=None, *, stable=None):
        check_kind(kind, order, stable)
        axis = _one_axis(a, axis, "argsort" if which else "sort")
        v = _padding_last(a)
        result = argsort_value(v, axis) if which else sorted_value(v, axis, is_stable(kind, stable))
        return masked_result(result, list(a.lengths))
    return apply


def _padding_last(a):
    """The data with the padding set to what sorts last in NumPy's order: NaN (after every number,
    as NaNs sort; nan+nanj after every complex value), the largest integer, or True."""
    kind = np.dtype(a.dtype).kind
    last = {"f": np.nan, "c": complex(np.nan, np.nan), "b": True}.get(kind) if kind in "fcb" else extreme(a.dtype, 1)
    return fill(a.value, a.lengths, last)


def _searchsorted(a, v, side="left", sorter=None):
    """Insertion points into the valid part of a sorted 1-d `a`: the padding set to what sorts last,
    and no point past the valid part."""
    if sorter is not None or ndim_of(a) != 1:
        raise UnsupportedError("np.searchsorted into a slice whose bounds are traced: 1-d, without sorter=")
    length = valid_length(a, 0)
    if isinstance(a, MaskedArray):
        a = wrap(_padding_last(a), scalar=False)
    found = np.searchsorted(a, plain_value(v), side)
    found = np.minimum(found, wrap(length))
    return masked_result(value(found), lengths_of(v, ndim_of(v))) if isinstance(v, MaskedArray) else found


# -- order statistics: read from the sorted valid part at traced positions -------------------------

def _sorted_valid(a, name, axis, ignore_nan):
    """(the valid part of a 1-d array sorted, as rows; how many of them count; whether the result is
    NaN): NaNs sort after the numbers, so the valid part holds one exactly where its last one is NaN
    (the nan- functions count the others instead)."""
    if len(a.aval.shape) != 1:
        raise UnsupportedError(f"np.{name} of a {len(a.aval.shape)}-d array whose lengths depend on traced values")
    _one_axis(a, axis, name)
    rows, length = wrap(_sorting(0)(a).value, scalar=False), wrap(a.lengths[0])
    if a.dtype.kind != "f":
        return rows, length, np.equal(length, 0)
    if ignore_nan:
        count = masked_sum(np.logical_not(np.isnan(a)))
        return rows, count, np.equal(count, 0)
    return rows, length, np.logical_or(np.equal(length, 0), np.isnan(rows[np.maximum(length - 1, 0)]))


def _median(ignore_nan):
    def apply(a, axis=None, overwrite_input=False, keepdims=False):
        rows, count, nan = _sorted_valid(a, "nanmedian" if ignore_nan else "median", axis, ignore_nan)
        result = wrap(value(np.where(nan, np.nan, statistics.median_of_sorted(rows, count))))  # (a scalar)
        return np.reshape(result, (1,)) if keepdims else result
    return apply


def _quantile(name, percent, ignore_nan):
    def apply(a, q, axis=None, overwrite_input=False, method="linear", keepdims=False, *, weights=None,
              interpolation=None):
        method, q, dtype = statistics.quantile_arguments(name, a, q, method, weights, interpolation, percent)
        rows, count, nan = _sorted_valid(a, name, axis, ignore_nan)
        result = np.where(nan, np.nan, statistics.traced_quantile(rows, q, count, method))
        result = wrap(ew.convert(value(result), dtype))
        return np.reshape(result, shape(q) + (1,)) if keepdims else result
    return apply


# -- integrals -------------------------------------------------------------------------------------

def _trapezoid(y, x=None, dx=1.0, axis=-1):
    """NumPy's sum of d * (y[1:] + y[:-1]) / 2 over the pairs inside the valid part."""
    axis = normalize_axis(axis, ndim_of(y))
    d = dx if x is None else _diff(x) if isinstance(x, MaskedArray) else None
    if d is None or (x is not None and ndim_of(x) != 1):
        raise UnsupportedError("np.trapezoid of a slice whose bounds are traced with x= that is not cut alike")
    data, n = plain_value(y), extent(y, axis)
    pairs = np.add(slice_along(data, axis, 1, n), slice_along(data, axis, 0, n - 1))
    pairs = masked_result(pairs.value, _shortened(y.lengths, axis, 1))
    return masked_sum(np.true_divide(np.multiply(d, pairs), 2.0), axis)


FUNCTIONS.update({
    np.cumsum: _scan(np.cumsum), np.cumprod: _scan(np.cumprod), np.nancumsum: _scan(np.nancumsum),
    np.nancumprod: _scan(np.nancumprod),
    np.flip: _flip, np.fliplr: lambda m: _flip(m, 1), np.flipud: lambda m: _flip(m, 0), np.roll: _roll, np.diff: _diff,
    np.sort: _sorting(0), np.argsort: _sorting(1), np.searchsorted: _searchsorted,
    np.median: _median(False), np.nanmedian: _median(True), np.quantile: _quantile("quantile", False, False),
    np.percentile: _quantile("percentile", True, False), np.nanquantile: _quantile("nanquantile", False, True),
    np.nanpercentile: _quantile("nanpercentile", True, True), np.trapezoid: _trapezoid,
})
UFUNC_METHODS["accumulate"] = _ufunc_accumulate
