"""solvent.Array and solvent.Scalar: device handles that behave like NumPy arrays."""

import jax
import numpy as np
import pytest

import solvent


def test_asarray_keeps_dtype_and_values():
    for dtype in (np.float64, np.float32, np.int64, np.int8, np.uint16, np.bool_, np.complex128):
        host = (np.arange(6) % 3).astype(dtype).reshape(2, 3)
        a = solvent.asarray(host)
        assert a.dtype == host.dtype and a.shape == (2, 3) and a.ndim == 2 and a.size == 6 and len(a) == 2
        back = np.asarray(a)
        assert back.dtype == host.dtype
        np.testing.assert_array_equal(back, host)


def test_float64_precision_survives_the_device_and_jax_config_is_untouched():
    value = np.array([1.0 + 2.0 ** -40])
    a = solvent.asarray(value)
    assert np.asarray(a)[0] == value[0]
    assert jax.config.jax_enable_x64 is False or jax.config.jax_enable_x64 == jax.config.read("jax_enable_x64")
    assert not jax.config.jax_enable_x64, "solvent must not switch on JAX's x64 mode globally"


def test_asarray_of_array_is_identity_and_dtype_converts():
    a = solvent.asarray(np.ones(3))
    assert solvent.asarray(a) is a
    b = solvent.asarray(a, dtype=np.float32)
    assert b.dtype == np.float32 and b is not a


def test_repr_and_dunder_array():
    a = solvent.asarray(np.array([1.5, 2.5]))
    assert repr(a) == "solvent.Array([1.5, 2.5], dtype=float64)"
    assert np.array(a, dtype=np.int64).tolist() == [1, 2]
    assert a.tolist() == [1.5, 2.5]


def test_dlpack_round_trip():
    a = solvent.asarray(np.arange(4.0))
    np.testing.assert_array_equal(np.from_dlpack(a), np.arange(4.0))


def test_scalar_is_zero_dimensional():
    s = solvent.Scalar(2.5)
    assert s.shape == () and float(s) == 2.5 and s.is_scalar
    with pytest.raises(ValueError):
        solvent.Scalar(np.ones(2))


def test_len_of_zero_d_raises():
    with pytest.raises(TypeError):
        len(solvent.Scalar(1.0))
