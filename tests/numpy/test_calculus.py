"""Differences, gradients, convolution, interpolation and integration against NumPy."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import solvent
from numpy_samples import EVERY_DTYPE, elements, check, check_or_raises, sample

def _sample(dtype, shape=(3, 5), seed=3):
    """Values in [-40, 40] with ties at .5 (rounding) for every dtype."""
    return sample(dtype, shape, -40, 40, seed=seed, halves=True)



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


@pytest.mark.parametrize("edge_order", [1, 2])
def test_gradient_of_the_fewest_elements_it_takes(edge_order):
    """Two elements (three for edge_order=2): one-sided differences only, the interior empty."""
    x = np.arange(2.0 * (edge_order + 1)).reshape(2, edge_order + 1) ** 2
    check_or_raises(lambda x: (np.gradient(x, axis=-1, edge_order=edge_order), np.gradient(x[:, :2], 0.5, axis=1),
                               np.gradient(x[0, :edge_order + 1], np.arange(edge_order + 1.0) ** 2,
                                           edge_order=edge_order)), x)


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


def test_convolve_with_a_number_or_a_0d_array():
    """convolve takes them as arrays of one element (a raw reshape error before); correlate raises."""
    check(lambda a, v: (np.convolve(a, v), np.convolve(v, a), np.convolve(a, 2.0)), np.arange(3.0), np.array(2.0))
    check_or_raises(lambda a, v: np.correlate(a, v), np.arange(3.0), np.array(2.0))


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.complex128], ids=str)
def test_long_kernels(dtype):
    """A 40-tap filter over 300 samples (XLA convolutions for floats and complex values, slices for
    integers)."""
    a, v = sample(dtype, (300,), seed=13), sample(dtype, (40,), seed=14)
    check(lambda a, v: (np.convolve(a, v, "same"), np.correlate(v, a, "full")), a, v, scale=10)


def test_long_filters_make_small_modules():
    """Complex filters are four real convolutions, integer ones a loop (a slice per coefficient made
    1024 complex taps a module that took 3.5 s to compile)."""
    a, v = np.zeros(4096, np.complex128), np.zeros(1024, np.complex128)
    module = solvent.code_hlo(lambda a, v: np.convolve(a, v), a, v)
    assert module.count("stablehlo.convolution") == 4 and module.count("stablehlo.slice") < 8
    module = solvent.code_hlo(lambda a, v: np.convolve(a, v), a.real.astype(np.int64), v.real.astype(np.int8))
    assert module.count("stablehlo.while") == 1 and module.count("stablehlo.slice") < 8


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


def test_interp_of_complex_points_raises_as_numpys():
    """Complex x or xp do not cast safely to float64; their imaginary parts were dropped."""
    check_or_raises(lambda x: np.interp(x, [0.0, 1.0], [0.0, 1.0]), np.array([0.5 + 1j, 0.25 + 0j]))
    check_or_raises(lambda x: np.interp(0.5, x, [0.0, 1.0]), np.array([0.0 + 0j, 1.0 + 0j]))


def test_interp_finds_intervals_without_a_point_by_sample_table():
    """A binary search per point: counting the samples below each point made a len(x) x len(xp) array
    (10^6 points in 1000 samples asked for 32 GB)."""
    x, xp = np.linspace(-0.1, 1.1, 3000), np.sort(np.random.default_rng(2).random(700))
    check(lambda x, xp, fp: np.interp(x, xp, fp), x, xp, np.cos(xp))
    check(lambda x: np.interp(x, [1.0], [5.0], left=-1.0), np.array([np.nan, 0.0, 1.0, 2.0]))  # (NaN: fp[0])
    assert "3000x700" not in solvent.code_hlo(lambda x, xp, fp: np.interp(x, xp, fp), x, xp, np.cos(xp))


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


def test_interp_with_a_traced_period():
    check(lambda x: np.interp(x * 7, [0.0, 1.0, 2.0], [0.0, 5.0, 1.0], period=x[0] + 3), np.array([0.1, 0.5, 0.9, 0.3]))


def test_the_gradient_of_interp_is_finite_at_and_past_the_ends():
    """The clamped interval past the ends divided 0 by 0: never chosen, but its NaN reached the gradient."""
    xp, fp = np.linspace(0, 1, 6), np.arange(6.0) ** 2
    x = np.array([-0.1, 0.0, 0.35, 1.0, 1.2])
    gradient = solvent.grad(lambda fp: np.sum(np.interp(x, xp, fp) * np.arange(1.0, 6.0)))(fp)
    expected = [(np.sum(np.interp(x, xp, fp + h * e) * np.arange(1.0, 6.0)) -
                 np.sum(np.interp(x, xp, fp - h * e) * np.arange(1.0, 6.0))) / (2 * h)
                for h in [1e-6] for e in np.eye(6)]
    np.testing.assert_allclose(gradient, expected, rtol=1e-8, atol=1e-8)
