"""Array creation on traced values, and fresh arrays that can hold traced values.

NumPy never dispatches `np.zeros((n, n))` and friends (no array argument), yet
traced code fills such arrays: `out = np.zeros(n); out[i] = x.sum()`. While a
trace runs, those NumPy functions are wrapped so that calls on the tracing
thread return traced arrays; other threads, and everything after the trace,
see NumPy unchanged.
"""

from __future__ import annotations

import contextlib
import functools
import sys
import threading

import numpy as np

from solvent.core import trace
from solvent.errors import UnsupportedError, is_library_file
from solvent.numpy.registry import implements
from solvent.numpy.values import full as full_value, is_traced, value, wrap
from solvent.ops import elementwise as ew
from solvent.ops.constant import constant, iota


def _shape(shape) -> tuple[int, ...]:
    shape = tuple(int(n) for n in shape) if isinstance(shape, (tuple, list)) else (int(shape),)
    if any(n < 0 for n in shape):
        raise ValueError("negative dimensions are not allowed")
    return shape


def _filled(fill, shape, dtype):
    dtype = np.dtype(dtype if dtype is not None else np.float64)
    if is_traced(fill):
        return wrap(value(fill, dtype, _shape(shape)), scalar=False)
    return wrap(full_value(fill, _shape(shape), dtype), scalar=False)


def zeros(shape, dtype=float, order="C", *, like=None, device=None):
    return _filled(0, shape, dtype)


def ones(shape, dtype=None, order="C", *, like=None, device=None):
    return _filled(1, shape, dtype)


def empty(shape, dtype=float, order="C", *, like=None, device=None):
    return _filled(0, shape, dtype)  # zeros: a program has no uninitialised memory


def full(shape, fill_value, dtype=None, order="C", *, like=None, device=None):
    if dtype is None:
        dtype = fill_value.dtype if is_traced(fill_value) else np.array(fill_value).dtype
    return _filled(fill_value, shape, dtype)


def eye(N, M=None, k=0, dtype=float, order="C", *, like=None, device=None):
    M = N if M is None else M
    rows, cols = iota((N, M), np.int64, 0), iota((N, M), np.int64, 1)
    diagonal = ew.compare("EQ", ew.binary("add", rows, full_value(k, (N, M), np.int64)), cols)
    return wrap(ew.convert(diagonal, dtype), scalar=False)


def identity(n, dtype=None, *, like=None):
    return eye(n, dtype=float if dtype is None else dtype)


def arange(start, stop=None, step=None, dtype=None, *, like=None, device=None):
    host = np.arange(start, stop, step, dtype=dtype)  # NumPy decides the length and dtype
    if host.size == 0:
        return wrap(constant(host), scalar=False)
    start = host[0] if stop is not None or step is not None else host.dtype.type(0)
    step = host[1] - host[0] if host.size > 1 else host.dtype.type(1)
    ramp = iota(host.shape, host.dtype, 0)
    scaled = ew.binary("multiply", ramp, full_value(step, host.shape, host.dtype))
    return wrap(ew.binary("add", scaled, full_value(start, host.shape, host.dtype)), scalar=False)


@implements(np.linspace)
def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, *, device=None):
    if is_traced(start) or is_traced(stop):
        raise UnsupportedError("np.linspace with traced start or stop")
    host = _originals["linspace"](start, stop, num, endpoint, retstep, dtype, axis)
    if retstep:
        return wrap(constant(host[0]), scalar=False), host[1]
    return wrap(constant(host), scalar=False)


def _like(fill):
    def create(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
        target = a.shape if shape is None else _shape(shape)
        return _filled(fill, target, a.dtype if dtype is None else dtype)
    return create


@implements(np.full_like)
def full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None, *, device=None):
    target = a.shape if shape is None else _shape(shape)
    return _filled(fill_value, target, a.dtype if dtype is None else dtype)


implements(np.zeros_like)(_like(0))
implements(np.ones_like)(_like(1))
implements(np.empty_like)(_like(0))


def _converter(name):
    """np.array/np.asarray of data holding traced values (NumPy does not dispatch these)."""
    original = getattr(np, name)

    def convert(obj, dtype=None, *args, **kwargs):
        if not _holds_traced(obj):
            return original(obj, dtype, *args, **kwargs)
        if is_traced(obj) and name != "array" and (dtype is None or np.dtype(dtype) == obj.dtype):
            return obj  # np.asarray of an array is that array
        return wrap(value(obj, dtype), scalar=False)
    return convert


def _holds_traced(obj) -> bool:
    return is_traced(obj) or (isinstance(obj, (list, tuple)) and any(_holds_traced(v) for v in obj))


@implements(np.copy)
def copy(a, order="K", subok=False):
    return wrap(value(a), scalar=False)


# -- fresh arrays in traced code ---------------------------------------------------

FRESH = {"zeros": zeros, "ones": ones, "empty": empty, "full": full, "eye": eye,
         "identity": identity, "arange": arange, "linspace": linspace,
         **{name: _converter(name) for name in ("array", "asarray", "asanyarray", "ascontiguousarray")}}
_originals = {name: getattr(np, name) for name in FRESH}
_lock = threading.Lock()
_active = 0


def _fresh(name):
    original = _originals[name]

    @functools.wraps(original)
    def create(*args, **kwargs):
        if (trace.is_tracing() and kwargs.get("like") is None
                and not is_library_file(sys._getframe(1).f_code.co_filename)):  # NumPy's own calls stay host
            with trace.current().emitting():
                return FRESH[name](*args, **kwargs)
        return original(*args, **kwargs)
    return create


class _NDArrayType(type):
    """Metaclass of the `np.ndarray` stand-in: calls from traced code make traced arrays;
    everything else (isinstance, issubclass, other threads, NumPy itself) sees ndarray."""

    def __call__(cls, shape, dtype=float, buffer=None, offset=0, strides=None, order=None):
        if (buffer is None and trace.is_tracing()
                and not is_library_file(sys._getframe(1).f_code.co_filename)):
            with trace.current().emitting():
                return empty(shape, dtype)
        return _REAL_NDARRAY(shape, dtype, buffer, offset, strides, order)

    def __instancecheck__(cls, obj):
        return isinstance(obj, _REAL_NDARRAY)

    def __subclasscheck__(cls, other):
        return issubclass(other, _REAL_NDARRAY)


_REAL_NDARRAY = np.ndarray


class _TracingNDArray(np.ndarray, metaclass=_NDArrayType):
    """`np.ndarray(shape)` while tracing (NumPy does not dispatch constructors either)."""


_originals["ndarray"] = _REAL_NDARRAY
_wrappers = {name: _fresh(name) for name in FRESH}
_wrappers["ndarray"] = _TracingNDArray


@contextlib.contextmanager
def fresh_arrays():
    """While a trace runs, np.zeros & co. on the tracing thread return traced arrays."""
    global _active
    with _lock:
        if _active == 0:
            for name, wrapper in _wrappers.items():
                setattr(np, name, wrapper)
        _active += 1
    try:
        yield
    finally:
        with _lock:
            _active -= 1
            if _active == 0:
                for name, original in _originals.items():
                    setattr(np, name, original)
