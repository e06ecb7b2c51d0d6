"""Reductions (sum, prod, mean, max, min, argmax, argmin, any, all, std, var) and where, clip."""

from __future__ import annotations

import numpy as np

from solvent.errors import UnsupportedError
from solvent.numpy import math as m
from solvent.numpy.registry import implements
from solvent.numpy.shape import ravel, reshape
from solvent.numpy.ufuncs import identity_of, reduce as ufunc_reduce
from solvent.numpy.values import (full, is_traced, normalize_axis, normalize_axes, probe_array, result_type,
                                  shape, value, wrap, write_out)
from solvent.ops import elementwise as ew
from solvent.ops.constant import iota
from solvent.ops.reduction import reduce as reduce_op


def _array(a):
    return a if is_traced(a) else np.asarray(a)


def _keep(result, a, axis, keepdims):
    if not keepdims:
        return result
    axes = normalize_axes(axis, len(shape(a)))
    return reshape(result, [1 if i in axes else n for i, n in enumerate(shape(a))])


def _reduction(ufunc):
    def apply(a, axis=None, dtype=None, out=None, keepdims=False, initial=np._NoValue, where=True):
        return ufunc_reduce(ufunc, _array(a), axis, dtype, out, keepdims, initial, where)
    return apply


implements(np.sum)(_reduction(np.add))
implements(np.prod)(_reduction(np.multiply))


def _extremum(ufunc):
    def apply(a, axis=None, out=None, keepdims=False, initial=np._NoValue, where=True):
        return ufunc_reduce(ufunc, _array(a), axis, None, out, keepdims, initial, where)
    return apply


implements(np.max, np.amax)(_extremum(np.maximum))
implements(np.min, np.amin)(_extremum(np.minimum))


def _boolean(ufunc):
    def apply(a, axis=None, out=None, keepdims=False, *, where=True):
        a = _array(a)
        return ufunc_reduce(ufunc, a if a.dtype == np.bool_ else np.not_equal(a, 0), axis, None, out,
                            keepdims, np._NoValue, where)
    return apply


implements(np.any)(_boolean(np.logical_or))
implements(np.all)(_boolean(np.logical_and))


def _count(a, axis) -> int:
    axes = normalize_axes(axis, len(shape(a)))
    return int(np.prod([shape(a)[i] for i in axes], dtype=np.int64))


@implements(np.mean)
def mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=True):
    if where is not True:
        raise UnsupportedError("np.mean with where=")
    a = _array(a)
    result_dtype = np.mean(probe_array(a), axis=axis, dtype=dtype).dtype
    total = np.sum(a, axis=axis, dtype=result_dtype, keepdims=keepdims)
    result = np.true_divide(total, _count(a, axis))
    result = wrap(ew.convert(value(result), result_dtype), scalar=shape(result) == ())
    return write_out(out, result) if out is not None else result


@implements(np.var)
def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True, mean=None,
        correction=np._NoValue):
    if where is not True or mean is not None:
        raise UnsupportedError("np.var with where= or mean=")
    ddof = ddof if correction is np._NoValue else correction
    a = _array(a)
    result_dtype = np.var(probe_array(a), axis=axis, dtype=dtype).dtype
    work = np.result_type(result_dtype, a.dtype) if np.issubdtype(a.dtype, np.complexfloating) else result_dtype
    centered = np.subtract(a, np.mean(a, axis=axis, dtype=work, keepdims=True))
    if np.issubdtype(centered.dtype, np.complexfloating):
        squared = np.add(np.square(np.real(centered)), np.square(np.imag(centered)))
    else:
        squared = np.multiply(centered, centered)
    total = np.sum(squared, axis=axis, dtype=result_dtype, keepdims=keepdims)
    result = np.true_divide(total, max(_count(a, axis) - ddof, 0))
    result = wrap(ew.convert(value(result), result_dtype), scalar=shape(result) == ())
    return write_out(out, result) if out is not None else result


@implements(np.std)
def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True, mean=None,
        correction=np._NoValue):
    result = np.sqrt(var(a, axis, dtype, None, ddof, keepdims, where=where, mean=mean, correction=correction))
    return write_out(out, result) if out is not None else result


def _arg_extremum(direction):
    def apply(a, axis=None, out=None, *, keepdims=False):
        a = _array(a)
        rank = len(shape(a))
        if axis is not None and rank == 0:
            normalize_axis(axis, 1)  # NumPy lets a 0-d array name axis 0 or -1
        if axis is None or rank == 0:
            kept_shape = [1] * rank
            a, axis = ravel(a), 0
        else:
            axis = normalize_axis(axis, rank)
            kept_shape = [1 if i == axis else n for i, n in enumerate(shape(a))]
        if shape(a)[axis] == 0:
            raise ValueError(f"attempt to get arg{'max' if direction == 'GT' else 'min'} of an empty sequence")
        v = value(a)
        indices = iota(shape(a), np.int64, axis)
        start = identity_of(np.maximum if direction == "GT" else np.minimum, a.dtype)
        inits = [full(start, (), a.dtype), full(np.iinfo(np.int64).max, (), np.int64)]

        def body(best, best_i, x, x_i):
            best_nan, x_nan = m.isnan(best), m.isnan(x)
            earlier = ew.compare("LT", best_i, x_i)
            better = ew.binary("or", m.compare(direction)(best, x),
                               ew.binary("and", ew.compare("EQ", best, x), earlier))
            keep = ew.select(best_nan, ew.binary("or", ew.unary("not", x_nan), earlier),
                             ew.binary("and", ew.unary("not", x_nan), better))
            return [ew.select(keep, best, x), ew.select(keep, best_i, x_i)]

        _, index = reduce_op([v, indices], inits, [axis], body)
        result = reshape(wrap(index), kept_shape) if keepdims else wrap(index)
        return write_out(out, result) if out is not None else result
    return apply


implements(np.argmax)(_arg_extremum("GT"))
implements(np.argmin)(_arg_extremum("LT"))


@implements(np.where)
def where(condition, x=None, y=None):
    if x is None and y is None:
        raise UnsupportedError("np.where(condition) has a data-dependent shape; "
                               "use np.where(condition, x, y) instead")
    dtype = result_type(x, y)
    out_shape = np.broadcast_shapes(shape(condition), shape(x), shape(y))
    pred = value(condition, np.bool_, out_shape)
    return wrap(ew.select(pred, value(x, dtype, out_shape), value(y, dtype, out_shape)), scalar=False)


@implements(np.clip)
def clip(a, a_min=np._NoValue, a_max=np._NoValue, out=None, *, min=np._NoValue, max=np._NoValue, **kwargs):
    low = a_min if a_min is not np._NoValue else (None if min is np._NoValue else min)
    high = a_max if a_max is not np._NoValue else (None if max is np._NoValue else max)
    result = a
    if low is not None:
        result = np.maximum(result, low)
    if high is not None:
        result = np.minimum(result, high)
    if result is a:
        result = wrap(value(a), scalar=False)
    return write_out(out, result) if out is not None else result


def _cumulative(numpy_function, ufunc):
    def apply(a, axis=None, dtype=None, out=None):
        a = _array(a)
        dtype = numpy_function(probe_array(a), axis=axis, dtype=dtype).dtype  # small ints widen
        if axis is None:
            a, axis = ravel(a), 0
        return ufunc.accumulate(a, axis=axis, dtype=dtype, out=out)
    return apply


implements(np.cumsum)(_cumulative(np.cumsum, np.add))
implements(np.cumprod)(_cumulative(np.cumprod, np.multiply))
