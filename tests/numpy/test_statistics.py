"""Order statistics and summaries (median, quantile, percentile and their nan* forms, average, cov,
corrcoef, histogram, histogram_bin_edges, bincount, digitize) against NumPy: methods, axes, keepdims,
static and traced q, NaNs, weights, result dtypes and NumPy's errors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import solvent
from numpy_samples import FLOAT, INTEGER, elements, check, check_or_raises, sample
from differential import check_types_like_numpy

METHODS = ["linear", "lower", "higher", "nearest", "midpoint", "hazen", "weibull", "median_unbiased",
           "normal_unbiased", "interpolated_inverted_cdf", "inverted_cdf", "averaged_inverted_cdf",
           "closest_observation"]
TRACED_Q_METHODS = METHODS[:10]
AXES = [None, 0, 1, -1, (0, 2), (2, 0, 1)]


def _with_nans(shape=(4, 6), seed=0):
    x = sample(np.float64, shape, seed=seed)
    x[1, 2] = np.nan
    x[2, :] = np.nan
    x[3, ::2] = np.nan
    return x


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint32, np.int64, np.float16, np.float32, np.float64,
                                   np.complex128], ids=str)
def test_median_dtypes(dtype):
    check(lambda x: (np.median(x), np.median(x, axis=0), np.median(x, axis=1, keepdims=True)),
          sample(dtype, (5, 4), seed=1))


@pytest.mark.parametrize("axis", AXES, ids=str)
def test_median_axes(axis):
    x = sample(np.float64, (3, 4, 5), seed=2)
    check(lambda x: (np.median(x, axis=axis), np.median(x, axis=axis, keepdims=True)), x)


def test_median_nans_empty_and_zero_d():
    check(lambda x: (np.median(x), np.median(x, axis=1), np.median(x, axis=0)), _with_nans())
    check(lambda x: np.median(x, axis=0), np.zeros((0, 3)))
    check(lambda x: np.median(x), np.array(2.5))


@pytest.mark.parametrize("method", METHODS)
def test_quantile_methods_static_q(method):
    x = sample(np.float64, (5, 7), seed=3)
    q = [0.0, 0.1, 0.25, 0.5, 0.77, 1.0]
    check(lambda x: (np.quantile(x, q, axis=1, method=method), np.quantile(x, 0.3, method=method),
                     np.percentile(x, [12.5, 90], axis=0, method=method, keepdims=True)), x)
    check(lambda x: np.percentile(x, 35, axis=0, method=method), sample(np.int32, (4, 3), seed=4))


@pytest.mark.parametrize("dtype", INTEGER + FLOAT + [np.dtype(np.float16)], ids=str)
def test_quantile_result_dtypes(dtype):
    """A Python float q keeps float32 data in float32; integers interpolate in float64."""
    x = sample(dtype, (9,), -6, 6, seed=5)
    check(lambda x: (np.quantile(x, 0.4), np.percentile(x, 40.0), np.quantile(x, 0.4, method="lower"),
                     np.quantile(x, np.array([0.1, 0.9]))), x)


@pytest.mark.parametrize("method", TRACED_Q_METHODS)
def test_quantile_traced_q(method):
    x = sample(np.float64, (4, 6), seed=6)
    q = np.array([0.0, 0.13, 0.5, 0.6, 1.0])
    check(lambda x, q: (np.quantile(x, q, axis=1, method=method), np.percentile(x, 100 * q, method=method)), x, q)


@pytest.mark.parametrize("method", TRACED_Q_METHODS)
def test_nanquantile_and_nanpercentile(method):
    x = _with_nans()
    check(lambda x: (np.nanquantile(x, [0.0, 0.3, 0.5, 1.0], axis=1, method=method),
                     np.nanpercentile(x, 40, axis=0, method=method), np.nanquantile(x, 0.5, method=method)), x)


def test_nanmedian():
    x = _with_nans()
    check(lambda x: (np.nanmedian(x), np.nanmedian(x, axis=1), np.nanmedian(x, axis=0, keepdims=True)), x)
    check(lambda x: np.nanmedian(x, axis=0), sample(np.int16, (4, 3), seed=7))


def test_quantile_nans_propagate_and_infinities():
    x = _with_nans()
    check(lambda x: (np.quantile(x, [0.2, 0.9], axis=1), np.percentile(x, 50, axis=0)), x)
    check(lambda x: np.quantile(x, [0.0, 0.5, 1.0]), np.array([1.0, np.inf, -np.inf, 3.0]))


def test_quantile_errors():
    x = sample(np.float64, (5,), seed=8)
    check_or_raises(lambda x: np.quantile(x, 1.5), x)
    check_or_raises(lambda x: np.percentile(x, -1), x)
    check_or_raises(lambda x: np.quantile(x, 0.5, method="bogus"), x)
    check_or_raises(lambda x: np.quantile(x, 0.5), sample(np.complex128, (3,)))
    check_or_raises(lambda x: np.quantile(x, np.full((2, 2, 2), 0.5)), x)
    for f in (lambda x: np.quantile(x[:0], 0.5), lambda x: np.percentile(x[None, :0], [10, 50], axis=1),
              lambda x: np.quantile(x[:0], 0.5, method="lower")):
        check_or_raises(f, x)  # NumPy's IndexError; a raw MLIR error before
    with pytest.raises(solvent.UnsupportedError, match="method"):
        solvent.jit(lambda x, q: np.quantile(x, q, method="inverted_cdf"))(x, np.array(0.5))


@settings(max_examples=15, deadline=None)
@given(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=5).flatmap(
    lambda s: st.tuples(hnp.arrays(np.float64, s, elements=elements(np.float64, 100)),
                        st.sampled_from([None, *range(-len(s), len(s))]))),
    st.lists(st.floats(0, 1), min_size=0, max_size=3), st.sampled_from(METHODS), st.booleans())
def test_quantile_matches_numpy(case, q, method, keepdims):
    x, axis = case
    check(lambda x: (np.quantile(x, q, axis=axis, method=method, keepdims=keepdims),
                     np.median(x, axis=axis, keepdims=keepdims)), x)


def test_average():
    x = sample(np.float64, (3, 4), seed=9)
    w = sample(np.float64, (3, 4), 0.5, 2, seed=10)
    check(lambda x, w: (np.average(x), np.average(x, axis=0), np.average(x, weights=w),
                        np.average(x, axis=1, weights=w, returned=True)), x, w)
    check(lambda x, w: (np.average(x, axis=0, weights=w, returned=True), np.average(x, axis=0, weights=w,
                                                                                    keepdims=True)),
          x, w[:, 0].copy())
    check(lambda x: np.average(x, axis=1, returned=True), sample(np.int32, (2, 3), seed=11))
    check(lambda x, w: np.average(x, weights=w), sample(np.int8, (5,), seed=12), np.arange(5, dtype=np.float32))
    check_or_raises(lambda x, w: np.average(x, weights=w), x, w[0].copy())
    check_or_raises(lambda x, w: np.average(x, axis=0, weights=w), x, w[0].copy())


@pytest.mark.parametrize("dtype", [np.int64, np.float32, np.float64, np.complex128], ids=str)
def test_cov_and_corrcoef(dtype):
    x = sample(dtype, (3, 8), seed=13)
    check(lambda x: (np.cov(x), np.cov(x, bias=True), np.cov(x, ddof=3), np.cov(x.T, rowvar=False),
                     np.corrcoef(x), np.corrcoef(x.T, rowvar=False)), x)
    check(lambda x, y: (np.cov(x, y), np.corrcoef(x, y), np.cov(x[0])), x[:, :5].copy(), x[1, :5].copy())


def test_cov_weights():
    x = sample(np.float64, (3, 6), seed=14)
    f = np.array([1, 2, 1, 3, 1, 2])
    a = sample(np.float64, (6,), 0.1, 2, seed=15)
    check(lambda x, f, a: (np.cov(x, fweights=f), np.cov(x, aweights=a), np.cov(x, fweights=f, aweights=a),
                           np.cov(x, fweights=f, aweights=a, ddof=0), np.cov(x, aweights=a, bias=True)), x, f, a)
    check_or_raises(lambda x, a: np.cov(x, aweights=a), x, a[:4].copy())
    check(lambda x: np.cov(x, dtype=np.float32), x)


@pytest.mark.parametrize("dtype", [np.int16, np.uint8, np.float32, np.float64], ids=str)
def test_histogram_integer_bins(dtype):
    x = sample(dtype, (5, 7), 0, 9, seed=16)
    check(lambda x: (np.histogram(x), np.histogram(x, bins=3), np.histogram(x, 4, range=(2, 7)),
                     np.histogram(x, 5, density=True), np.histogram_bin_edges(x, 6)), x)


def test_histogram_edges_weights_and_constant_data():
    x = sample(np.float64, (20,), halves=True, seed=17)
    w = sample(np.float64, (20,), 0, 3, seed=18)
    edges = np.array([-4.0, -1.5, 0.0, 0.5, 2.0, 4.0])
    check(lambda x, w: (np.histogram(x, edges, weights=w), np.histogram(x, 6, weights=w, density=True),
                        np.histogram(x, edges.tolist())), x, w)
    check(lambda x, e: np.histogram(x, e), x, edges)
    check(lambda x: np.histogram(x, 4), np.full(6, 3.0))
    check(lambda x: np.histogram(x, 3, range=(1, 1)), x)
    check(lambda x, w: np.histogram(x, 3, weights=w), x, np.arange(20))


def test_histogram_errors():
    x = sample(np.float64, (6,), seed=19)
    check_or_raises(lambda x: np.histogram(x, 0), x)
    check_or_raises(lambda x: np.histogram(x, 3, range=(2, 1)), x)
    check_or_raises(lambda x: np.histogram(x, [3, 1, 2]), x)
    check_or_raises(lambda x: np.histogram(x, 3, range=(0, np.inf)), x)
    with pytest.raises(solvent.UnsupportedError, match="bins"):
        solvent.jit(lambda x: np.histogram(x, "auto"))(x)


def test_bincount():
    x = np.array([0, 1, 1, 5, 3, 3, 3])
    w = sample(np.float64, (7,), seed=20)
    check(lambda x, w: (np.bincount(x, minlength=6), np.bincount(x, w, minlength=8),
                        np.bincount(x, minlength=7)), x, w)
    check(lambda w: (np.bincount(x, w), np.bincount(x, weights=w, minlength=2)), w)  # static x: length known
    check(lambda x: np.bincount(x, minlength=3), np.array([True, False, True]))
    check(lambda x: np.bincount(x, minlength=4), np.zeros(0, dtype=np.int64))
    check(lambda x: np.bincount(x, minlength=4), np.array([1, 2, 2], np.uint64))  # (NumPy casts it as int64)


@settings(max_examples=25, deadline=None)
@given(st.sampled_from([np.bool_, np.uint8, np.int8, np.uint16, np.int16]), st.integers(0, 12),
       st.sampled_from([0, 3, 300]), st.integers(0, 2 ** 32 - 1))
def test_bincount_of_small_integers_has_numpys_length(dtype, size, minlength, seed):
    """Values of 8 and 16 bits (and bools) are bounded: the counts are NumPy's at NumPy's length,
    max(x) + 1 or `minlength`, also without minlength, and as what later code reads (len, the mode)."""
    top = 1 if dtype == np.bool_ else min(np.iinfo(dtype).max, 400)
    x = np.random.default_rng(seed).integers(0, top, size, endpoint=True).astype(dtype)
    w = np.linspace(-1.0, 2.0, size)
    check(lambda x, w: (np.bincount(x, minlength=minlength), np.bincount(x, w, minlength=minlength),
                        len(np.bincount(x))), x, w)
    if size:
        check(lambda x: (np.argmax(np.bincount(x)), np.bincount(x).max()), x)


def test_bincount_drops_values_beyond_minlength():
    """Documented difference for values wider than 16 bits: NumPy would grow the result; solvent
    keeps the static length and drops them."""
    result = solvent.jit(lambda x: np.bincount(x, minlength=3))(np.array([0, 2, 2, 3, 9, -1]))
    np.testing.assert_array_equal(result, [1, 0, 2])


def test_bincount_errors():
    with pytest.raises(solvent.UnsupportedError, match="minlength"):
        solvent.jit(lambda x: np.bincount(x))(np.array([1, 2]))
    check_or_raises(lambda x: np.bincount(x, minlength=3), np.array([0.5, 1.0]))
    check_or_raises(lambda x: np.bincount(x, minlength=3), np.array([[1, 2]]))
    check_or_raises(lambda x, w: np.bincount(x, w, minlength=3), np.array([1, 2]), np.ones(3))
    check_or_raises(lambda x: np.bincount(x, minlength=-1), np.array([1, 2]))
    check_or_raises(lambda w: np.bincount(np.array([1, -2]), w), np.ones(2))


@pytest.mark.parametrize("right", [False, True])
def test_digitize(right):
    x = sample(np.float64, (3, 5), halves=True, seed=21)
    up = np.array([-2.0, -0.5, 0.0, 1.0, 2.5])
    down = up[::-1].copy()
    check(lambda x: (np.digitize(x, up, right), np.digitize(x, down, right), np.digitize(x, [], right)), x)
    check(lambda x, b: np.digitize(x, b, right), x, up)
    check(lambda x, b: np.digitize(x, b, right), x, down)
    check(lambda b: np.digitize(0.0, b, right), up)
    check(lambda x: np.digitize(x, [1, 2], right), sample(np.int32, (6,), seed=22))
    for edges in ([np.nan, 1.0, 0.0], [1.0, 1.0, 0.0], [2.0, 2.0, 2.0]):
        check(lambda x, b: np.digitize(x, b, right), x, np.array(edges))  # NumPy's direction: first unlike edge


def test_digitize_errors():
    x = sample(np.float64, (4,), seed=23)
    check_or_raises(lambda x: np.digitize(x, [1, 3, 2]), x)
    check_or_raises(lambda x: np.digitize(x, [1, 2]), sample(np.complex128, (3,)))


def test_histogramdd_and_histogram2d():
    s = sample(np.float64, (30, 3), seed=24)
    w = sample(np.float64, (30,), 0, 2, seed=25)
    check(lambda s: (np.histogramdd(s), np.histogramdd(s, bins=(2, 3, 4), density=True)), s)
    check(lambda s, w: np.histogramdd(s, bins=[[-1, 0, 1], 3, np.array([-2.0, 0, 2])],
                                      range=[None, (-1, 1), None], weights=w), s, w)
    check(lambda x, y: (np.histogram2d(x, y), np.histogram2d(x, y, bins=np.array([-1, 0, 0.5, 1]))),
          s[:, 0].copy(), s[:, 1].copy())
    check(lambda x, y: np.histogram2d(x, y, bins=[3, 5], range=[[-1, 1], [-2, 2]], density=True),
          s[:, 0].astype(np.float32), s[:, 1].copy())
    check(lambda x: np.histogramdd(x, bins=4), np.arange(10))
    check_or_raises(lambda s: np.histogramdd(s, bins=(2, 3)), s)
    check_or_raises(lambda x, y: np.histogram2d(x, y), s[:, 0].copy(), s[:4, 1].copy())


def test_out_arguments():
    x = sample(np.float64, (4, 5), seed=26)
    check(lambda x, o: (np.median(x, axis=1, out=o), o), x, np.zeros(4))
    check(lambda x, o: np.quantile(x, [0.2, 0.8], axis=0, out=o), x, np.zeros((2, 5)))
    check(lambda x, o: np.nanpercentile(x, 30, axis=1, keepdims=True, out=o), _with_nans((4, 5)), np.zeros((4, 1)))


def test_static_weight_checks():
    """Weights that are closure constants (static) get NumPy's checks."""
    x = sample(np.float64, (2, 4), seed=27)
    zeros, fractional, negative = np.zeros(4), np.array([1, 2.5, 1, 1]), np.array([1, -2.0, 1, 1])
    check_or_raises(lambda x: np.average(x, weights=zeros, axis=1), x)
    check_or_raises(lambda x: np.cov(x, fweights=fractional), x)
    check_or_raises(lambda x: np.cov(x, aweights=negative), x)
    check_or_raises(lambda x: np.quantile(x, 0.5, weights=x), x)


@settings(max_examples=8, deadline=None)
@given(st.integers(0, 12), st.integers(1, 6), st.booleans(), st.booleans(), st.data())
def test_histogram_and_digitize_match_numpy(size, bins, weighted, right, data):
    x = data.draw(hnp.arrays(np.float64, size, elements=st.sampled_from([-2.0, -1.0, -0.5, 0.0, 0.25, 1.0, 3.0])))
    edges = np.unique(data.draw(hnp.arrays(np.float64, bins + 1, elements=st.floats(-3, 3, width=16))))
    w = sample(np.float64, (size,), 0, 2, seed=size) if weighted else None
    check(lambda x, w: (np.histogram(x, bins, weights=w), np.histogram(x, edges, weights=w),
                        np.digitize(x, edges, right)), x, w)


def test_histogram_over_a_traced_range():
    """`range=(x.min(), x.max())`, a common idiom: edges spaced as NumPy's from the traced ends (a
    single value one unit wide), counts of what falls inside."""
    x = np.array([0.1, 0.5, 0.9, 0.3, 0.5])
    check(lambda x: (np.histogram(x, bins=3, range=(x.min(), x.max())), np.histogram(x, bins=4, range=(0.2, x.max())),
                     np.histogram(x.astype(np.float32), bins=3, range=(x[0], x[2])),
                     np.histogram(x * 0 + 1, bins=3, range=(x[1] * 0 + 1, x[1] * 0 + 1)),
                     np.histogram_bin_edges(np.arange(5), 3, range=(x[0], 4))), x)


def test_scalar_results_of_digitize_and_of_a_selections_median_are_numpy_scalars():
    check_types_like_numpy(lambda x: (np.digitize(0.5, x), np.digitize(x[0], x), np.median(x[x > 0.3])),
                           np.array([0.1, 0.4, 0.6, 0.9]))
