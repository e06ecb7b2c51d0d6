"""The Array API's manipulation, searching, sorting, statistical, set, utility and
linear-algebra functions, written with NumPy calls."""

from __future__ import annotations

import builtins

import numpy as np

from solvent.array_api.common import program
from solvent.runtime import array as runtime_array

# -- manipulation ------------------------------------------------------------------------


@program
def broadcast_arrays(*arrays):
    """The arrays broadcast against each other, as a list."""
    shape = np.broadcast_shapes(*(np.shape(a) for a in arrays))
    return [np.broadcast_to(a, shape) for a in arrays]


@program
def broadcast_to(x, /, shape):
    """`x` broadcast to `shape`: `xp.broadcast_to(xp.ones(3), (2, 3))`."""
    return np.broadcast_to(x, shape)


@program
def concat(arrays, /, *, axis=0):
    """Join arrays along `axis` (`None`: flattened first)."""
    return np.concatenate(list(arrays), axis=axis)


@program
def expand_dims(x, /, axis=0):
    return np.expand_dims(x, axis)


@program
def flip(x, /, *, axis=None):
    """`x` reversed along `axis` (all axes when None)."""
    return np.flip(x, axis=axis)


@program
def moveaxis(x, source, destination, /):
    return np.moveaxis(x, source, destination)


@program
def permute_dims(x, /, axes):
    """`x` with its axes reordered: `xp.permute_dims(x, (1, 0))` transposes a matrix."""
    return np.transpose(x, axes)


def repeat(x, repeats, /, *, axis=None):
    """Each element `repeats` times; counts given as a `solvent.Array` are read first outside
    `jit`, since they decide the result's shape."""
    if isinstance(repeats, runtime_array.Array):
        repeats = np.asarray(repeats).tolist()
    return _repeat(x, repeats, axis=axis)


@program
def _repeat(x, repeats, axis):
    return np.repeat(x, repeats, axis=axis)


@program
def reshape(x, /, shape, *, copy=None):
    """`x` in a new shape of the same size (one entry may be -1)."""
    return np.reshape(x, shape)


@program
def roll(x, /, shift, *, axis=None):
    """`x` shifted cyclically by `shift` along `axis` (flattened when None)."""
    return np.roll(x, shift, axis=axis)


@program
def squeeze(x, /, axis):
    """`x` without the given axes of length one."""
    return np.squeeze(x, axis=axis)


@program
def stack(arrays, /, *, axis=0):
    """The arrays joined along a new axis."""
    return np.stack(list(arrays), axis=axis)


@program
def tile(x, repetitions, /):
    """`x` repeated `repetitions` times along each axis."""
    return np.tile(x, repetitions)


@program
def unstack(x, /, *, axis=0):
    """The slices of `x` along `axis`, as a tuple."""
    moved = np.moveaxis(x, axis, 0)
    return tuple(moved[i] for i in range(moved.shape[0]))


# -- searching and sorting -------------------------------------------------------------------


@program
def argmax(x, /, *, axis=None, keepdims=False):
    return np.argmax(x, axis=axis, keepdims=keepdims)


@program
def argmin(x, /, *, axis=None, keepdims=False):
    return np.argmin(x, axis=axis, keepdims=keepdims)


@program
def searchsorted(x1, x2, /, *, side="left", sorter=None):
    return np.searchsorted(x1, x2, side=side, sorter=sorter)


@program
def where(condition, x1, x2, /):
    """`x1` where `condition` holds, else `x2` (broadcast together)."""
    return np.where(condition, x1, x2)


@program
def sort(x, /, *, axis=-1, descending=False, stable=True):
    """`x` sorted along `axis` (always stably; NaNs last, or first when descending)."""
    out = np.sort(x, axis=axis, kind="stable")
    return np.flip(out, axis=axis) if descending else out


@program
def argsort(x, /, *, axis=-1, descending=False, stable=True):
    """Stable order; descending keeps equal elements in their original order too."""
    if not descending:
        return np.argsort(x, axis=axis, kind="stable")
    backwards = np.argsort(np.flip(x, axis=axis), axis=axis, kind="stable")
    return x.shape[axis] - 1 - np.flip(backwards, axis=axis)


# -- statistics and utility ----------------------------------------------------------------


@program
def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial=False):
    """Running sums along `axis` (optional for 1-D), starting with 0 when `include_initial`."""
    if axis is None:
        if x.ndim > 1:
            raise ValueError("cumulative_sum needs axis= for arrays of more than one dimension")
        axis = 0
    out = np.cumsum(x, axis=axis, dtype=dtype)
    if not include_initial:
        return out
    start = list(out.shape)
    start[axis] = 1
    return np.concatenate([np.zeros(start, dtype=out.dtype), out], axis=axis)


def _reduction(name: str, numpy_function, with_dtype: bool):
    if with_dtype:
        def function(x, /, *, axis=None, dtype=None, keepdims=False):
            return numpy_function(x, axis=axis, dtype=dtype, keepdims=keepdims)
    else:
        def function(x, /, *, axis=None, keepdims=False):
            return numpy_function(x, axis=axis, keepdims=keepdims)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"Array API `{name}`: NumPy's `{numpy_function.__name__}`."
    return program(function)


max = _reduction("max", np.max, False)  # noqa: A001  (the standard's names)
min = _reduction("min", np.min, False)  # noqa: A001
mean = _reduction("mean", np.mean, False)
prod = _reduction("prod", np.prod, True)
sum = _reduction("sum", np.sum, True)  # noqa: A001
all = _reduction("all", np.all, False)  # noqa: A001
any = _reduction("any", np.any, False)  # noqa: A001


@program
def std(x, /, *, axis=None, correction=0.0, keepdims=False):
    """Standard deviation with `correction` degrees of freedom removed (NumPy's `ddof`)."""
    return np.std(x, axis=axis, ddof=correction, keepdims=keepdims)


@program
def var(x, /, *, axis=None, correction=0.0, keepdims=False):
    """Variance with `correction` degrees of freedom removed (NumPy's `ddof`)."""
    return np.var(x, axis=axis, ddof=correction, keepdims=keepdims)


# -- linear algebra and indexing -------------------------------------------------------------


@program
def matmul(x1, x2, /):
    """The matrix product, over stacks of matrices (`x1 @ x2`)."""
    return np.matmul(x1, x2)


@program
def matrix_transpose(x, /):
    """Each matrix of a stack transposed (`x.mT`)."""
    if x.ndim < 2:
        raise ValueError(f"matrix_transpose needs at least 2 dimensions, got {x.ndim}")
    return np.swapaxes(x, -1, -2)


@program
def tensordot(x1, x2, /, *, axes=2):
    """Sum of products over the last `axes` axes of `x1` and the first of `x2` (or the given pairs)."""
    return np.tensordot(x1, x2, axes=axes)


@program
def vecdot(x1, x2, /, *, axis=-1):
    """Dot products of the vectors along `axis` (the first conjugated), broadcasting the rest."""
    if axis >= 0:  # the standard counts axes of the broadcast shape
        axis -= builtins.max(x1.ndim, x2.ndim)
    if x1.shape[axis] != x2.shape[axis]:
        raise ValueError(f"vecdot: x1 {x1.shape} and x2 {x2.shape} differ in size along axis {axis}")
    dtype = np.result_type(x1.dtype, x2.dtype)
    if dtype.kind == "c":
        x1 = np.conj(x1)
    return np.sum(x1 * x2, axis=axis, dtype=dtype)


@program
def take(x, indices, /, *, axis=None):
    """The elements at `indices` along `axis`: `xp.take(x, xp.asarray([2, 0]), axis=1)`."""
    return np.take(x, indices, axis=axis)


__all__ = ["broadcast_arrays", "broadcast_to", "concat", "expand_dims", "flip", "moveaxis", "permute_dims",
           "repeat", "reshape", "roll", "squeeze", "stack", "tile", "unstack", "argmax", "argmin",
           "searchsorted", "where", "sort", "argsort", "cumulative_sum", "max", "min", "mean", "prod", "sum", "all",
           "any", "std", "var", "matmul", "matrix_transpose", "tensordot", "vecdot", "take"]
