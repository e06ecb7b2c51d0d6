"""NumPy on `solvent.Array` outside `jit`: each call runs as a small compiled program.

Every NumPy function, ufunc method, index and ndarray method gets one jitted
wrapper, so its programs are cached per signature like any jitted function.
"""

from __future__ import annotations

import functools

import numpy as np

from solvent.runtime import array as runtime_array

#: Eager programs hold one or a few ops: the optimization pipeline would cost as much as XLA's
#: own compile (about 20 of the 45 ms a new signature takes) and find nothing to improve.
OPTIONS = {"optimize": False}


@functools.lru_cache(maxsize=None)
def _ufunc_program(ufunc, method):
    from solvent.api import jit
    return jit(lambda inputs, kwargs: getattr(ufunc, method)(*inputs, **kwargs), **OPTIONS)


@functools.lru_cache(maxsize=None)
def _function_program(func):
    from solvent.api import jit
    return jit(lambda args, kwargs: func(*args, **kwargs), **OPTIONS)


@functools.lru_cache(maxsize=None)
def _method_program(name):
    from solvent.api import jit
    return jit(lambda array, args, kwargs: getattr(array, name)(*args, **kwargs), **OPTIONS)


def _index(array, key):
    return array[key]


def _assign(array, key, value):
    array[key] = value


def _is_integer(k) -> bool:
    return isinstance(k, (int, np.integer)) and not isinstance(k, (bool, np.bool_))


def dynamic_key(key, shape: tuple):
    """`key` with its integers checked against `shape` and passed as device scalars.

    A Python integer in an index is a compile-time constant, so `a[i]` for every
    `i` would compile one program per `i`; as a `solvent.Scalar` it is an input,
    and all of them share one program. Keys with anything but integers, slices,
    None and `...` are returned unchanged (indexing itself reports their errors).
    """
    parts = key if isinstance(key, tuple) else (key,)
    if not any(_is_integer(k) for k in parts) or not all(
            k is None or k is Ellipsis or isinstance(k, slice) or _is_integer(k) for k in parts):
        return key
    used = sum(1 for k in parts if k is not None and k is not Ellipsis)
    if used > len(shape) or sum(1 for k in parts if k is Ellipsis) > 1:
        return key
    axis, dynamic = 0, []
    for k in parts:
        if k is Ellipsis:
            axis += len(shape) - used
        elif _is_integer(k):
            size = shape[axis]
            if not -size <= k < size:
                raise IndexError(f"index {k} is out of bounds for axis {axis} with size {size}")
            k = runtime_array.Scalar(np.int64(k % size))
        axis += isinstance(k, (slice, runtime_array.Scalar))
        dynamic.append(k)
    return tuple(dynamic) if isinstance(key, tuple) else dynamic[0]


def _is_mask(k) -> bool:
    return isinstance(k, runtime_array.Array) and k.dtype == np.bool_ and k.ndim > 0


def masks_as_indices(key, shape: tuple):
    """`key` with each boolean `solvent.Array` replaced by the index arrays of its True elements.

    NumPy's own rule (`a[mask]` is `a[mask.nonzero()]`); outside `jit` the mask's
    values exist, so a masked read is two programs: count the True elements, then
    gather that many. A mask must match the dimensions it indexes, or be empty there.
    """
    parts = key if isinstance(key, tuple) else (key,)
    if not any(_is_mask(k) for k in parts):
        return key
    from solvent.numpy.array_api_sets import nonzero
    used = sum(k.ndim if _is_mask(k) else 1 for k in parts if k is not None and k is not Ellipsis)
    axis, indices = 0, []
    for k in parts:
        if _is_mask(k):
            dims = tuple(shape[axis:axis + k.ndim])
            if len(dims) != k.ndim or any(m not in (n, 0) for m, n in zip(k.shape, dims)):  # NumPy's rule
                raise IndexError(f"boolean index of shape {k.shape} does not match the indexed "
                                 f"dimensions {dims} of an array of shape {shape}")
            indices.extend(nonzero(k))
            axis += k.ndim
            continue
        if k is Ellipsis:
            axis += len(shape) - used
        elif k is not None:
            axis += 1
        indices.append(k)
    return tuple(indices)


def ufunc(ufunc, method, inputs, kwargs):
    return _ufunc_program(ufunc, method)(inputs, kwargs)


def function(func, args, kwargs):
    return _function_program(func)(args, kwargs)


def _is_flag(key) -> bool:
    """A boolean scalar as the whole index: `a[True]` is `a[None]`, `a[False]` that, emptied."""
    return isinstance(key, (bool, np.bool_)) or (isinstance(key, runtime_array.Array)
                                                 and key.dtype == np.bool_ and key.ndim == 0)


def getitem(array, key):
    if _is_flag(key):
        expanded = _function_program(_index)((array, None), {})
        return expanded if key else expanded[0:0]
    key = dynamic_key(masks_as_indices(key, array.shape), array.shape)
    return _function_program(_index)((array, key), {})


def setitem(array, key, value):
    if _is_flag(key):
        if not key:
            return
        key = Ellipsis
    key = dynamic_key(masks_as_indices(key, array.shape), array.shape)
    _function_program(_assign)((array, key, value), {})


def method(array, name):
    if not hasattr(np.ndarray, name):
        raise AttributeError(f"'solvent.Array' object has no attribute {name!r}")
    return lambda *args, **kwargs: _method_program(name)(array, args, kwargs)


runtime_array.EAGER.update(ufunc=ufunc, function=function, getitem=getitem, setitem=setitem, method=method)
