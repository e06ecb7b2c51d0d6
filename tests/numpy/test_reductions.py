"""Reductions (sum, prod, mean, max, min, argmax, argmin, any, all, std, var), `where`
and `clip` against NumPy: axis None/int/negative/tuple, keepdims, ddof, dtype=, out=,
result dtypes, 0-d and empty inputs."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import solvent
from differential import check_like_numpy
from numpy_samples import (ALL_DTYPES, EVERY_DTYPE, FLOAT, INTEGER, elements, elements_with_specials, check,
                           check_or_raises, sample)

REDUCTIONS = [np.sum, np.prod, np.mean, np.max, np.min, np.argmax, np.argmin, np.any, np.all, np.std,
              np.var, np.amax, np.amin]
WITH_KEEPDIMS = REDUCTIONS
AXES = [None, 0, 1, -1, -2, (0, 2), (2, 0), (-1, 0, 1), ()]

#: Reductions accept a float32 error of the summation order (pairwise in NumPy, a tree in XLA).
SCALE = 50.0


def _name(f):
    return f.__name__


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("reduction", REDUCTIONS, ids=_name)
def test_reduction_dtypes(reduction, dtype):
    x = sample(dtype, (3, 4), -3, 3, seed=1)
    check_or_raises(lambda x: reduction(x), x, scale=SCALE)
    check_or_raises(lambda x: reduction(x, axis=0), x, scale=SCALE)


@pytest.mark.parametrize("axis", AXES, ids=str)
@pytest.mark.parametrize("reduction", [np.sum, np.mean, np.max, np.argmin, np.all, np.var], ids=_name)
def test_reduction_axes(reduction, axis):
    x = sample(np.float64, (2, 3, 4), seed=2)
    check_or_raises(lambda x: reduction(x, axis=axis), x)
    check_or_raises(lambda x: reduction(x, axis=axis, keepdims=True), x)


@pytest.mark.parametrize("ddof", [0, 1, 2])
@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.float64, np.complex128], ids=str)
@pytest.mark.parametrize("reduction", [np.std, np.var], ids=_name)
def test_ddof(reduction, dtype, ddof):
    x = sample(dtype, (3, 4), seed=3)
    check(lambda x: (reduction(x, ddof=ddof), reduction(x, axis=1, ddof=ddof, keepdims=True)), x,
          scale=SCALE)


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint8, np.int32, np.float32], ids=str)
def test_sum_and_prod_result_dtypes(dtype):
    """Small integers accumulate in the platform integer (int8 sum -> int64, uint8 -> uint64)."""
    x = sample(dtype, (5,), 0, 3, seed=4)
    check(lambda x: (np.sum(x), np.prod(x), x.sum(axis=0), np.mean(x), np.max(x)), x)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.complex128], ids=str)
def test_dtype_argument(dtype):
    x = sample(np.int8, (4, 3), seed=5)
    check(lambda x: (np.sum(x, dtype=dtype), np.prod(x, axis=1, dtype=dtype), np.mean(x, dtype=dtype)), x)


def test_integer_sum_wraps_like_numpy():
    x = np.array([2 ** 62, 2 ** 62, 2 ** 62], dtype=np.int64)
    check(lambda x: np.sum(x), x)
    check(lambda x: np.sum(x, dtype=np.int8), np.array([100, 100], dtype=np.int8))


def test_nan_propagation():
    x = np.array([[1.0, np.nan, 3.0], [4.0, 5.0, -np.inf]])
    check(lambda x: (np.max(x), np.min(x, axis=1), np.argmax(x, axis=1), np.argmin(x), np.sum(x, axis=0),
                     np.mean(x, axis=1), np.any(x), np.all(x, axis=0)), x)


def test_ties_pick_the_first_index():
    x = np.array([[3, 1, 3, 1], [2, 2, 2, 2]], dtype=np.int16)
    check(lambda x: (np.argmax(x, axis=1), np.argmin(x, axis=1), np.argmax(x), np.argmin(x.T, axis=0)), x)


#: Floats whose order is easy to get wrong: NaN of either sign, zeros of either sign, infinities,
#: the smallest subnormals and the extremes.
SPECIAL = [np.nan, -np.nan, 0.0, -0.0, np.inf, -np.inf, 5e-324, -5e-324, 1e-45, -1e-45, 1.0, -1.0, 3.4e38, -3.4e38]


@settings(max_examples=60, deadline=None)
@given(picks=st.lists(st.sampled_from(range(len(SPECIAL))), min_size=1, max_size=12),
       dtype=st.sampled_from([np.float16, np.float32, np.float64]), axis=st.sampled_from([None, 0]))
def test_argmax_and_argmin_order_special_floats_as_numpy(picks, dtype, axis):
    """NaN first (the first NaN), -0.0 tied with 0.0, subnormals and infinities in their places."""
    with np.errstate(over="ignore", under="ignore"):
        x = np.array([SPECIAL[i] for i in picks]).astype(dtype)
    check(lambda x: (np.argmax(x, axis=axis), np.argmin(x, axis=axis)), x)


def test_argmax_keepdims_and_out():
    def f(x, out):
        np.argmax(x, axis=0, out=out)
        return np.argmin(x, axis=-1, keepdims=True), np.argmax(x, keepdims=True), out
    check(f, sample(np.float64, (3, 4), seed=6), np.zeros(4, dtype=np.int64))


def test_argmax_with_a_tuple_axis_raises_like_numpy():
    check_or_raises(lambda x: np.argmax(x, axis=(0, 1)), np.ones((2, 2)))


@pytest.mark.parametrize("reduction", [np.max, np.min, np.argmax, np.argmin], ids=_name)
def test_empty_reduction_without_identity_raises(reduction):
    check_or_raises(lambda x: reduction(x), np.zeros((0, 3)))
    check_or_raises(lambda x: reduction(x, axis=0), np.zeros((0, 3)))
    check(lambda x: reduction(x, axis=1), np.zeros((0, 3)))


@pytest.mark.parametrize("reduction", [np.sum, np.prod, np.mean, np.any, np.all, np.var, np.std], ids=_name)
def test_empty(reduction):
    x = np.zeros((2, 0))
    check(lambda x: (reduction(x), reduction(x, axis=0), reduction(x, axis=1, keepdims=True)), x)


@pytest.mark.parametrize("reduction", [np.sum, np.prod, np.mean, np.max, np.argmin, np.any, np.std], ids=_name)
def test_zero_d(reduction):
    """NumPy lets some reductions of a 0-d array name axis 0 or -1 (sum, max), not others (mean)."""
    check(lambda x: (reduction(x), reduction(x, keepdims=True)), np.array(2.5))
    for axis in (0, -1, 1, (), (0,)):
        check_or_raises(lambda x: reduction(x, axis=axis), np.array(2.5))


def test_initial():
    x = sample(np.float64, (2, 3), seed=7)
    check(lambda x: (np.sum(x, initial=10.0), np.max(x, initial=100.0), np.min(x, axis=0, initial=-9.0),
                     np.prod(x, axis=1, initial=2.0)), x)
    check(lambda x: np.max(x, initial=-1.0), np.zeros((0,)))


def test_out_and_keepdims_together():
    def f(x, s, m):
        np.sum(x, axis=1, out=s)
        np.mean(x, axis=0, keepdims=True, out=m)
        return s, m, np.std(x, axis=(0, 1), keepdims=True)
    check(f, sample(np.float64, (3, 4), seed=8), np.zeros(3), np.zeros((1, 4)))



def test_mean_var_and_std_sum_into_a_narrow_out():
    """NumPy sums into `out` and divides there: float16 overflows, int8 wraps (they were exact)."""
    def f(x, h, i, h2, i2):
        np.mean(x, axis=0, out=h)
        np.mean(x.astype(np.int8), axis=0, out=i)
        np.std(x, axis=0, out=h2)
        np.var(x.astype(np.int8), axis=0, out=i2, ddof=1)
        return h, i, h2, i2, np.mean(x.astype(np.float16), axis=0, out=np.zeros(2))
    x = np.array([[6e4, 100.0], [6e4, 100.0], [-6e4, -50.0]])
    check(f, x, np.zeros(2, np.float16), np.zeros(2, np.int8), np.zeros(2, np.float16), np.zeros(2, np.int8))

def test_sums_into_a_wider_out_run_in_its_dtype():
    """NumPy sums in out's dtype where it is wider (and no dtype= is given): float32 data summed into
    float64 lost 1e8 + 1 to float32, float16 ones stopped at 4096."""
    def f(x, h, s, c, v, n):
        np.add.reduce(x, keepdims=True, out=s)
        np.cumsum(x, out=c)
        np.var(x, out=v)
        np.nanmean(x, out=n)
        return np.sum(h, keepdims=True, out=np.zeros(1)), s, c, v, n, np.mean(x, out=np.zeros(()))
    x = np.array([1e8, 1.0, -1e8, 1.0], np.float32)
    check(f, x, np.ones(4097, np.float16), np.zeros(1), np.zeros(4), np.zeros(()), np.zeros(()))
    check(lambda x, c: np.cumsum(x, out=c), x.astype(np.float64), np.zeros(4, np.float32))


def test_variance_of_complex_data_in_a_real_dtype_is_numpys():
    """NumPy's mean in a real dtype= keeps the real part (with a ComplexWarning), and the deviations
    keep their imaginary parts: solvent took the complex mean."""
    z = np.array([1 + 2j, 3 - 1j, -2 + 0.5j, 0.5 + 4j])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
        check(lambda z: (np.var(z, dtype=np.float64), np.std(z, dtype=np.float32), np.var(z, dtype=np.complex64)), z)


def test_duplicate_axes_raise():
    check_or_raises(lambda x: np.sum(x, axis=(0, 0)), np.ones((2, 2)))
    check_or_raises(lambda x: np.sum(x, axis=2), np.ones((2, 2)))


def test_methods_match_functions():
    x = sample(np.float32, (3, 4), seed=9)
    check(lambda x: (x.sum(axis=1), x.prod(), x.mean(axis=-1, keepdims=True), x.max(0), x.min(), x.argmax(),
                     x.argmin(axis=1), x.any(), x.all(axis=0), x.std(ddof=1), x.var(axis=(0, 1))), x,
          scale=SCALE)


# -- hypothesis over shapes, dtypes and axes ------------------------------------------------

@st.composite
def _axis(draw, ndim):
    choice = draw(st.sampled_from(["none", "int", "tuple"]))
    if choice == "none" or ndim == 0:
        return None
    if choice == "int":
        return draw(st.integers(-ndim, ndim - 1))
    axes = draw(st.lists(st.integers(0, ndim - 1), unique=True, max_size=ndim))
    return tuple(a - ndim if draw(st.booleans()) else a for a in axes)


@settings(max_examples=40, deadline=None)
@given(data=st.data(), reduction=st.sampled_from(REDUCTIONS), dtype=st.sampled_from(ALL_DTYPES),
       shape=hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4), keepdims=st.booleans())
def test_random_axes(data, reduction, dtype, shape, keepdims):
    x = data.draw(hnp.arrays(dtype, shape, elements=elements(dtype, bound=3)))
    axis = data.draw(_axis(len(shape)))
    if reduction in (np.argmax, np.argmin) and isinstance(axis, tuple):
        axis = axis[0] if axis else None
    check_or_raises(lambda x: reduction(x, axis=axis, keepdims=keepdims), x, scale=SCALE)


# -- where and clip --------------------------------------------------------------------------

@pytest.mark.parametrize("dtypes", [(np.float64, np.float64), (np.int8, np.float32), (np.int32, np.uint8),
                                    (np.bool_, np.int16), (np.complex128, np.float64)], ids=str)
def test_where(dtypes):
    c = sample(np.bool_, (3, 4), seed=10)
    x, y = sample(dtypes[0], (3, 1), seed=11), sample(dtypes[1], (4,), seed=12)
    check(lambda c, x, y: np.where(c, x, y), c, x, y)


def test_where_with_python_scalars_and_0d():
    c = sample(np.bool_, (5,), seed=13)
    x = sample(np.float32, (5,), seed=14)
    check(lambda c, x: (np.where(c, x, 0.0), np.where(c, 1, x), np.where(c, 1, 2), np.where(c, 1.5, 2)), c, x)
    check(lambda c, x: np.where(c, x, x * 2), np.array(True), np.array(3.0))
    check(lambda x: np.where(x > 0, x, -x), x)
    check(lambda x: np.where(x, 1, 0), sample(np.int8, (5,), seed=15))


def test_where_wraps_a_python_int_out_of_the_arrays_range_as_numpys():
    """np.where(u8 > 1, u8, -1) is uint8 255 in NumPy; solvent raised OverflowError."""
    check(lambda u, i: (np.where(u > 1, u, -1), np.where(u > 1, u, 300), np.where(i > 0, i, 200)),
          np.arange(4, dtype=np.uint8), np.arange(-1, 3, dtype=np.int8))


def test_where_with_one_argument_is_nonzero():
    check_like_numpy(lambda x: np.where(x > 0), np.array([1.0, -1.0, 2.0]))


@pytest.mark.parametrize("dtype", [np.int8, np.int64, np.uint8, np.float32, np.float64], ids=str)
def test_clip(dtype):
    x = sample(dtype, (3, 4), 0, 9, seed=16)
    check(lambda x: (np.clip(x, 2, 6), np.clip(x, None, 5), np.clip(x, 3, None), x.clip(1, 4),
                     np.clip(x, min=2, max=7)), x)


def test_clip_with_arrays_and_promotion():
    x = sample(np.float32, (3, 4), seed=17)
    lo, hi = sample(np.float64, (4,), -2, 0, seed=18), sample(np.float64, (3, 1), 0, 2, seed=19)
    check(lambda x, lo, hi: (np.clip(x, lo, hi), np.clip(x, -1.5, 1.5), np.clip(x, lo, 1.0)), x, lo, hi)
    check(lambda x: np.clip(x, 1.5, 2.5), sample(np.int32, (5,), 0, 4, seed=20))


def test_clip_with_out_and_nan():
    def f(x, out):
        np.clip(x, -1.0, 1.0, out=out)
        np.clip(x, -0.5, 0.5, out=x)
        return out
    check(f, np.array([np.nan, -3.0, 0.25, 2.0]), np.zeros(4))


@pytest.mark.parametrize("dtype", INTEGER + FLOAT, ids=str)
def test_cumulative(dtype):
    x = sample(dtype, (3, 4), 0, 3, seed=21)
    check(lambda x: (np.cumsum(x), np.cumsum(x, axis=0), np.cumprod(x, axis=-1), x.cumsum(1)), x)


def test_cumulative_of_a_0d_array_along_its_axis():
    check(lambda x: (np.cumsum(x[0], axis=0), np.cumprod(x[1], axis=-1)), np.array([3.0, 2.0]))


def test_an_axis_given_as_an_array_is_read_while_tracing_or_refused():
    """np.array(1) made inside is known while tracing, as NumPy reads it; an argument's values are not
    (a raw TypeError before)."""
    a = np.arange(6.0).reshape(2, 3)
    check(lambda a: (np.count_nonzero(a, axis=np.array(0)), np.sum(a, axis=np.array(1))), a)
    with pytest.raises(solvent.UnsupportedError, match="an axis must be a static Python int"):
        solvent.jit(lambda a, k: np.count_nonzero(a, axis=k))(a, np.array(0))


# -- NaN-ignoring reductions, count_nonzero, ptp, the Array API cumulative functions ------------------

NAN_REDUCTIONS = [np.nansum, np.nanprod, np.nanmean, np.nanvar, np.nanstd, np.nanmax, np.nanmin, np.nanargmax,
                  np.nanargmin]


def _with_nans(dtype, seed):
    """A (3, 4) sample with a NaN, an all-NaN last row and an infinity (for inexact dtypes)."""
    x = sample(dtype, (3, 4), -3, 3, seed=seed)
    if np.dtype(dtype).kind in "fc":
        x[0, 1], x[1, 3], x[2, :] = np.nan, np.inf, np.nan
    return x


@pytest.mark.parametrize("dtype", EVERY_DTYPE, ids=str)
@pytest.mark.parametrize("reduction", NAN_REDUCTIONS, ids=_name)
def test_nan_reductions(reduction, dtype):
    """NaNs are skipped; an all-NaN row gives NaN (or 0 for nansum, 1 for nanprod) as in NumPy."""
    x = _with_nans(dtype, seed=22)
    rows = x[:2] if reduction in (np.nanargmax, np.nanargmin) else x  # NumPy raises on an all-NaN row
    check_or_raises(lambda x: (reduction(x), reduction(x, axis=0), reduction(x, axis=1, keepdims=True)), rows,
                    scale=SCALE)


@pytest.mark.parametrize("reduction", [np.nanvar, np.nanstd], ids=_name)
def test_nan_variance_ddof_and_dtype(reduction):
    x = _with_nans(np.float32, seed=23)
    check(lambda x: (reduction(x, ddof=1), reduction(x, axis=1, ddof=3), reduction(x, axis=0, dtype=np.float64),
                     reduction(x[0], correction=1)), x, scale=SCALE)
    check(lambda x: reduction(x, axis=0, ddof=1), _with_nans(np.complex64, seed=24), scale=SCALE)


@settings(max_examples=30, deadline=None)
@given(data=st.data(), reduction=st.sampled_from(NAN_REDUCTIONS[:7] + [np.nancumsum, np.nancumprod]),
       dtype=st.sampled_from(EVERY_DTYPE), shape=hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4),
       keepdims=st.booleans())
def test_random_nan_reductions(data, reduction, dtype, shape, keepdims):
    x = data.draw(hnp.arrays(dtype, shape, elements=elements_with_specials(dtype, bound=3)))
    axis = data.draw(st.none() | st.integers(-len(shape), len(shape) - 1))
    # NumPy multiplies even a single complex infinity by the identity 1+0j (inf+0j becomes inf+nanj);
    # XLA folds a product of one element to the element itself. A known difference.
    assume(not (dtype.kind == "c" and reduction in (np.nanprod, np.nancumprod) and np.isinf(x).any()))
    if reduction in (np.nancumsum, np.nancumprod):
        check_or_raises(lambda x: reduction(x, axis=axis), x, scale=SCALE)
    else:
        check_or_raises(lambda x: reduction(x, axis=axis, keepdims=keepdims), x, scale=SCALE)


def test_nan_functions_with_out():
    def f(x, s, m):
        np.nansum(x, axis=1, out=s)
        np.nanmax(x, axis=0, out=m)
        return s, m, np.nanmean(x, axis=1, out=np.zeros(3))
    check(f, _with_nans(np.float64, seed=25), np.zeros(3), np.zeros(4))


@pytest.mark.parametrize("dtype", EVERY_DTYPE, ids=str)
def test_cumulative_nan_count_and_ptp(dtype):
    x = _with_nans(dtype, seed=26)
    check_or_raises(lambda x: (np.nancumsum(x), np.nancumsum(x, axis=0), np.nancumprod(x, axis=1),
                               np.count_nonzero(x), np.count_nonzero(x, axis=0),
                               np.count_nonzero(x, axis=(0, 1), keepdims=True)),
                    x, scale=SCALE)
    check_or_raises(lambda x: (np.ptp(x), np.ptp(x, axis=1), np.ptp(x, axis=0, keepdims=True)), x)


def test_ptp_wraps_around_for_integers():
    check(lambda x: (np.ptp(x), np.ptp(x.astype(np.uint8))), np.array([-100, 100, 27], dtype=np.int8))


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint16, np.float32, np.complex64], ids=str)
@pytest.mark.parametrize("function", [np.cumulative_sum, np.cumulative_prod], ids=_name)
def test_cumulative_sum_and_prod(function, dtype):
    x = sample(dtype, (3, 4), 0, 3, seed=27)
    check_or_raises(lambda x: (function(x, axis=0), function(x, axis=-1, include_initial=True), function(x[0]),
                               function(x[0], include_initial=True, dtype=np.float64), function(x[0, 0])), x)
    check_or_raises(lambda x: function(x), x)  # axis is required above 1-D


# -- where= masks in reductions ------------------------------------------------------------------

WHERE = np.array([[True, False, True, True], [False, False, False, False], [True, True, False, True]])


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int8, np.complex128, np.bool_], ids=str)
def test_where_masks(dtype):
    """Masked-out elements count as the identity; a row with nothing selected gives NaN for the mean."""
    x = sample(dtype, (3, 4), -3, 3, seed=28)
    check_or_raises(lambda x, m: (np.sum(x, where=m), np.sum(x, axis=1, where=m), np.prod(x, axis=0, where=m[0]),
                                  np.max(x, axis=1, where=m, initial=-5), np.min(x, where=m, initial=5),
                                  np.any(x, where=m, axis=0), np.all(x, axis=1, where=m), np.mean(x, axis=1, where=m),
                                  np.mean(x, where=m[0], keepdims=True), np.var(x, axis=0, where=m),
                                  np.std(x, axis=1, ddof=1, where=m, keepdims=True), np.nansum(x, where=m, axis=0),
                                  np.sum(x, axis=1, where=[True, False, True, False])), x, WHERE, scale=SCALE)
    check_or_raises(lambda x, m: np.max(x, where=m), x, WHERE)  # no identity: NumPy asks for initial=


def test_nan_reductions_with_where():
    x = _with_nans(np.float64, seed=29)
    check(lambda x, m: (np.nanmean(x, axis=1, where=m), np.nanvar(x, axis=0, where=m), np.nanstd(x, where=m, ddof=1),
                        np.nanmax(x, axis=1, where=m, initial=-9), np.nanprod(x, where=m)), x, WHERE)


def test_half_sums_round_as_numpy_does():
    # NumPy keeps a float16 sum or product along the last axis in float and rounds once; along
    # another axis it rounds every step (np.sin of booleans is float16)
    flags = np.array([[True, True, True, False], [True, False, True, False], [True, True, False, False]])
    halves = np.random.default_rng(0).random(1000).astype(np.float16)
    check_like_numpy(lambda a, x: (np.sum(np.sin(a)), np.prod(np.sin(a) + np.float16(1), axis=0),
                                   np.sin(a).sum(axis=1), np.mean(np.sin(a)), x.sum(),
                                   x.reshape(10, 100).sum(axis=0), x.reshape(10, 100).sum(axis=1)),
                     flags, halves, rtol=0, atol=0)


def reduced_into_integers(a, sums, runs, means):
    np.sum(a, axis=0, out=sums[0])
    np.max(a, axis=0, out=sums[1])
    np.add.reduce(a, axis=0, out=sums[2])
    np.cumsum(a, axis=0, out=runs)
    np.mean(a, axis=0, out=means)
    np.median(a, axis=1, out=runs[0, :2])
    return sums, runs, means


def test_reductions_cast_into_an_integer_out_as_numpy_does():
    """NumPy casts a reduction's result into `out=` unsafely: it raised a casting TypeError."""
    a = np.arange(6.0).reshape(2, 3) + 0.5
    check_like_numpy(reduced_into_integers, a, np.zeros((3, 3), np.int64), np.zeros((2, 3), np.int32),
                     np.zeros(3, np.int64))
