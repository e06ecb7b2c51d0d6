"""Writes in the branches of a traced `if` (`transforms.branch_writes`): a block each writing
branch writes at one place leaves the case and is written once after it, so XLA updates the
array in place; every other pattern of writes keeps its own result. Both give NumPy's values."""

import pathlib
import sys

import numpy as np
import pytest

import solvent
from differential import assert_same, check_like_numpy

sys.path.insert(0, str(pathlib.Path(__file__).parents[2] / "benchmarks"))
from polybench.medley import nussinov, nussinov_init  # noqa: E402  the suite's own Nussinov


def both_write(A, b):
    n = A.shape[0]
    for i in range(1, n):
        for j in range(1, n):
            if b[i] > b[j]:
                A[i, j] = A[i - 1, j] + b[i]
                A[i, j] = max(A[i, j], A[i, j - 1])   # the same element twice
            else:
                A[i, j] = A[i, j - 1] * 0.5            # the place computed anew in the branch
    return A


def one_writes(A, b):
    for i in range(A.shape[0]):
        if b[i] > 0.5:
            A[i, i] += b[i]
    return A


def elsewhere(A, b, order):
    for i in range(A.shape[0]):
        if b[i] > 0.5:
            A[i, order[i]] = b[i]          # a place read from an array
        else:
            A[order[i], i] = -b[i]         # another place: the case keeps the whole array
    return A


def same_place_spelled_otherwise(A, b):
    for i in range(1, A.shape[0]):
        if b[i] > 0.5:
            A[i, i] = b[i]
        else:
            A[i, (i - 1) + 1] = -b[i]      # the same place, not seen as such: the case keeps A
    return A


def two_places(A, b):
    for i in range(1, A.shape[0]):
        if b[i] > 0.5:
            A[i, 0] = b[i]
            A[i - 1, 1] = -b[i]            # two blocks in one branch
    return A


def rows(A, b):
    for i in range(A.shape[0]):
        if b[i] > 0.5:
            A[i] = A[i] * b[i]             # a whole row
        else:
            A[i, :] += 1.0
    return A


@pytest.mark.parametrize("fn", [both_write, one_writes, same_place_spelled_otherwise, two_places, rows])
@pytest.mark.parametrize("n", [1, 2, 7])
def test_writes_in_branches_match_numpy(fn, n):
    rng = np.random.default_rng(n)
    check_like_numpy(fn, rng.random((n, n)), rng.random(n))


def test_writes_at_places_the_branches_choose_differently_match_numpy():
    rng = np.random.default_rng(5)
    check_like_numpy(elsewhere, rng.random((6, 6)), rng.random(6), rng.permutation(6))


def _copies_in_loops(text: str, shape: str) -> list[str]:
    """The copies of arrays of `shape` outside the entry computation: in loop bodies and branches."""
    body = text.split("\nENTRY")[0]
    return [line for line in body.splitlines() if " copy(" in line and shape in line.split("copy(")[0]]


@pytest.mark.parametrize("fn", [both_write, one_writes, rows])
def test_a_block_written_in_branches_is_updated_in_place(fn):
    rng = np.random.default_rng(0)
    A, b = rng.random((30, 30)), rng.random(30)
    text = solvent.code_xla(fn, A, b)
    assert " conditional(" in text and " while(" in text
    assert not _copies_in_loops(text, "f64[30,30]")


def test_nussinov_updates_its_table_in_place():
    """The suite's Nussinov, whose `if i < j - 1` chooses how a cell is computed: XLA copied the
    table three times per cell (500 bases: 3.9 s against NumPy's 0.5 s)."""
    seq, table = nussinov_init(20)
    check_like_numpy(nussinov, seq, table)
    text = solvent.code_xla(nussinov, seq, table)
    assert " conditional(" in text
    assert not _copies_in_loops(text, "s32[20,20]")


def writes_a_0d_argument_in_a_branch(a0, a1):
    k1 = 0
    while np.sum(a0) > 0 and k1 < 2:  # (found by `make fuzz`: the branch's write of a 0-d array
        k1 += 1                       # made a 0-d dynamic_slice, which MLIR prints unparseably)
    if np.sum(a0) > 0:
        a0[...] = 0
    return a0,


def test_a_branch_writing_a_0d_argument():
    for a0 in (0.8, -0.5):
        check_like_numpy(writes_a_0d_argument_in_a_branch, np.array(a0), np.array(-1.4))


def thomas(a, b, c, d):
    n = d.shape[0]
    cp, dp = np.zeros(n - 1), np.zeros(n)
    cp[0], dp[0] = c[0] / b[0], d[0] / b[0]
    for i in range(1, n):
        den = b[i] - a[i - 1] * cp[i - 1]
        if i < n - 1:  # cp[n - 1] would be out of range
            cp[i] = c[i] / den
        dp[i] = (d[i] - a[i - 1] * dp[i - 1]) / den
    return cp, dp


def tridiagonal(u):
    n = u.shape[0]
    A = np.zeros((n, n))
    for i in range(n):
        A[i, i] = 2.0 + u[i]
        if i > 0:
            A[i, i - 1] = -1.0
        if i < n - 1:
            A[i, i + 1] = -1.0
    return A


@pytest.mark.parametrize("unroll", [1, 16])
def test_a_write_guarded_against_the_end_of_the_array_keeps_the_last_element(unroll):
    """Where the guard fails the element is read and written back at a start past the end, which the
    op clamps: the patterns took it as given and read the last element from before the loop
    (the Thomas algorithm 1.7% off at n = 100; A[n - 1, n - 1] came out 0)."""
    rng = np.random.default_rng(0)
    n = 30
    args = rng.uniform(-1, 1, n - 1), rng.uniform(4, 5, n), rng.uniform(-1, 1, n - 1), rng.standard_normal(n)
    u = rng.standard_normal(n)
    assert_same(solvent.jit(thomas, unroll=unroll)(*args), thomas(*args))
    assert_same(solvent.jit(tridiagonal, unroll=unroll)(u), tridiagonal(u))
