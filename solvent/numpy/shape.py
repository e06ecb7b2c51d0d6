"""Shape manipulation: reshape, transpose, expand_dims, squeeze, concatenate, stack, broadcast_to.

Reshape, transpose, expand_dims and squeeze return views, as NumPy does for
contiguous arrays: writing through them changes the base array.
"""

from __future__ import annotations

import operator

import numpy as np

from solvent.core.aval import Aval
from solvent.core.traced import TracedArray
from solvent.errors import UnsupportedError
from solvent.numpy import folding, layout
from solvent.numpy.registry import implements
from solvent.numpy.values import (as_array, broadcast_value, check_cast, is_traced, normalize_axis, result_type,
                                  shape, value, wrap, write_out)
from solvent.ops import shape as ops
from solvent.ops.base import shape_of


def view(parent, new_shape, read, write, dtype=None, memory=None):
    """A traced view of `parent` (or a fresh array when `parent` is not traced), of byte strides
    `memory` in NumPy (None: not known; see `layout`)."""
    if not is_traced(parent):
        return wrap(read(value(parent)), scalar=False)
    dtype = parent.dtype if dtype is None else np.dtype(dtype)
    return TracedArray.view_of(parent, Aval(tuple(new_shape), dtype), read, write, memory)


def read_only(parent, new_shape, read):
    """NumPy's read-only view of `parent` (np.diagonal, np.broadcast_to): `read` of its current
    values; writing through it raises NumPy's error."""
    def write(p, new):
        raise ValueError("assignment destination is read-only")
    return view(parent, new_shape, read, write)


def _reshape_shape(old, new) -> tuple[int, ...]:
    """NumPy's reshape rule, with one -1 inferred."""
    new = [int(n) for n in (new if isinstance(new, (tuple, list)) else (new,))]
    size = int(np.prod(old, dtype=np.int64))
    if new.count(-1) == 1:
        known = int(np.prod([n for n in new if n != -1], dtype=np.int64))
        if known == 0 or size % known:
            raise ValueError(f"cannot reshape array of size {size} into shape {tuple(new)}")
        new[new.index(-1)] = size // known
    if int(np.prod(new, dtype=np.int64)) != size or any(n < 0 for n in new):
        raise ValueError(f"cannot reshape array of size {size} into shape {tuple(new)}")
    return tuple(new)


@implements(np.shape)
def array_shape(a):
    """`np.shape(a)`: static, known while tracing."""
    return shape(a)


@implements(np.ndim)
def ndim(a):
    return len(shape(a))


@implements(np.size)
def size(a, axis=None):
    if axis is None:
        return int(np.prod(shape(a), dtype=np.int64))
    return shape(a)[normalize_axis(axis, len(shape(a)))]


@implements(np.reshape)
def reshape(a, shape=None, order="C", *, newshape=None, copy=None):
    shape = newshape if shape is None else shape
    if order != "C":
        raise UnsupportedError(f"np.reshape with order={order!r}")
    old = tuple(a.shape) if hasattr(a, "shape") else np.shape(a)
    new = _reshape_shape(old, shape)
    if not is_traced(a) or copy:
        return wrap(ops.reshape(value(a), new), scalar=False)
    single = sum(n != 1 for n in old) <= 1  # at most one axis longer than 1: always a view
    strides = layout.strides_of(a) if single else layout.consulted(a)
    if strides is None:
        if single:
            return view(a, new, lambda v: ops.reshape(v, new), lambda p, v: ops.reshape(v, old))
        return undecided(a, new, "np.reshape")
    new_strides = layout.reshaped(old, strides, new, a.dtype.itemsize)
    if new_strides is None and copy is not False:  # NumPy copies: a new C-contiguous array
        return _c_ordered(wrap(ops.reshape(a.value, new), scalar=False))
    if new_strides is None:
        raise ValueError("cannot reshape without copying the array's data (copy=False)")
    return view(a, new, lambda v: ops.reshape(v, new), lambda p, v: ops.reshape(v, old), memory=new_strides)


@implements(np.ravel)
def ravel(a, order="C"):
    """`np.ravel`: a view where the array is C-contiguous, else a copy (NumPy's rule)."""
    if order != "C":
        raise UnsupportedError(f"np.ravel with order={order!r}")
    if not is_traced(a):
        return reshape(a, (-1,))
    strides = layout.consulted(a)
    if strides is None:
        return undecided(a, (a.size,), "np.ravel")
    if layout.contiguous(a.shape, strides, a.dtype.itemsize):
        return reshape(a, (-1,))
    return _c_ordered(wrap(ops.reshape(a.value, (a.size,)), scalar=False))


def _c_ordered(copy):
    """A copy NumPy makes in C order, whatever its operand's layout."""
    copy.memory = "C"
    return copy


def undecided(a, new, name: str):
    """`a` reshaped where NumPy's choice of a view or a copy depends on a layout solvent does not
    know: the values, read-only, until `a` changes; a write through it, or a read after `a` is
    written, raises (they would tell a view from a copy)."""
    root = a.root()
    version = root.version
    message = (f"{name} of an array whose memory layout solvent does not know (a result computed from "
               "arrays that are not C-contiguous): NumPy gives a view or a copy depending on it, and this "
               "program {}; make the choice explicit with x.copy()")

    def read(v):
        if root.version != version:
            raise UnsupportedError(message.format("reads it after the array changed"))
        return ops.reshape(v, new)

    def write(parent, v):
        raise UnsupportedError(message.format("writes through it"))
    return view(a, new, read, write)


@implements(np.transpose)
def transpose(a, axes=None):
    rank = len(shape(a))
    perm = list(range(rank))[::-1] if axes is None else [normalize_axis(x, rank) for x in axes]
    inverse = list(np.argsort(perm))
    new = [shape(a)[p] for p in perm]
    strides = layout.strides_of(a) if is_traced(a) else None
    memory = None if strides is None else tuple(strides[p] for p in perm)
    return view(a, new, lambda v: ops.transpose(v, perm), lambda p, v: ops.transpose(v, inverse), memory=memory)


@implements(np.swapaxes)
def swapaxes(a, axis1, axis2):
    perm = list(range(len(shape(a))))
    i, j = normalize_axis(axis1, len(perm)), normalize_axis(axis2, len(perm))
    perm[i], perm[j] = perm[j], perm[i]
    return transpose(a, perm)


@implements(np.moveaxis)
def moveaxis(a, source, destination):
    rank = len(shape(a))
    src = [normalize_axis(s, rank) for s in np.atleast_1d(source)]
    dst = [normalize_axis(d, rank) for d in np.atleast_1d(destination)]
    order = [n for n in range(rank) if n not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return transpose(a, order)


@implements(np.rollaxis)
def rollaxis(a, axis, start=0):
    """NumPy's older moveaxis: `axis` goes before position `start` (counted before the move)."""
    rank = len(shape(a))
    axis = normalize_axis(axis, rank)
    if not -rank <= start <= rank:
        raise np.exceptions.AxisError(f"'start' arg requires {-rank} <= start < {rank + 1}, but {start} was passed in")
    start = start + rank if start < 0 else start
    return moveaxis(a, axis, start - 1 if axis < start else start)


@implements(np.expand_dims)
def expand_dims(a, axis):
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    rank = len(shape(a)) + len(axes)
    axes = sorted(normalize_axis(x, rank) for x in axes)
    if len(set(axes)) != len(axes):
        raise ValueError("repeated axis")
    new = list(shape(a))
    for x in axes:
        new.insert(x, 1)
    return reshape(a, new)


@implements(np.squeeze)
def squeeze(a, axis=None):
    old = shape(a)
    if axis is None:
        axes = [i for i, n in enumerate(old) if n == 1]
    else:
        axes = [normalize_axis(x, len(old)) for x in (axis if isinstance(axis, (tuple, list)) else (axis,))]
        if any(old[x] != 1 for x in axes):
            raise ValueError("cannot select an axis to squeeze out which has size not equal to one")
    return reshape(a, [n for i, n in enumerate(old) if i not in axes])


@implements(np.broadcast_to)
def broadcast_to(array, shape, subok=False):
    """NumPy's read-only view of `array` at the broadcast `shape`."""
    target = tuple(static_int(n, "np.broadcast_to's shape") for n in (shape if np.iterable(shape) else (shape,)))
    np.broadcast_to(np.broadcast_to(np.zeros(()), np.shape(array)), target)  # NumPy's errors (nothing allocated)
    return read_only(array, target, lambda v: broadcast_value(v, target))


def _common_dtype(arrays, dtype=None):
    if dtype is not None:
        return np.dtype(dtype)
    return result_type(*[a if hasattr(a, "dtype") else np.asarray(a) for a in arrays])


@implements(np.concatenate)
def concatenate(arrays, axis=0, out=None, dtype=None, casting="same_kind"):
    arrays = list(arrays)
    if axis is None:
        arrays, axis = [ravel(a) for a in arrays], 0
    target = _common_dtype(arrays, dtype)
    values = [value(a, target) for a in arrays]
    rank = len(shape_of(values[0]))
    if rank == 0:
        raise ValueError("zero-dimensional arrays cannot be concatenated")
    axis = normalize_axis(axis, rank)
    for i, v in enumerate(values):
        if len(shape_of(v)) != rank:
            raise ValueError("all the input arrays must have same number of dimensions, but the array at "
                             f"index 0 has {rank} dimension(s) and the array at index {i} has "
                             f"{len(shape_of(v))} dimension(s)")
        if any(n != m for d, (n, m) in enumerate(zip(shape_of(v), shape_of(values[0]))) if d != axis):
            raise ValueError("all the input array dimensions except for the concatenation axis must match "
                             f"exactly, but the array at index {i} differs from the array at index 0")
    result = wrap(ops.concatenate(values, axis), scalar=False)
    if out is not None and is_traced(out) and any(is_traced(a) and a.root() is out.root() for a in arrays):
        return _concatenated_into(out, arrays, axis, result, casting)
    if out is not None:
        return write_out(out, result, casting)
    return result


def _concatenated_into(out, arrays, axis: int, result, casting):
    """NumPy's copy of each piece in turn into an `out` that a later piece views: that piece is read
    after the earlier ones are written (np.concatenate([a[6:], a[:6]], out=a) repeats a[6:])."""
    if out.shape != result.shape:
        raise ValueError("Output array is the wrong shape")
    check_cast(result.dtype, out.dtype, casting, "concatenate")
    start = 0
    for a in arrays:
        out[(slice(None),) * axis + (slice(start, start + shape(a)[axis]),)] = a
        start += shape(a)[axis]
    return out


@implements(np.stack)
def stack(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    arrays = list(arrays)
    shapes = {shape(a) for a in arrays}
    if len(shapes) != 1:
        raise ValueError("all input arrays must have the same shape")
    axis = normalize_axis(axis, len(shapes.pop()) + 1)
    return concatenate([expand_dims(a, axis) for a in arrays], axis, out, dtype, casting)


#: Why a number the user wrote as a loop's index is traced, for errors that need it static.
TRACED_INDEX = ("(a loop's index is traced where the loop runs as one compiled loop: a long one, or one that "
                "breaks or returns on array data)")


def static_int(x, what: str) -> int:
    """`x` as a Python int; a traced value is refused, since shapes and counts are fixed at compile time
    (unless NumPy computed it at trace time: see `folding`)."""
    x = folding.static(x)
    if is_traced(x):
        raise UnsupportedError(f"{what} must be a static Python int, not a traced value: shapes are fixed "
                               f"when the program is compiled; pass it as a Python int {TRACED_INDEX}")
    return operator.index(x)


@implements(np.broadcast_arrays)
def broadcast_arrays(*args, subok=False):
    arrays = [as_array(a) for a in args]
    target = np.broadcast_shapes(*[a.shape for a in arrays])
    if all(a.shape == target for a in arrays):
        return tuple(arrays)
    return tuple(broadcast_to(a, target) for a in arrays)


def _at_least(arrays, layout):
    """NumPy's atleast_Nd: `layout[ndim]` gives the new shape of a small array (views, as NumPy's)."""
    result = []
    for a in map(as_array, arrays):
        result.append(reshape(a, layout[a.ndim](a.shape)) if a.ndim < len(layout) else a)
    return result[0] if len(result) == 1 else tuple(result)


@implements(np.atleast_1d)
def atleast_1d(*arys):
    return _at_least(arys, [lambda s: (1,)])


@implements(np.atleast_2d)
def atleast_2d(*arys):
    return _at_least(arys, [lambda s: (1, 1), lambda s: (1,) + s])


@implements(np.atleast_3d)
def atleast_3d(*arys):
    return _at_least(arys, [lambda s: (1, 1, 1), lambda s: (1,) + s + (1,), lambda s: s + (1,)])


def _sequence(tup, name):
    """NumPy's rule for the stacking functions: a sequence (an array's rows count), never an iterator."""
    if not hasattr(tup, "__getitem__"):
        raise TypeError(f"arrays to {name} must be passed as a sequence type such as list or tuple.")
    return list(tup)


def _stacked(arrays, at_least, axis, dtype, casting):
    arrays = at_least(*arrays)
    arrays = [arrays] if not isinstance(arrays, tuple) else list(arrays)
    return concatenate(arrays, axis(arrays[0].ndim), dtype=dtype, casting=casting)


@implements(np.hstack)
def hstack(tup, *, dtype=None, casting="same_kind"):
    return _stacked(_sequence(tup, "stack"), atleast_1d, lambda ndim: 0 if ndim == 1 else 1, dtype, casting)


@implements(np.vstack)
def vstack(tup, *, dtype=None, casting="same_kind"):
    return _stacked(_sequence(tup, "stack"), atleast_2d, lambda ndim: 0, dtype, casting)


@implements(np.dstack)
def dstack(tup):
    return _stacked(_sequence(tup, "stack"), atleast_3d, lambda ndim: 2, None, "same_kind")


@implements(np.column_stack)
def column_stack(tup):
    columns = []
    for a in map(as_array, _sequence(tup, "stack")):
        columns.append(transpose(reshape(a, (1,) * (2 - a.ndim) + a.shape)) if a.ndim < 2 else a)
    return concatenate(columns, 1)


def _block_depth(arrays, index=()) -> tuple[int, int]:
    """(list depth, largest leaf ndim) of a nested list, with NumPy's errors for bad nesting."""
    if isinstance(arrays, tuple):
        raise TypeError(f"arrays{''.join(f'[{i}]' for i in index)} is a tuple. Only lists can be used to "
                        "arrange blocks, and np.block does not allow implicit conversion from tuple to ndarray.")
    if not isinstance(arrays, list):
        return 0, np.ndim(arrays)
    if not arrays:
        raise ValueError(f"List at arrays{''.join(f'[{i}]' for i in index)} cannot be empty")
    found = [_block_depth(a, index + (i,)) for i, a in enumerate(arrays)]
    if len({depth for depth, _ in found}) != 1:
        raise ValueError("List depths are mismatched.")
    return found[0][0] + 1, max(ndim for _, ndim in found)


def _assemble(arrays, depth, rank):
    """Concatenate the innermost lists along the last axis, each outer level one axis further left."""
    if depth == 0:
        a = as_array(arrays)
        return reshape(a, (1,) * (rank - a.ndim) + a.shape)
    return concatenate([_assemble(a, depth - 1, rank) for a in arrays], axis=-depth)


@implements(np.block)
def block(arrays):
    depth, ndim = _block_depth(arrays)
    return wrap(value(_assemble(arrays, depth, max(depth, ndim))), scalar=False)


@implements(np.unstack)
def unstack(x, /, *, axis=0):
    if x.ndim == 0:
        raise ValueError("Input array must be at least 1-d.")
    return tuple(moveaxis(x, axis, 0))


@implements(np.matrix_transpose)
def matrix_transpose(x, /):
    if np.ndim(x) < 2:
        raise ValueError(f"Input array must be at least 2-dimensional, but it is {np.ndim(x)}")
    return swapaxes(x, -1, -2)
