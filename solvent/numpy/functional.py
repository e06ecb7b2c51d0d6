"""NumPy's function-applying helpers on traced arrays: apply_along_axis (one `enzyme.batch` over the
slices, through the batching hook), apply_over_axes and piecewise."""

from __future__ import annotations

import numpy as np

from solvent.core import dispatch
from solvent.core.traced import TracedArray, TracedScalar
from solvent.errors import UnsupportedError
from solvent.numpy.registry import implements
from solvent.numpy.values import normalize_axis, shape


@implements(np.apply_along_axis)
def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    arr_shape = shape(arr)
    axis = normalize_axis(axis, len(arr_shape))
    rows = np.reshape(np.moveaxis(arr, axis, -1), (-1, arr_shape[axis]))
    mapped = dispatch.HOOKS.vmap(lambda row: func1d(row, *args, **kwargs))(rows)
    outer = arr_shape[:axis] + arr_shape[axis + 1:]
    result = np.reshape(mapped, outer + shape(mapped)[1:])
    # NumPy puts the dimensions of func1d's result where `axis` was.
    return np.moveaxis(result, tuple(range(len(outer), len(shape(result)))),
                       tuple(range(axis, axis + len(shape(result)) - len(outer))))


@implements(np.apply_over_axes)
def apply_over_axes(func, a, axes):
    for axis in np.atleast_1d(axes).tolist():
        reduced = func(a, axis)
        if np.ndim(reduced) == np.ndim(a) - 1:
            reduced = np.expand_dims(reduced, axis)
        elif np.ndim(reduced) != np.ndim(a):
            raise ValueError("function is not returning an array of the correct shape")
        a = reduced
    return a


def _leading_mask(condition, x):
    """A condition as NumPy's y[condition] reads it: a mask of x's leading axes, spread over the rest."""
    ndim = np.ndim(condition)
    if np.shape(condition) != np.shape(x)[:ndim]:
        raise IndexError(f"boolean index of shape {np.shape(condition)} did not match the indexed array's shape "
                         f"{np.shape(x)}")
    return np.reshape(condition, np.shape(condition) + (1,) * (np.ndim(x) - ndim))


def _array_like(item) -> bool:
    """A list or an array as NumPy's piecewise tells them (a traced scalar is a NumPy scalar, not one)."""
    return isinstance(item, (list, np.ndarray)) or isinstance(item, TracedArray) and not isinstance(item, TracedScalar)


@implements(np.piecewise)
def piecewise(x, condlist, funclist, *args, **kw):
    """Every piece is computed on all of `x` and selected elementwise (static shapes): the functions
    must be elementwise, which is what NumPy's documentation asks of them."""
    if np.isscalar(condlist) or (not _array_like(condlist[0]) and np.ndim(x) != 0):
        condlist = [condlist]  # NumPy's rule: one condition, unless its first item is a list or an array
    condlist = list(condlist)  # (an array's rows)
    if len(funclist) not in (len(condlist), len(condlist) + 1):
        raise ValueError(f"with {len(condlist)} condition(s), either {len(condlist)} or "
                         f"{len(condlist) + 1} functions are expected")
    condlist = [_leading_mask(c, x) for c in condlist]
    if len(funclist) == len(condlist) + 1:
        otherwise = np.logical_not(np.any(np.stack([np.broadcast_to(c, np.shape(x)) for c in condlist]), axis=0))
        condlist = list(condlist) + [otherwise]
    y = np.zeros(np.shape(x), np.result_type(x))
    for condition, piece in zip(condlist, funclist):
        value = piece(x, *args, **kw) if callable(piece) else piece
        if isinstance(value, (bool, int, float, complex)):
            value = np.array(value, y.dtype)  # y[condition] = value: an int out of the dtype's range raises
        if np.shape(value) not in ((), np.shape(x)):
            raise UnsupportedError("np.piecewise with a function that does not map elementwise: solvent "
                                   "evaluates each piece on the whole array (static shapes)")
        y = np.where(condition, value, y).astype(y.dtype)
    return y
