"""Rounding and elementwise tests against NumPy: round, fix, nan_to_num, isclose, allclose, ..."""

from __future__ import annotations

import numpy as np
import pytest

import solvent
from numpy_samples import EVERY_DTYPE, check, check_or_raises, sample

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


def test_round_past_the_range_of_the_factor_gives_numpys_nan():
    """10.0 ** 320 raised Python's OverflowError; NumPy's factor is inf."""
    check(lambda x: (np.round(x, 320), np.round(x, -320), np.round(x, 308), np.round(x.astype(np.float32), 40)),
          np.array([1.5, 2.25]))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_round_to_decimals_gives_numpys_doubles_exactly(dtype):
    """rint(x * 10**d) / 10**d with a true division: XLA made it a product with 10**-d, one ulp off for
    one result in ten (0.5700000000000001 for np.round(0.5699, 2)), which `==` and np.unique then see."""
    x = (np.random.default_rng(4).random(20_000) * 200 - 100).astype(dtype)
    for decimals in (1, 2, 3, -1, -2):
        x100 = x * 100
        np.testing.assert_array_equal(solvent.jit(lambda x: np.round(x, decimals))(x100), np.round(x100, decimals))


def rounded_by_elements(x):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        out[i] = np.round(x[i], 2)
    return out


def test_round_of_each_element_in_a_loop_divides_truly():
    """A loop XLA runs as one op over the elements widened the divisor by a broadcast, which XLA then
    multiplies by as its reciprocal: one result in four was one ulp off (-4.6000000000000005)."""
    x = np.round(np.random.default_rng(5).uniform(-10, 10, 400), 3)
    np.testing.assert_array_equal(solvent.jit(rounded_by_elements)(x), rounded_by_elements(x))


@pytest.mark.parametrize("dtype", EVERY_DTYPE, ids=str)
def test_elementwise_functions(dtype):
    x = _sample(dtype)
    check_or_raises(lambda x: (np.fix(x), np.nan_to_num(x), np.sinc(x), np.angle(x), np.angle(x, deg=True),
                               np.isreal(x), np.iscomplex(x), np.isrealobj(x), np.iscomplexobj(x)), x)
    check_or_raises(lambda x: (np.isposinf(x), np.isneginf(x)), x)
    check_or_raises(lambda x: np.i0(x / 8), x)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int8, np.complex64], ids=str)
def test_sinc_at_zero_is_one(dtype):
    """NumPy puts the float dtype's eps where pi * x is 0: solvent's 1e-20 was 0 in float16 (nan)."""
    check(np.sinc, np.array([0, 0.5, 1.5, -2], dtype))


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


def test_real_if_close_of_real_arrays_and_refused_for_complex():
    check(lambda x: np.real_if_close(x) * 2, np.arange(3.0))
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


def test_tolerance_against_a_python_number_made_of_traced_values():
    """NumPy's isclose keeps a Python float weak: float32 0.1 is exactly float(0.1) in float32 (it was not)."""
    check(lambda x, y: (np.isclose(x, float(y[0]), rtol=0, atol=0), np.isclose(x, int(y[1])),
                        np.isclose(int(y[1]), x)), np.array([0.1, 3.0], np.float32), np.array([0.1, 3.0]))


# -- differences and gradients --------------------------------------------------------------------


def test_the_python_bools_of_allclose_and_array_equal_add_up_as_python_ints():
    """NumPy returns Python bools, whose arithmetic is on ints: np.allclose(a, b) + np.allclose(c, d)
    is 2 where np.True_ + np.True_ would be True (it was); & and | stay bools."""
    x, y = np.ones(3), np.arange(3.0)
    check(lambda x, y: (np.allclose(x, x) + np.allclose(y, y), np.array_equal(x, x) * 2.5,
                        -np.allclose(x, x), ~np.array_equiv(x, y), np.allclose(x, x) + True,
                        np.allclose(x, x) & np.array_equal(x, y), (np.allclose(x, x) + 1) / 2,
                        np.allclose(x, x) + np.ones(2)), x, y)


def test_ufuncs_called_on_those_python_bools_stay_numpys():
    """np.add of two Python bools is NumPy's np.bool_ sum (True), where `+` is Python's (2)."""
    x, y = np.ones(3), np.arange(3.0)
    check(lambda x, y: (np.add(np.allclose(x, x), np.allclose(y, y)), np.maximum(np.allclose(x, y), np.array_equal(x, x)),
                        np.allclose(x, x) + np.allclose(y, y)), x, y)


def test_comparisons_of_a_rolled_loops_index_add_as_python_bools_or_numpy_ones():
    """`(i > 3) + (i > 5)` of a Python int i is 2 where both hold; np.add of the same is True."""
    def counts(out):
        for i in range(20):
            out[i] = np.add(np.greater(i, 3), np.greater(i, 5)) + 10 * ((i > 3) + (i > 5))

    out, expected = np.zeros(20), np.zeros(20)
    counts(expected)
    solvent.jit(counts, unroll=1)(out)
    np.testing.assert_array_equal(out, expected)
