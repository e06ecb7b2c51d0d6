"""Slices from a rolled loop's index: `a[i:i + k]` is a dynamic slice of static length k."""

import warnings

import numpy as np
import pytest

import solvent
from differential import assert_same


def window_sums(x, k):
    out = np.zeros(x.shape[0] - k + 1)
    for i in range(x.shape[0] - k + 1):
        out[i] = np.sum(x[i:i + k] * np.arange(k))
    return out


def strided_blocks(x):
    out = np.zeros((20, 2))
    for i in range(20):
        out[i] = x[2 * i + 1:2 * i + 3]
        x[2 * i:2 * i + 2] += i
    return out, x


def test_a_window_of_static_length_slides_with_the_index():
    x = np.random.default_rng(0).random(40)
    assert_same(solvent.jit(window_sums, static_argnames="k")(x, k=5), window_sums(x, 5))
    text = solvent.code_hlo(window_sums, x, k=5, optimize="none")
    assert "stablehlo.while" in text and "dynamic_slice" in text
    assert "tensor<5xf64>" in text  # the window itself, not the whole array with a mask


def test_scaled_and_shifted_indices_read_and_write_in_place():
    x = np.arange(44.0)
    expected_x = x.copy()
    expected = strided_blocks(expected_x)
    result = solvent.jit(strided_blocks)(x)
    assert_same(result[0], expected[0])
    assert_same(x, expected_x)


@pytest.mark.parametrize("stop", [3, 7])
def test_a_window_that_may_run_past_the_end_keeps_numpy_lengths(stop):
    def clipped(x):
        total = np.zeros(())
        for i in range(20):
            total = total + np.sum(x[i:i + stop])  # near the end the window is shorter
        return total
    x = np.arange(22.0)
    assert_same(solvent.jit(clipped)(x), clipped(x))


def upper_sweep(a):
    n = a.shape[0]
    for i in range(n - 1, -1, -1):
        for j in range(i + 1, n):  # bounds from the outer index: j is in [1, n - 1]
            a[i, j] = max(a[i, j], a[i, j - 1] + a[i + 1, j])
    return a


def around(x, lo, hi):
    for i in range(lo, hi):  # negative indices wrap as in NumPy
        for j in range(i - 2, i):
            x[j] += x[i] * 0.5
    return x


def test_indices_known_never_negative_take_no_wrap_and_follow_numpy():
    a = np.random.default_rng(1).random((20, 20))
    assert_same(solvent.jit(upper_sweep)(a.copy()), upper_sweep(a.copy()))
    text = solvent.code_hlo(upper_sweep, a, optimize="none")
    assert text.count("stablehlo.while") == 2
    assert "tensor<i1>, tensor<i64>" not in text  # no select of a negative index's wrap (i + n)


@pytest.mark.parametrize("lo, hi", [(-5, 5), (0, 9), (2, 10)])
def test_indices_that_may_be_negative_wrap_as_in_numpy(lo, hi):
    x = np.arange(10.0)
    result = solvent.jit(around, static_argnames=("lo", "hi"))(x.copy(), lo=lo, hi=hi)
    assert_same(result, around(x.copy(), lo, hi))


def folding(x, shift):
    """Nussinov's split: two slices of one length from two indices, shifted by constants."""
    n = x.shape[0]
    out = np.zeros((n, n))
    for i in range(n - shift):
        for j in range(i + 1, n - shift):
            out[i, j] = np.max(x[i, i + 1:j + 1] + x[i + shift:j + shift, j]) + np.sum(x[i - 1:j, 0])
    return out


@pytest.mark.parametrize("shift", [1, 2])
def test_slices_shifted_by_constants_from_two_indices_have_one_length(shift):
    """`x[i, i + 1:j + 1]` and `x[i + 2:j + 2, j]` are as long as each other for every i and j (their
    bounds lie inside the axis): the lengths are written alike, so the sum is not split into a branch
    for a length of 1 spreading. `x[i - 1:j]` may start at -1, which wraps, and keeps NumPy's bounds."""
    x = np.random.default_rng(2).random((70, 70))
    assert_same(solvent.jit(folding, static_argnames="shift")(x, shift=shift), folding(x, shift))
    text = solvent.code_hlo(folding, x, shift=shift, optimize="none")
    assert text.count("stablehlo.while") == 4 and "stablehlo.if" not in text  # (2 loops, 2 chunked reductions)


def narrow_windows(x):
    out = np.zeros(8)
    for i in range(8):
        k = np.uint8(253) + i  # (wraps to 0 at i = 3, and k + 2 at i = 1)
        out[i] = x[k:k + 2].sum()
    return out


def test_an_index_form_in_a_narrow_type_that_wraps_is_no_window():
    """`np.uint8(253) + i` took the form i + 253, so x[k:k + 2] was read as a window of 2 where NumPy's
    k + 2 has wrapped to 0 (an empty slice)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # (NumPy's overflow warnings)
        expected = narrow_windows(np.arange(300.0))
        assert_same(solvent.jit(narrow_windows, unroll=1)(np.arange(300.0)), expected)
