"""The PJRT client and devices, and placing host data on a device without losing precision."""

from __future__ import annotations

import functools

import jax
import numpy as np


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

    `jax.device_put` narrows float64 to float32 unless JAX's x64 mode is on; the
    mode is switched on for this call only, so other JAX code in the process is
    not affected.
    """
    with jax.enable_x64(True):
        return jax.device_put(host, resolve(device))
