"""The PJRT client and devices, and placing host data on a device without losing precision."""

from __future__ import annotations

import functools

import jax
import numpy as np
from jax._src import core
from jaxlib import _jax

from solvent.errors import ShardingError


@functools.lru_cache(maxsize=None)
def default_device():
    """The first local device of the default backend (XLA's CPU client on this machine)."""
    return jax.local_devices()[0]


def resolve(device=None):
    """A device from `device=` (None, an index, or a device object)."""
    if device is None:
        return default_device()
    if isinstance(device, int):
        return jax.local_devices()[device]
    return device


def put(host: np.ndarray, device=None) -> jax.Array:
    """Copy a host array to `device` (None, an index, a device, or a sharding that lays it out
    over several devices, each getting its part), keeping 64-bit dtypes 64-bit.

    A numeric ndarray bound for one device goes straight to jaxlib's C++ transfer (`_copied_in`),
    always copied: `jax.device_put` shares a 64-byte aligned ndarray's memory on the CPU, so writing
    the ndarray later changed the Array made of it (an ndarray laid out over several devices is
    copied before `jax.device_put` for the same reason). Anything else goes through `jax.device_put`,
    which narrows float64 to float32 unless JAX's x64 mode is on: the mode is switched on for this
    call only, so other JAX code in the process is not affected.
    """
    target = resolve(device)
    if type(host) is np.ndarray and host.dtype.kind in "biufc" and isinstance(target, jax.Device):
        return _copied_in(host if host.dtype.isnative else native(host), target)
    if isinstance(host, np.ndarray):
        host = host.copy()
    if isinstance(target, jax.sharding.NamedSharding):
        _check_divides(np.shape(host), target)
    with jax.enable_x64(True):
        return jax.device_put(host, target)


def _check_divides(shape: tuple, sharding) -> None:
    """Refuse a layout whose mesh axes do not split an array's dimension into equal parts."""
    for dim, axes in enumerate(sharding.spec):
        names = () if axes is None else (axes,) if isinstance(axes, str) else tuple(axes)
        parts = int(np.prod([sharding.mesh.shape[name] for name in names], dtype=np.int64))
        if dim < len(shape) and shape[dim] % parts:
            raise ShardingError(f"{sharding.spec} splits dimension {dim} of an array of shape {shape} into {parts} "
                                f"parts, which {shape[dim]} is no multiple of; pad the array to a multiple of "
                                f"{parts}, or choose a mesh (or PartitionSpec) that divides it")


def native(host: np.ndarray) -> np.ndarray:
    """A big-endian (or otherwise byte-swapped) host array in the machine's byte order."""
    return host.astype(host.dtype.newbyteorder("="))


def _copied_in(host: np.ndarray, device) -> jax.Array:
    """`host` copied to `device` by jaxlib's `batched_device_put` (internal API: what
    `jax.device_put` calls after Python layers that cost 25 of its 31 us for 1041 doubles),
    64-bit, its data copied before the call returns (the caller may write `host` next)."""
    return _jax.batched_device_put(core.ShapedArray(host.shape, host.dtype), _single(device), [host], [device],
                                   True, False, _jax.HostBufferSemantics.IMMUTABLE_ONLY_DURING_CALL, True)


@functools.lru_cache(maxsize=None)
def _single(device):
    return jax.sharding.SingleDeviceSharding(device)
