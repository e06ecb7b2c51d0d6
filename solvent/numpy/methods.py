"""ndarray methods and attributes of traced arrays: each is the NumPy function of that name."""

from __future__ import annotations

import numpy as np

from solvent.errors import UnsupportedError
from solvent.numpy.registry import implements
from solvent.numpy.values import value, wrap
from solvent.ops import elementwise as ew

#: Methods whose arguments are exactly the NumPy function's after the array.
SAME_AS_FUNCTION = {
    "sum": np.sum, "prod": np.prod, "mean": np.mean, "max": np.max, "min": np.min, "argmax": np.argmax,
    "argmin": np.argmin, "any": np.any, "all": np.all, "std": np.std, "var": np.var, "clip": np.clip,
    "cumsum": np.cumsum, "cumprod": np.cumprod, "dot": np.dot, "squeeze": np.squeeze,
    "swapaxes": np.swapaxes, "ravel": np.ravel, "conj": np.conjugate, "conjugate": np.conjugate,
}


def _method(name, function):
    implements(("method", name))(lambda self, *args, **kwargs: function(self, *args, **kwargs))


for _name, _function in SAME_AS_FUNCTION.items():
    _method(_name, _function)


def _shape_args(args):
    return args[0] if len(args) == 1 and isinstance(args[0], (tuple, list)) else args


@implements(("method", "reshape"))
def reshape(self, *shape, order="C", copy=None):
    return np.reshape(self, _shape_args(shape), order=order)


@implements(("method", "transpose"))
def transpose(self, *axes):
    return np.transpose(self, _shape_args(axes) if axes else None)


@implements(("method", "astype"))
def astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True):
    dtype = np.dtype(dtype)
    if not np.can_cast(self.dtype, dtype, casting):
        raise TypeError(f"Cannot cast array data from {self.dtype!r} to {dtype!r} according to the rule {casting!r}")
    return wrap(ew.convert(self.value, dtype), scalar=False)


@implements(("method", "copy"))
def copy(self, order="C"):
    return wrap(self.value, scalar=False)


@implements(("method", "flatten"))
def flatten(self, order="C"):
    return wrap(value(np.ravel(self)), scalar=False)


@implements(("method", "fill"))
def fill(self, fill_value):
    self.assign(value(fill_value, self.dtype, self.shape))


@implements(("method", "nonzero"))
def nonzero(self):
    raise UnsupportedError("ndarray.nonzero has a data-dependent shape; use np.where(cond, x, y)")
