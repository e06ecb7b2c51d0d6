"""`and`/`or` whose value only a test reads (`if a or b:`): operands of different dtypes join as
truths, as NumPy's run decides; where the value itself is used, its dtype depends on the data and
that stays an error."""

import numpy as np
import pytest

import solvent
from differential import rolled_like_numpy


def several_tests(a, b):
    hits = 0
    for i in range(len(a)):
        if a[i] or b[i] == 0:
            hits += 1
        if not (a[i] and b[i] > 1 or a[i] - 1):
            hits += 10
        hits += 100 if (b[i] or a[i] == 2) else 0
    return hits


def a_stack(grid):
    """Flood fill from a corner with a stack (`if filled[i, j] or grid[i, j] == 0: continue`)."""
    n, m = grid.shape
    filled, stack, top = np.zeros_like(grid), np.zeros((4 * n * m + 1, 2), np.int64), 1
    while top > 0:
        top -= 1
        i, j = stack[top]
        if i < 0 or i >= n or j < 0 or j >= m:
            continue
        if filled[i, j] or grid[i, j] == 0:
            continue
        filled[i, j] = 1
        for di, dj in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            stack[top] = i + di, j + dj
            top += 1
    return filled


@pytest.mark.parametrize("dtype", [np.int64, np.float64, np.bool_])
def test_operands_of_a_test_join_as_truths(dtype):
    rng = np.random.default_rng(0)
    rolled_like_numpy(several_tests, rng.integers(0, 3, 40).astype(dtype), rng.integers(0, 3, 40))


def test_a_flood_fill_by_a_stack():
    grid = (np.random.default_rng(1).random((12, 12)) > 0.3).astype(np.int64)
    grid[0, 0] = 1
    rolled_like_numpy(a_stack, grid)


def test_the_value_of_an_or_of_two_dtypes_is_refused():
    def valued(a, b):
        return a[0] or b[0] == 0  # an int or a bool, by the data

    with pytest.raises(solvent.ControlFlowError, match="bool"):
        solvent.jit(valued)(np.arange(20), np.arange(20))
