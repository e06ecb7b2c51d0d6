"""Shape manipulation: reshape, transpose, expand_dims, squeeze, concatenate, stack, broadcast_to.

Reshape, transpose, expand_dims and squeeze return views, as NumPy does for
contiguous arrays: writing through them changes the base array.
"""

from __future__ import annotations

import numpy as np

from solvent.core.aval import Aval
from solvent.core.traced import TracedArray
from solvent.numpy.registry import implements
from solvent.numpy.values import broadcast_value, is_traced, normalize_axis, result_type, shape, value, wrap
from solvent.ops import shape as ops
from solvent.ops.base import dtype_of, shape_of


def view(parent, new_shape, read, write, dtype=None):
    """A traced view of `parent` (or a fresh array when `parent` is not traced)."""
    if not is_traced(parent):
        return wrap(read(value(parent)), scalar=False)
    dtype = parent.dtype if dtype is None else np.dtype(dtype)
    return TracedArray.view_of(parent, Aval(tuple(new_shape), dtype), read, write)


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
        from solvent.errors import UnsupportedError
        raise UnsupportedError(f"np.reshape with order={order!r}")
    old = tuple(a.shape) if hasattr(a, "shape") else np.shape(a)
    new = _reshape_shape(old, shape)
    return view(a, new, lambda v: ops.reshape(v, new), lambda p, v: ops.reshape(v, old))


@implements(np.ravel)
def ravel(a, order="C"):
    return reshape(a, (-1,), order)


@implements(np.transpose)
def transpose(a, axes=None):
    rank = len(shape(a))
    perm = list(range(rank))[::-1] if axes is None else [normalize_axis(x, rank) for x in axes]
    inverse = list(np.argsort(perm))
    new = [shape(a)[p] for p in perm]
    return view(a, new, lambda v: ops.transpose(v, perm), lambda p, v: ops.transpose(v, inverse))


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


@implements(np.expand_dims)
def expand_dims(a, axis):
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    rank = len(shape(a)) + len(axes)
    axes = sorted(normalize_axis(x, rank) for x in axes)
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
    target = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
    return wrap(broadcast_value(value(array), target), scalar=False)


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
    if out is not None:
        from solvent.numpy.values import write_out
        return write_out(out, result, casting)
    return result


def stack_values(items):
    """Stack a (nested) list of traced and host values along a new first axis."""
    parts = [stack_values(x) if isinstance(x, (list, tuple)) else value(x) for x in items]
    target = np.result_type(*[dtype_of(p) for p in parts])
    from solvent.ops.elementwise import convert
    parts = [ops.reshape(convert(p, target), (1,) + shape_of(p)) for p in parts]
    return ops.concatenate(parts, 0)


@implements(np.stack)
def stack(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    arrays = list(arrays)
    shapes = {shape(a) for a in arrays}
    if len(shapes) != 1:
        raise ValueError("all input arrays must have the same shape")
    axis = normalize_axis(axis, len(shapes.pop()) + 1)
    return concatenate([expand_dims(a, axis) for a in arrays], axis, out, dtype, casting)
