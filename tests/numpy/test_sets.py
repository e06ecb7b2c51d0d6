"""np.isin on traced arrays against NumPy."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

from differential import check_like_numpy, check_types_like_numpy
from numpy_samples import check, check_or_raises, sample
from solvent.numpy import sets


@settings(max_examples=15, deadline=None)
@given(element=hnp.arrays(np.int16, hnp.array_shapes(min_dims=0, max_dims=3, max_side=4), elements=st.integers(-5, 5)),
       tests=hnp.arrays(np.int64, hnp.array_shapes(min_dims=1, max_dims=2, max_side=4), elements=st.integers(-5, 5)),
       invert=st.booleans())
def test_isin(element, tests, invert):
    check(lambda e, t: np.isin(e, t, invert=invert), element, tests)


def test_isin_mixed_dtypes_and_static_tests():
    x = sample(np.float32, (3, 4), halves=True)
    check(lambda x: (np.isin(x, [0.5, -1.0, 2.0]), np.isin(x, x[0])), x)


@pytest.mark.parametrize("kind", ["sort", "table", "hash"])
@pytest.mark.parametrize("dtypes", [(np.int32, np.int64), (np.float64, np.int64), (np.int8, np.float32)], ids=str)
def test_isin_checks_its_kind_as_numpy_does(kind, dtypes):
    """'table' is NumPy's for integers and bools only; it raises for floats (solvent gave a result)."""
    check_or_raises(lambda e, t: np.isin(e, t, kind=kind), sample(dtypes[0], (4,)), sample(dtypes[1], (3,)))


def test_in1d_flattens_and_warns_like_numpy():
    x = sample(np.int32, (2, 3))
    with pytest.warns(DeprecationWarning, match="in1d"):
        check(lambda x: (np.in1d(x, [1, 2, -3]), np.in1d(x, x[0], invert=True)), x)


VALUES = st.one_of(st.integers(-4, 4).map(float), st.just(np.nan))


@settings(max_examples=25, deadline=None)
@given(a=hnp.arrays(np.float64, hnp.array_shapes(min_dims=1, max_dims=2, max_side=5), elements=VALUES),
       b=hnp.arrays(np.float64, hnp.array_shapes(min_dims=0, max_dims=1, max_side=5), elements=VALUES),
       assume_unique=st.booleans())
def test_set_operations(a, b, assume_unique):
    """Results of as many elements as the data gives, NaNs included as NumPy counts them."""
    check(lambda a, b: (np.union1d(a, b), np.intersect1d(a, b, assume_unique=assume_unique),
                        np.setdiff1d(a, b, assume_unique=assume_unique),
                        np.setxor1d(a, b, assume_unique=assume_unique)), a, b)


def test_set_operations_on_integers_and_their_sizes():
    a, b = np.array([[5, 1, 3], [3, 9, 1]]), np.array([1, 2, 9])
    check(lambda a, b: (np.union1d(a, b), np.intersect1d(a, b), np.setdiff1d(a, b).sum(), len(np.setdiff1d(b, a)),
                        np.setxor1d(a, b), len(np.setxor1d(b, a))), a, b)


@settings(max_examples=25, deadline=None)
@given(a=hnp.arrays(np.float64, hnp.array_shapes(min_dims=1, max_dims=2, max_side=5), elements=VALUES),
       b=hnp.arrays(np.float64, hnp.array_shapes(min_dims=0, max_dims=1, max_side=5), elements=VALUES))
def test_intersect1d_with_indices(a, b):
    """The common values and the index of each one's first occurrence in either input."""
    check(lambda a, b: np.intersect1d(a, b, return_indices=True), a, b)


def test_intersect1d_with_indices_of_unique_inputs():
    a, b = np.array([7, 1, 4, 9]), np.array([4, 2, 7, 5, 0])
    check(lambda a, b: np.intersect1d(a, b, assume_unique=True, return_indices=True), a, b)
    check(lambda a, b: np.intersect1d(a, b, return_indices=True), a, np.zeros(0, np.int64))


def test_isin_of_many_elements_sorts_the_tests_and_finds_what_numpy_finds(monkeypatch):
    """Past SORTED_AT pairs the test elements are sorted and each element looked up (NaN found
    nowhere, -0.0 equal to 0.0, an int among floats by value)."""
    monkeypatch.setattr(sets, "SORTED_AT", 0)
    a = np.array([0.5, np.nan, -0.0, 3.0, 2.5, -1.0, 7.0, 2.0])
    b = np.array([2.0, np.nan, 0.0, 0.5, 9.0, 3.0])
    check(lambda a, b: (np.isin(a, b), np.isin(a, b, invert=True), np.isin(a.reshape(2, 4), b),
                        np.isin(np.arange(-2, 5), b), np.isin(a, b[:1])), a, b)


def test_intersect1d_promotes_the_dtypes_as_numpy():
    check_like_numpy(lambda a, b: (np.intersect1d(a, b), np.intersect1d(a, b, return_indices=True)[0]),
                     np.array([1, 2, 3]), np.array([2.5, 3.0]))
    check_like_numpy(lambda a, b: np.intersect1d(a, b), np.array([255, 1], np.uint8), np.array([-1, 1], np.int8))


def test_isin_of_a_scalar_is_a_0d_array():
    check_types_like_numpy(lambda x: (np.isin(0.4, x), np.isin(x[0], x)), np.array([0.1, 0.4]))
