"""Sorting and searching (sort, argsort, lexsort, sort_complex, partition, argpartition, searchsorted)
against NumPy: every dtype, axis None/int/negative, NaN and complex order, ties, 0-d and empty inputs."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import solvent
from numpy_samples import ALL_DTYPES, elements, check, check_or_raises, sample

DTYPES = ALL_DTYPES + [np.dtype(np.float16), np.dtype(np.complex64), np.dtype(np.uint16)]
SPECIAL = np.array([3.0, np.nan, -np.inf, 1.0, -0.0, np.inf, np.nan, -2.5, 0.0, 1.0])


def _shapes_and_axis(max_dims=3):
    return hnp.array_shapes(min_dims=1, max_dims=max_dims, min_side=0, max_side=5).flatmap(
        lambda s: st.tuples(st.just(s), st.sampled_from([None, *range(-len(s), len(s))])))


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_sort_every_dtype(dtype):
    x = sample(dtype, (3, 6), -5, 5, seed=1)
    check(lambda x: (np.sort(x), np.sort(x, axis=0), np.sort(x, axis=None)), x)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_stable_argsort_every_dtype(dtype):
    x = sample(dtype, (4, 5), -2, 2, seed=2)  # small range: many ties, so stability matters
    check(lambda x: (np.argsort(x, stable=True), np.argsort(x, axis=0, kind="stable"),
                     np.argsort(x, axis=None, kind="mergesort")), x)


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(DTYPES).flatmap(lambda d: st.tuples(st.just(d), _shapes_and_axis())).flatmap(
    lambda t: st.tuples(hnp.arrays(t[0], t[1][0], elements=elements(t[0], 3)), st.just(t[1][1]))))
def test_sort_and_argsort_match_numpy(case):
    x, axis = case
    check(lambda x: (np.sort(x, axis=axis), np.argsort(x, axis=axis, stable=True)), x)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64], ids=str)
def test_nans_sort_last(dtype):
    x = SPECIAL.astype(dtype)
    check(lambda x: (np.sort(x), np.argsort(x, stable=True)), x)
    check(lambda x: np.sort(x, axis=0), x.reshape(5, 2))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64], ids=str)
def test_floats_sort_as_one_operand_of_integer_keys_and_come_back_bit_for_bit(dtype):
    """XLA's CPU sort of one integer operand runs about five times faster than its sort of floats:
    np.sort of floats sorts the integers of their bits (negative ones flipped) and turns them back."""
    x = np.random.default_rng(4).standard_normal(64).astype(dtype) * 1e3
    width = np.dtype(dtype).itemsize * 8
    assert f") : (tensor<64xi{width}>) -> tensor<64xi{width}>" in solvent.code_hlo(np.sort, x)
    got = solvent.jit(np.sort)(x)
    np.testing.assert_array_equal(got.view(f"i{width // 8}"), np.sort(x).view(f"i{width // 8}"))
    assert got.dtype == dtype
    zeros = np.array([0.0, -0.0, 1.0, 0.0, -0.0, -1.0] * 3, dtype)  # a stable sort keeps their order
    for kind in ("stable", "mergesort"):
        np.testing.assert_array_equal(np.signbit(solvent.jit(lambda x: np.sort(x, kind=kind))(zeros)),
                                      np.signbit(np.sort(zeros, kind=kind)))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int8, np.uint32, np.int64, np.uint64,
                                   np.bool_], ids=str)
def test_argsort_sorts_one_operand_of_keys_packed_with_their_positions(dtype):
    """A key of up to 32 bits sorts packed above its position in one int64, a 64-bit one in two such
    passes (low half, then high half): as fast as `np.sort` of floats; ties (-0.0 and 0.0, NaNs,
    equal integers) keep the positions' order, extremes stay in place."""
    x = np.random.default_rng(5).integers(-3, 3, 40).astype(dtype)
    if np.dtype(dtype).kind == "f":
        x[:6] = [0.0, -0.0, np.nan, -np.inf, np.nan, np.inf]
    elif np.dtype(dtype).kind in "iu":
        x[:3] = [np.iinfo(dtype).max, np.iinfo(dtype).min, np.iinfo(dtype).max]
    text = solvent.code_hlo(lambda x: np.argsort(x, stable=True), x)
    assert ") : (tensor<40xi64>) -> tensor<40xi64>" in text and not re.search(r'"stablehlo.sort"\(%[\w#]+, ', text)
    check(lambda x: (np.argsort(x, stable=True), np.argsort(x.reshape(5, 8), axis=0, kind="stable")), x)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128], ids=str)
def test_complex_order_with_nan_parts(dtype):
    nan = np.nan
    x = np.array([complex(1, nan), complex(2, 1), complex(nan, 0), complex(1, 1), complex(1, -1),
                  complex(nan, nan), complex(nan, -1), complex(-3, nan), complex(0, 0), complex(1, 1)],
                 dtype=dtype)
    check(lambda x: (np.sort(x), np.argsort(x, stable=True), np.sort_complex(x)), x)


def test_default_argsort_sorts_with_ties():
    """NumPy's default (quicksort) order among ties is unspecified: compare the values it selects."""
    x = sample(np.int16, (5, 8), -2, 2, seed=3)
    for axis in (-1, 0, None):
        index = np.asarray(solvent.jit(lambda x: np.argsort(x, axis=axis))(x))
        flat = x.ravel() if axis is None else x
        np.testing.assert_array_equal(np.take_along_axis(flat, index, axis=-1 if axis is None else axis),
                                      np.sort(x, axis=axis))
        assert index.dtype == np.intp


def test_zero_d_empty_and_single():
    check(lambda x: (np.sort(x, axis=None), np.argsort(x, axis=None)), np.array(2.5))
    check(lambda x: (np.sort(x), np.argsort(x), np.sort(x, axis=0)), np.zeros((0, 3)))
    check(lambda x: (np.sort(x), np.argsort(x)), np.array([7], dtype=np.int8))
    check_or_raises(lambda x: np.sort(x), np.array(2.5))  # axis=-1 on a 0-d array: AxisError
    check_or_raises(lambda x: np.sort(x, axis=2), np.ones((2, 2)))
    # NumPy's argsort of a 0-d array (any axis) and argpartition are [0]; sort_complex an AxisError
    check(lambda x: (np.argsort(x), np.argsort(x, axis=0), x.argsort(), np.argpartition(x, 0)), np.array(2.5))
    check_or_raises(lambda x: np.sort_complex(x), np.array(2.5))
    check_or_raises(lambda x: np.argpartition(x, 1), np.array(2.5))


def test_kind_stable_and_order_arguments():
    x = sample(np.float64, (6,), seed=4)
    check(lambda x: (np.sort(x, kind="quicksort"), np.sort(x, kind="heapsort"), np.sort(x, stable=True)), x)
    check_or_raises(lambda x: np.sort(x, kind="bogus"), x)
    check_or_raises(lambda x: np.sort(x, kind="stable", stable=True), x)
    check_or_raises(lambda x: np.argsort(x, order="f"), x)


@pytest.mark.parametrize("dtypes", [(np.int64, np.int64), (np.float64, np.int8), (np.bool_, np.float32),
                                    (np.uint8, np.complex128)], ids=str)
def test_lexsort(dtypes):
    first = sample(dtypes[0], (12,), -2, 2, seed=5)
    second = sample(dtypes[1], (12,), -2, 2, seed=6)
    check(lambda a, b: (np.lexsort((a, b)), np.lexsort([b, a]), np.lexsort((a,))), first, second)  # (a list too)
    check(lambda a, b: np.lexsort((a, b), axis=0), first.reshape(4, 3), second.reshape(4, 3))
    check(lambda k: np.lexsort(k), np.stack([first.astype(np.float64), second.real.astype(np.float64)]))
    check(lambda k: np.lexsort(k), first.astype(np.float64))  # 1-d: each element a key of one: a scalar


def test_lexsort_errors():
    check_or_raises(lambda a, b: np.lexsort((a, b)), np.ones(3), np.ones(4))


@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int64, np.float32, np.float64, np.complex64], ids=str)
def test_sort_complex(dtype):
    check(lambda x: np.sort_complex(x), sample(dtype, (3, 5), seed=7))


def _assert_partitioned(result, x, kth, axis, by_index=False):
    """NumPy's contract: the kth element is in sorted place, smaller ones before, larger after."""
    result = np.asarray(result)
    if by_index:
        assert result.dtype == np.intp
        result = np.take_along_axis(x, result, axis=axis)
    expected = np.sort(x, axis=axis)
    np.testing.assert_array_equal(np.sort(result, axis=axis), expected)
    moved, sorted_moved = np.moveaxis(result, axis, -1), np.moveaxis(expected, axis, -1)
    for k in np.atleast_1d(kth) % moved.shape[-1]:
        np.testing.assert_array_equal(moved[..., k], sorted_moved[..., k])
        assert np.all(moved[..., :k] <= moved[..., k:k + 1]) and np.all(moved[..., k + 1:] >= moved[..., k:k + 1])


@pytest.mark.parametrize("kth", [0, 3, -1, [1, 4]], ids=str)
@pytest.mark.parametrize("axis", [-1, 0])
def test_partition_and_argpartition(kth, axis):
    x = sample(np.int32, (6, 6), -3, 3, seed=8)
    _assert_partitioned(solvent.jit(lambda x: np.partition(x, kth, axis=axis))(x), x, kth, axis)
    _assert_partitioned(solvent.jit(lambda x: np.argpartition(x, kth, axis=axis))(x), x, kth, axis, True)


def test_partition_flattened_and_errors():
    x = sample(np.float64, (3, 4), seed=9)
    _assert_partitioned(solvent.jit(lambda x: np.partition(x, 5, axis=None))(x), x.ravel(), 5, 0)
    check_or_raises(lambda x: np.partition(x, 4), x)
    check_or_raises(lambda x: np.argpartition(x, -5), x)
    with pytest.raises(solvent.UnsupportedError, match="kth"):
        solvent.jit(lambda x, k: np.partition(x, k))(x, np.array(1))
    check_or_raises(lambda x: np.partition(x, True), x)
    check_or_raises(lambda x: np.argpartition(x, np.array([True, False])), x)


@settings(max_examples=15, deadline=None)
@given(st.sampled_from([np.int8, np.uint32, np.int64, np.float32, np.float64, np.complex128]),
       st.integers(0, 9), hnp.array_shapes(min_dims=0, max_dims=2, min_side=0, max_side=4),
       st.sampled_from(["left", "right"]), st.data())
def test_searchsorted_matches_numpy(dtype, size, needle_shape, side, data):
    pool = elements(dtype, 4)
    haystack = np.sort(data.draw(hnp.arrays(dtype, size, elements=pool)))
    needles = data.draw(hnp.arrays(dtype, needle_shape, elements=pool))
    check(lambda a, v: np.searchsorted(a, v, side=side), haystack, needles)


def test_searchsorted_with_nans_sorter_and_static_needles():
    a = np.sort(SPECIAL)
    v = np.array([np.nan, np.inf, -np.inf, 1.0, 0.0, -0.0, 2.0])
    check(lambda a, v: (np.searchsorted(a, v), np.searchsorted(a, v, side="right")), a, v)
    unsorted = sample(np.float64, (9,), halves=True, seed=10)
    order = np.argsort(unsorted)
    check(lambda a, s, v: (np.searchsorted(a, v, sorter=s), np.searchsorted(a, v, "right", s)),
          unsorted, order, unsorted[::2].copy())
    check(lambda a: (np.searchsorted(a, 0.5), np.searchsorted(a, [1, -7.5, 9]), np.searchsorted(a, 1.0, "right")),
          np.sort(unsorted))
    static = np.sort(unsorted)
    check(lambda v: np.searchsorted(static, v), np.array([[0.0, 1.5], [-4.0, 9.0]]))


def test_searchsorted_promotes_and_checks():
    check(lambda a, v: np.searchsorted(a, v), np.array([1, 2, 3], dtype=np.int8), np.array([1.5, 2.0, 300.0]))
    check(lambda a: np.searchsorted(a, 300), np.array([1, 2, 3], dtype=np.int8))
    check_or_raises(lambda a: np.searchsorted(a, 1.0), np.ones((2, 2)))
    check_or_raises(lambda a: np.searchsorted(a, 1.0, side="middle"), np.ones(3))
    check_or_raises(lambda a, s: np.searchsorted(a, 1.0, sorter=s), np.ones(3), np.array([1, 0]))
    check(lambda a, v: np.searchsorted(a, v), np.zeros(0), np.array([1.0, 2.0]))
