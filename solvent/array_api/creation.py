"""The Array API's creation functions: `solvent.Array` outside `jit`, traced arrays inside."""

from __future__ import annotations

import numpy as np

from solvent.core import trace
from solvent.array_api.common import _astype, fresh, program
from solvent.numpy.values import is_traced
from solvent.runtime import array as runtime_array


def _float(dtype):
    return np.float64 if dtype is None else dtype


def asarray(obj, /, *, dtype=None, device=None, copy=None):
    """`obj` (an array, nested sequences of numbers, a buffer) as an array of `dtype`.

    Example: `xp.asarray([[1, 2], [3, 4]], dtype=xp.float32)`.
    """
    if isinstance(obj, runtime_array.Array) or is_traced(obj):
        if dtype is not None and np.dtype(dtype) != obj.dtype:
            if copy is False:
                raise ValueError(f"asarray(copy=False) cannot convert {obj.dtype} to {np.dtype(dtype)} without a copy")
            return _astype(obj, np.dtype(dtype))
        if copy:
            return _copy(obj)
        return obj if trace.is_tracing() or device is None else obj.to_device(device)
    if copy is False:
        raise ValueError(f"asarray(copy=False) of a {type(obj).__name__} needs a copy onto the device")
    return fresh("asarray", obj, dtype=dtype, device=device)


@program
def _copy(x):
    return np.copy(x)


def zeros(shape, *, dtype=None, device=None):
    """An array of zeros, float64 unless `dtype` says otherwise: `xp.zeros((2, 3))`."""
    return fresh("zeros", shape, dtype=_float(dtype), device=device)


def ones(shape, *, dtype=None, device=None):
    """An array of ones, float64 unless `dtype` says otherwise: `xp.ones(4, dtype=xp.int8)`."""
    return fresh("ones", shape, dtype=_float(dtype), device=device)


def empty(shape, *, dtype=None, device=None):
    """Like `zeros`: a program has no uninitialised memory."""
    return fresh("empty", shape, dtype=_float(dtype), device=device)


def full(shape, fill_value, *, dtype=None, device=None):
    """An array filled with `fill_value`, of its Python type's default dtype: `xp.full((2,), 7)`."""
    return fresh("full", shape, fill_value, dtype=dtype, device=device)


def zeros_like(x, /, *, dtype=None, device=None):
    """Zeros of `x`'s shape and (unless given) dtype."""
    return fresh("zeros", x.shape, dtype=x.dtype if dtype is None else dtype, device=device)


def ones_like(x, /, *, dtype=None, device=None):
    """Ones of `x`'s shape and (unless given) dtype."""
    return fresh("ones", x.shape, dtype=x.dtype if dtype is None else dtype, device=device)


def empty_like(x, /, *, dtype=None, device=None):
    """Like `zeros_like`: a program has no uninitialised memory."""
    return fresh("empty", x.shape, dtype=x.dtype if dtype is None else dtype, device=device)


def full_like(x, /, fill_value, *, dtype=None, device=None):
    """`fill_value` in `x`'s shape and (unless given) dtype."""
    return fresh("full", x.shape, fill_value, dtype=x.dtype if dtype is None else dtype, device=device)


def arange(start, /, stop=None, step=1, *, dtype=None, device=None):
    """NumPy's `arange`; the length and default dtype are NumPy's."""
    return fresh("arange", start, stop, step, dtype=dtype, device=device)


def linspace(start, stop, /, num, *, dtype=None, device=None, endpoint=True):
    """`num` evenly spaced values from `start` to `stop`: `xp.linspace(0, 1, 5)`."""
    return fresh("linspace", start, stop, num, endpoint=endpoint, dtype=dtype, device=device)


def eye(n_rows, n_cols=None, /, *, k=0, dtype=None, device=None):
    """Ones on the `k`-th diagonal of an `n_rows` x `n_cols` matrix: `xp.eye(3, k=1)`."""
    return fresh("eye", n_rows, n_cols, k=k, dtype=_float(dtype), device=device)


def from_dlpack(x, /, *, device=None, copy=None):
    """An array holding the data of any DLPack producer (a NumPy array, a torch tensor, ...)."""
    if isinstance(x, runtime_array.Array) or is_traced(x):
        return _copy(x) if copy else x
    return fresh("asarray", np.from_dlpack(x), device=device)


@program
def meshgrid(*arrays, indexing="xy"):
    """Coordinate grids from 1-D arrays ("xy": the first two axes swapped, as NumPy does)."""
    if indexing not in ("xy", "ij"):
        raise ValueError(f"indexing must be 'xy' or 'ij', got {indexing!r}")
    sizes = [int(np.size(a)) for a in arrays]
    axes = list(range(len(arrays)))
    if indexing == "xy" and len(arrays) > 1:
        axes[0], axes[1] = 1, 0
    grid = [sizes[axes.index(d)] for d in range(len(arrays))]
    return [np.broadcast_to(np.reshape(a, [n if d == axis else 1 for d in range(len(arrays))]), grid)
            for a, n, axis in zip(arrays, sizes, axes)]


@program
def tril(x, /, *, k=0):
    """`x` with the elements above the `k`-th diagonal zeroed (each matrix of a stack)."""
    return np.tril(x, k=k)


@program
def triu(x, /, *, k=0):
    """`x` with the elements below the `k`-th diagonal zeroed (each matrix of a stack)."""
    return np.triu(x, k=k)


__all__ = ["asarray", "zeros", "ones", "empty", "full", "zeros_like", "ones_like", "empty_like",
           "full_like", "arange", "linspace", "eye", "from_dlpack", "meshgrid", "tril", "triu"]
