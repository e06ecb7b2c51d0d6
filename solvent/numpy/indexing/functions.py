"""Index functions: take, take_along_axis, put, put_along_axis, place, ix_, unravel_index,
ravel_multi_index, the *_indices helpers, every ufunc's `.at`, and clear errors for the
functions whose result shape depends on the data (nonzero, argwhere, unique, ...).

Indices known while tracing are checked as NumPy checks them (IndexError); traced
indices cannot raise inside a compiled program, so mode='raise' clamps them into
bounds, as XLA's gather does.
"""

from __future__ import annotations

import numpy as np

from solvent.core.traced import TracedArray, TracedScalar
from solvent.errors import UnsupportedError
from solvent.numpy.elementwise import ufuncs
from solvent.numpy.folding import static
from solvent.numpy.indexing import packed
from solvent.numpy.indexing.advanced import STATIC_SHAPES, parse_fancy, read_fancy, write_fancy
from solvent.numpy.indexing.key import is_advanced
from solvent.numpy.indexing.basic import parse, read, write
from solvent.numpy.indexing.masks import broadcast_selected, parse_masked, read_selected, write_selected
from solvent.numpy.registry import implements
from solvent.numpy.shape import view
from solvent.numpy.values import (broadcast_value, full, is_traced, normalize_axis, result_type, strong, value,
                                  warn_discarding_imaginary, wrap, write_out)
from solvent.ops import elementwise as ew, shape as ops
from solvent.ops.base import shape_of
from solvent.ops.constant import constant
from solvent.ops.gather import gather


def flat_view(array):
    """A 1-d view of a traced array in C order, whatever its layout (writes land in `array`): `a.flat`,
    and what np.put & co. write through."""
    shape, size = array.shape, array.size
    return view(array, (size,), lambda v: ops.reshape(v, (size,)), lambda parent, new: ops.reshape(new, shape))


def _operand(x):
    """A traced array as it is; anything else (lists, closure constants) as a host array."""
    return x if is_traced(x) else np.asarray(x)


def _traced_target(name: str, array) -> None:
    if not is_traced(array):
        raise UnsupportedError(f"np.{name} into an array that solvent does not trace; pass it as an argument "
                               f"or make it with np.zeros inside the function")


def _integers(indices, what: str = "indices", kinds: str = "iub"):
    """Index operands as integers (booleans count as 0 and 1 where NumPy casts them safely)."""
    indices = _operand(indices)
    if indices.dtype.kind not in kinds and not (indices.size == 0 and not is_traced(indices)):
        raise TypeError(f"{what} must be an integer array, not {indices.dtype}")
    if is_traced(indices):
        return wrap(value(indices, np.int64), scalar=False) if indices.dtype == np.bool_ else indices
    return indices.astype(np.int64)


def _moded(indices, n: int, mode: str):
    """Indices under take/put's `mode`: 'wrap' modulo n, 'clip' clamped, 'raise' unchanged."""
    if mode not in ("raise", "wrap", "clip"):
        raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got {mode!r})")
    if n == 0 and indices.size:
        raise IndexError("cannot do a non-empty take from an empty axes.")
    if mode == "wrap":
        return np.mod(indices, n)
    if mode == "clip":
        return np.minimum(np.maximum(indices, 0), n - 1)
    return indices


# -- take and put ------------------------------------------------------------------------------

@implements(np.take)
def take(a, indices, axis=None, out=None, mode="raise"):
    """`np.take`: a gather along one axis (of the flattened array when axis is None)."""
    v = value(a)
    if axis is None:
        v, axis = ops.reshape(v, (int(np.prod(shape_of(v), dtype=np.int64)),)), 0
    axis = normalize_axis(axis, len(shape_of(v)))
    indices = _moded(_integers(indices), shape_of(v)[axis], mode)
    result = wrap(read_fancy(v, parse_fancy((slice(None),) * axis + (indices,), shape_of(v))))
    return write_out(out, result, "unsafe") if out is not None else result  # (NumPy casts into out unsafely)


@implements(np.put)
def put(a, ind, v, mode="raise"):
    """`np.put`: flat positions get `v`, repeated as needed; the last of repeated positions wins."""
    _traced_target("put", a)
    ind = _integers(ind)
    count = ind.size
    ind = ind.reshape(count) if not is_traced(ind) else wrap(ops.reshape(ind.value, (count,)), scalar=False)
    values = _flat_values(v, a.dtype)
    if count == 0 or shape_of(values)[0] == 0:
        return
    values = _cycled(values, count)
    flat = flat_view(a)
    f = parse_fancy((_moded(ind, a.size, mode),), flat.shape)
    flat.assign(write_fancy(flat.value, f, values))


def _flat_values(values, dtype, safe: bool = False):
    """`values` as a 1-d value of `dtype` (put's, place's and putmask's operand); with `safe`, an
    array (not a list, a number or a NumPy scalar) must cast safely, as place's and putmask's must."""
    if safe and isinstance(values, (np.ndarray, TracedArray)) and not isinstance(values, TracedScalar) and \
            not np.can_cast(values.dtype, dtype, "safe"):
        raise TypeError(f"Cannot cast array data from {values.dtype!r} to {np.dtype(dtype)!r} according to the "
                        "rule 'safe'")
    if _python_values(values):
        values = np.array(values, dtype)  # (NumPy's errors: 300 into uint8, NaN into an int)
    warn_discarding_imaginary(result_type(values), dtype)
    v = value(values, dtype)
    return ops.reshape(v, (int(np.prod(shape_of(v), dtype=np.int64)),))


def _python_values(values) -> bool:
    """Python numbers, or lists of them: NumPy converts them to the array's dtype, with its errors."""
    if isinstance(values, (list, tuple)):
        return all(_python_values(v) for v in values)
    return type(values) in (bool, int, float, complex)


def _cycled(values, count: int):
    """The first `count` elements of `values` repeated (np.put's and np.place's rule)."""
    n = shape_of(values)[0]
    if n == count:
        return values
    return gather(values, constant((np.arange(count) % n)[:, None]), [0])


def _along_axis_key(shape, indices, axis):
    """NumPy's index for *_along_axis: `indices` on `axis`, an arange broadcast along every other dimension."""
    if indices.ndim != len(shape):
        raise ValueError("`indices` and `arr` must have the same number of dimensions")
    return tuple(indices if d == axis else np.arange(n).reshape([n if e == d else 1 for e in range(len(shape))])
                 for d, n in enumerate(shape))


@implements(np.take_along_axis)
def take_along_axis(arr, indices, axis=-1):
    v = value(arr)
    indices = _integers(indices, "`indices`", kinds="iu")
    if axis is None:
        v, axis = ops.reshape(v, (int(np.prod(shape_of(v), dtype=np.int64)),)), 0
    axis = normalize_axis(axis, len(shape_of(v)))
    key = _along_axis_key(shape_of(v), indices, axis)
    return wrap(read_fancy(v, parse_fancy(key, shape_of(v))), scalar=False)


@implements(np.put_along_axis)
def put_along_axis(arr, indices, values, axis):
    _traced_target("put_along_axis", arr)
    target = flat_view(arr) if axis is None else arr
    indices = _integers(indices, "`indices`", kinds="iu")
    key = _along_axis_key(target.shape, indices, normalize_axis(0 if axis is None else axis, target.ndim))
    f = parse_fancy(key, target.shape)
    target.assign(write_fancy(target.value, f, broadcast_value(value(values, arr.dtype), f.result_shape)))


@implements(np.place)
def place(arr, mask, vals):
    """`np.place`: True positions take `vals` in order, repeated; a traced mask allows one value only."""
    _traced_target("place", arr)
    flat = flat_view(arr)
    vals, mask = _flat_values(vals, arr.dtype, safe=True), static(mask)
    if is_traced(mask):
        if shape_of(vals)[0] != 1:
            raise UnsupportedError(f"np.place with a traced mask and several values: which value lands where "
                                   f"depends on the count of True elements, and {STATIC_SHAPES}; use "
                                   f"np.where(mask, value, arr) with one value")
        hit = ops.reshape(value(mask, np.bool_), flat.shape)
        flat.assign(ew.select(hit, broadcast_value(ops.reshape(vals, ()), flat.shape), flat.value))
        return
    positions = np.flatnonzero(np.asarray(mask))
    if positions.size and shape_of(vals)[0] == 0:
        raise ValueError("Cannot insert from an empty array!")
    if positions.size:
        flat.assign(write_fancy(flat.value, parse_fancy((positions,), flat.shape), _cycled(vals, positions.size)))


@implements(np.putmask)
def putmask(a, mask, values):
    """`np.putmask`: where `mask` holds, `a` takes `values` repeated over its flat positions (static shapes)."""
    _traced_target("putmask", a)
    flat = flat_view(a)
    values = _flat_values(values, a.dtype, safe=True)
    if a.size == 0 or shape_of(values)[0] == 0:  # (NumPy writes nothing for no values)
        return
    hit = broadcast_value(value(mask, np.bool_), a.shape)
    flat.assign(ew.select(ops.reshape(hit, flat.shape), _cycled(values, a.size), flat.value))


@implements(np.fill_diagonal)
def fill_diagonal(a, val, wrap=False):
    """`np.fill_diagonal`: NumPy's strided flat positions (static), written with np.put's repeating rule."""
    if a.ndim < 2:
        raise ValueError("array must be at least 2-d")
    if a.ndim == 2:
        step, end = a.shape[1] + 1, None if wrap else a.shape[1] * a.shape[1]
    elif len(set(a.shape)) != 1:
        raise ValueError("All dimensions of input must be of equal length")
    else:
        step, end = 1 + int(np.cumprod(a.shape[:-1]).sum()), None
    put(a, np.arange(a.size)[:end:step], val)


# -- index arrays --------------------------------------------------------------------------------

@implements(np.ix_)
def ix_(*args):
    """`np.ix_`: each 1-d sequence reshaped to broadcast along its own dimension."""
    result = []
    for k, x in enumerate(args):
        x = _operand(x)
        if x.ndim != 1:
            raise ValueError("Cross index must be 1 dimensional")
        if x.dtype == np.bool_:
            if is_traced(x):
                raise UnsupportedError(f"np.ix_ of a traced boolean array (its nonzero indices): {STATIC_SHAPES}")
            x = np.nonzero(x)[0]
        shape = (1,) * k + (x.size,) + (1,) * (len(args) - k - 1)
        x = x.astype(np.intp) if not is_traced(x) and x.size == 0 else x
        result.append(wrap(ops.reshape(x.value, shape), scalar=False) if is_traced(x) else x.reshape(shape))
    return tuple(result)


@implements(np.unravel_index)
def unravel_index(indices, shape, order="C"):
    """Coordinates of flat indices: repeated floor division (traced indices are not range-checked)."""
    indices = _integers(indices, kinds="iu")
    dims = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    if order not in ("C", "F"):
        raise ValueError("only 'C' or 'F' order is permitted")
    remaining = wrap(value(indices, np.int64)) if is_traced(indices) else indices
    coordinates = []
    for n in reversed(dims) if order == "C" else dims:
        coordinates.append(np.remainder(remaining, n))
        remaining = np.floor_divide(remaining, n)
    return tuple(reversed(coordinates) if order == "C" else coordinates)


@implements(np.ravel_multi_index)
def ravel_multi_index(multi_index, dims, mode="raise", order="C"):
    """Flat indices of coordinates; traced coordinates with mode='raise' are clamped into bounds."""
    dims = tuple(dims)
    if len(multi_index) != len(dims):
        raise ValueError(f"parameter multi_index must be a sequence of length {len(dims)}")
    modes = (mode,) * len(dims) if isinstance(mode, str) else tuple(mode)
    strides = [int(np.prod(dims[i + 1:] if order == "C" else dims[:i], dtype=np.int64)) for i in range(len(dims))]
    total = 0
    for index, n, m, stride in zip(multi_index, dims, modes, strides):
        index = _integers(index, "multi_index", kinds="iu")
        known = static(index)
        if m == "raise" and not is_traced(known) and ((known < 0) | (known >= n)).any():
            raise ValueError("invalid entry in coordinates array")
        index = wrap(value(index, np.int64)) if is_traced(index) else index
        total = total + _moded(index, n, "clip" if m == "raise" else m) * stride
    return total


@implements(np.diag_indices_from)
def diag_indices_from(arr):
    if np.ndim(arr) < 2:
        raise ValueError("input array must be at least 2-d")
    if len(set(np.shape(arr))) != 1:
        raise ValueError("All dimensions of input must be of equal length")
    return np.diag_indices(np.shape(arr)[0], np.ndim(arr))


@implements(np.tril_indices_from)
def tril_indices_from(arr, k=0):
    if np.ndim(arr) != 2:
        raise ValueError("input array must be 2-d")
    return np.tril_indices(np.shape(arr)[-2], k=k, m=np.shape(arr)[-1])


@implements(np.triu_indices_from)
def triu_indices_from(arr, k=0):
    if np.ndim(arr) != 2:
        raise ValueError("input array must be 2-d")
    return np.triu_indices(np.shape(arr)[-2], k=k, m=np.shape(arr)[-1])


# Called with Python integers these never reach solvent: NumPy computes them while tracing
# (static index arrays). Registered so that the coverage table lists them.
for _static in (np.diag_indices, np.tril_indices, np.triu_indices):
    implements(_static)(_static)


# -- data-dependent shapes -----------------------------------------------------------------------

def _data_dependent(name: str, rewrite: str):
    raise UnsupportedError(f"np.{name} of a traced array has a data-dependent shape: {STATIC_SHAPES}; "
                           f"{rewrite}")


@implements(np.nonzero)
def nonzero(a):
    """One index array per dimension, as long as the count of nonzero entries (see `packed`)."""
    return packed.nonzero(a)


@implements(np.flatnonzero)
def flatnonzero(a):
    return packed.nonzero(np.ravel(a))[0]


@implements(np.argwhere)
def argwhere(a):
    if a.ndim == 0:
        raise UnsupportedError("np.argwhere of a traced 0-d value; write np.argwhere(np.atleast_1d(a))")
    return packed.coordinates(a)


@implements(np.unique)
def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *, equal_nan=True,
           sorted=True):
    """The sorted distinct values, as many as there are (see `packed`), one NaN where `equal_nan`;
    with `return_index` the index of each one's first occurrence, `return_inverse` each element's
    place among them (of `ar`'s shape), `return_counts` how often each occurs; along an `axis`,
    the same of its slices."""
    if axis is not None:
        return _unique_along(ar, normalize_axis(axis, np.ndim(ar)), return_index, return_inverse, return_counts)
    if not (return_index or return_inverse or return_counts):
        s, first = sorted_distinct(ar, equal_nan)
        return s if s.size == 0 else s[first]
    flat = np.ravel(ar)
    order = np.argsort(flat, kind="stable")  # stable: the first occurrence of a value sorts first
    s = flat[order]
    first = first_of_runs(s, equal_nan)
    values = s[first] if s.size else s
    result, run = [values], np.cumsum(first) - 1  # each sorted element's run
    if return_index:
        result.append(order[first] if s.size else np.zeros(0, np.intp))
    if return_inverse:
        inverse = np.zeros_like(flat, dtype=np.intp)
        inverse[order] = run
        result.append(np.reshape(inverse, np.shape(ar)))
    if return_counts:
        runs = np.bincount(run, minlength=s.size) if s.size else np.zeros(0, np.intp)
        result.append(packed.like(runs, values) if s.size else runs)  # zero past the last run
    return tuple(result)


def _unique_along(ar, axis, return_index, return_inverse, return_counts):
    """np.unique of the slices along `axis`, in NumPy's order (lexicographic, as the rows of its
    structured view sort; ties kept in their order, as its mergesort keeps them), one slice of each
    run of equal ones (a NaN equals nothing, as in NumPy's comparison of structured rows)."""
    n = np.shape(ar)[axis]
    width = int(np.prod(np.delete(np.shape(ar), axis)))
    if n == 0 or width == 0:  # no slices, or slices all empty and so all equal: the result is static
        values = np.take(ar, np.arange(min(n, 1)), axis=axis)
        extras = (np.zeros(min(n, 1), np.intp), np.zeros(n, np.intp), np.full(min(n, 1), n, np.intp))
    else:
        rows = np.reshape(np.moveaxis(ar, axis, 0), (n, width))
        order = np.lexsort(rows.T[::-1])
        s = rows[order]
        first = np.concatenate([np.ones(1, np.bool_), np.any(s[1:] != s[:-1], axis=1)])
        kept, run = order[first], np.cumsum(first) - 1
        inverse = np.zeros_like(order)
        inverse[order] = run
        values = np.take(ar, order, axis=axis)[(slice(None),) * axis + (first,)]
        extras = (kept, inverse, packed.like(np.bincount(run, minlength=n), kept))
    result = [values] + [extra for extra, flag in zip(extras, (return_index, return_inverse, return_counts)) if flag]
    return result[0] if len(result) == 1 else tuple(result)


_SET_RESULTS = np.lib._arraysetops_impl  # (NumPy's named tuples of the unique_* functions)


@implements(np.unique_all)
def unique_all(x):
    return _SET_RESULTS.UniqueAllResult(*unique(x, True, True, True, equal_nan=False))


@implements(np.unique_counts)
def unique_counts(x):
    return _SET_RESULTS.UniqueCountsResult(*unique(x, return_counts=True, equal_nan=False))


@implements(np.unique_inverse)
def unique_inverse(x):
    return _SET_RESULTS.UniqueInverseResult(*unique(x, return_inverse=True, equal_nan=False))


def sorted_distinct(ar, equal_nan=True):
    """(the sorted elements of `ar`, flattened; True at the first of each run of equal ones, NaNs
    one run where `equal_nan`): `np.unique` is the elements marked."""
    s = np.sort(np.ravel(ar))
    return s, first_of_runs(s, equal_nan)


def first_of_runs(s, equal_nan):
    """True at the first of each run of equal elements of the sorted `s` (NaNs one run where `equal_nan`)."""
    if s.size == 0:
        return np.zeros(0, np.bool_)
    first = np.concatenate([np.ones(1, np.bool_), s[1:] != s[:-1]])
    if equal_nan and s.dtype.kind in "fc":
        first = np.concatenate([np.ones(1, np.bool_), ~(np.isnan(s[1:]) & np.isnan(s[:-1])) & first[1:]])
    return first


@implements(np.extract)
def extract(condition, arr):
    """`np.extract`: the elements of `arr` where `condition` holds, flattened."""
    if is_traced(condition):
        if np.size(condition) != np.size(arr):
            _data_dependent("extract", "with a traced condition the condition and the array have one size")
        return wrap(value(arr), scalar=False).ravel()[np.ravel(condition) != 0]
    return take(arr, np.flatnonzero(np.asarray(condition)))


@implements(np.compress)
def compress(condition, a, axis=None, out=None):
    """`np.compress`: the slices of `a` along `axis` where the 1-d `condition` holds."""
    if is_traced(condition):
        return _compressed(condition, a, axis, out)
    condition = np.asarray(condition)
    if condition.ndim != 1:
        raise ValueError("condition must be a 1-d array")
    return take(a, np.nonzero(condition)[0], axis=axis, out=out)


# -- ufunc.at ------------------------------------------------------------------------------------

def ufunc_at(ufunc, array, indices, values=None):
    """`ufunc.at(a, indices, b)`: unbuffered in place, so every repeated index applies, each step
    computed in the ufunc's loop dtype (`b` keeps its own) and cast back to `a`'s dtype."""
    if not is_traced(array):
        raise UnsupportedError(f"np.{ufunc.__name__}.at on an array that solvent does not trace")
    if ufunc.nout != 1:
        raise ValueError(f"{ufunc.__name__}.at only supported for ufuncs with one output")
    if values is None and ufunc.nin == 2:
        raise ValueError("second operand needed for ufunc")
    if values is not None and ufunc.nin == 1:
        raise ValueError("second operand provided when ufunc is unary")
    body = ufuncs.TABLE[ufuncs.ALIASES.get(ufunc, ufunc)]
    values = None if values is None else strong(values)  # (NumPy's asarray: add.at(int8, i, 300) wraps, as int64)
    loop = ufuncs.loop_dtypes(ufunc, [array] + ([] if values is None else [values]))[0]

    def combine(old, new):
        operands = [ew.convert(old, loop[0])] + ([ew.convert(new, loop[1])] if values is not None else [])
        return ew.convert(body(*operands), array.dtype)
    new = full(0, (), array.dtype) if values is None else value(values, loop[1])
    update_at(array, indices, new, combine)


def update_at(array, key, new, combine) -> None:
    """`array[key] = combine(array[key], new)` with every repeated index applied in turn."""
    if not is_advanced(key):
        index = parse(key, array.shape)
        old = read(array.value, index)
        array.assign(write(array.value, index, combine(old, broadcast_value(new, index.result_shape))))
        return
    m = parse_masked(key, array.shape)
    if m is not None:
        selected = combine(read_selected(array.value, m), broadcast_selected(m, new))
        array.assign(write_selected(array.value, m, selected))
        return
    f = parse_fancy(key, array.shape)
    array.assign(write_fancy(array.value, f, broadcast_value(new, f.result_shape), combine))


ufuncs.METHODS["at"] = ufunc_at  # ufunc.at takes every index form indexing does (see ufuncs.METHODS)


def _compressed(condition, a, axis, out):
    """`np.compress` with a traced condition: a mask along `axis`, False past the condition's end."""
    if condition.ndim != 1 or out is not None:
        raise UnsupportedError("np.compress with a traced condition that is not 1-d, or with out=")
    a = wrap(value(a), scalar=False).ravel() if axis is None else wrap(value(a), scalar=False)
    axis = normalize_axis(0 if axis is None else axis, a.ndim)
    n = a.shape[axis]
    if condition.shape[0] > n:
        raise UnsupportedError(f"np.compress with a traced condition longer than axis {axis} ({n})")
    mask = np.concatenate([condition != 0, np.zeros(n - condition.shape[0], np.bool_)])
    return a[(slice(None),) * axis + (mask,)]
