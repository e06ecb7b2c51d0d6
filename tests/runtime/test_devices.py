"""Placing host data on a device (`runtime.devices.put`): every dtype, layout and byte order
arrives as it was, 64-bit stays 64-bit with JAX's x64 mode off, and the copy is the device's own
(`jax.device_put` shared a 64-byte aligned ndarray's memory: writing it changed the Array)."""

from __future__ import annotations

import jax
import numpy as np
import pytest

import solvent
from solvent.runtime import devices

_BASE = np.arange(24.0).reshape(4, 6)


@pytest.mark.parametrize("host", [
    _BASE, _BASE.T, _BASE[:, ::2], np.float64(2.5) * np.ones(()), np.zeros((0, 3)),
    np.arange(7, dtype=np.int64) - 3, np.arange(5, dtype=np.uint64) << np.uint64(60),
    np.array([1 + 2j, -3j]), np.array([True, False]), np.arange(4, dtype=np.float16),
    np.arange(5, dtype=">i8"), np.arange(3, dtype=">f8"),  # not the machine's byte order
], ids=lambda a: f"{a.dtype.str}{a.shape}{'' if a.flags.c_contiguous else '-strided'}")
def test_put_copies_values_and_dtype(host):
    assert not jax.config.jax_enable_x64
    placed = devices.put(host)
    assert placed.dtype == host.dtype.newbyteorder("=") and placed.shape == host.shape
    np.testing.assert_array_equal(np.asarray(placed), host)
    assert placed.devices() == {devices.default_device()}


def aligned(n: int) -> np.ndarray:
    """n float64 zeros at a 64-byte aligned address (where jax.device_put shares the memory)."""
    raw = np.zeros(n + 8)
    start = (-raw.ctypes.data % 64) // 8
    return raw[start:start + n]


def test_put_copies_before_returning():
    host = aligned(1041)
    host[:] = np.random.default_rng(0).random(1041)
    expected = host.copy()
    placed = devices.put(host)
    host[:] = -1.0
    np.testing.assert_array_equal(np.asarray(placed), expected)


def test_an_array_made_of_an_ndarray_does_not_share_its_memory():
    host = aligned(64)
    array = solvent.asarray(host)
    host[0] = 99.0
    assert np.asarray(array)[0] == 0.0


def test_put_takes_an_index_a_device_and_a_sharding():
    host = np.arange(6.0)
    device = devices.default_device()
    for where in (0, device, jax.sharding.SingleDeviceSharding(device)):
        placed = devices.put(host, where)
        np.testing.assert_array_equal(np.asarray(placed), host)
        assert placed.sharding == jax.sharding.SingleDeviceSharding(device)
