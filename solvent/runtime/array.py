"""`solvent.Array`, a mutable handle on a device buffer, and `solvent.Scalar`.

Compiled functions that mutate an `Array` argument swap its buffer for the
result (the old buffer is donated). Outside `jit` an Array behaves like a
NumPy array: NumPy calls on it run as small compiled programs (the eager hook
that `solvent.api` installs).
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable

import numpy as np

from solvent.core import dispatch, operators
from solvent.core.aval import Aval
from solvent.core.structure import ARRAY_TYPES, KEYED_TYPES
from solvent.runtime import devices
from solvent.runtime.sharding import canonical, host_value, spans_devices

@dataclasses.dataclass
class Eager:
    """NumPy on Arrays outside jit, set by solvent.eager (which sits above this layer)."""

    ufunc: Callable | None = None     # (ufunc, method, inputs, kwargs)
    function: Callable | None = None  # (func, args, kwargs)
    getitem: Callable | None = None   # (array, key)
    setitem: Callable | None = None   # (array, key, value)
    method: Callable | None = None    # (array, name) -> bound method


EAGER = Eager()

#: Held while a call reads Arrays' buffers, runs (donating some) and swaps in the new ones, so a
#: thread never hands XLA a buffer another thread's call has just donated (a call donating
#: nothing takes it only to run again, see `compiler.thunk._exchange`).
BUFFERS = threading.Lock()


_KEYS: dict = {}  # each key once, so a compiled call's check can compare keys by identity
_INTERNED = 4096  # distinct keys kept (one program rarely sees more); beyond, compared by value


def array_key(kind: type, aval: Aval, sharding=None) -> tuple:
    """An array's part of a call key: (type, aval), and its sharding when it spans several devices
    or puts it on a device other than the default one (whose programs run there)."""
    key = (kind, aval, sharding) if spans_devices(sharding) or elsewhere(sharding) else (kind, aval)
    if len(_KEYS) >= _INTERNED:
        _KEYS.clear()
    return _KEYS.setdefault(key, key)


def elsewhere(sharding) -> bool:
    """Whether `sharding` puts an array whole on one device that is not the default one."""
    return sharding is not None and sharding.num_devices == 1 and \
        next(iter(sharding.device_set)) != devices.default_device()


def device_of(key: tuple):
    """The device an array's key places it on, when not the default one, else None."""
    return next(iter(key[2].device_set)) if len(key) > 2 and elsewhere(key[2]) else None


class Array:
    """A device array: `solvent.asarray(np.zeros(3))`; `np.asarray(a)` copies it back to the host."""

    __slots__ = ("buffer", "key", "__weakref__")  # key: see `array_key`
    __array_priority__ = 100
    is_scalar = False

    def __init__(self, data, dtype=None, device=None, sharding=None):
        host = np.asarray(data, dtype=dtype)
        if self.is_scalar and host.shape != ():
            raise ValueError(f"solvent.Scalar needs a 0-d value, got shape {host.shape}")
        if sharding is not None and device is not None:
            raise ValueError("give either device= or sharding=, not both (a sharding names its devices)")
        sharding = canonical(sharding)
        self.buffer = devices.put(host, device if sharding is None else sharding)
        self.key = array_key(type(self), Aval(host.shape, host.dtype), sharding or self.buffer.sharding)

    @classmethod
    def from_buffer(cls, buffer, key: tuple) -> "Array":
        """Wrap a device buffer without copying (the thunk's constructor); `key` is (cls, aval)."""
        array = cls.__new__(cls)
        array.buffer, array.key = buffer, key
        return array

    aval = property(lambda self: self.key[1])
    shape = property(lambda self: self.aval.shape)
    dtype = property(lambda self: self.aval.dtype)
    ndim = property(lambda self: len(self.aval.shape))
    size = property(lambda self: int(np.prod(self.aval.shape, dtype=np.int64)))
    nbytes = property(lambda self: self.size * self.aval.dtype.itemsize)
    device = property(lambda self: next(iter(self.buffer.devices())))
    sharding = property(lambda self: self.buffer.sharding, doc="How the array is laid out over devices.")
    itemsize = property(lambda self: self.aval.dtype.itemsize)
    real = property(lambda self: np.real(self), lambda self, value: EAGER.function(setattr, (self, "real", value), {}))
    imag = property(lambda self: np.imag(self), lambda self, value: EAGER.function(setattr, (self, "imag", value), {}))
    T = property(lambda self: np.transpose(self))
    mT = property(lambda self: np.swapaxes(self, -1, -2), doc="The last two axes swapped (Array API).")

    def __len__(self) -> int:
        if not self.aval.shape:
            raise TypeError("len() of unsized object")
        return self.aval.shape[0]

    def __iter__(self):
        if not self.aval.shape:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(self.aval.shape[0]))

    def __contains__(self, value) -> bool:
        return bool(np.any(self == value))

    def __array__(self, dtype=None, copy=None):
        """The values on the host: read-only unless asked for a copy (`np.array(a)`)."""
        host = host_value(self.buffer)
        if dtype is not None and np.dtype(dtype) != host.dtype:
            return host.astype(dtype)
        return host.copy() if copy else host

    def __copy__(self) -> "Array":
        copied = np.copy(self)  # (an Array: a Scalar stays one)
        return type(self).from_buffer(copied.buffer, array_key(type(self), *copied.key[1:]))

    def __deepcopy__(self, memo) -> "Array":
        return self.__copy__()

    def __reduce__(self):
        """Pickled as its values, which unpickle onto the default device."""
        return type(self), (np.asarray(self),)

    def __format__(self, spec: str) -> str:
        return format(np.asarray(self), spec)

    def __str__(self) -> str:
        return str(np.asarray(self))

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        if max_version is not None and tuple(max_version) < (1, 0):
            max_version = None  # a consumer of the pre-1.0 protocol gets the unversioned capsule
        return self.buffer.__dlpack__(stream=stream, max_version=max_version, dl_device=dl_device, copy=copy)

    def __dlpack_device__(self):
        return self.buffer.__dlpack_device__()

    def __repr__(self) -> str:
        body = np.array2string(np.asarray(self), separator=", ", prefix="solvent.Array(")
        return f"solvent.{type(self).__name__}({body}, dtype={self.aval.dtype.name})"

    def block_until_ready(self) -> "Array":
        self.buffer.block_until_ready()
        return self

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return EAGER.ufunc(ufunc, method, inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        return EAGER.function(func, args, kwargs)

    def __getitem__(self, key):
        return EAGER.getitem(self, key)

    def __setitem__(self, key, value):
        EAGER.setitem(self, key, value)

    def __array_namespace__(self, *, api_version=None):
        """The Array API namespace of this array: `solvent.array_api`."""
        return dispatch.HOOKS.array_namespace(api_version)

    def to_device(self, device, /, *, stream=None) -> "Array":
        """This array on `device` (itself when it is there already; Array API)."""
        if device == self.device:
            return self
        buffer = devices.put(self.buffer, device)
        return type(self).from_buffer(buffer, array_key(type(self), self.aval, buffer.sharding))

    def __bool__(self):
        return bool(np.asarray(self))

    def __complex__(self):
        return complex(np.asarray(self))

    def __float__(self):
        return float(np.asarray(self))

    def __int__(self):
        return int(np.asarray(self))

    def __index__(self):
        return int(np.asarray(self).__index__())

    def item(self, *args):
        return np.asarray(self).item(*args)

    def tolist(self):
        return np.asarray(self).tolist()

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return EAGER.method(self, name)


class Scalar(Array):
    """A 0-d device value that `jit` traces instead of treating as a constant: `solvent.Scalar(0.5)`.
    It stands for a NumPy scalar: `total += e` makes a new one, `round(total, 2)` rounds."""

    __slots__ = ()
    is_scalar = True

    def __round__(self, ndigits=None):
        return round(np.asarray(self)[()], ndigits)


operators.install(Array)
operators.rebinding(Scalar)
ARRAY_TYPES.append(Array)
KEYED_TYPES.append(Array)


def asarray(data, dtype=None, device=None, sharding=None) -> Array:
    """A `solvent.Array` holding `data` on `device`, or laid out over several devices by `sharding`.

    An Array is returned as is when nothing changes; one given a new `sharding`
    is copied into that layout on the devices (no trip through the host)::

        mesh = solvent.sharding.mesh((8,), ("x",))
        a = solvent.asarray(np.zeros((1024, 3)), sharding=solvent.sharding.NamedSharding(mesh, P("x")))
    """
    if isinstance(data, Array) and (dtype is None or np.dtype(dtype) == data.dtype) and device is None:
        if sharding is None or canonical(sharding) == data.buffer.sharding:
            return data
        sharding = canonical(sharding)
        return type(data).from_buffer(devices.put(data.buffer, sharding), array_key(type(data), data.aval, sharding))
    return Array(np.asarray(data), dtype=dtype, device=device, sharding=sharding)
