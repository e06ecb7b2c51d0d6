"""NumPy on masked arrays (slices with traced bounds): the valid prefix of each result.

Data past the valid prefix is zero, so sums, dot products and outer products
need nothing special; extrema fill it with the reduction's identity first.
Every result is zeroed past its own prefix again.
"""

from __future__ import annotations

import numpy as np

from solvent.core import trace
from solvent.errors import UnsupportedError, user_location
from solvent.numpy.masked import MaskedArray, fill, make
from solvent.numpy.values import normalize_axes, value, wrap
from solvent.ops import elementwise as ew

_I64 = np.int64


def _plain(x):
    return wrap(x.value, scalar=False) if isinstance(x, MaskedArray) else x


def _ndim(x) -> int:
    return len(x.shape) if hasattr(x, "shape") else np.ndim(x)


def _lengths(x, ndim):
    """`x`'s valid lengths aligned to the last `ndim` axes (NumPy's broadcasting)."""
    own = list(x.lengths) if isinstance(x, MaskedArray) else [None] * _ndim(x)
    return [None] * (ndim - len(own)) + own


def _merge(*length_lists):
    return [next((l for l in column if l is not None), None) for column in zip(*length_lists)]


def _result(v, lengths):
    if all(length is None for length in lengths):
        return wrap(v)
    return make(fill(v, lengths, 0), lengths)


def _emitting():
    return trace.current().emitting(user_location())


def ufunc(uf, method, inputs, kwargs):
    with _emitting():
        if method != "__call__":
            raise UnsupportedError(f"np.{uf.__name__}.{method} on a slice whose bounds are traced")
        out = kwargs.pop("out", None)
        if uf is np.matmul:
            result = _matmul(*inputs, **kwargs)
        else:
            ndim = max(_ndim(x) for x in inputs)
            lengths = _merge(*[_lengths(x, ndim) for x in inputs])
            plain = uf(*[_plain(x) for x in inputs], **kwargs)
            result = _result(plain.value, lengths)
        if out is None:
            return result
        target = out[0] if isinstance(out, tuple) else out
        if not isinstance(target, MaskedArray):
            raise UnsupportedError("out= that is not itself a slice with traced bounds")
        target.assign(ew.convert(result.value, target.dtype))
        return target


def _matmul(a, b):
    la, lb = _lengths(a, len(a.shape)), _lengths(b, len(b.shape))
    v = np.matmul(_plain(a), _plain(b)).value
    lengths = (la[:-1] if len(la) > 1 else []) + (lb[-1:] if len(lb) > 1 else [])
    return _result(v, lengths)


def _reduction(a, axis, keepdims, filler):
    lengths = list(a.lengths)
    axes = normalize_axes(axis, len(a.shape))
    data = wrap(fill(a.value, lengths, filler), scalar=False)
    kept = [None if i in axes else l for i, l in enumerate(lengths)]
    return data, axes, (kept if keepdims else [l for i, l in enumerate(lengths) if i not in axes])


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


def function(func, args, kwargs):
    with _emitting():
        handler = _FUNCTIONS.get(func)
        if handler is None:
            raise UnsupportedError(f"np.{getattr(func, '__name__', func)} on a slice whose bounds are traced "
                                   "(loop-dependent slices support ufuncs, sum, mean, max, min, dot, matmul, outer)")
        return handler(*args, **kwargs)


def _sum(a, axis=None, dtype=None, out=None, keepdims=False, **kwargs):
    data, _, lengths = _reduction(a, axis, keepdims, 0)
    return _result(np.sum(data, axis=axis, dtype=dtype, keepdims=keepdims).value, lengths)


def _extremum(numpy_function, sign):
    def apply(a, axis=None, out=None, keepdims=False, **kwargs):
        data, _, lengths = _reduction(a, axis, keepdims, _extreme(a.dtype, sign))
        return _result(numpy_function(data, axis=axis, keepdims=keepdims).value, lengths)
    return apply


def _mean(a, axis=None, dtype=None, out=None, keepdims=False, **kwargs):
    total = _sum(a, axis, dtype, keepdims=keepdims)
    count = _count(a, normalize_axes(axis, len(a.shape)))
    lengths = list(total.lengths) if isinstance(total, MaskedArray) else []
    quotient = np.true_divide(_plain(total), wrap(count))
    return _result(quotient.value, lengths)


def _dot(a, b, out=None):
    if not _ndim(a) or not _ndim(b):
        return np.multiply(a, b)
    la, lb = _lengths(a, len(a.shape)), _lengths(b, len(b.shape))
    v = np.dot(_plain(a), _plain(b)).value
    lengths = la[:-1] + (lb[:-2] + lb[-1:] if len(lb) > 1 else [])
    return _result(v, lengths)


def _outer(a, b, out=None):
    if len(a.shape) != 1 or len(b.shape) != 1:
        raise UnsupportedError("np.outer of slices with traced bounds that are not 1-d")
    v = np.multiply(np.reshape(_plain(a), (-1, 1)), _plain(b)).value
    return _result(v, _lengths(a, 1) + _lengths(b, 1))


def _where(condition, x, y):
    ndim = max(_ndim(v) for v in (condition, x, y))
    lengths = _merge(*[_lengths(v, ndim) for v in (condition, x, y)])
    return _result(np.where(_plain(condition), _plain(x), _plain(y)).value, lengths)


def _copy(a, *args, **kwargs):
    return make(a.value, a.lengths)


_FUNCTIONS = {
    np.sum: _sum, np.mean: _mean, np.max: _extremum(np.max, -1), np.amax: _extremum(np.max, -1),
    np.min: _extremum(np.min, 1), np.amin: _extremum(np.min, 1), np.dot: _dot, np.outer: _outer,
    np.where: _where, np.copy: _copy,
}
