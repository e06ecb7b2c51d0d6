"""NumPy functions on arrays with traced bounds (`traced_bounds.MaskedArray`), one rule per kind:
reductions (and ufunc.reduce) over the valid part with the padding set to their identity; elementwise
functions on the lined-up operands; products summing the zero padding; joins writing each piece where
the valid parts before it end; axes moved with their lengths; linear algebra of a square block beside
the identity. `bounded_orders` holds the kinds where order matters (scans, flips, sorts, order
statistics). Anything else raises, naming the function (`traced_bounds.COVERED`)."""

from __future__ import annotations

import numpy as np

from solvent.core.traced import TracedArray
from solvent.errors import UnsupportedError
from solvent.ir.module import same_value
from solvent.numpy.indexing import chunked_reductions, masked_keys
from solvent.numpy.indexing.masked_products import contracted
from solvent.numpy.indexing.traced_bounds import (FUNCTIONS, UFUNC_METHODS, MaskedArray, broadcast_lined_up,
                                                  elementwise, lengths_of, lined_up, make, masked_result, ndim_of,
                                                  plain_value, read_only_view)
from solvent.numpy.indexing.traced_lengths import mask, one_extent, resized
from solvent.numpy.products import tensordot_axes
from solvent.numpy.reductions import clipped
from solvent.numpy.rounding import python_bool
from solvent.numpy.values import full, normalize_axes, normalize_axis, value, wrap
from solvent.ops import elementwise as ew, shape as ops
from solvent.ops.base import is_complex, is_float, shape_of
from solvent.ops.constant import iota

_I64 = np.int64


# -- reductions: the padding set to the reduction's identity ---------------------------------------

def _reduction(a, axis, keepdims, filler, ordered=False):
    """The data with `filler` outside the valid part, the axes reduced, and (lengths, starts, keys)
    of the result. `ordered`: laid out as NumPy's (a selection by a mask packed, not in place), for
    a reduction whose result is a position."""
    lengths = list(a.lengths)
    axes = normalize_axes(axis, len(a.shape))
    _, starts, keys = a.aligned(False)
    data = wrap(MaskedArray.filled(a, filler) if ordered else a.filled(filler), scalar=False)
    parts = [[None if i in axes else x for i, x in enumerate(column)] if keepdims
             else [x for i, x in enumerate(column) if i not in axes] for column in (lengths, starts, keys)]
    return data, axes, parts


def _count(a, axes):
    total = value(np.asarray(1, _I64))
    for i in axes:
        n = a.lengths[i] if a.lengths[i] is not None else value(np.asarray(a.shape[i], _I64))
        total = ew.binary("multiply", total, n)
    return total


def extreme(dtype, sign, nan=False):
    """The value that never wins a max (sign -1) or a min: for floats, -inf or inf (complex: in both
    parts), or NaN where NaNs lose (fmax, fmin: an all-NaN valid part still gives NaN)."""
    if is_float(dtype):
        return np.nan if nan else sign * np.inf
    if is_complex(dtype):  # (ordered by the real part, then the imaginary one)
        return complex(np.nan, np.nan) if nan else complex(sign * np.inf, sign * np.inf)
    if np.dtype(dtype) == np.bool_:
        return sign > 0
    info = np.iinfo(dtype)
    return info.min if sign < 0 else info.max


def masked_sum(a, axis=None, dtype=None, keepdims=False, initial=np._NoValue):
    chunked = chunked_reductions.reduce(a, chunked_reductions.recipe_of(a), "sum", axis, keepdims, initial, dtype)
    if chunked is not None:
        return chunked
    data, _, parts = _reduction(a, axis, keepdims, 0)
    return masked_result(np.sum(data, axis=axis, dtype=dtype, keepdims=keepdims, initial=initial).value, *parts)


def _extremum(numpy_function, sign):
    def apply(a, axis=None, keepdims=False, initial=np._NoValue):
        chunked = chunked_reductions.reduce(a, chunked_reductions.recipe_of(a), "max" if sign < 0 else "min", axis, keepdims, initial)
        if chunked is not None:
            return chunked
        data, _, parts = _reduction(a, axis, keepdims, extreme(a.dtype, sign))
        return masked_result(numpy_function(data, axis=axis, keepdims=keepdims, initial=initial).value, *parts)
    return apply


def _arg_extremum(numpy_function, sign):
    """argmax (sign -1) or argmin of the valid part: the padding set to the other extreme, so that the
    first extreme element is a valid one, and positions counted from the valid part's start. Where
    every valid element is that extreme (x[i:] all inf) the padding before the start wins the tie;
    a position before the start is then 0."""
    def apply(a, axis=None, out=None, *, keepdims=False):
        if axis is None and len(a.shape) != 1:
            raise UnsupportedError(f"np.{numpy_function.__name__} of a {len(a.shape)}-d array whose length "
                                   "depends on traced values needs axis=")
        axis = normalize_axes(0 if axis is None else axis, len(a.shape))[0]
        data, _, parts = _reduction(a, axis, keepdims, extreme(a.dtype, sign), ordered=True)
        start = a.aligned(False)[1][axis]
        found = numpy_function(data, axis=axis, keepdims=keepdims)
        if start is not None:
            found = np.maximum(found - wrap(start), 0)
        return masked_result(found.value, *parts)
    return apply


def _mean(a, axis=None, dtype=None, keepdims=False):
    total = masked_sum(a, axis, dtype, keepdims=keepdims)
    count = _count(a, normalize_axes(axis, len(a.shape)))
    lengths = list(total.lengths) if isinstance(total, MaskedArray) else []
    return masked_result(_divided(total, wrap(count)).value, lengths)


def _divided(total, count):
    """A mean's quotient, in NumPy's dtype (`_quotient_dtype`)."""
    return np.true_divide(plain_value(total), count.astype(_quotient_dtype(total)))


def _quotient_dtype(total) -> np.dtype:
    """A mean's dtype: its sum's where that is inexact (float32 stays float32), else float64."""
    return total.dtype if total.dtype.kind in "fc" else np.dtype(np.float64)


def _filled_reduction(numpy_function, filler):
    """A reduction of the valid part: the padding set to the reduction's identity first."""
    def apply(a, axis=None, *args, keepdims=False, **kwargs):
        data, _, parts = _reduction(a, axis, keepdims, filler)
        return masked_result(numpy_function(data, axis, *args, keepdims=keepdims, **kwargs).value, *parts)
    return apply


def _var(a, axis=None, dtype=None, ddof=0, keepdims=False):
    """NumPy's two passes over the valid part: the mean, then the mean squared deviation from it."""
    count = wrap(_count(a, normalize_axes(axis, len(a.aval.shape))))
    total = masked_sum(a, axis, dtype, keepdims=True)
    deviation = a - total / count.astype(_quotient_dtype(total))
    squares = np.real(deviation * np.conj(deviation)) if a.dtype.kind == "c" else deviation * deviation
    total = masked_sum(squares, axis, dtype, keepdims=keepdims)
    lengths = list(total.lengths) if isinstance(total, MaskedArray) else []
    return masked_result(_divided(total, np.maximum(count - ddof, 0)).value, lengths)


def _std(a, axis=None, dtype=None, ddof=0, keepdims=False):
    return np.sqrt(_var(a, axis, dtype, ddof=ddof, keepdims=keepdims))


def _identity(ufunc, dtype):
    """What the padding is set to for `ufunc.reduce`: its identity, or the value that never wins a
    max or min."""
    if ufunc in (np.maximum, np.fmax, np.minimum, np.fmin):
        return extreme(dtype, -1 if ufunc in (np.maximum, np.fmax) else 1, nan=ufunc in (np.fmax, np.fmin))
    if ufunc.identity is None:
        raise UnsupportedError(f"np.{ufunc.__name__}.reduce on a slice whose bounds are traced: the ufunc has no "
                               "identity to stand for the elements past the slice")
    return ufunc.identity


def _ufunc_reduce(ufunc, a, axis=0, dtype=None, keepdims=False, initial=np._NoValue, where=True):
    if where is not True:
        raise UnsupportedError(f"np.{ufunc.__name__}.reduce with where= on a slice whose bounds are traced")
    data, _, parts = _reduction(a, axis, keepdims, _identity(ufunc, a.dtype))
    return masked_result(ufunc.reduce(data, axis=axis, dtype=dtype, keepdims=keepdims, initial=initial).value, *parts)


def _nan_filled(a, filler):
    """`a` with its NaNs (of the valid part) replaced by `filler`, as the nan- reductions read it."""
    return np.where(np.isnan(a), filler, a) if a.dtype.kind in "fc" else a


def _nan_extremum(ufunc):
    def apply(a, axis=None, keepdims=False, initial=np._NoValue):
        return _ufunc_reduce(ufunc, a, axis, keepdims=keepdims, initial=initial)
    return apply


def _nanmean(a, axis=None, dtype=None, keepdims=False):
    if a.dtype.kind not in "fc":
        return _mean(a, axis, dtype, keepdims)
    total = masked_sum(_nan_filled(a, 0), axis, dtype, keepdims)
    count = masked_sum(np.logical_not(np.isnan(a)), axis, np.int64, keepdims)
    return np.true_divide(total, count, dtype=total.dtype)


def _nanvar(a, axis=None, dtype=None, ddof=0, keepdims=False):
    """NumPy's two passes over the valid numbers: their mean, then their mean squared deviation from
    it; NaN where there are not more than `ddof` of them."""
    if a.dtype.kind not in "fc":
        return _var(a, axis, dtype, ddof, keepdims)
    deviation = _nan_filled(a - _nanmean(a, axis, dtype, keepdims=True), 0)
    squares = np.real(deviation * np.conj(deviation)) if a.dtype.kind == "c" else deviation * deviation
    total = masked_sum(squares, axis, dtype, keepdims=keepdims)
    dof = masked_sum(np.logical_not(np.isnan(a)), axis, np.int64, keepdims) - ddof
    return np.where(dof > 0, np.true_divide(total, dof, dtype=total.dtype), np.nan)


def _nan_arg_extremum(numpy_function, sign):
    """nanargmax (sign -1) or nanargmin: the NaNs set to the extreme that never wins, as NumPy's (an
    all-NaN part gives a position where NumPy raises)."""
    arg = _arg_extremum(numpy_function, sign)
    return lambda a, axis=None, out=None, *, keepdims=False: arg(_nan_filled(a, sign * np.inf), axis,
                                                                    keepdims=keepdims)


def _ptp(a, axis=None, keepdims=False):
    return np.subtract(_extremum(np.max, -1)(a, axis, keepdims), _extremum(np.min, 1)(a, axis, keepdims))


def _average(a, axis=None, weights=None, returned=False, *, keepdims=False):
    if returned:
        raise UnsupportedError(f"np.average with returned=True of {a.noun}")
    if weights is None:
        return _mean(a, axis, keepdims=keepdims)
    if tuple(extent(weights, i) for i in range(ndim_of(weights))) != a.aval.shape:
        raise UnsupportedError("np.average of a slice whose bounds are traced with weights of another shape")
    dtype = np.result_type(a.dtype, weights.dtype, *(["f8"] if a.dtype.kind in "biu" else []))
    total = masked_sum(np.multiply(a, weights, dtype=dtype), axis, keepdims=keepdims)
    return np.true_divide(total, masked_sum(weights, axis, dtype, keepdims=keepdims))


def _norm(x, ord=None, axis=None, keepdims=False):
    """Vector norms of every order, as NumPy computes them (matrix norms are not covered)."""
    if (axis is None and len(x.aval.shape) != 1) or isinstance(axis, tuple) and len(axis) != 1:
        raise UnsupportedError("np.linalg.norm of a matrix whose lengths depend on traced values")
    if isinstance(ord, str):
        raise ValueError(f"Invalid norm order '{ord}' for vectors")
    if x.dtype.kind in "biu":
        x = np.multiply(x, 1.0)
    size = np.abs(x)
    if ord is None or ord == 2:
        if axis is None and not keepdims and x.dtype.kind == "f":
            return np.sqrt(_dot(x, x))
        squares = np.real(np.multiply(x, np.conjugate(x))) if x.dtype.kind == "c" else np.multiply(x, x)
        return np.sqrt(masked_sum(squares, axis, keepdims=keepdims))
    if ord in (np.inf, -np.inf):
        return _extremum(np.max, -1)(size, axis, keepdims) if ord > 0 else _extremum(np.min, 1)(size, axis, keepdims)
    if ord == 0:
        return masked_sum(np.not_equal(x, 0), axis, size.dtype, keepdims)
    if ord == 1:
        return masked_sum(size, axis, keepdims=keepdims)
    return np.power(masked_sum(np.power(size, ord), axis, keepdims=keepdims), 1.0 / ord)


def _part(numpy_function):
    """np.real and np.imag: views of a complex array's parts, as NumPy's (`read_only_view`); np.real
    of a real array is that array."""
    def apply(val):
        if val.dtype.kind != "c":
            return val if numpy_function is np.real else _elementwise(numpy_function)(val)
        return read_only_view(val, lambda v: numpy_function(wrap(v, scalar=False)).value, val.lengths,
                              f"np.{numpy_function.__name__}")
    return apply


def _nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    if not copy:
        raise UnsupportedError("np.nan_to_num(copy=False) of an array whose length depends on traced values (it "
                               "writes into that array): assign the copy back (x[:k] = np.nan_to_num(x[:k]))")
    return _elementwise(np.nan_to_num)(x, nan=nan, posinf=posinf, neginf=neginf)


def _allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    return python_bool(np.all(_elementwise(np.isclose, 2)(a, b, rtol, atol, equal_nan)))


# -- elementwise: the operands lined up, valid where they are --------------------------------------

def _where(condition, x=np._NoValue, y=np._NoValue):
    if x is np._NoValue and y is np._NoValue:
        return np.nonzero(condition)  # (NumPy's one-argument form)
    if x is np._NoValue or y is np._NoValue:
        raise ValueError("either both or neither of x and y should be given")
    plain, lengths, starts, keys, _ = broadcast_lined_up([condition, x, y], max(ndim_of(v) for v in (condition, x, y)))
    return masked_result(np.where(*plain).value, lengths, starts, keys)


def _copy(a, order="K", subok=False):
    data, starts, keys = a.aligned(False)
    return make(a.value, a.lengths, data, starts, keys)


def _clip(a, a_min=np._NoValue, a_max=np._NoValue, *, min=np._NoValue, max=np._NoValue):
    return clipped(a, a_min, a_max, min, max, _copy)


def _full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None):
    """np.full_like & co. of a slice of traced length: `fill_value` where it is valid (of `shape`
    given, a plain array)."""
    dtype = np.dtype(dtype if dtype is not None else a.dtype)
    if shape is not None:
        return np.full(shape, fill_value, dtype)
    return elementwise(lambda x: wrap(full(fill_value, x.shape, dtype), scalar=False), [a], {})


def _elementwise(numpy_function, arrays=1):
    """np.round, np.isclose and their kin: the first `arrays` arguments lined up as a ufunc's
    operands, the others passed on."""
    def apply(*args, **kwargs):
        return elementwise(lambda *xs: numpy_function(*xs, *args[arrays:], **kwargs), list(args[:arrays]), {})
    return apply


# -- products: the padding is zero, so it adds nothing to a sum ------------------------------------

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


def _contraction(numpy_function, pairs, kept):
    """A product of `a` and `b` summed over axes `pairs(a, b, *args)` ((a's, b's) axis lists): on the
    data zero past the valid part; the result is valid on the valid parts of the axes it keeps
    (`kept(a's lengths, b's lengths, *args)`)."""
    def apply(a, b, *args, **kwargs):
        args = (*args, *kwargs.values())  # (np.tensordot's axes=, its one keyword)
        la, lb = lengths_of(a, ndim_of(a)), lengths_of(b, ndim_of(b))
        pa, pb = plain_value(a), plain_value(b)
        for i, j in zip(*pairs(a, b, *args)):
            if (la[i] is None) != (lb[j] is None) and (extent(a, i) if la[i] is None else extent(b, j)) != 1:
                raise UnsupportedError(
                    f"np.{numpy_function.__name__} summing an axis whose length depends on traced values with one "
                    "of full length: NumPy pairs them only when the lengths are equal; slice both the same way")
            if la[i] is not None and lb[j] is not None:  # (the bases' extents may differ there)
                pa, pb = (wrap(v, scalar=False) for v in one_extent([value(pa), value(pb)], [i, j]))
        return masked_result(numpy_function(pa, pb, *args).value, kept(la, lb, *args))
    return apply


def extent(x, axis):
    """The full extent of an operand's axis (a masked array's too: `np.shape` dispatches on it)."""
    return (x.aval.shape if isinstance(x, TracedArray) else np.shape(x))[axis]


def valid_length(x, axis):
    """An operand's valid length along `axis`, traced or not, as a value."""
    length = lengths_of(x, ndim_of(x))[axis]
    return length if length is not None else full(extent(x, axis), (), _I64)


def _last_axes(a, b):
    return [ndim_of(a) - 1], [ndim_of(b) - 1]


def _vdot_axes(a, b):
    if ndim_of(a) != 1 or ndim_of(b) != 1:
        raise UnsupportedError("np.vdot of slices whose bounds are traced that are not 1-d")
    return [0], [0]


def _tensordot_pairs(a, b, axes=2):
    return tensordot_axes(axes, ndim_of(a), ndim_of(b))


def _tensordot_kept(la, lb, axes=2):
    summed_a, summed_b = tensordot_axes(axes, len(la), len(lb))
    return [x for i, x in enumerate(la) if i not in summed_a] + [x for j, x in enumerate(lb) if j not in summed_b]


def _einsum(subscripts, *operands, **kwargs):
    """np.einsum in explicit or implicit form (no ellipsis): the padding is zero, so sums and
    diagonals over it add nothing; an output letter is valid as far as the axes it names are."""
    if not isinstance(subscripts, str) or "." in subscripts:
        raise UnsupportedError("np.einsum of slices whose bounds are traced takes letters only (no ellipsis)")
    inputs, arrow, output = subscripts.replace(" ", "").partition("->")
    letters = {}
    for term, x in zip(inputs.split(","), operands):
        for letter, length in zip(term, lengths_of(x, ndim_of(x))):
            if (letters.setdefault(letter, length) is None) != (length is None):
                raise UnsupportedError(f"np.einsum pairing axis '{letter}' of a length that depends on traced values "
                                       "with one of full length: NumPy pairs them only when the lengths are equal")
    if not arrow:
        output = "".join(sorted(c for c in letters if inputs.count(c) == 1))
    plain = [plain_value(x) for x in operands]
    for letter, length in letters.items():  # (axes of traced length of bases of different extents)
        places = [(k, p) for k, term in enumerate(inputs.split(",")) for p, c in enumerate(term) if c == letter]
        extent = min(shape_of(value(plain[k]))[p] for k, p in places) if length is not None else None
        for k, p in places if extent is not None else ():
            plain[k] = wrap(resized(value(plain[k]), p, extent), scalar=False)
    v = np.einsum(subscripts, *plain, **kwargs).value
    return masked_result(v, [letters[c] for c in output])


def _convolve(a, v, mode="full"):
    """The full convolution of the zero-padded data: the padding adds nothing, so its first
    len(a) + len(v) - 1 elements are NumPy's."""
    if mode != "full" or ndim_of(a) != 1 or ndim_of(v) != 1:
        raise UnsupportedError("np.convolve of slices whose bounds are traced: 1-d, mode='full' only")
    total = ew.binary("subtract", valid_length(a, 0), full(1, (), _I64))
    total = ew.binary("maximum", ew.binary("add", total, valid_length(v, 0)), full(0, (), _I64))
    return masked_result(np.convolve(plain_value(a), plain_value(v)).value, [total])


# -- joins: each piece written where the valid ones before it end ----------------------------------

def _same_length(a, b) -> bool:
    """Whether two valid lengths are one (both static, or one traced value computed alike)."""
    return a is b or (a is not None and b is not None and same_value(a, b))


def _concatenate(arrays, axis=0, dtype=None, casting="same_kind"):
    """The pieces along `axis` one after the other: each written (padding and all) where the valid
    parts before it end, so that the next one writes over its padding; valid up to the sum of the
    lengths. The other axes must be cut alike."""
    arrays = list(arrays)
    if axis is None or not arrays or any(ndim_of(x) != ndim_of(arrays[0]) for x in arrays):
        raise UnsupportedError("np.concatenate of slices whose bounds are traced takes arrays of one rank and an axis")
    ndim = ndim_of(arrays[0])
    axis = normalize_axis(axis, ndim)
    lengths = [lengths_of(x, ndim) for x in arrays]
    for d in range(ndim):
        if d != axis and not all(_same_length(l[d], lengths[0][d]) for l in lengths):
            raise UnsupportedError("np.concatenate of arrays cut to traced lengths differently along another axis "
                                   "than the one joined: NumPy pairs them only when the lengths are equal")
    dtypes = [x.dtype if isinstance(x, TracedArray) else np.asarray(x).dtype for x in arrays]
    dtype = np.result_type(*dtypes) if dtype is None else np.dtype(dtype)
    values = [value(plain_value(x), dtype) for x in arrays]
    shape = list(shape_of(values[0]))
    shape[axis] = sum(shape_of(v)[axis] for v in values)
    zero = full(0, (), _I64)
    result, end = full(0, shape, dtype), zero
    for x, v in zip(arrays, values):
        result = ops.dynamic_update_slice(result, v, [end if d == axis else zero for d in range(ndim)])
        end = ew.binary("add", end, valid_length(x, axis))
    return masked_result(result, [end if d == axis else lengths[0][d] for d in range(ndim)])


def _stack(arrays, axis=0, dtype=None, casting="same_kind"):
    """Arrays of one shape and one cut, along a new axis (of full length)."""
    arrays = list(arrays)
    lengths = [lengths_of(x, ndim_of(x)) for x in arrays]
    if any(len(l) != len(lengths[0]) or not all(map(_same_length, l, lengths[0])) for l in lengths):
        raise UnsupportedError("np.stack of arrays cut to traced lengths differently: NumPy stacks them only when "
                               "the lengths are equal")
    axis = normalize_axis(axis, len(lengths[0]) + 1)
    v = np.stack([plain_value(x) for x in arrays], axis, dtype=dtype, casting=casting).value
    return masked_result(v, lengths[0][:axis] + [None] + lengths[0][axis:])


def _hstack(arrays, dtype=None, casting="same_kind"):
    arrays = list(arrays)
    return _concatenate(arrays, 0 if ndim_of(arrays[0]) == 1 else 1, dtype, casting)


def _vstack(arrays, dtype=None, casting="same_kind"):
    arrays = list(arrays)
    return _stack(arrays, 0, dtype, casting) if ndim_of(arrays[0]) == 1 else _concatenate(arrays, 0, dtype, casting)


def _append(arr, values, axis=None):
    if axis is None and (ndim_of(arr) > 1 or ndim_of(values) > 1):
        raise UnsupportedError("np.append without axis= of an array whose lengths depend on traced values and is "
                               "not 1-d")
    return _concatenate([arr, values if ndim_of(values) else np.reshape(values, (1,))], 0 if axis is None else axis)


# -- axes moved: each length moves with its axis ---------------------------------------------------

def _moved(numpy_function, order):
    """np.transpose and its kin, views as in NumPy (`read_only_view`): the data's axes moved, each
    length with its axis (`order(ndim, *arguments)`: for each result axis, the argument's axis it was,
    or None for a new one)."""
    def apply(a, *args, **kwargs):
        axes = order(len(a.aval.shape), *args, **kwargs)
        lengths = [None if axis is None else a.lengths[axis] for axis in axes]
        shape = [1 if axis is None else a.aval.shape[axis] for axis in axes]

        def read(v):  # (ops alone: a returned view is read again after the trace)
            return ops.reshape(ops.transpose(v, [axis for axis in axes if axis is not None]), shape)
        return read_only_view(a, read, lengths, f"np.{numpy_function.__name__}")
    return apply


def _flat(a, shape=-1, order="C", *, newshape=None, copy=None):
    """np.ravel, np.reshape(a, -1): of a 1-d array, a view of it as it is (as `_moved` makes them)."""
    shape = shape if newshape is None else newshape
    if len(a.aval.shape) != 1 or tuple(np.ravel(shape)) != (-1,):
        raise UnsupportedError(f"np.ravel or np.reshape of {a.noun} other than a 1-d one to 1-d (its shape would "
                               "depend on the data)")
    return _moved(np.ravel, lambda ndim: [0])(a)


def _take(a, indices, axis=None, out=None, mode="raise"):
    """np.take of a 1-d array by an integer index array: `masked_keys.taken`."""
    found = masked_keys.taken(a, indices) if axis in (None, 0, -1) and out is None else None
    if found is None:
        raise UnsupportedError(f"np.take of {a.noun} other than of a 1-d one by an integer index array")
    return found


def _axes(axis, ndim):
    """`axis` (an int or a sequence of them) as non-negative axes, in the order given."""
    return [normalize_axis(a, ndim) for a in (axis if isinstance(axis, (tuple, list)) else (axis,))]


def _transposed(ndim, axes=None):
    return list(reversed(range(ndim))) if axes is None else _axes(axes, ndim)


def _swapped(ndim, axis1, axis2):
    order = list(range(ndim))
    (axis1,), (axis2,) = _axes(axis1, ndim), _axes(axis2, ndim)
    order[axis1], order[axis2] = axis2, axis1
    return order


def _moved_axes(ndim, source, destination):
    source, destination = _axes(source, ndim), _axes(destination, ndim)
    order = [axis for axis in range(ndim) if axis not in source]
    for to, axis in sorted(zip(destination, source)):
        order.insert(to, axis)
    return order


def _expanded(ndim, axis):
    new = _axes(axis, ndim + (len(axis) if isinstance(axis, (tuple, list)) else 1))
    kept = iter(range(ndim))
    return [None if d in new else next(kept) for d in range(ndim + len(new))]


# -- linear algebra: the padding made the identity ------------------------------------------------------

def _block_diagonal(a, name):
    """A square matrix whose valid block is cut to one traced length, with the identity outside
    that block: its inverse, factor, solutions and determinant are the valid block's beside the
    identity's."""
    lengths = list(a.lengths) if isinstance(a, MaskedArray) else []
    if len(lengths) != 2 or lengths[0] is None or not _same_length(lengths[0], lengths[1]):
        raise UnsupportedError(f"np.linalg.{name} of a matrix whose lengths depend on traced values: only a "
                               "square one cut alike along both axes (A[:k, :k])")
    shape = shape_of(a.value)
    diagonal = ew.convert(ew.compare("EQ", iota(shape, _I64, 0), iota(shape, _I64, 1)), a.dtype)
    return wrap(ew.select(mask(shape, lengths), a.value, diagonal), scalar=False), lengths


def _linalg(numpy_function, masked=True):
    """inv, cholesky (masked: cut as the matrix is) and det, slogdet (not) of the block-diagonal matrix."""
    def apply(a, *args, **kwargs):
        block, lengths = _block_diagonal(a, numpy_function.__name__)
        result = numpy_function(block, *args, **kwargs)
        return masked_result(result.value, lengths) if masked else result
    return apply


def _solve(a, b):
    """np.linalg.solve with the identity outside the valid block: the solution is zero where `b`'s
    padding is, and `b` must be cut as `a` is."""
    block, lengths = _block_diagonal(a, "solve")
    own = lengths_of(b, ndim_of(b))
    if ndim_of(b) not in (1, 2) or not _same_length(own[0], lengths[0]) or any(l is not None for l in own[1:]):
        raise UnsupportedError("np.linalg.solve of a matrix cut to a traced length with a right-hand side not cut "
                               "alike (b[:k]): NumPy pairs them only when the lengths are equal")
    return masked_result(np.linalg.solve(block, plain_value(b)).value, own)



FUNCTIONS.update({
    np.sum: masked_sum, np.mean: _mean, np.max: _extremum(np.max, -1), np.amax: _extremum(np.max, -1),
    np.min: _extremum(np.min, 1), np.amin: _extremum(np.min, 1), np.prod: _filled_reduction(np.prod, 1),
    np.any: _filled_reduction(np.any, 0), np.all: _filled_reduction(np.all, 1),
    np.count_nonzero: _filled_reduction(np.count_nonzero, 0), np.var: _var, np.std: _std,
    np.argmax: _arg_extremum(np.argmax, -1), np.argmin: _arg_extremum(np.argmin, 1),
    np.nansum: lambda a, axis=None, dtype=None, keepdims=False: masked_sum(_nan_filled(a, 0), axis, dtype, keepdims),
    np.nanprod: lambda a, axis=None, dtype=None, keepdims=False: _filled_reduction(np.prod, 1)(
        _nan_filled(a, 1), axis, dtype, keepdims=keepdims),
    np.nanmax: _nan_extremum(np.fmax), np.nanmin: _nan_extremum(np.fmin), np.nanmean: _nanmean, np.ptp: _ptp,
    np.nanvar: _nanvar, np.nanstd: lambda *args, **kwargs: np.sqrt(_nanvar(*args, **kwargs)),
    np.nanargmax: _nan_arg_extremum(np.argmax, -1), np.nanargmin: _nan_arg_extremum(np.argmin, 1),
    np.average: _average, np.linalg.norm: _norm, np.allclose: _allclose,
    np.zeros_like: lambda a, *args, **kwargs: _full_like(a, 0, *args, **kwargs), np.full_like: _full_like,
    np.ones_like: lambda a, *args, **kwargs: _full_like(a, 1, *args, **kwargs),
    np.empty_like: lambda a, *args, **kwargs: _full_like(a, 0, *args, **kwargs),
    np.where: _where, np.copy: _copy, np.clip: _clip, np.isclose: _elementwise(np.isclose, 2),
    **{f: _elementwise(f) for f in (np.round, np.around, np.angle, np.fix, np.sinc, np.i0, np.isreal, np.iscomplex,
                                    np.isposinf, np.isneginf)},
    np.real: _part(np.real), np.imag: _part(np.imag), np.nan_to_num: _nan_to_num,
    np.dot: _dot, np.outer: _outer, np.inner: _contraction(np.inner, _last_axes, lambda la, lb: la[:-1] + lb[:-1]),
    np.vdot: _contraction(np.vdot, _vdot_axes, lambda la, lb: []),
    np.tensordot: _contraction(np.tensordot, _tensordot_pairs, _tensordot_kept), np.einsum: _einsum,
    np.convolve: _convolve,
    np.concatenate: _concatenate, np.stack: _stack, np.hstack: _hstack, np.vstack: _vstack, np.append: _append,
    np.transpose: _moved(np.transpose, _transposed), np.swapaxes: _moved(np.swapaxes, _swapped),
    np.moveaxis: _moved(np.moveaxis, _moved_axes), np.expand_dims: _moved(np.expand_dims, _expanded),
    np.ravel: lambda a, order="C": _flat(a), np.reshape: _flat, np.take: _take,
    np.linalg.inv: _linalg(np.linalg.inv), np.linalg.cholesky: _linalg(np.linalg.cholesky),
    np.linalg.det: _linalg(np.linalg.det, False), np.linalg.slogdet: _linalg(np.linalg.slogdet, False),
    np.linalg.solve: _solve,
    np.ndim: lambda a: len(a.aval.shape),
})
UFUNC_METHODS["reduce"] = _ufunc_reduce
