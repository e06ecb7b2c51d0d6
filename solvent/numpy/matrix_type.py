"""np.matrix on traced values: `np.asmatrix(x)` and `np.matrix(x)` inside a compiled function.

A `TracedMatrix` keeps NumPy's matrix semantics: always two dimensions (NumPy's
`__array_finalize__` rule for results of other shapes), `*` and `**` as matrix products,
indexing and reductions that keep two dimensions, ufuncs that give matrices. It is returned
to the caller as an np.matrix. NumPy functions of a matrix are the ones in `FUNCTIONS`, whose
matrix results NumPy defines; any other raises, naming it, rather than guess whether NumPy
would keep the matrix type (a wrong guess would make a later `*` the wrong product).
"""

from __future__ import annotations

import numpy as np

from solvent.core import dispatch
from solvent.core.aval import Aval
from solvent.core.traced import TracedArray, TracedScalar
from solvent.errors import UnsupportedError
from solvent.numpy.registry import UNDISPATCHED, implements
from solvent.numpy.values import as_array, is_traced
from solvent.ops import shape as ops


def _matrix_shape(shape: tuple) -> tuple:
    """NumPy's matrix `__array_finalize__`: 2-d as is; longer shapes lose their axes of length 1."""
    if len(shape) > 2:
        shape = tuple(n for n in shape if n > 1)
        if len(shape) > 2:
            raise ValueError("shape too large to be a matrix.")
    return shape if len(shape) == 2 else (1, 1) if not shape else (1, shape[0])


def as_matrix(x) -> "TracedMatrix":
    """`x` (a traced array) seen as a matrix: a view of it in its matrix shape, writing through."""
    if isinstance(x, TracedMatrix):
        return x
    old, new = x.shape, _matrix_shape(x.shape)
    return TracedMatrix.view_of(x, Aval(new, x.dtype), lambda v: ops.reshape(v, new), lambda p, v: ops.reshape(v, old))


def _plain(x):
    """A matrix as a plain traced array (a view of the same data), anything else as it is."""
    if isinstance(x, TracedMatrix):
        return TracedArray.view_of(x, x.aval, lambda v: v, lambda p, v: v, x.memory)
    if isinstance(x, (list, tuple)):
        return type(x)(_plain(v) for v in x)
    return x


def _matrices(result, plain_outs=(), outs=()):
    """Results as matrices (the `out=` arrays as the matrices they stand for); scalars as they are."""
    if isinstance(result, tuple):
        return tuple(_matrices(r, plain_outs, outs) for r in result)
    for p, o in zip(plain_outs, outs):
        if result is p:
            return o
    if isinstance(result, TracedArray) and not isinstance(result, TracedScalar):
        return as_matrix(result)
    return result


class TracedMatrix(TracedArray):
    """A traced np.matrix (see the module docstring)."""

    def __repr__(self) -> str:
        return f"TracedMatrix({self.aval})"

    def __mul__(self, other):
        return np.dot(self, other)

    def __rmul__(self, other):
        return np.dot(other, self)

    def __imul__(self, other):
        self[...] = self * other
        return self

    def __pow__(self, other):
        return np.linalg.matrix_power(self, other)

    def __ipow__(self, other):
        self[...] = self ** other
        return self

    def __rpow__(self, other):
        return NotImplemented

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if ufunc in (np.multiply, np.power) and any(isinstance(x, np.ndarray) and x.ndim for x in inputs):
            raise UnsupportedError(f"np.{ufunc.__name__} (or {'*' if ufunc is np.multiply else '**'}) of an array "
                                   "constant and an np.matrix: NumPy's operator takes the matrix product, its "
                                   "function the elementwise one; write np.dot or np.asmatrix(constant) * m")
        outs = kwargs.get("out", ())
        outs = outs if isinstance(outs, tuple) else (outs,)
        plain_outs = tuple(_plain(o) for o in outs)
        if outs:
            kwargs["out"] = plain_outs
        result = dispatch.HOOKS.array_ufunc(ufunc, method, tuple(_plain(x) for x in inputs), kwargs)
        return _matrices(result, plain_outs, outs)

    def __array_function__(self, func, types, args, kwargs):
        handler = FUNCTIONS.get(func)
        if handler is None:
            raise UnsupportedError(f"np.{getattr(func, '__name__', func)} of an np.matrix: solvent compiles "
                                   f"{', '.join(sorted(f.__name__ for f in FUNCTIONS))} on matrices; call it "
                                   "on np.asarray(m)")
        return handler(*args, **kwargs)

    def __getitem__(self, key):
        out = _plain(self)[key]
        if not isinstance(out, TracedArray) or isinstance(out, TracedScalar) or out.ndim == 0:
            return out
        if out.ndim == 1:  # NumPy's matrix.__getitem__: a column where the second index is a scalar
            column = isinstance(key, tuple) and len(key) > 1 and (
                np.isscalar(key[1]) or (is_traced(key[1]) and key[1].ndim == 0))
            n = out.shape[0]
            return TracedMatrix.view_of(out, Aval((n, 1) if column else (1, n), out.dtype),
                                        lambda v: ops.reshape(v, (n, 1) if column else (1, n)),
                                        lambda p, v: ops.reshape(v, (n,)))
        return as_matrix(out)

    def __setitem__(self, key, value):
        _plain(self)[key] = _plain(value)

    def __iter__(self):
        for i in range(self.shape[0]):
            yield self[i]

    T = property(lambda self: as_matrix(_plain(self).T))
    H = property(lambda self: as_matrix(np.conjugate(_plain(self)).T))
    I = property(lambda self: as_matrix(np.linalg.inv(_plain(self))) if self.shape[0] == self.shape[1]  # noqa: E741
                 else as_matrix(np.linalg.pinv(_plain(self))))
    A = property(lambda self: _plain(self))
    A1 = property(lambda self: np.ravel(_plain(self)))

    def getA(self):
        return self.A

    def getA1(self):
        return self.A1

    def getT(self):
        return self.T

    def getH(self):
        return self.H

    def getI(self):
        return self.I

    def ravel(self, order="C"):
        return as_matrix(np.ravel(_plain(self), order))

    def flatten(self, order="C"):
        return as_matrix(_plain(self).flatten(order))

    def reshape(self, *shape, order="C"):
        return as_matrix(_plain(self).reshape(*shape, order=order))

    def squeeze(self, axis=None):
        return as_matrix(np.squeeze(_plain(self), axis))

    def tolist(self):
        return _plain(self).tolist()

    def __getattr__(self, name):
        if name in _REDUCTIONS:
            return lambda *args, **kwargs: _reduce(self, name, *args, **kwargs)
        if name in _ARGUMENT_REDUCTIONS:
            return lambda axis=None, out=None: _arg_reduce(self, name, axis)
        return super().__getattr__(name)


_REDUCTIONS = ("sum", "mean", "prod", "max", "min", "any", "all", "std", "var", "ptp")
_ARGUMENT_REDUCTIONS = ("argmax", "argmin")


def _reduce(m, name, axis=None, *args, **kwargs):
    """NumPy's matrix reductions: kept two-dimensional along `axis`, a scalar for axis=None."""
    kwargs.pop("keepdims", None)
    plain = _plain(m)
    result = (np.ptp(plain, axis, keepdims=True) if name == "ptp" else
              getattr(plain, name)(axis, *args, keepdims=True, **kwargs))
    return result[0, 0] if axis is None else as_matrix(result)


def _arg_reduce(m, name, axis=None):
    result = getattr(_plain(m), name)(axis)
    if axis is None:
        return result
    return as_matrix(result if axis in (0, -2) else np.reshape(result, (-1, 1)))


def _on_plain(func):
    """A NumPy function whose result NumPy gives as a matrix when an operand is one."""
    return lambda *args, **kwargs: _matrices(func(*_plain(args), **{k: _plain(v) for k, v in kwargs.items()}))


def _of_plain(func):
    """A NumPy function whose result NumPy gives as it is (a scalar, or an ndarray: no subok)."""
    return lambda a, *rest, **kwargs: func(_plain(a), *rest, **kwargs)


def _reduction(name):
    return lambda a, axis=None, *args, **kwargs: (
        _reduce(a, name, axis, *args, **kwargs) if isinstance(a, TracedMatrix)
        else getattr(np, name)(a, axis, *args, **kwargs))


#: NumPy functions of matrices, with NumPy's result types.
FUNCTIONS = {
    np.dot: _on_plain(np.dot), np.matmul: _on_plain(np.matmul), np.transpose: _on_plain(np.transpose),
    np.linalg.inv: _on_plain(np.linalg.inv), np.linalg.matrix_power: _on_plain(np.linalg.matrix_power),
    np.linalg.pinv: _on_plain(np.linalg.pinv), np.concatenate: _on_plain(np.concatenate),
    np.vstack: _on_plain(np.vstack), np.hstack: _on_plain(np.hstack),
    **{f: _of_plain(f) for f in (np.linalg.det, np.trace, np.asarray, np.array, np.copy)},
    np.asanyarray: lambda a, *rest, **kw: a, np.shape: lambda a: a.shape, np.ndim: lambda a: 2,
    np.size: lambda a, axis=None: a.size if axis is None else a.shape[axis],
    np.ravel: lambda a, order="C": a.ravel(order),
    **{getattr(np, name): _reduction(name) for name in ("sum", "mean", "prod", "max", "min", "any", "all", "std",
                                                        "var", "ptp")},
    np.argmax: lambda a, axis=None, out=None: _arg_reduce(a, "argmax", axis),
    np.argmin: lambda a, axis=None, out=None: _arg_reduce(a, "argmin", axis),
}


@implements(np.matrix)
def matrix(data, dtype=None, copy=True):
    """`np.matrix(x)`: a new matrix (with copy=False, a view of `x` where the dtype is the same)."""
    data = as_array(data)
    if copy or (dtype is not None and np.dtype(dtype) != data.dtype):
        data = data.astype(data.dtype if dtype is None else dtype)
    return as_matrix(data)


@implements(np.asmatrix)
def asmatrix(data, dtype=None):
    """`np.asmatrix(x)`: `x` as a matrix, a view of it at the same dtype (NumPy's own definition)."""
    return matrix(data, dtype, copy=False)


UNDISPATCHED.update((np.asmatrix, np.matrix))
