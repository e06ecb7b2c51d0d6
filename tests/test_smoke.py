"""End to end: a mutating NumPy function through the whole pipeline."""

import numpy as np

import solvent
from differential import check_like_numpy


def step(u, v, dt):
    u[1:-1] += dt * (v[2:] - v[:-2])
    return np.sum(u * u)


def test_design_example_on_device_arrays():
    u = solvent.asarray(np.zeros(16))
    v = solvent.asarray(np.linspace(0, 1, 16) ** 2)
    e = solvent.jit(step)(u, v, 0.1)
    u_ref, v_ref = np.zeros(16), np.linspace(0, 1, 16) ** 2
    expected = step(u_ref, v_ref, 0.1)
    np.testing.assert_allclose(float(e), expected, rtol=1e-14)
    np.testing.assert_allclose(np.asarray(u), u_ref, rtol=1e-14)
    np.testing.assert_array_equal(np.asarray(v), v_ref)


def test_design_example_on_numpy_arrays():
    check_like_numpy(step, np.zeros(16), np.linspace(0, 1, 16) ** 2, 0.1)
