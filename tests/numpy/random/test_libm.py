"""glibc's log1p, exp and log (and log1pf and expf, of floats) as array code against the C library
itself: bit for bit where XLA compiles them (with the FMA fusions of the build this machine's
library runs), and the plain build where NumPy computes them, which no FMA fuses."""

from __future__ import annotations

import ctypes
import ctypes.util

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import solvent
from solvent.numpy.random import libm

_LIBRARY = ctypes.CDLL(ctypes.util.find_library("m"))


def _c(name: str, x: np.ndarray) -> np.ndarray:
    function = getattr(_LIBRARY, name)
    kind, dtype = (ctypes.c_float, np.float32) if name.endswith("f") else (ctypes.c_double, np.float64)
    function.restype, function.argtypes = kind, [kind]
    return np.array([function(float(v)) for v in x], dtype)


def _floats(seed: int, n: int) -> np.ndarray:
    """n of NumPy's float32 uniforms in [0, 1) (24 bits of a 32-bit word), the float ziggurat's inputs."""
    words = np.random.default_rng(seed).integers(0, 2 ** 32, n, dtype=np.uint64)
    return (words >> np.uint64(8)).astype(np.float32) * np.float32(2.0 ** -24)


def _doubles(seed: int, n: int) -> np.ndarray:
    """n of NumPy's 53-bit doubles in [0, 1), the ziggurat's inputs."""
    words = np.random.default_rng(seed).integers(0, 2 ** 53, n, dtype=np.uint64)
    return words.astype(np.float64) * 2.0 ** -53


INPUTS = {
    "log1p": lambda u: [-u, -u ** 8, -u * 2.0 ** -30, -(1 - u * 2.0 ** -20), u * 1e6, np.array([0.0, -0.0, -0.5])],
    "exp": lambda u: [-8 * u, -u * 1e-12, 300 * (u - 0.5), np.array([0.0, -0.0, -2.0 ** -55, 1.0])],
    "log": lambda u: [u + 2.0 ** -53, 1 - u * 0.07, 1 + u * 0.07, u * 1e-300 + 1e-300, 1 + u * 1e6,
                      np.array([1.0, 0.5, 0.9375, 1.0 + 0x109 / 2 ** 12, 2.0, 1e300])],
}


@settings(max_examples=3, deadline=None)
@given(st.integers(0, 2 ** 32))
@pytest.mark.parametrize("name", ["log1p", "exp", "log"])
def test_compiled_as_the_c_library_rounds(name, seed):
    compiled = solvent.jit(lambda x: getattr(libm, name)(x, libm.fused(name)))
    for x in INPUTS[name](_doubles(seed, 20000)):
        assert np.array_equal(compiled(x).view(np.uint64), _c(name, x).view(np.uint64))


@pytest.mark.parametrize("name", ["log1p", "exp", "log"])
def test_the_plain_build_compiled_as_numpy_computes_it(name):
    """Without fusions, XLA's result is NumPy's, operation for operation: every multiply-add and
    every sum with a constant is kept apart (`libm.rounded`)."""
    compiled = solvent.jit(lambda x: getattr(libm, name)(x, False))
    for x in INPUTS[name](_doubles(1, 20000)):
        assert np.array_equal(compiled(x).view(np.uint64), getattr(libm, name)(x, False).view(np.uint64))


FLOAT_INPUTS = {
    "log1pf": lambda u: [-u, u * np.float32(0.4), -u * np.float32(1e-5),
                         np.array([0.0, -0.0, -0.5, -0.25], np.float32)],
    "expf": lambda u: [-8 * u, -u * np.float32(1e-6), 80 * (u - np.float32(0.5)),
                       np.array([0.0, -0.0, -1.0], np.float32)],
}


@settings(max_examples=3, deadline=None)
@given(st.integers(0, 2 ** 32))
@pytest.mark.parametrize("name", ["log1pf", "expf"])
def test_floats_compiled_and_on_numpy_arrays_as_the_c_library_rounds(name, seed):
    function = (lambda x: libm.log1pf(x, libm.fused(name))) if name == "log1pf" else libm.expf
    compiled = solvent.jit(function)
    for x in FLOAT_INPUTS[name](_floats(seed, 20000)):
        want = _c(name, x).view(np.uint32)
        assert np.array_equal(compiled(x).view(np.uint32), want)
        assert np.array_equal(function(x).view(np.uint32), want)


def test_the_build_is_told_by_its_probes():
    for name in ("log1p", "exp", "log", "log1pf"):
        probes = libm._PROBES[name]
        got = _c(name, np.array([float.fromhex(x) for x, _, _ in probes]))
        column = 2 if libm.fused(name) else 1
        assert list(got) == [float.fromhex(p[column]) for p in probes]


def test_rounded_is_an_identity():
    x = np.array([1.5, -0.0, np.inf])
    assert np.array_equal(libm.rounded(x), x) and np.signbit(libm.rounded(x)[1])


def test_rounded_keeps_products_apart_where_no_nan_can_be():
    """Squares of converted integers are never NaN: a select on x == x would be folded away there,
    and XLA would fuse one square into the sum (NumPy's legacy Gaussian rounds both)."""
    m = np.random.default_rng(0).integers(-2 ** 52, 2 ** 52, (5000, 2))

    def squares(m):
        x = m.astype(np.float64) * 2.0 ** -52
        return libm.rounded(x[:, 0] * x[:, 0]) + libm.rounded(x[:, 1] * x[:, 1])
    assert np.array_equal(solvent.jit(squares)(m), squares(m))
