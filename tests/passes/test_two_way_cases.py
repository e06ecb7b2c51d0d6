"""Two-branch cases on scalars as `stablehlo.if` before the pass pipeline (`passes.two_way_cases`):
the same values as NumPy, index out of range included, and a scalar `if` in a loop no longer
keeps the loop from becoming array ops; branches with array work stay conditionals."""

import numpy as np
import pytest

import solvent
from differential import check_like_numpy
from solvent.ir.context import context
from solvent.passes import two_way_cases

#: Long enough that the loops roll (solvent unrolls static loops of up to 16 steps).
ROLLED = 40


def count_pairs(a, b):
    total = 0.0
    for i in range(a.shape[0]):
        total += 1 if a[i] + b[i] == 3 else 0
    return total


def floor_small(s, eps):
    for j in range(s.shape[0]):
        s[j] = 1.0 if s[j] <= eps else s[j]
    return s


def scale_rows_if_positive(A):
    for i in range(A.shape[0]):
        if A[i, 0] > 0:
            A[i, :] *= 2.0
    return A


@pytest.mark.parametrize("seed", range(3))
def test_scalar_branches_in_loops_match_numpy_and_become_array_ops(seed):
    rng = np.random.default_rng(seed)
    a, b = rng.integers(0, 4, ROLLED), rng.integers(0, 4, ROLLED)
    s = rng.random(ROLLED) * 0.3
    s[::7] = np.nan  # NaN <= eps is False: the else branch
    check_like_numpy(count_pairs, a, b)
    check_like_numpy(floor_small, s, 0.1)
    for text in (solvent.code_hlo(count_pairs, a, b), solvent.code_hlo(floor_small, s, 0.1)):
        assert "stablehlo.case" not in text and "stablehlo.while" not in text


def test_branches_with_array_work_stay_conditionals():
    A = np.random.default_rng(3).standard_normal((ROLLED, 5))
    check_like_numpy(scale_rows_if_positive, A)
    text = solvent.code_hlo(scale_rows_if_positive, A)
    assert "stablehlo.case" in text or "stablehlo.if" in text


@pytest.mark.parametrize("index", [-3, 0, 1, 2, 9])
def test_a_switch_of_two_scalar_branches_runs_numpys_branch(index):
    """`switch` clamps its index; the `if` runs branch 0 exactly where the case did."""
    f = solvent.jit(lambda i, x: solvent.switch(i, [lambda v: v * 2.0, lambda v: v - 1.0], x))
    assert f(np.array(index), np.array(5.0)) == (10.0 if index <= 0 else 4.0)
    assert "stablehlo.case" not in solvent.code_hlo(f, np.array(index), np.array(5.0))


def test_only_two_branch_cases_on_scalars_change():
    def three_way(i, x):
        return solvent.switch(i, [lambda v: v, lambda v: v + 1.0, lambda v: v * 3.0], x)

    def two_way(c, x):
        return solvent.cond(c > 0, lambda v: v * 2.0, lambda v: v + 1.0, x)

    with context():
        for fn, args, changed in ((three_way, (np.array(1), np.array(2.0)), False),
                                  (two_way, (np.array(1.0), np.ones(3)), False),
                                  (two_way, (np.array(1.0), np.array(2.0)), True)):
            text = solvent.code_hlo(fn, *args, optimize=False)
            assert "stablehlo.case" in text
            out = two_way_cases.as_ifs(text)
            assert ("stablehlo.case" not in out and "stablehlo.if" in out) == changed
            assert (out == text) == (not changed)
