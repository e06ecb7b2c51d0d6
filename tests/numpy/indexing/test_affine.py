"""Slices from a rolled loop's index: `a[i:i + k]` is a dynamic slice of static length k."""

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
