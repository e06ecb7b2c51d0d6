"""Reductions of floats by maximum or minimum keep NaN (solvent.passes.nan_reductions), as NumPy's do."""

import numpy as np
import pytest

from numpy_samples import check


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("at", [0, 3, 2048, -1])
def test_a_nan_among_thousands_is_the_max_and_the_min(dtype, at):
    """XLA:CPU reduces 4,096 floats or more with its maximum in a way that drops NaN: np.max of ones
    with one NaN gave 1.0, or -inf with the NaN last (jax.jit(jnp.max) does the same)."""
    x = np.ones(10_000, dtype)
    x[at] = np.nan
    grid = np.ones((64, 70), dtype)
    grid[:, at % 70] = np.nan
    for reduction in (np.max, np.min, lambda x: x.max(), np.maximum.reduce, np.ptp):
        check(reduction, x)
    check(lambda grid: (np.max(grid, axis=1), np.min(grid, axis=0)), grid)


def running_maxima(x):
    s = np.zeros(x.shape[0])
    for k in range(1, x.shape[0]):
        s[k] = np.max(x[:k] + x[k - 1:k])  # (batched by the optimizer into one reduction of 64 x 65)
    return s


def test_a_nan_reaches_maxima_of_a_loop_batched_into_one_reduction():
    x = np.ones(65)
    x[2] = np.nan
    check(running_maxima, x)
