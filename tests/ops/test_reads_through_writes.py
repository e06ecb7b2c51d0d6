"""Reads through writes (`ops.shape.dynamic_slice`): an element or row read right after another
one of the same array was written gives NumPy's value, including when both are the same one,
and LU by rows, which does so, updates its carried array in place (no copy per iteration)."""

import pathlib
import sys

import numpy as np
import pytest

import solvent
from differential import check_like_numpy

sys.path.insert(0, str(pathlib.Path(__file__).parents[2] / "benchmarks"))
from polybench.solvers import lu as lu_rows  # noqa: E402  PolyBench's LU by rows, as the suite runs it


def elimination(A):
    n = A.shape[0]
    for i in range(n):
        for j in range(i):
            A[i, j] -= 1.0
            A[i, j] /= A[j, j]      # reads another element than the one just written...
            A[j, i] += A[i, j]      # ...and the one just written, at swapped indices
            A[i, i] -= 0.01 * A[i, j] * A[j, i]
    return A


def rows(A, order):
    for k in range(A.shape[0]):
        i, j = order[k], order[(k + 1) % A.shape[0]]
        A[i] += 1.0
        A[j] = A[i] * 0.5 + A[j]   # the same row when order repeats, another one otherwise
    return A


@pytest.mark.parametrize("n", [1, 2, 5])
def test_element_reads_after_writes_match_numpy(n):
    A = np.random.default_rng(n).random((n, n)) + n * np.eye(n)
    check_like_numpy(elimination, A)


def test_row_reads_after_writes_match_numpy():
    A = np.random.default_rng(0).random((4, 3))
    check_like_numpy(rows, A, np.array([0, 2, 2, 1]))


def test_a_loop_reading_what_it_wrote_updates_its_carry_in_place():
    """LU by rows: `A[j, j]` read after `A[i, j]` was written. Without the read through the
    write, XLA copied A on every inner iteration (n=400: 1.6 s against NumPy's 0.1 s)."""
    A = np.eye(30) * 30 + 1.0
    check_like_numpy(lu_rows, A, rtol=1e-10)
    text = solvent.code_xla(lu_rows, A)
    assert " while(" in text
    assert not [line for line in text.splitlines() if " copy(" in line and "f64[30,30]" in line.split("copy(")[0]]
