"""Loops whose slice shapes change per iteration (A[i, :i]) roll into one while with masks."""

import re
import time

import numpy as np
import pytest

import solvent
from differential import assert_same


def lu_in_place(A):
    n = A.shape[0]
    for k in range(n):
        A[k + 1:, k] /= A[k, k]
        A[k + 1:, k + 1:] -= np.outer(A[k + 1:, k], A[k, k + 1:])
    return A


def cholesky(A):
    n = A.shape[0]
    L = np.zeros_like(A)
    for j in range(n):
        L[j, j] = np.sqrt(A[j, j] - np.dot(L[j, :j], L[j, :j]))
        L[j + 1:, j] = (A[j + 1:, j] - L[j + 1:, :j] @ L[j, :j]) / L[j, j]
    return L


def forward_substitution(L, b):
    n = b.shape[0]
    x = np.zeros_like(b)
    for i in range(n):
        x[i] = (b[i] - L[i, :i] @ x[:i]) / L[i, i]
    return x


def prefix_statistics(x):
    out = np.zeros((x.shape[0], 3))
    for i in range(1, x.shape[0]):
        window = x[:i]
        out[i, 0] = window.mean()
        out[i, 1] = window.max()
        out[i, 2] = np.sum(window * window)
    return out


def spd(n, seed=0):
    m = np.random.default_rng(seed).random((n, n))
    return m @ m.T + n * np.eye(n)


@pytest.mark.parametrize("n", [5, 80])
def test_lu_matches_numpy(n):
    A = spd(n)
    expected = lu_in_place(A.copy())
    actual = solvent.jit(lu_in_place, unroll=8)(A)
    np.testing.assert_allclose(actual, expected, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(A, expected, rtol=1e-10, atol=1e-12)  # in place, like NumPy


def test_cholesky_and_triangular_solve_match_numpy():
    A, b = spd(70), np.arange(70.0)
    L = solvent.jit(cholesky)(A)
    np.testing.assert_allclose(L, np.linalg.cholesky(A), rtol=1e-10, atol=1e-12)
    x = solvent.jit(forward_substitution)(L, b)
    np.testing.assert_allclose(x, forward_substitution(np.linalg.cholesky(A), b), rtol=1e-10, atol=1e-12)


def test_prefix_reductions_use_only_the_valid_part():
    x = np.cos(np.arange(100.0)) - 2.0   # all negative: a zero-padded max would be wrong
    assert_same(solvent.jit(prefix_statistics)(x), prefix_statistics(x))


def test_triangular_kernel_compiles_in_constant_time_with_one_while(monkeypatch):
    monkeypatch.setenv("SOLVENT_CACHE_DIR", "")  # real compiles every time, not the persistent cache's

    def compile_time(n):
        start = time.perf_counter()
        solvent.compile(cholesky, spd(n), unroll=16)
        return time.perf_counter() - start

    compile_time(40)
    small = min(compile_time(40) for _ in range(2))
    large = min(compile_time(400) for _ in range(2))
    assert large < 3 * small, (small, large)
    text = solvent.code_hlo(cholesky, spd(400), unroll=16)
    # one while for the loop (the products inside it loop over their chunks: `chunked_products`)
    assert len(re.findall(r"^    %\S+ = stablehlo\.while", text, re.M)) == 1


def test_functions_that_would_see_the_padding_are_refused():
    def running(x, n):
        total = np.zeros(())
        for i in range(n):
            total = total + np.fft.fft(x[:i + 1])[0].real
        return total

    with pytest.raises(solvent.UnsupportedError, match="bounds are traced"):
        solvent.jit(running)(np.arange(4.0), solvent.Scalar(np.int64(4)))


def returns_a_prefix(x, k):
    return x[:k]


def stores_a_prefix(x, k):
    y = np.zeros(3)
    y[0:3] = x[:k]  # NumPy: a broadcast error unless k is 3
    return y


def carries_a_prefix(x, k):
    y = x[:k]
    for _ in range(k):
        y = y * 2 + 1
    return y.sum(), y


def test_a_slice_of_traced_length_where_its_length_matters_is_refused_never_padded():
    # It was the full length padded with zeros: x[:1] of [0, 1, 2] came back as [0, 0, 0].
    with pytest.raises(solvent.UnsupportedError, match="length known only when the program runs"):
        solvent.jit(stores_a_prefix)(np.arange(3.0), solvent.Scalar(np.int64(1)))


@pytest.mark.parametrize("k", [0, 1, 3])
def test_a_slice_of_traced_length_carried_around_a_loop_keeps_its_length(k):
    # The loop carries the length beside the array (it was refused: read again in the next iteration).
    total, y = solvent.jit(carries_a_prefix)(np.arange(3.0), solvent.Scalar(np.int64(k)))
    expected_total, expected = carries_a_prefix(np.arange(3.0), k)
    assert_same(np.asarray(y), expected)
    assert_same(np.asarray(total), expected_total)


@pytest.mark.parametrize("k", [0, 1, 3])
def test_a_slice_of_traced_length_returned_has_numpys_length(k):
    out = solvent.jit(returns_a_prefix)(np.arange(3.0), solvent.Scalar(np.int64(k)))
    assert_same(np.asarray(out), returns_a_prefix(np.arange(3.0), k))


def test_a_slice_of_traced_length_reduced_or_written_back_is_numpys():
    def f(x, k):
        x[:k] *= 2
        return np.sum(x[:k] + 1), np.max(x[k:])

    for k in range(1, 4):
        x, ref = np.arange(5.0), np.arange(5.0)
        assert_same(solvent.jit(f)(x, solvent.Scalar(np.int64(k))), f(ref, k))
        assert_same(x, ref)
