"""The Array API standard (2023.12) namespace `solvent.array_api`: its machinery, dtypes and inspection.

Every function of the namespace is written with NumPy calls. Inside `solvent.jit`
it runs on traced arrays like any NumPy code; outside, a call with `solvent.Array`
arguments runs as one compiled program per function and signature (`program`),
and creation functions return `solvent.Array` (`fresh`). The function families
live in the modules beside this one.
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np

from solvent.core import trace
from solvent.errors import UnsupportedError
from solvent.numpy import creation
from solvent.numpy.values import is_traced, value, wrap
from solvent.runtime import array as runtime_array, devices

__array_api_version__ = "2023.12"


def program(func):
    """`func` traced inside `jit`; outside, one cached compiled program per signature.

    Example::

        @program
        def flip(x, /, *, axis=None):
            return np.flip(x, axis=axis)
    """
    @functools.wraps(func)
    def call(*args, **kwargs):
        if trace.is_tracing():
            return func(*args, **kwargs)
        return runtime_array.EAGER.function(func, args, kwargs)  # solvent/eager.py, installed by api
    return call


def fresh(name: str, *args, device=None, **kwargs):
    """NumPy's creation function `name`: a traced array inside `jit`, a `solvent.Array` outside.

    Example: `fresh("zeros", (2, 3), dtype=np.float64)`.
    """
    if trace.is_tracing():
        with trace.current().emitting():
            made = creation.FRESH[name](*args, **kwargs)
            return made if is_traced(made) else wrap(value(made), scalar=False)
    return runtime_array.asarray(getattr(np, name)(*args, **kwargs), device=device)


def constant(host: np.ndarray, device=None):
    """An array computed on the host from static arguments (`np.fft.fftfreq(8)`): a program
    constant inside `jit`, a `solvent.Array` outside."""
    if trace.is_tracing():
        with trace.current().emitting():
            return wrap(value(host), scalar=False)
    return runtime_array.asarray(host, device=device)


def data_dependent(name: str, rewrite: str):
    """The error for a function whose result shape depends on the values (static shapes only)."""
    return UnsupportedError(
        f"{name}: its result's shape depends on the array's values, and solvent compiles static "
        f"shapes only; {rewrite}")


# -- data types ----------------------------------------------------------------------

_python_bool = bool
bool = np.bool_  # noqa: A001  (the Array API's names for NumPy's dtypes)
int8, int16, int32, int64 = np.int8, np.int16, np.int32, np.int64
uint8, uint16, uint32, uint64 = np.uint8, np.uint16, np.uint32, np.uint64
float32, float64 = np.float32, np.float64
complex64, complex128 = np.complex64, np.complex128
e, inf, nan, pi, newaxis = np.e, np.inf, np.nan, np.pi, None

_KINDS = {"bool": (np.bool_,), "signed integer": (int8, int16, int32, int64),
          "unsigned integer": (uint8, uint16, uint32, uint64), "real floating": (float32, float64),
          "complex floating": (complex64, complex128)}
_KINDS["integral"] = _KINDS["signed integer"] + _KINDS["unsigned integer"]
_KINDS["numeric"] = _KINDS["integral"] + _KINDS["real floating"] + _KINDS["complex floating"]


def _dtype_of(x) -> np.dtype:
    """The dtype of an array, or of a dtype given as a type or `np.dtype`."""
    return np.dtype(x if isinstance(x, (type, np.dtype, str)) else x.dtype)


def astype(x, dtype, /, *, copy=True, device=None):
    """`x` converted to `dtype`; `x` itself when `copy=False` and nothing changes."""
    if not copy and x.dtype == dtype:
        return x
    return _astype(x, np.dtype(dtype))


@program
def _astype(x, dtype):
    return x.astype(dtype)


def can_cast(from_, to, /) -> bool:
    """Whether `from_` (a dtype or an array) casts to `to` under the promotion rules."""
    return _python_bool(np.can_cast(_dtype_of(from_), np.dtype(to)))


@dataclasses.dataclass(frozen=True)
class finfo_object:
    """Machine limits of a floating dtype, as Python numbers (`xp.finfo(xp.float32).eps`)."""

    bits: int
    eps: float
    max: float
    min: float
    smallest_normal: float
    dtype: object


@dataclasses.dataclass(frozen=True)
class iinfo_object:
    """Machine limits of an integer dtype (`xp.iinfo(xp.int8).max == 127`)."""

    bits: int
    max: int
    min: int
    dtype: object


def finfo(type, /) -> finfo_object:  # noqa: A002  (the standard's parameter name)
    """Limits of a real or complex floating dtype; for complex, those of its real part."""
    info = np.finfo(_dtype_of(type))
    return finfo_object(int(info.bits), float(info.eps), float(info.max), float(info.min),
                        float(info.smallest_normal), info.dtype)


def iinfo(type, /) -> iinfo_object:  # noqa: A002
    """Limits of an integer dtype."""
    info = np.iinfo(_dtype_of(type))
    return iinfo_object(int(info.bits), int(info.max), int(info.min), info.dtype)


def isdtype(dtype, kind) -> _python_bool:
    """Whether `dtype` is of `kind`: a dtype, a kind name such as "real floating", or a tuple of them."""
    if isinstance(kind, tuple):
        return any(isdtype(dtype, k) for k in kind)
    if isinstance(kind, str):
        if kind not in _KINDS:
            raise ValueError(f"unknown dtype kind {kind!r}; choose one of {', '.join(_KINDS)}")
        return np.dtype(dtype) in [np.dtype(t) for t in _KINDS[kind]]
    return np.dtype(dtype) == np.dtype(kind)


def result_type(*arrays_and_dtypes):
    """The dtype NumPy's promotion gives for these arrays and dtypes."""
    return np.result_type(*(_dtype_of(x) for x in arrays_and_dtypes)).type


# -- inspection ----------------------------------------------------------------------


class Info:
    """What this namespace supports (`xp.__array_namespace_info__()`)."""

    def capabilities(self) -> dict:
        return {"boolean indexing": False, "data-dependent shapes": False}

    def default_device(self):
        return devices.default_device()

    def devices(self) -> list:
        return list(devices.default_device().client.local_devices())

    def default_dtypes(self, *, device=None) -> dict:
        return {"real floating": float64, "complex floating": complex128, "integral": int64, "indexing": int64}

    def dtypes(self, *, device=None, kind=None) -> dict:
        names = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                 "float32", "float64", "complex64", "complex128"]
        return {name: np.dtype(name).type for name in names if kind is None or isdtype(np.dtype(name), kind)}


def __array_namespace_info__() -> Info:
    """The inspection namespace: capabilities, devices and dtypes."""
    return Info()
