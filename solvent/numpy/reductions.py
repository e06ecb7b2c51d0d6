"""Reductions (sum, prod, mean, max, min, argmax, argmin, any, all, std, var, ptp, count_nonzero),
their NaN-ignoring nan* forms, the cumulative functions, and where, clip."""

from __future__ import annotations

import numpy as np

from solvent.errors import UnsupportedError
from solvent.numpy.elementwise import bodies as m
from solvent.numpy.registry import implements
from solvent.numpy.shape import ravel, reshape
from solvent.numpy.elementwise.ufuncs import identity_of, reduce as ufunc_reduce
from solvent.numpy.values import (full, is_python_scalar, is_traced, normalize_axis, normalize_axes, probe_array,
                                  result_type, shape, value, wrap, write_out)
from solvent.ops import elementwise as ew
from solvent.ops.base import dtype_of, shape_of
from solvent.ops.constant import iota
from solvent.ops.reduction import reduce as reduce_op
from solvent.ops.shape import concatenate


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


def _count(a, axis, where=True, keepdims=False):
    """How many elements each result gathers: a static int, or a traced count under `where=`."""
    if where is True:
        axes = normalize_axes(axis, len(shape(a)))
        return int(np.prod([shape(a)[i] for i in axes], dtype=np.int64))
    mask = wrap(value(where, np.bool_, shape(a)), scalar=False)
    return np.sum(mask, axis=axis, dtype=np.int64, keepdims=keepdims)


@implements(np.mean)
def mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=True):
    a = _array(a)
    result_dtype = np.mean(probe_array(a), axis=axis, dtype=dtype).dtype
    count = _count(a, axis, where, keepdims)
    if out is not None:  # summed into out (in its dtype, if wider: NumPy's _mean), then divided there
        work = np.float64 if a.dtype.kind in "biu" else np.float32 if a.dtype == np.float16 else None
        total = np.sum(a, axis=axis, dtype=dtype or work, out=out, keepdims=keepdims, where=where)
        return _divided_in(out, total, np.int64(count) if isinstance(count, int) else count)
    work = np.float32 if dtype is None and a.dtype == np.float16 else result_dtype  # (NumPy's _mean)
    total = np.sum(a, axis=axis, dtype=work, keepdims=keepdims, where=where)
    result = np.true_divide(total, count)
    return wrap(ew.convert(value(result), result_dtype), scalar=shape(result) == ())


def _divided_in(out, total, count):
    """`total`, summed into `out`, divided there by `count`, as NumPy's mean and var do: a narrow `out`
    overflows or wraps before the division."""
    return np.true_divide(out, count, out=out, casting="unsafe")


@implements(np.var)
def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True, mean=None,
        correction=np._NoValue):
    if mean is not None:
        raise UnsupportedError("np.var with mean=")
    ddof = ddof if correction is np._NoValue else correction
    a = _array(a)
    result_dtype = np.var(probe_array(a), axis=axis, dtype=dtype).dtype
    # NumPy's _var: the mean in dtype= where given (a real one of complex data keeps its real part)
    work = dtype if dtype is not None else np.result_type(result_dtype, a.dtype)
    centered = np.subtract(a, np.mean(a, axis=axis, dtype=work, keepdims=True, where=where))
    if np.issubdtype(centered.dtype, np.complexfloating):
        squared = np.add(np.square(np.real(centered)), np.square(np.imag(centered)))
    else:
        squared = np.multiply(centered, centered)
    count = np.maximum(np.subtract(_count(a, axis, where, keepdims), ddof), 0)
    if out is not None:
        return _divided_in(out, np.sum(squared, axis=axis, dtype=dtype, out=out, keepdims=keepdims, where=where),
                           count)
    total = np.sum(squared, axis=axis, dtype=result_dtype, keepdims=keepdims, where=where)
    result = np.true_divide(total, count)
    return wrap(ew.convert(value(result), result_dtype), scalar=shape(result) == ())


@implements(np.std)
def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True, mean=None,
        correction=np._NoValue):
    result = var(a, axis, dtype, out, ddof, keepdims, where=where, mean=mean, correction=correction)
    return np.sqrt(result, out=out)


def _ordered(v, direction):
    """Integers of float `v`'s width in its order (-0.0 as 0.0), NaN first as np.argmin and np.argmax
    take it: their reduce, with no NaN tests, runs twice as fast on XLA:CPU. Bit operations only:
    the optimizer hoists a float compare of a loop's row out of the loop, over the whole array."""
    dtype = np.dtype(f"int{8 * dtype_of(v).itemsize}")

    def const(x):
        return full(x, shape_of(v), dtype)
    bits, most, top = ew.bitcast(v, dtype), const(np.iinfo(dtype).max), const(8 * dtype.itemsize - 1)
    negative = ew.binary("shift_right_arithmetic", bits, top)  # (all ones where negative)
    keys = ew.binary("subtract", ew.binary("xor", bits, ew.binary("and", negative, most)), negative)
    infinity = const(np.array(np.inf, dtype_of(v)).view(dtype))
    nan = ew.binary("shift_right_arithmetic", ew.binary("subtract", infinity, ew.binary("and", bits, most)), top)
    first = const(np.iinfo(dtype).max if direction == "GT" else np.iinfo(dtype).min)
    return ew.binary("or", ew.binary("and", keys, ew.unary("not", nan)), ew.binary("and", first, nan))


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
        v = _ordered(value(a), direction) if a.dtype.kind == "f" else value(a)
        indices = iota(shape(a), np.int64, axis)
        start = identity_of(np.maximum if direction == "GT" else np.minimum, dtype_of(v))
        inits = [full(start, (), dtype_of(v)), full(np.iinfo(np.int64).max, (), np.int64)]

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
        return write_out(out, result, "unsafe") if out is not None else result
    return apply


implements(np.argmax)(_arg_extremum("GT"))
implements(np.argmin)(_arg_extremum("LT"))


@implements(np.where)
def where(condition, x=None, y=None):
    if x is None and y is None:
        return np.nonzero(condition)
    dtype = result_type(x, y)
    out_shape = np.broadcast_shapes(shape(condition), shape(x), shape(y))
    pred = value(condition, np.bool_, out_shape)
    x, y = (np.asarray(v).astype(dtype) if is_python_scalar(v) else v for v in (x, y))  # (-1 with uint8: 255)
    return wrap(ew.select(pred, value(x, dtype, out_shape), value(y, dtype, out_shape)), scalar=False)


@implements(np.clip)
def clip(a, a_min=np._NoValue, a_max=np._NoValue, out=None, *, min=np._NoValue, max=np._NoValue, **kwargs):
    result = clipped(a, a_min, a_max, min, max, lambda a: wrap(value(a), scalar=False))
    return write_out(out, result) if out is not None else result


def clipped(a, a_min, a_max, min, max, copy):
    """np.clip's result from either spelling of its bounds (a_min/a_max or min/max), as np.maximum
    and np.minimum of `a` (which dispatch on it); `copy(a)` where neither bound is given."""
    low = a_min if a_min is not np._NoValue else (None if min is np._NoValue else min)
    high = a_max if a_max is not np._NoValue else (None if max is np._NoValue else max)
    dtype = np.dtype(getattr(a, "dtype", np.float64))
    if dtype.kind in "iu":  # NumPy drops a Python int bound beyond the integer dtype on its own side
        info = np.iinfo(dtype)
        low = None if type(low) is int and low < info.min else low
        high = None if type(high) is int and high > info.max else high
    if low is None and high is None:
        return copy(a)
    result = a if low is None else np.maximum(a, low)
    return result if high is None else np.minimum(result, high)


def _cumulative(numpy_function, ufunc):
    def apply(a, axis=None, dtype=None, out=None):
        a = _array(a)
        widened = numpy_function(probe_array(a), axis=axis, dtype=dtype).dtype  # small ints widen
        dtype = widened if dtype is not None or widened != a.dtype else None  # (None: an out= may widen it)
        if axis is None or len(shape(a)) == 0:  # (NumPy takes a 0-d array as 1-d along axis 0 or -1)
            a, axis = ravel(a), 0 if axis is None else normalize_axis(axis, 1)
        return ufunc.accumulate(a, axis=axis, dtype=dtype, out=out)
    return apply


implements(np.cumsum)(_cumulative(np.cumsum, np.add))
implements(np.cumprod)(_cumulative(np.cumprod, np.multiply))



def _cumulative_api(ufunc):
    """np.cumulative_sum / cumulative_prod (NumPy 2.1, Array API): `axis` required above 1-D,
    and `include_initial` puts the ufunc's identity first."""
    def apply(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
        x = _array(x)
        if len(shape(x)) == 0:
            x = reshape(x, (1,))
        if axis is None:
            if len(shape(x)) >= 2:
                raise ValueError("For arrays which have more than one dimension ``axis`` argument is required.")
            axis = 0
        axis = normalize_axis(axis, len(shape(x)))
        result = ufunc.accumulate(x, axis=axis, dtype=dtype)
        if include_initial:
            first = full(ufunc.identity, [1 if i == axis else n for i, n in enumerate(shape(x))], result.dtype)
            result = wrap(concatenate([first, value(result)], axis), scalar=False)
        return write_out(out, result, "unsafe") if out is not None else result
    return apply


implements(np.cumulative_sum)(_cumulative_api(np.add))
implements(np.cumulative_prod)(_cumulative_api(np.multiply))


# -- NaN-ignoring reductions ---------------------------------------------------------------

def _nan_mask(a):
    """Where `a` holds NaN (never, for exact dtypes: NumPy's _replace_nan returns no mask)."""
    return np.isnan(a) if np.dtype(a.dtype).kind in "fc" else None


def _replace_nan(a, fill):
    """`a` with NaNs replaced by `fill`, and the mask (None for exact dtypes)."""
    a = _array(a)
    mask = _nan_mask(a)
    return (a, None) if mask is None else (np.where(mask, np.asarray(fill, a.dtype), a), mask)


def _nan_reduction(numpy_function, fill):
    def apply(a, axis=None, dtype=None, out=None, keepdims=False, initial=np._NoValue, where=True):
        filled, _ = _replace_nan(a, fill)
        return numpy_function(filled, axis=axis, dtype=dtype, out=out, keepdims=keepdims, initial=initial,
                              where=where)
    return apply


implements(np.nansum)(_nan_reduction(np.sum, 0))
implements(np.nanprod)(_nan_reduction(np.prod, 1))


implements(np.nanmax)(_extremum(np.fmax))  # fmax skips NaNs; an all-NaN slice gives NaN (NumPy warns)
implements(np.nanmin)(_extremum(np.fmin))


def _nan_arg_extremum(numpy_function, fill):
    """NaNs never win. An all-NaN slice, where NumPy raises, gives index 0 (its data is traced)."""
    def apply(a, axis=None, out=None, *, keepdims=False):
        filled, _ = _replace_nan(a, fill)
        return numpy_function(filled, axis=axis, out=out, keepdims=keepdims)
    return apply


implements(np.nanargmax)(_nan_arg_extremum(np.argmax, -np.inf))
implements(np.nanargmin)(_nan_arg_extremum(np.argmin, np.inf))


def _nan_moments(a, axis, dtype, ddof, keepdims, where, mean, what, out=None):
    """(sum of squared deviations or sum, count of non-NaN values) as nanvar and nanmean use them; the
    sum into `out` where given (in its dtype, if wider), as NumPy's."""
    if mean is not None:
        raise UnsupportedError(f"np.{what} with mean=")
    filled, mask = _replace_nan(a, 0)
    valid = np.logical_not(mask) if where is True else np.logical_and(np.logical_not(mask), where)
    count = np.sum(valid, axis=axis, dtype=np.int64, keepdims=keepdims)
    if what == "nanmean":
        return np.sum(filled, axis=axis, dtype=dtype, out=out, keepdims=keepdims, where=where), count
    centre = _divided(np.sum(filled, axis=axis, dtype=dtype, keepdims=True, where=where),
                      np.sum(valid, axis=axis, dtype=np.int64, keepdims=True))
    deviation = np.subtract(filled, centre)
    deviation = np.where(mask, 0, wrap(ew.convert(value(deviation), filled.dtype), scalar=False))
    if np.dtype(deviation.dtype).kind == "c":
        squared = np.add(np.square(np.real(deviation)), np.square(np.imag(deviation)))
    else:
        squared = np.multiply(deviation, deviation)
    return (np.sum(squared, axis=axis, dtype=dtype, out=out, keepdims=keepdims, where=where),
            np.subtract(count, ddof))


@implements(np.nanmean)
def nanmean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=True):
    a = _array(a)
    if _nan_mask(a) is None:
        return np.mean(a, axis=axis, dtype=dtype, out=out, keepdims=keepdims, where=where)
    total, count = _nan_moments(a, axis, dtype, 0, keepdims, where, None, "nanmean", out)
    return _divided(total, count, out)


def _divided(total, count, out=None):
    """total / count in total's dtype (NumPy's _divide_by_count); NaN where count <= 0."""
    quotient = np.where(np.greater(count, 0), np.true_divide(total, count), np.nan)
    result = wrap(ew.convert(value(quotient), total.dtype), scalar=shape(total) == ())
    return write_out(out, result, "unsafe") if out is not None else result


@implements(np.nanvar)
def nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True, mean=None,
           correction=np._NoValue):
    a = _array(a)
    ddof = ddof if correction is np._NoValue else correction
    if _nan_mask(a) is None:
        return np.var(a, axis=axis, dtype=dtype, out=out, ddof=ddof, keepdims=keepdims, where=where, mean=mean)
    squares, dof = _nan_moments(a, axis, dtype, ddof, keepdims, where, mean, "nanvar", out)
    return _divided(squares, dof, out)


@implements(np.nanstd)
def nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True, mean=None,
           correction=np._NoValue):
    return np.sqrt(nanvar(a, axis, dtype, out, ddof, keepdims, where=where, mean=mean, correction=correction),
                   out=out)


def _nan_cumulative(numpy_function, fill):
    def apply(a, axis=None, dtype=None, out=None):
        filled, _ = _replace_nan(a, fill)
        return numpy_function(filled, axis=axis, dtype=dtype, out=out)
    return apply


implements(np.nancumsum)(_nan_cumulative(np.cumsum, 0))
implements(np.nancumprod)(_nan_cumulative(np.cumprod, 1))


@implements(np.count_nonzero)
def count_nonzero(a, axis=None, *, keepdims=False):
    return np.sum(np.not_equal(_array(a), 0), axis=axis, dtype=np.int64, keepdims=keepdims)


@implements(np.ptp)
def ptp(a, axis=None, out=None, keepdims=False):
    """max - min, wrapping around for integers as NumPy does."""
    a = _array(a)
    return np.subtract(np.max(a, axis=axis, keepdims=keepdims), np.min(a, axis=axis, keepdims=keepdims), out=out)
