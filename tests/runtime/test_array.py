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


def test_a_copy_a_pickle_and_np_array_hold_the_values_apart_from_the_original():
    """copy.copy shared the buffer (writing the copy deleted the original); pickling went through
    JAX's 32-bit types (2**40 + 7 came back as 7); np.array(a) was read-only."""
    import copy
    import pickle
    for host in (np.array([1.5, 2.0 ** 40 + 0.25]), np.array([2 ** 40 + 7, 3]), np.array(2.5)):
        a = solvent.asarray(host) if host.ndim else solvent.Scalar(host)
        for other in (copy.copy(a), copy.deepcopy(a), pickle.loads(pickle.dumps(a))):
            assert type(other) is type(a) and other.dtype == host.dtype and other is not a
            np.testing.assert_array_equal(np.asarray(other + 0), host)
        if host.ndim:  # (a Scalar, as a NumPy scalar, takes no item assignment)
            c = copy.copy(a)
            c[...] = 0
            np.testing.assert_array_equal(np.asarray(a), host)
        writable = np.array(a)
        writable[...] = 0
        np.testing.assert_array_equal(np.asarray(a), host)


def test_iteration_membership_and_sizes_as_ndarray():
    """A 0-d integer Array as a size gave shape () (NumPy iterated it as an empty sequence); `in`
    compared rows with a truth value of several elements."""
    k = solvent.Scalar(np.int64(2))
    assert np.zeros(k).shape == (2,) and np.full(k, 1.5).shape == (2,)
    with pytest.raises(TypeError, match="0-d"):
        iter(k)
    m = np.arange(6.0).reshape(2, 3)
    a = solvent.asarray(m)
    assert [np.asarray(row).tolist() for row in a] == m.tolist()
    assert (3.0 in a, 7.0 in a) == (3.0 in m, 7.0 in m) == (True, False)


def test_data_attributes_are_values_and_host_memory_has_none():
    z = np.array([1 + 2j, 3 - 4j])
    a = solvent.asarray(z)
    np.testing.assert_array_equal(np.asarray(a.real), z.real)
    np.testing.assert_array_equal(np.asarray(np.abs(a.imag)), np.abs(z.imag))
    assert a.itemsize == z.itemsize
    a.real, z.real = 0.5, 0.5
    a.imag, z.imag = np.array([5.0, 6.0]), np.array([5.0, 6.0])
    np.testing.assert_array_equal(np.asarray(a), z)
    for name in ("strides", "flags", "base", "ctypes"):
        with pytest.raises(AttributeError, match="no host memory"):
            getattr(a, name)


def test_a_scalar_is_used_as_a_numpy_scalar():
    """`total += e`, `f"{total:.3f}"`, `round(total, 2)` and `str(total)` as for the np.float64 an
    ndarray call returns."""
    total = solvent.Scalar(2.25)
    before = total
    total += 1.0
    assert type(total) is solvent.Scalar and float(total) == 3.25 and float(before) == 2.25
    assert f"{total:.3f}" == "3.250" and str(total) == "3.25"
    assert round(total, 1) == round(np.float64(3.25), 1) and round(total) == 3
    assert f"{solvent.asarray(np.arange(2.0))}" == f"{np.arange(2.0)}"
