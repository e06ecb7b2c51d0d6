"""Order statistics and summaries of traced arrays: median, quantiles, average, cov, histograms, bincount.

Quantiles read the order statistics they need of the reduced axes (NaNs last, as NumPy). With
a static `q` the positions are computed on the host by NumPy's own method table, so every
`method=` matches NumPy exactly, and long real axes are not sorted (`order_statistics`); with a
traced `q`, or for the `nan*` variants (where the count of valid values per slice is traced),
the axes are sorted once and the traced positions read by a one-hot select-and-sum.
"""

from __future__ import annotations

import builtins
import operator

import numpy as np
from numpy.lib import _function_base_impl as numpy_quantiles

from solvent.errors import UnsupportedError
from solvent.numpy import order_statistics
from solvent.numpy.folding import static
from solvent.numpy.registry import implements
from solvent.numpy.sorting import searchsorted, sort_values
from solvent.numpy.values import (broadcast_value, full, holds_traced, is_traced, normalize_axes, result_type, shape,
                                  value, wrap, write_out)
from solvent.ops import elementwise as ew, shape as ops
from solvent.ops.base import dtype_of, shape_of
from solvent.ops.scatter import scatter

#: Methods whose traced virtual index is n*q + alpha + q*(1 - alpha - beta) - 1 (Hyndman and Fan).
_CONTINUOUS = {"hazen": (0.5, 0.5), "weibull": (0.0, 0.0), "median_unbiased": (1 / 3, 1 / 3),
               "normal_unbiased": (3 / 8, 3 / 8), "interpolated_inverted_cdf": (0.0, 1.0)}
#: Methods that pick one order statistic: the rounding of (n - 1) * q.
_DISCRETE = {"lower": np.floor, "higher": np.ceil, "nearest": np.rint}


def _cast(x, dtype):
    return wrap(ew.convert(value(x), dtype), scalar=False)


class _Ordered:
    """The values of the reduced axes as rows (n, *rest), read in sorted order: whole (`sorted`,
    sorted once), or at static positions (`at`), which long real rows find without a sort."""

    def __init__(self, rows):
        self.rows, self._sorted = rows, None

    @property
    def sorted(self):
        if self._sorted is None:
            self._sorted = wrap(sort_values([value(self.rows)], 0)[0], scalar=False)
        return self._sorted

    def at(self, indexes):
        """`sorted[indexes]` for static `indexes` (negative from the end)."""
        if self._sorted is None and order_statistics.selectable(self.rows.dtype, shape(self.rows)[0], indexes):
            return order_statistics.at(self.rows, np.asarray(indexes))
        return _rows(self.sorted, indexes)

    def nan(self):
        """Where a column holds a NaN (NumPy's order statistics are NaN there)."""
        if self.rows.dtype.kind == "c":
            return np.isnan(_rows(self.sorted, np.array(-1)))
        return np.any(np.isnan(self.rows), axis=0)


def _reduced(a, axis):
    """`a`'s reduced axes merged into a leading one, (n, *rest), as `_Ordered`; and the keepdims shape."""
    v = value(a)
    rank_shape = shape_of(v)
    axes = normalize_axes(axis, len(rank_shape))
    rest = [d for d in range(len(rank_shape)) if d not in axes]
    v = ops.transpose(v, list(axes) + rest)
    n = int(np.prod([rank_shape[d] for d in axes], dtype=np.int64))
    v = ops.reshape(v, (n, *[rank_shape[d] for d in rest]))
    kept = tuple(1 if d in axes else size for d, size in enumerate(rank_shape))
    return _Ordered(wrap(v, scalar=False)), kept


def _rows(rows, indexes: np.ndarray):
    """`rows[indexes]` along the leading axis for static integer `indexes` (negative from the end)."""
    n, rest = shape(rows)[0], list(shape(rows)[1:])
    parts = [ops.slice(rows.value, [i % n] + [0] * len(rest), [i % n + 1] + rest, [1] * (1 + len(rest)))
             for i in np.ravel(indexes)]
    if not parts:
        return wrap(full(0, np.shape(indexes) + tuple(rest), rows.dtype), scalar=False)
    return wrap(ops.reshape(ops.concatenate(parts, 0), np.shape(indexes) + tuple(rest)), scalar=False)


def _gather(rows, index):
    """`rows[index]` along the leading axis for a traced `index` of shape (*q, *rest), by a one-hot sum."""
    n, rest = shape(rows)[0], shape(rows)[1:]
    q_rank = len(shape(index)) - len(rest)
    positions = np.arange(n).reshape((n,) + (1,) * len(rest))
    hit = np.equal(np.expand_dims(index, q_rank), positions)
    return np.sum(np.where(hit, rows, np.zeros((), rows.dtype)), axis=q_rank, dtype=rows.dtype)


def _lerp(a, b, t):
    """NumPy's `_lerp`: exact at both ends, monotone in `t`."""
    diff = np.subtract(b, a)
    return np.where(t >= 0.5, np.subtract(b, diff * (1 - t)), np.add(a, diff * t))


def _static_quantile(ordered: _Ordered, q: np.ndarray, method: str):
    """Order statistics at host-computed positions: NumPy's own method table on static `q`."""
    n, rank = shape(ordered.rows)[0], len(shape(ordered.rows))
    props = numpy_quantiles._QuantileMethods[method]
    virtual = np.asanyarray(props["get_virtual_index"](n, q))
    if props["fix_gamma"] is None or (method == "linear" and virtual.dtype.kind in "iu"):
        return ordered.at(virtual)
    previous, following = numpy_quantiles._get_indexes(np.empty(0, ordered.rows.dtype), virtual, n)
    gamma = numpy_quantiles._get_gamma(virtual, previous, props).reshape(virtual.shape + (1,) * (rank - 1))
    return _lerp(ordered.at(previous), ordered.at(following), gamma)


def _virtual_index(count, q, method: str):
    """Traced positions for `count` values per slice (NumPy's formulas), and the gamma fix-up if any."""
    if method in _DISCRETE:
        return _DISCRETE[method](np.multiply(count - 1, q)), None
    if method == "linear":
        return np.multiply(count - 1, q), None
    if method == "midpoint":
        scaled = np.multiply(count - 1, q)
        virtual = 0.5 * (np.floor(scaled) + np.ceil(scaled))
        return virtual, lambda gamma: np.where(np.equal(np.remainder(virtual, 1), 0), 0 * gamma, 0 * gamma + 0.5)
    if method in _CONTINUOUS:
        alpha, beta = _CONTINUOUS[method]
        return np.multiply(count, q) + (alpha + np.multiply(q, 1 - alpha - beta)) - 1, None
    raise UnsupportedError(f"quantiles with method={method!r} where q or the number of values is traced (the "
                           "nan- functions, a selection x[mask]); use method='linear', or pass q as Python numbers "
                           "to the plain function")


def traced_quantile(rows, q, count, method: str):
    """Order statistics at traced positions; `count` is the number of valid leading rows per slice."""
    rest_rank = len(shape(rows)) - 1
    q = np.reshape(q, shape(q) + (1,) * rest_rank)
    count = _cast(count, q.dtype) if is_traced(count) else count
    virtual, fix_gamma = _virtual_index(count, q, method)
    last = np.subtract(count, 1)
    if method in _DISCRETE:
        return _gather(rows, _cast(np.clip(virtual, 0, last), np.int64))
    previous = np.floor(virtual)
    above, below = np.greater_equal(virtual, last), np.less(virtual, 0)
    previous = np.where(above, -1, np.where(below, 0, previous))  # NumPy's -1: the last valid row
    following = np.where(above, -1, np.where(below, 0, previous + 1))
    gamma = np.subtract(virtual, previous)
    gamma = fix_gamma(gamma) if fix_gamma else gamma

    def row(index):
        return _gather(rows, _cast(np.where(np.equal(index, -1), last, index), np.int64))
    return _lerp(row(previous), row(following), _cast(gamma, q.dtype))


def _q_array(q, a_dtype, percent: bool, name: str):
    """`q` as NumPy's quantile functions see it: divided by 100 for percentiles, checked when static."""
    if is_traced(q):
        q = q if q.dtype.kind == "f" else _cast(q, np.float64)
        return np.true_divide(q, a_dtype.type(100) if a_dtype.kind == "f" else 100) if percent else q
    if percent:
        q = np.true_divide(q, a_dtype.type(100) if a_dtype.kind == "f" else 100)
    elif isinstance(q, (int, float)) and a_dtype.kind == "f":
        q = np.asanyarray(q, dtype=a_dtype)
    q = np.asanyarray(q)
    if not numpy_quantiles._quantile_is_valid(q):
        raise ValueError("Percentiles must be in the range [0, 100]" if percent else
                         "Quantiles must be in the range [0, 1]")
    return q


def _finish(result, kept, q_shape, keepdims, out, casting="same_kind"):
    """The result shaped as `keepdims` says, written into `out` (the medians cast into it unsafely, as
    NumPy's mean does; the quantiles as a ufunc does)."""
    if keepdims:
        result = np.reshape(result, tuple(q_shape) + tuple(kept))
    return write_out(out, result, casting) if out is not None else result


def quantile_arguments(name, a, q, method, weights, interpolation, percent: bool):
    """(method, q, result dtype) of a call to one of the quantile functions, checked as NumPy checks
    them (`percent`: q in percent)."""
    method = interpolation if interpolation is not None else method
    if a.dtype.kind == "c":
        raise TypeError("a must be an array of real numbers")
    if method not in numpy_quantiles._QuantileMethods:
        raise ValueError(f"{method!r} is not a valid method. Use one of: {numpy_quantiles._QuantileMethods.keys()}")
    if weights is not None:
        if method != "inverted_cdf":
            raise ValueError(f"Only method 'inverted_cdf' supports weights. Got: {method}.")
        raise UnsupportedError(f"np.{name} with weights=")
    q = _q_array(q, a.dtype, percent, name)
    if len(shape(q)) > 2:
        raise ValueError("q must be a scalar or 1d")
    return method, q, getattr(np, name)(np.ones(2, a.dtype), np.full(shape(q), 0.5, q.dtype), method=method).dtype


def _quantile(name, percent, ignore_nan):
    """One of quantile, percentile, nanquantile, nanpercentile."""
    def apply(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *,
              weights=None, interpolation=None):
        a = a if is_traced(a) else np.asarray(a)
        method, q, dtype = quantile_arguments(name, a, q, method, weights, interpolation, percent)
        ordered, kept = _reduced(a, axis)
        inexact = a.dtype.kind in "fc"
        if ignore_nan and inexact:
            count = np.sum(np.logical_not(np.isnan(ordered.rows)), axis=0)
            result = np.where(np.equal(count, 0), np.nan, traced_quantile(ordered.sorted, q, count, method))
        else:
            n = shape(ordered.rows)[0]
            if n == 0:  # (NumPy's error: it takes the last of no values)
                raise IndexError("index -1 is out of bounds for axis 0 with size 0")
            result = (traced_quantile(ordered.sorted, q, n, method) if is_traced(q)
                      else _static_quantile(ordered, q, method))
            result = np.where(ordered.nan(), np.nan, result) if inexact else result
        return _finish(wrap(ew.convert(value(result), dtype)), kept, shape(q), keepdims, out)
    return apply


implements(np.quantile)(_quantile("quantile", False, False))
implements(np.percentile)(_quantile("percentile", True, False))
implements(np.nanquantile)(_quantile("nanquantile", False, True))
implements(np.nanpercentile)(_quantile("nanpercentile", True, True))


def _middle_mean(low, high, odd):
    """NumPy's median of the middle value(s): a mean of one row when odd, of two when even."""
    pair = np.mean(np.stack([low, high]), axis=0)
    return pair if odd is False else np.where(odd, np.mean(np.stack([low]), axis=0), pair)


@implements(np.median)
def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    a = a if is_traced(a) else np.asarray(a)
    ordered, kept = _reduced(a, axis)
    n = shape(ordered.rows)[0]
    if n == 0:
        dtype = np.mean(np.ones(1, a.dtype)).dtype
        return _finish(wrap(full(np.nan, shape(ordered.rows)[1:], dtype)), kept, (), keepdims, out, "unsafe")
    result = np.mean(ordered.at(np.arange((n - 1) // 2, n // 2 + 1)), axis=0)
    if a.dtype.kind in "fc":
        result = np.where(ordered.nan(), np.nan, result)
    return _finish(wrap(value(result)), kept, (), keepdims, out, "unsafe")


@implements(np.nanmedian)
def nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=np._NoValue):
    a = a if is_traced(a) else np.asarray(a)
    keepdims = keepdims is True
    if a.dtype.kind not in "fc":
        return median(a, axis, out, keepdims=keepdims)
    ordered, kept = _reduced(a, axis)
    rows = ordered.sorted
    result = median_of_sorted(rows, np.sum(np.logical_not(np.isnan(rows)), axis=0))
    return _finish(wrap(value(result)), kept, (), keepdims, out, "unsafe")


def median_of_sorted(rows, count):
    """The median of the first `count` (traced) of the sorted `rows` (n, *rest), NaN where there are
    none: nanmedian's, and that of a slice of traced length."""
    low = _gather(rows, np.floor_divide(count - 1, 2))
    high = _gather(rows, np.floor_divide(count, 2))
    return np.where(np.equal(count, 0), np.nan, _middle_mean(low, high, np.equal(count % 2, 1)))


@implements(np.average)
def average(a, axis=None, weights=None, returned=False, *, keepdims=np._NoValue):
    a = a if is_traced(a) else np.asarray(a)
    keep = keepdims is True
    if weights is None:
        avg = np.mean(a, axis=axis, keepdims=keep)
        scale = full(int(np.prod(shape(a))) / max(int(np.prod(shape(avg))), 1), shape(avg), avg.dtype)
        return (avg, wrap(scale)) if returned else avg
    weights = weights if is_traced(weights) else np.asarray(weights)
    if shape(weights) != shape(a):
        weights = _broadcast_weights(weights, a, axis)
    if not is_traced(weights) and np.any(np.sum(weights, axis=axis) == 0):
        raise ZeroDivisionError("Weights sum to zero, can't be normalized")
    float_result = a.dtype.kind in "biu"
    dtype = np.result_type(a.dtype, weights.dtype, *(["f8"] if float_result else []))
    total = np.sum(_cast(weights, dtype), axis=axis, keepdims=keep)
    avg = np.true_divide(np.sum(np.multiply(_cast(a, dtype), _cast(weights, dtype)), axis=axis, keepdims=keep), total)
    if returned:
        return avg, wrap(broadcast_value(value(total), shape(avg)))
    return avg


def _broadcast_weights(weights, a, axis):
    """1-D weights along one axis, as NumPy's `_weights_are_valid` allows, shaped to broadcast against `a`."""
    if axis is None:
        raise TypeError("Axis must be specified when shapes of a and weights differ.")
    axes = normalize_axes(axis, len(shape(a)))
    if shape(weights) != tuple(shape(a)[d] for d in axes):
        raise ValueError("Shape of weights must be consistent with shape of a along specified axis.")
    kept = [n if d in axes else 1 for d, n in enumerate(shape(a))]
    return np.reshape(weights, kept)


def _as_rows(m, dtype):
    """`m` as a 2-D array (np.cov's `array(m, ndmin=2, dtype=dtype)`)."""
    x = _cast(m, dtype)
    if len(shape(x)) > 2:
        raise ValueError("m has more than 2 dimensions")
    return np.reshape(x, (1,) * (2 - len(shape(x))) + shape(x))


@implements(np.cov)
def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, *, dtype=None):
    if ddof is not None and ddof != int(ddof):
        raise ValueError("ddof must be integer")
    if dtype is None:
        dtype = np.result_type(*[x.dtype if hasattr(x, "dtype") else np.asarray(x).dtype
                                 for x in (m, y) if x is not None], np.float64)
    x = _as_rows(m, dtype)
    x = np.transpose(x) if not rowvar and len(shape(m)) != 1 else x
    if shape(x)[0] == 0:
        return wrap(full(0, (0, 0), np.float64), scalar=False)
    if y is not None:
        y = _as_rows(y, dtype)
        x = np.concatenate([x, np.transpose(y) if not rowvar and shape(y)[0] != 1 else y], axis=0)
    ddof = (0 if bias else 1) if ddof is None else int(ddof)
    weights = _cov_weights(fweights, aweights, shape(x)[1])
    avg, total = average(x, axis=1, weights=weights, returned=True)
    if weights is None:
        fact = max(shape(x)[1] - ddof, 0.0)
    else:
        total = total[0]
        if ddof == 0:
            fact = total
        elif aweights is None:
            fact = total - ddof
        else:
            fact = total - ddof * np.sum(weights * _cast(aweights, np.float64)) / total
        fact = np.where(np.less_equal(fact, 0), 0.0, fact)
    centered = np.subtract(x, np.expand_dims(avg, 1))
    weighted = centered if weights is None else np.multiply(centered, weights)
    c = np.matmul(centered, np.conjugate(np.transpose(weighted)))
    return np.squeeze(_cast(np.multiply(c, np.true_divide(1, fact)), c.dtype))


def _cov_weights(fweights, aweights, samples: int):
    """The product of np.cov's frequency and analytic weights as float64 (None when neither is given)."""
    weights = None
    for given in (fweights, aweights):
        if given is None:
            continue
        if len(shape(given)) > 1:
            raise RuntimeError("cannot handle multidimensional fweights" if given is fweights else
                               "cannot handle multidimensional aweights")
        if shape(given)[0] != samples:
            raise RuntimeError("incompatible numbers of samples and fweights" if given is fweights else
                               "incompatible numbers of samples and aweights")
        if not is_traced(given):
            _check_host_weights(np.asarray(given, dtype=float), "fweights" if given is fweights else "aweights")
        given = _cast(given, np.float64)
        weights = given if weights is None else np.multiply(weights, given)
    return weights


def _check_host_weights(weights: np.ndarray, name: str) -> None:
    """np.cov's checks of static weights (traced ones cannot be checked while tracing)."""
    if name == "fweights" and not np.all(weights == np.around(weights)):
        raise TypeError("fweights must be integer")
    if np.any(weights < 0):
        raise ValueError(f"{name} cannot be negative")


@implements(np.corrcoef)
def corrcoef(x, y=None, rowvar=True, bias=np._NoValue, ddof=np._NoValue, *, dtype=None):
    c = cov(x, y, rowvar, dtype=dtype)
    if len(shape(c)) < 2:
        return np.true_divide(c, c)
    n = shape(c)[0]
    stddev = np.sqrt(np.real(np.sum(np.where(np.eye(n, dtype=bool), c, 0), axis=1)))
    c = np.true_divide(np.true_divide(c, np.expand_dims(stddev, 1)), np.expand_dims(stddev, 0))
    if c.dtype.kind != "c":
        return np.clip(c, -1, 1)
    real, imag = np.clip(np.real(c), -1, 1), np.clip(np.imag(c), -1, 1)
    return wrap(ew.binary("complex", value(real), value(imag)), scalar=False)


def _bin_edges(a, bins, range, with_data: bool = True):
    """Histogram edges: static when `range` or the edges are given, else from the traced min and max;
    computed ones in np.histogram's dtype (the data's float type) or, with `with_data=False`,
    np.histogramdd's (that of the range values and a Python float)."""
    if isinstance(bins, str):
        raise UnsupportedError(f"bins={bins!r}, a rule that chooses the number of bins from the data, is not "
                               "compiled; pass an int or an array of edges")
    if np.ndim(bins) == 1:
        if not is_traced(bins):
            bins = np.asarray(bins)
            if np.any(bins[:-1] > bins[1:]):
                raise ValueError("`bins` must increase monotonically, when an array")
        return bins
    if np.ndim(bins) != 0:
        raise ValueError("`bins` must be 1d, when an array")
    count = operator.index(bins)
    if count < 1:
        raise ValueError("`bins` must be positive, when an integer")
    if range is not None and holds_traced(range):  # (range=(x.min(), x.max()); NumPy's checks of it need values)
        dtype = result_type(*range, a if with_data else 1.0)
        dtype = dtype if dtype.kind in "fc" else np.dtype(np.float64)
        return _spaced(*(_cast(r, dtype) for r in range), count, dtype)
    if range is not None or 0 in shape(a):
        first, last = (0, 1) if range is None else range
        if first > last:
            raise ValueError("max must be larger than min in range parameter.")
        if not (np.isfinite(first) and np.isfinite(last)):
            raise ValueError(f"supplied range of [{first}, {last}] is not finite")
        first, last = (first - 0.5, last + 0.5) if first == last else (first, last)
        dtype = np.result_type(first, last, a.dtype if with_data else 1.0)
        return np.linspace(first, last, count + 1, dtype=dtype if dtype.kind in "fc" else np.float64)
    dtype = a.dtype if a.dtype.kind in "fc" else np.dtype(np.float64)
    return _spaced(_cast(np.min(a), dtype), _cast(np.max(a), dtype), count, dtype)


def _spaced(first, last, count, dtype):
    """`count` + 1 edges from traced `first` to `last` as NumPy's linspace spaces them (one unit wide
    around a single value)."""
    same = np.equal(first, last)
    first, last = np.where(same, first - 0.5, first), np.where(same, last + 0.5, last)
    steps = np.arange(count + 1).astype(dtype)
    edges = np.add(np.multiply(steps, np.true_divide(np.subtract(last, first), count)), first)
    return np.where(np.arange(count + 1) == count, last, edges)


def _traced_edges(edges):
    return edges if is_traced(edges) else wrap(value(edges), scalar=False)


@implements(np.histogram_bin_edges)
def histogram_bin_edges(a, bins=10, range=None, weights=None):
    a = a if is_traced(a) else np.asarray(a)
    return _traced_edges(_bin_edges(a, bins, range))


def _accumulate(index, updates, length: int):
    """Sums of `updates` grouped by `index` into `length` bins; indices outside [0, length) are dropped."""
    index = value(index, np.int64)
    count = shape_of(index)[0]
    zeros = full(0, (length,), dtype_of(updates))
    if count == 0:
        return wrap(zeros, scalar=False)
    sums = scatter(zeros, ops.reshape(index, (count, 1)), updates, [0], lambda s, u: [ew.binary("add", s, u)])
    return wrap(sums, scalar=False)


def _bin_index(column, edges):
    """1 + the bin of each value (the last bin closed); 0 below the first edge, len(edges) above or NaN."""
    return np.subtract(searchsorted(edges, column, side="right"), np.equal(column, edges[-1]))


@implements(np.histogram)
def histogram(a, bins=10, range=None, density=None, weights=None):
    a = a if is_traced(a) else np.asarray(a)
    edges = histogram_bin_edges(a, bins, range)
    size = shape(edges)[0] - 1
    if weights is None:
        updates = full(1, (int(np.prod(shape(a))),), np.int64)
    else:
        weights = weights if is_traced(weights) else np.asarray(weights)
        if shape(weights) != shape(a):
            raise ValueError("weights should have the same shape as a.")
        updates = value(np.ravel(weights), np.result_type(weights.dtype, np.float64))
    counts = _accumulate(_bin_index(np.ravel(a), edges), updates, size + 2)[1:-1]
    counts = counts if weights is None else _cast(counts, weights.dtype)
    if density:
        widths = _cast(np.subtract(edges[1:], edges[:-1]), np.float64)
        counts = np.true_divide(np.true_divide(counts, widths), np.sum(counts))
    return counts, edges


def _samples(sample) -> list:
    """np.histogramdd's sample, an (N, D) array or a sequence of D arrays, as D columns."""
    if isinstance(sample, (list, tuple)):
        dtype = np.result_type(*[x.dtype if hasattr(x, "dtype") else np.asarray(x).dtype for x in sample])
        return [_cast(np.ravel(x), dtype) for x in sample]
    sample = sample if is_traced(sample) else np.asarray(sample)
    if len(shape(sample)) != 2:
        return [np.ravel(sample)]
    return [sample[:, i] for i in builtins.range(shape(sample)[1])]


def _length(bins):
    """`len(bins)`, or None for a scalar (NumPy's test for one bins entry per dimension)."""
    try:
        return len(bins)
    except TypeError:
        return None


@implements(np.histogramdd)
def histogramdd(sample, bins=10, range=None, density=None, weights=None):
    """Bin numbers per dimension by `searchsorted`, then one `bincount` over the flattened grid."""
    columns = _samples(sample)
    dims = len(columns)
    if _length(bins) is None:
        bins = dims * [bins]
    if len(bins) != dims:
        raise ValueError("The dimension of bins must be equal to the dimension of the sample x.")
    range = (None,) * dims if range is None else range
    if len(range) != dims:
        raise ValueError("range argument must have one entry per dimension")
    edges = [_traced_edges(_bin_edges(c, b, r, with_data=False)) for c, b, r in zip(columns, bins, range)]
    grid = [shape(e)[0] + 1 for e in edges]  # an outlier bin at each end
    flat = 0
    for column, edge, size in zip(columns, edges, grid):
        flat = np.add(np.multiply(flat, size), _bin_index(column, edge))
    counts = bincount(flat, weights, minlength=int(np.prod(grid)))
    inner = tuple(slice(1, -1) for _ in grid)
    hist = _cast(np.reshape(counts, grid), np.float64)[inner]
    if density:
        total = np.sum(hist)
        for i, edge in enumerate(edges):
            widths = np.subtract(edge[1:], edge[:-1])
            hist = np.true_divide(hist, np.reshape(widths, [-1 if d == i else 1 for d in builtins.range(dims)]))
        hist = np.true_divide(hist, total)
    return hist, edges


@implements(np.histogram2d)
def histogram2d(x, y, bins=10, range=None, density=None, weights=None):
    if shape(x)[:1] != shape(y)[:1]:
        raise ValueError("x and y must have the same length.")
    if _length(bins) not in (None, 1, 2):
        bins = [bins, bins]
    hist, edges = histogramdd([x, y], bins, range, density, weights)
    return hist, edges[0], edges[1]


@implements(np.bincount)
def bincount(x, weights=None, minlength=0):
    """Counts of a traced `x` at NumPy's length where its dtype bounds the values (bools, 8 and 16
    bits: 2, 256 or 65536 counts, of which a prefix as long as max(x) + 1 or `minlength`, whichever
    is larger, is the result, cut when returned); for wider dtypes at the static length `minlength`,
    values outside [0, minlength) dropped (compiled code cannot raise on negative ones)."""
    x = static(x) if is_traced(x) else np.asarray(x)  # (known values: NumPy's length and errors)
    if minlength is None or operator.index(minlength) < 0:
        raise ValueError("'minlength' must not be negative")
    if len(shape(x)) != 1:
        raise ValueError("object too deep for desired array" if shape(x) else
                         "object of too small depth for desired array")
    if not np.can_cast(x.dtype, np.intp, "safe") and x.dtype != np.uint64:  # (NumPy casts uint64 as int64)
        raise TypeError(f"Cannot cast array data from {x.dtype!r} to dtype('int64') according to the rule 'safe'")
    bound = _VALUES.get(x.dtype.itemsize, 0) if x.dtype.kind in "iu" else 2 if x.dtype == np.bool_ else 0
    if is_traced(x):
        if minlength == 0 and not bound:
            raise UnsupportedError("np.bincount of a traced array wider than 16 bits has a data-dependent "
                                   "length; pass minlength= at least max(x) + 1 (larger values are then dropped)")
        length = max(bound, minlength) if x.size else minlength
    else:
        if x.size and x.min() < 0:
            raise ValueError("'list' argument must have no negative elements")
        length = max(int(x.max()) + 1 if x.size else 0, minlength)
    if not x.size:  # NumPy returns before it looks at the weights
        return wrap(full(0, (length,), np.int64), scalar=False) if is_traced(x) else np.zeros(length, np.int64)
    dtype = np.dtype(np.int64 if weights is None else np.float64)
    if weights is None:
        updates = full(1, shape(x), dtype)
    else:
        if shape(weights) != shape(x):
            raise ValueError("The weights and list don't have the same length.")
        if not np.can_cast(weights.dtype if hasattr(weights, "dtype") else np.asarray(weights).dtype,
                           np.float64, "safe"):
            raise TypeError("Cannot cast array data from complex to float64 according to the rule 'safe'")
        updates = value(weights, dtype)
    counts = _accumulate(x, updates, length)
    if is_traced(x) and length > minlength:  # NumPy's length: max(x) + 1, at least minlength
        return counts[np.arange(length) < np.maximum(np.max(x).astype(np.int64) + 1, minlength)]
    return counts


#: The number of values an integer of each size (bytes) holds, where bincount can count them all.
_VALUES = {1: 1 << 8, 2: 1 << 16}


@implements(np.digitize)
def digitize(x, bins, right=False):
    """`searchsorted` on the bins, reversed when they decrease (decided at run time for traced bins)."""
    if np.issubdtype(x.dtype if hasattr(x, "dtype") else np.asarray(x).dtype, np.complexfloating):
        raise TypeError("x may not be complex")
    side = "left" if right else "right"
    bins = bins if is_traced(bins) else np.asarray(bins)
    n = shape(bins)[0] if shape(bins) else 0
    increasing = searchsorted(bins, x, side=side)
    if not is_traced(bins):
        mono = numpy_quantiles._monotonicity(bins)
        if mono == 0:
            raise ValueError("bins must be monotonically increasing or decreasing")
        return increasing if mono == 1 else np.subtract(n, searchsorted(bins[::-1], x, side=side))
    reversed_bins = wrap(ops.reverse(value(bins), [0]), scalar=False)
    decreasing = np.subtract(n, searchsorted(reversed_bins, x, side=side))
    found = np.where(_decreasing(bins), decreasing, increasing) if n else increasing
    return wrap(value(found)) if np.ndim(found) == 0 else found  # (a scalar for a scalar, as NumPy's)


def _decreasing(bins):
    """Whether NumPy takes traced bins as decreasing: by the first edge unlike the first one (all
    alike: increasing; the first not below it, a NaN too: decreasing), as its monotonicity check."""
    differs = np.not_equal(bins, bins[0])
    return np.any(differs) & np.logical_not(np.less(bins[0], bins[np.argmax(differs)]))
