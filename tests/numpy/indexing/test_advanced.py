"""Stores at traced index arrays (`indexing.advanced`): the last of repeated indices wins, as in
NumPy, and a few updates are scattered in place rather than by a pass over the whole array."""

import itertools
import re

import numpy as np
import pytest

import solvent
from differential import check_like_numpy
from solvent.numpy.indexing import advanced


def repeated(a, i, j):
    a[[i, i, j]] = np.array([1.0, 2.0, 3.0])
    return a


def pairs(A, i, j, k):
    A[[i, j, k], [j, k, i]] = np.array([5.0, 6.0, 7.0])
    return A


def swapped_rows(A, i, j):
    A[[i, j]] = A[[j, i]] * 2
    return A


def columns(A, i, j):
    A[:, [i, j, i]] = A[:, [j, i, j]] + 1
    return A


@pytest.mark.parametrize("i, j, k", list(itertools.product([0, 2, -1], repeat=3)))
def test_the_last_of_repeated_traced_indices_wins(i, j, k):
    i, j, k = np.int64(i), np.int64(j), np.int64(k)
    check_like_numpy(repeated, np.zeros(4), i, j)
    check_like_numpy(pairs, np.zeros((3, 3)), i, j, k)
    check_like_numpy(swapped_rows, np.arange(12.0).reshape(4, 3), i, j)
    check_like_numpy(columns, np.arange(12.0).reshape(3, 4), i, j)


@pytest.mark.parametrize("count", [advanced.FEW_UPDATES, advanced.FEW_UPDATES + 1])
def test_many_updates_at_repeated_indices(count):
    def store(a, index):
        a[index] = np.arange(len(index), dtype=a.dtype)
        return a

    check_like_numpy(store, np.zeros(7), np.random.default_rng(count).integers(0, 7, count))


def pivot_rows(A):
    for k in range(A.shape[1]):
        p = k + np.argmax(np.abs(A[k:, k]))
        A[[k, p]] = A[[p, k]]
    return A


def test_a_row_swap_in_a_loop_is_scattered_in_place():
    # the last-wins rule by a `max` scatter selected over the whole matrix every iteration (64 ms
    # for 1000 row swaps of a 2000 x 50 matrix, NumPy 7 ms)
    A = np.random.default_rng(0).random((60, 30))
    check_like_numpy(pivot_rows, A)
    hlo = solvent.code_xla(pivot_rows, A)
    assert not re.findall(r"f64\[60,30\]\{1,0\} (?:select|copy)\(", hlo)
