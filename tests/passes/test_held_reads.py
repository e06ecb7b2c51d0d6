"""Reads held before a loop's writes (`passes.held_reads`): swaps and other reads a later write of
the same array uses keep NumPy's values, and XLA no longer copies the array each iteration."""

import re

import numpy as np
import pytest

import solvent
from differential import check_like_numpy
from solvent.passes import held_reads


def reverse(a):
    n = len(a)
    for i in range(n // 2):
        a[i], a[n - 1 - i] = a[n - 1 - i], a[i]
    return a


def reverse_rows(A):
    n = len(A)
    for i in range(n // 2):
        A[i], A[n - 1 - i] = A[n - 1 - i].copy(), A[i].copy()
    return A


def transpose(A):
    n = len(A)
    for i in range(n):
        for j in range(i + 1, n):
            A[i, j], A[j, i] = A[j, i], A[i, j]
    return A


def shuffle(a, r):
    """Fisher-Yates with drawn numbers given."""
    for i in range(len(a) - 1, 0, -1):
        j = r[i] % (i + 1)
        a[i], a[j] = a[j], a[i]
    return a


def carry_forward(a):
    """The element read before it is zeroed goes to its neighbour, read after that write."""
    for i in range(len(a) - 1):
        t = a[i]
        a[i] = 0
        a[i + 1] += t
    return a


def rotate_thirds(a):
    n = len(a) // 3
    for i in range(n):
        a[i], a[i + n], a[i + 2 * n] = a[i + n], a[i + 2 * n], a[i]
    return a


rng = np.random.default_rng(0)
CASES = [(reverse, (rng.random(301),)), (reverse_rows, (rng.random((301, 7)),)),
         (reverse, (rng.random((300, 7)),)),  # rows as views: the second is read after the first write (both end equal)
         (transpose, (rng.random((40, 40)),)),
         (shuffle, (rng.random(300), rng.integers(0, 2 ** 40, 300))), (carry_forward, (rng.random(300),)),
         (rotate_thirds, (rng.random(300),))]


@pytest.mark.parametrize("fn, args", CASES, ids=[f"{fn.__name__}-{args[0].ndim}d" for fn, args in CASES])
def test_swaps_match_numpy_with_no_copy_of_the_array(fn, args):
    check_like_numpy(fn, *args)
    hlo = solvent.code_xla(fn, *args)
    shape = ",".join(map(str, args[0].shape))
    assert not re.findall(rf"f64\[{shape}\]\{{[0-9,]+\}} copy\(", hlo)  # (twice an iteration before)


def big_read(a):
    for i in range(20):
        t = a[:3] * 1.0
        a[i % 2] = 5.0
        a[1:] = t
    return a


def test_a_read_near_the_size_of_its_array_is_not_held(monkeypatch):
    # the buffer would cost about as much as the copy it saves
    check_like_numpy(big_read, np.arange(4.0))
    assert "optimization_barrier" not in solvent.code_mhlo(big_read, np.arange(4.0))
    monkeypatch.setattr(held_reads, "MOST_HELD", 1.0)
    assert "optimization_barrier" in solvent.code_mhlo(big_read, np.arange(4.0))
