"""Numerical functions that are not ufuncs against NumPy: rounding, tolerance tests, differences,
gradients, convolution, interpolation, integration, polynomials, and vecdot/matvec/vecmat."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import solvent
from numpy_samples import EVERY_DTYPE, elements, check, check_or_raises, sample

SPECIAL = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 2.5, 1e300])


def _sample(dtype, shape=(3, 5), seed=3):
    """Values in [-40, 40] with ties at .5 (rounding) for every dtype."""
    return sample(dtype, shape, -40, 40, seed=seed, halves=True)


# -- rounding and elementwise tests -------------------------------------------------------------

@pytest.mark.parametrize("dtype", EVERY_DTYPE, ids=str)
def test_round(dtype):
    """Half to even; negative decimals on integers go through float64 and wrap as NumPy's."""
    x = _sample(dtype)
    for decimals in (0, 1, 2, -1, -2):
        check_or_raises(lambda x: (np.round(x, decimals), np.around(x[0], decimals=decimals)), x)


def test_round_ties_extremes_and_out():
    check(lambda x: (np.round(x, 2), np.round(x, -2), np.round(x[:2], 10)), np.array([1.5, 2.5, 0.125, 1.005, 1250.0]))
    check(lambda x: np.round(x, -1), np.array([15, 25, -15, 127, -128], dtype=np.int8))
    check(lambda x: np.round(x, -19), np.array([2 ** 62, -(2 ** 62), 5], dtype=np.int64))

    def into(x, out):
        np.round(x, 1, out=out)
        return out
    check(into, np.array([0.25, 0.35, -1.45]), np.zeros(3, np.float32))


@pytest.mark.parametrize("dtype", EVERY_DTYPE, ids=str)
def test_elementwise_functions(dtype):
    x = _sample(dtype)
    check_or_raises(lambda x: (np.fix(x), np.nan_to_num(x), np.sinc(x), np.angle(x), np.angle(x, deg=True),
                               np.isreal(x), np.iscomplex(x), np.isrealobj(x), np.iscomplexobj(x)), x)
    check_or_raises(lambda x: (np.isposinf(x), np.isneginf(x)), x)
    check_or_raises(lambda x: np.i0(x / 8), x)


def test_nan_to_num_special_values_and_in_place():
    check(lambda x: (np.nan_to_num(x), np.nan_to_num(x, nan=5.0, posinf=1e10, neginf=-3),
                     np.nan_to_num(x.astype(np.float32)), np.nan_to_num(x.astype(np.float16), posinf=1e300),
                     np.nan_to_num(x + 1j * x[::-1]), np.nan_to_num(x[0])), SPECIAL)

    def in_place(x):
        y = np.nan_to_num(x, copy=False)
        return y is x, x
    check(in_place, SPECIAL.copy())


def test_special_values_of_elementwise_functions():
    check(lambda x, z: (np.sinc(x), np.isposinf(x), np.isneginf(x), np.i0(x), np.fix(x), np.angle(z), np.angle(x)),
          SPECIAL, SPECIAL * (1 - 1j))


def test_real_if_close_is_unsupported():
    with pytest.raises(solvent.UnsupportedError, match="real_if_close"):
        solvent.jit(lambda x: np.real_if_close(x))(np.ones(3, complex))


@pytest.mark.parametrize("dtype", EVERY_DTYPE, ids=str)
def test_tolerance_and_equality(dtype):
    x = _sample(dtype)
    y = x[::-1].copy()
    check(lambda x, y: (np.isclose(x, y), np.isclose(x, 1.0), np.isclose(3, x), np.allclose(x, x),
                        np.allclose(x, y, rtol=0.5, atol=2), np.array_equal(x, y), np.array_equal(x, x),
                        np.array_equal(x, x[:1]), np.array_equiv(x, x[:1]), np.array_equiv(x, x[0]),
                        np.array_equiv(x, x[:, :2])), x, y)


def test_tolerance_with_nan_and_infinities():
    y = SPECIAL[::-1].copy()
    check(lambda x, y: (np.isclose(x, y), np.isclose(x, y, equal_nan=True), np.isclose(x, x, equal_nan=True),
                        np.array_equal(x, x), np.array_equal(x, x, equal_nan=True), np.allclose(x, x, equal_nan=True),
                        np.allclose(x, y)), SPECIAL, y)


# -- differences and gradients --------------------------------------------------------------------

@pytest.mark.parametrize("dtype", EVERY_DTYPE, ids=str)
def test_diff_and_ediff1d(dtype):
    x = _sample(dtype)
    check_or_raises(lambda x: (np.diff(x), np.diff(x, n=2, axis=0), np.diff(x, n=0), np.diff(x, prepend=x[:, :1]),
                               np.diff(x, axis=0, append=0), np.diff(x, n=7)), x)
    check_or_raises(lambda x: (np.ediff1d(x), np.ediff1d(x[0], to_begin=x[1, :2], to_end=[1, 2])), x)


def test_diff_errors():
    check_or_raises(lambda x: np.diff(x, n=-1), np.ones(3))
    check_or_raises(lambda x: np.diff(x), np.array(1.0))
    check_or_raises(lambda x: np.ediff1d(x, to_end=[1.5]), np.arange(3))


@settings(max_examples=25, deadline=None)
@given(data=st.data(), dtype=st.sampled_from(EVERY_DTYPE),
       shape=hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=5), n=st.integers(0, 3))
def test_random_diff(data, dtype, shape, n):
    x = data.draw(hnp.arrays(dtype, shape, elements=elements(dtype, bound=20)))
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    check_or_raises(lambda x: np.diff(x, n=n, axis=axis), x)


@pytest.mark.parametrize("dtype", EVERY_DTYPE, ids=str)
def test_gradient(dtype):
    x = _sample(dtype)
    check_or_raises(lambda x: (np.gradient(x), np.gradient(x, 2.0, axis=1), np.gradient(x, edge_order=2),
                               np.gradient(x, np.array([0.0, 1.0, 3.0]), np.arange(5) ** 2, edge_order=2),
                               np.gradient(x, 0.5, np.arange(5.0), axis=(0, -1)), np.gradient(x[0])), x, scale=4)


def test_gradient_with_traced_coordinates_and_errors():
    check(lambda f, t: (np.gradient(f, t), np.gradient(f, t, edge_order=2)), np.sin(np.arange(6.0) ** 1.5),
          np.arange(6.0) ** 1.5)
    check_or_raises(lambda f: np.gradient(f, edge_order=2), np.ones(2))
    check_or_raises(lambda f: np.gradient(f, edge_order=3), np.ones(5))
    check_or_raises(lambda f: np.gradient(f, np.ones(3)), np.ones(5))


@settings(max_examples=20, deadline=None)
@given(data=st.data(), dtype=st.sampled_from([np.dtype(t) for t in (np.int16, np.float32, np.float64, np.complex128)]),
       shape=hnp.array_shapes(min_dims=1, max_dims=3, min_side=3, max_side=5), edge_order=st.sampled_from([1, 2]),
       spacing=st.floats(0.25, 4.0))
def test_random_gradient(data, dtype, shape, edge_order, spacing):
    f = data.draw(hnp.arrays(dtype, shape, elements=elements(dtype, bound=20)))
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    check(lambda f: np.gradient(f, spacing, axis=axis, edge_order=edge_order), f, scale=10)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64], ids=str)
def test_unwrap(dtype):
    p = np.array([0, 1, 6, 12, 3, -7, 2, 9, 0.5, 20.0]).astype(dtype)
    check(lambda p: (np.unwrap(p), np.unwrap(p, period=4), np.unwrap(p.reshape(2, 5), axis=0),
                     np.unwrap(p, discont=4.0), np.unwrap(p, period=6)), p)


# -- convolution and correlation --------------------------------------------------------------

@pytest.mark.parametrize("dtype", EVERY_DTYPE, ids=str)
def test_convolve_and_correlate(dtype):
    a, v = _sample(dtype, (7,), seed=4), _sample(dtype, (3,), seed=5)
    for mode in ("full", "same", "valid"):
        check(lambda a, v: (np.convolve(a, v, mode), np.convolve(v, a, mode), np.correlate(a, v, mode),
                            np.correlate(v, a, mode)), a, v)


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.complex128], ids=str)
def test_long_kernels(dtype):
    """A 40-tap filter over 300 samples (one XLA convolution for floats, slices otherwise)."""
    a, v = sample(dtype, (300,), seed=13), sample(dtype, (40,), seed=14)
    check(lambda a, v: (np.convolve(a, v, "same"), np.correlate(v, a, "full")), a, v, scale=10)


@settings(max_examples=20, deadline=None)
@given(data=st.data(), dtype=st.sampled_from(EVERY_DTYPE), sizes=st.tuples(st.integers(0, 6), st.integers(0, 6)),
       mode=st.sampled_from(["full", "same", "valid", 0, 2, "f"]),
       function=st.sampled_from([np.convolve, np.correlate]))
def test_random_convolution(data, dtype, sizes, mode, function):
    a, v = (data.draw(hnp.arrays(dtype, n, elements=elements(dtype, bound=5))) for n in sizes)
    check_or_raises(lambda a, v: function(a, v, mode), a, v)


# -- interpolation and integration ---------------------------------------------------------------

def test_interp():
    xp, fp = np.array([0.0, 1.0, 2.5, 4.0, 7.0]), np.array([1.0, -2.0, 3.0, np.inf, 0.5])
    x = np.array([-1.0, 0.0, 0.5, 1.0, 3.0, 4.0, 5.0, 7.0, 8.0, np.nan])
    check(lambda x, xp, fp: (np.interp(x, xp, fp), np.interp(x, xp, fp, left=-9, right=9),
                             np.interp(x, xp, fp + 1j), np.interp(2.0, xp, fp), np.interp(x, xp, fp + 0j, right=1 + 2j),
                             np.interp(x.reshape(2, 5), xp, fp)), x, xp, fp)
    check_or_raises(lambda x, xp, fp: np.interp(x, xp, fp, right=1 + 2j), x, xp, fp)
    check(lambda x, fp: np.interp(x, [0, 1, 2], fp), np.array([0.5, 1, 3], np.float32), np.array([1, 5, 2], np.int8))


def test_interp_with_period_and_errors():
    check(lambda x, xp, fp: np.interp(x, xp, fp, period=6), np.array([-1.0, 0.0, 0.5, 8.0, 12.5]),
          np.array([4.0, 0.0, 2.0]), np.array([1.0, 2.0, 3.0]))
    check_or_raises(lambda x: np.interp(x, [1.0, 2.0], [1.0]), np.ones(2))
    check_or_raises(lambda x: np.interp(x, [], []), np.ones(2))
    check_or_raises(lambda x: np.interp(x, [1.0, 2.0], [1.0, 3.0], period=0), np.ones(2))


@settings(max_examples=20, deadline=None)
@given(data=st.data(), n=st.integers(1, 6))
def test_random_interp(data, n):
    xp = np.sort(data.draw(hnp.arrays(np.float64, n, elements=st.floats(-10, 10), unique=True)))
    fp = data.draw(hnp.arrays(np.float64, n, elements=st.floats(-10, 10)))
    x = data.draw(hnp.arrays(np.float64, st.integers(0, 6), elements=st.floats(-12, 12)))
    check(lambda x, xp, fp: np.interp(x, xp, fp), x, xp, fp)


@pytest.mark.parametrize("dtype", EVERY_DTYPE, ids=str)
def test_trapezoid(dtype):
    y = _sample(dtype)
    check_or_raises(lambda y: (np.trapezoid(y), np.trapezoid(y, dx=0.5, axis=0), np.trapezoid(y, np.arange(5.0) ** 2),
                               np.trapezoid(y, y.real.astype(float) if y.dtype.kind == "c" else y, axis=0)), y,
                    scale=4)


# -- polynomials ------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", EVERY_DTYPE, ids=str)
def test_polynomials(dtype):
    p, x = _sample(dtype, (3,), seed=6), _sample(dtype, (2, 4), seed=7)
    check_or_raises(lambda p, x: (np.polyval(p, x), np.polyval(p, 2), np.polyval([1, 2], x), np.polyadd(p, x[0]),
                                  np.polysub(x[0, :2], p), np.polysub(p, 3), np.polyder(p), np.polyder(p, 4),
                                  np.polyint(p), np.polyint(p, 2, k=[1, 2]), np.polyint(p, 3, k=2),
                                  np.polymul(p, x[0, :2]), np.polymul(p, [0, 0, 1, 2])), p, x)


def test_vander():
    for dtype in (np.bool_, np.int8, np.uint64, np.float32, np.complex64):
        x = _sample(dtype, (4,), seed=8)
        check(lambda x: (np.vander(x), np.vander(x, 2, increasing=True), np.vander(x, 0), np.vander(x, 6)), x)
    check_or_raises(lambda x: np.vander(x), np.ones((2, 2)))


# -- vecdot, matvec, vecmat ------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", EVERY_DTYPE, ids=str)
def test_vector_gufuncs(dtype):
    a, v = _sample(dtype, (2, 3, 4), seed=9), _sample(dtype, (3, 4), seed=10)
    check_or_raises(lambda a, v: (np.vecdot(a, v), np.vecdot(v, a[0], axis=0), np.matvec(a, v[0]),
                                  np.vecmat(v[:, 0], a), np.vecdot(a, v, dtype=np.complex128)), a, v)


@pytest.mark.parametrize("deg", [0, 1, 3], ids=str)
@pytest.mark.parametrize("columns", [None, 2], ids=["y1d", "y2d"])
def test_polyfit(deg, columns):
    x = np.linspace(-1, 1, 12)
    y = sample(np.float64, (12,) if columns is None else (12, columns), seed=3) + 2 * x.reshape(12, *[1] * bool(columns))
    w = np.abs(sample(np.float64, (12,), seed=4)) + 0.5
    check(lambda x, y, w: (np.polyfit(x, y, deg), np.polyfit(x, y, deg, w=w), np.polyfit(x, y, deg, full=True),
                           np.polyfit(x, y, deg, cov=True), np.polyfit(x, y, deg, cov="unscaled")), x, y, w,
          scale=1e3)
    check_or_raises(lambda x, y: np.polyfit(x, y, -1), x, y)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.int8], ids=str)
def test_poly_of_real_roots(dtype):
    check(lambda r: (np.poly(r), np.poly(r[:1]), np.poly(r[:0])), sample(dtype, (4,), seed=5))
    with pytest.raises(solvent.UnsupportedError, match="np.poly"):
        solvent.jit(np.poly)(np.eye(2))
