"""NumPy functions on arrays with traced bounds (`traced_bounds.MaskedArray`): reductions over the
valid part with the padding set to their identity, argmax and argmin counted from the valid part's
start, products, where and copy. Anything else raises, naming the function."""

from __future__ import annotations

import numpy as np

from solvent.errors import UnsupportedError
from solvent.numpy.indexing.traced_bounds import (FUNCTIONS, MaskedArray, contracted, lengths_of, lined_up, make,
                                                  masked_result, merged_lengths, ndim_of, plain_value)
from solvent.numpy.values import normalize_axes, value, wrap
from solvent.ops import elementwise as ew

_I64 = np.int64


def _reduction(a, axis, keepdims, filler):
    """The data with `filler` outside the valid part, the axes reduced, and (lengths, starts, keys)
    of the result."""
    lengths = list(a.lengths)
    axes = normalize_axes(axis, len(a.shape))
    _, starts, keys = a.aligned(False)
    data = wrap(a.filled(filler), scalar=False)
    parts = [[None if i in axes else x for i, x in enumerate(column)] if keepdims
             else [x for i, x in enumerate(column) if i not in axes] for column in (lengths, starts, keys)]
    return data, axes, parts


def _count(a, axes):
    total = value(np.asarray(1, _I64))
    for i in axes:
        n = a.lengths[i] if a.lengths[i] is not None else value(np.asarray(a.shape[i], _I64))
        total = ew.binary("multiply", total, n)
    return total


def _extreme(dtype, sign):
    if np.issubdtype(dtype, np.floating):
        return sign * np.inf
    info = np.iinfo(dtype)
    return info.min if sign < 0 else info.max


def _sum(a, axis=None, dtype=None, keepdims=False, initial=np._NoValue):
    data, _, parts = _reduction(a, axis, keepdims, 0)
    return masked_result(np.sum(data, axis=axis, dtype=dtype, keepdims=keepdims, initial=initial).value, *parts)


def _extremum(numpy_function, sign):
    def apply(a, axis=None, keepdims=False, initial=np._NoValue):
        data, _, parts = _reduction(a, axis, keepdims, _extreme(a.dtype, sign))
        return masked_result(numpy_function(data, axis=axis, keepdims=keepdims, initial=initial).value, *parts)
    return apply


def _arg_extremum(numpy_function, sign):
    """argmax (sign -1) or argmin of the valid part: the padding set to the other extreme, so that the
    first extreme element is a valid one, and positions counted from the valid part's start."""
    def apply(a, axis=None, out=None, *, keepdims=False):
        if axis is None and len(a.shape) != 1:
            raise UnsupportedError(f"np.{numpy_function.__name__} of a {len(a.shape)}-d array whose length "
                                   "depends on traced values needs axis=")
        axis = normalize_axes(0 if axis is None else axis, len(a.shape))[0]
        data, _, parts = _reduction(a, axis, keepdims, _extreme(a.dtype, sign))
        start = a.aligned(False)[1][axis]
        found = numpy_function(data, axis=axis, keepdims=keepdims)
        if start is not None:
            found = found - wrap(start)
        return masked_result(found.value, *parts)
    return apply


def _mean(a, axis=None, dtype=None, keepdims=False):
    total = _sum(a, axis, dtype, keepdims=keepdims)
    count = _count(a, normalize_axes(axis, len(a.shape)))
    lengths = list(total.lengths) if isinstance(total, MaskedArray) else []
    quotient = np.true_divide(plain_value(total), wrap(count))
    return masked_result(quotient.value, lengths)


def _filled_reduction(numpy_function, filler):
    """A reduction of the valid part: the padding set to the reduction's identity first."""
    def apply(a, axis=None, *args, keepdims=False, **kwargs):
        data, _, parts = _reduction(a, axis, keepdims, filler)
        return masked_result(numpy_function(data, axis, *args, keepdims=keepdims, **kwargs).value, *parts)
    return apply


def _var(a, axis=None, dtype=None, ddof=0, keepdims=False):
    """NumPy's two passes over the valid part: the mean, then the mean squared deviation from it."""
    count = wrap(_count(a, normalize_axes(axis, len(a.aval.shape))))
    deviation = a - _sum(a, axis, dtype, keepdims=True) / count
    squares = np.real(deviation * np.conj(deviation)) if a.dtype.kind == "c" else deviation * deviation
    total = _sum(squares, axis, dtype, keepdims=keepdims)
    lengths = list(total.lengths) if isinstance(total, MaskedArray) else []
    return masked_result(np.true_divide(plain_value(total), np.maximum(count - ddof, 0)).value, lengths)


def _std(a, axis=None, dtype=None, ddof=0, keepdims=False):
    return np.sqrt(_var(a, axis, dtype, ddof=ddof, keepdims=keepdims))


def _dot(a, b):
    if not ndim_of(a) or not ndim_of(b):
        return np.multiply(a, b)
    return contracted(np.dot, a, b, -2 if len(b.shape) > 1 else -1,
                       lambda x, y: x[:-1] + (y[:-2] + y[-1:] if len(y) > 1 else []))


def _outer(a, b):
    if len(a.shape) != 1 or len(b.shape) != 1:
        raise UnsupportedError("np.outer of slices with traced bounds that are not 1-d")
    (pa,), sa, ka = lined_up([a], 1, filled=(0,))  # zeroed: an unzeroed row read of an argument
    (pb,), sb, kb = lined_up([b], 1, filled=(0,))  # lets the optimizer hoist a 3-D broadcast of it
    v = np.multiply(np.reshape(pa, (-1, 1)), pb).value
    return masked_result(v, lengths_of(a, 1) + lengths_of(b, 1), sa + sb, ka + kb)


def _where(condition, x, y):
    ndim = max(ndim_of(v) for v in (condition, x, y))
    lengths = merged_lengths(*[lengths_of(v, ndim) for v in (condition, x, y)])
    plain, starts, keys = lined_up([condition, x, y], ndim)
    return masked_result(np.where(*plain).value, lengths, starts, keys)


def _copy(a, order="K", subok=False):
    data, starts, keys = a.aligned(False)
    return make(a.value, a.lengths, data, starts, keys)


FUNCTIONS.update({
    np.sum: _sum, np.mean: _mean, np.max: _extremum(np.max, -1), np.amax: _extremum(np.max, -1),
    np.min: _extremum(np.min, 1), np.amin: _extremum(np.min, 1), np.dot: _dot, np.outer: _outer,
    np.where: _where, np.copy: _copy, np.prod: _filled_reduction(np.prod, 1), np.any: _filled_reduction(np.any, 0),
    np.all: _filled_reduction(np.all, 1), np.count_nonzero: _filled_reduction(np.count_nonzero, 0),
    np.var: _var, np.std: _std, np.argmax: _arg_extremum(np.argmax, -1), np.argmin: _arg_extremum(np.argmin, 1),
})
