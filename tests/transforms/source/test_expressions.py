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


def assigned_in_tests(x):
    v, w = -1.0, -1.0
    if (v := x[1]) > 0 and x[0] > 0:  # the first operand always runs: its name is the function's
        w = 1.0
    u = x[0] * 2 if (s := x[2]) > 0 else 0.0
    ok = x[3] < (t := x[0] + 1) < 10 and 2 < 5
    return v, w, u, s, t, ok


def test_assignment_expressions_that_always_run_assign_the_functions_names():
    """`:=` in a thunk bound the thunk's own name: v stayed -1.0 where NumPy's run gave 2.0."""
    for x in (np.array([1.0, 2.0, 3.0, 0.5]), np.array([-1.0, -2.0, -3.0, 9.0])):
        assert solvent.jit(assigned_in_tests)(x) == assigned_in_tests(x)


@pytest.mark.parametrize("fn", [
    lambda x: x[0] > 0 and (v := x[1]) > 0 or v,
    lambda x: x[0] if x[0] > 0 else (v := x[1]) + v,
    lambda x: 0 < x[0] < (v := x[1]) and v > 0,
], ids=["and", "conditional", "chain"])
def test_assignment_expressions_that_run_by_a_traced_test_are_refused(fn):
    with pytest.raises(solvent.SolventError, match="traced|bool"):
        solvent.jit(fn)(np.array([1.0, 2.0]))


def scaled_by_a_static_test(x, n):
    if n > 0 and (m := n * 2) > 3:
        return x * m
    return x


def test_assignment_expressions_after_static_tests_run_as_in_python():
    for n in (0, 1, 2):
        np.testing.assert_array_equal(solvent.jit(scaled_by_a_static_test)(np.ones(2), n),
                                      scaled_by_a_static_test(np.ones(2), n))
