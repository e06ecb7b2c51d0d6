"""Slices whose bounds depend on a rolled loop's index, read and written, against NumPy.

Each bound is one of the forms scientists write (`:i`, `i+1:`, `-i-1:`, `n-i`, static ones),
so starts that are static zero (no shift), traced (a shifted block) and negative are all met,
forwards and backwards (`r[k - 1::-1]`), on row and column positions, in 1-D and 2-D, reads and
in-place writes alike.
"""

import re

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import solvent
from differential import assert_same, check_like_numpy

BOUNDS = {
    "none": lambda i, n: None, "zero": lambda i, n: 0, "two": lambda i, n: 2, "i": lambda i, n: i,
    "i+1": lambda i, n: i + 1, "-i-1": lambda i, n: -i - 1, "n-i": lambda i, n: n - i, "-1": lambda i, n: -1,
}


def program(lo, hi, step):
    def kernel(A, B, x, y):
        n = A.shape[0]
        for i in range(n):
            s = slice(lo(i, n), hi(i, n)) if step == 1 else slice(hi(i, n), lo(i, n), -1)
            A[i, s] += 2.0 * B[s, i]
            B[s, i] = A[i, s] - B[s, i]
            x[s] *= 0.5
            x[s] += A[i, s]
            y[i] = np.sum(A[s, i] * x[s]) + np.max(B[i, s], initial=-1.0)
            A[s, s] -= 0.01 * np.outer(x[s], y[s])
    return kernel


@settings(max_examples=40, deadline=None)
@given(lo=st.sampled_from(sorted(BOUNDS)), hi=st.sampled_from(sorted(BOUNDS)), step=st.sampled_from([1, -1]),
       n=st.integers(2, 6))
def test_loop_dependent_slices_read_and_write_like_numpy(lo, hi, step, n):
    rng = np.random.default_rng(n)
    args = [rng.random((n, n)), rng.random((n, n)), rng.random(n), np.zeros(n)]
    expected = [a.copy() for a in args]
    kernel = program(BOUNDS[lo], BOUNDS[hi], step)
    kernel(*expected)
    solvent.jit(kernel, unroll=1)(*args)
    for got, want in zip(args, expected):
        assert_same(got, want)


def row_update(C, A):
    for i in range(C.shape[0]):
        C[i, :i + 1] *= 1.2
        C[i, :i + 1] += 1.5 * (A[:i + 1, :] @ A[i, :])
        C[i + 1:, i] -= 0.5 * C[i, i + 1:]


def test_a_triangular_loop_updates_its_carry_in_place():
    """The row written is cut from the carried array and put back with a dynamic_update_slice:
    no pad or copy of the whole matrix per iteration (XLA then updates the carry in place)."""
    C, A = np.ones((40, 40)), np.ones((40, 30))
    text = solvent.code_hlo(row_update, C, A, unroll=1)
    assert "stablehlo.dynamic_update_slice" in text
    assert "tensor<40x80xf64>" not in text and "tensor<80x40xf64>" not in text  # no padded whole matrix
    expected = C.copy()
    row_update(expected, A)
    solvent.jit(row_update, unroll=1)(C, A)
    assert_same(C, expected)


def lower_products(C, A):
    for i in range(C.shape[0]):
        C[i, :i + 1] += 1.5 * (A[:i + 1, :] @ A[i, :])


def test_products_masked_on_their_result_only_batch_into_one_matrix_product():
    """`A[:i + 1, :] @ A[i, :]` has its mask on an axis the product keeps, so the operand is not
    zeroed (the result is): the optimizer then turns the whole loop into A @ A.T and one select,
    where zeroing each operand made it a 3-D masked tensor (PolyBench syrk at n=240: 22 ms -> 0.5 ms)."""
    C, A = np.ones((40, 40)), np.random.default_rng(0).random((40, 30))
    text = solvent.code_hlo(lower_products, C, A)
    assert "stablehlo.while" not in text
    assert not re.search(r"tensor<\d+x\d+x\d+x", text)  # no batch of masked copies
    expected = C.copy()
    lower_products(expected, A)
    solvent.jit(lower_products)(C, A)
    assert_same(C, expected)


def column_products(data, cov):
    m = data.shape[1]
    for i in range(m):
        cov[i, i:] = data[:, i] @ data[:, i:]
        cov[i:, i] = cov[i, i:]


def trailing_update(A):
    n = A.shape[0]
    for k in range(n):
        A[k + 1:, k] /= A[k, k]
        A[k + 1:, k + 1:] -= np.outer(A[k + 1:, k], A[k, k + 1:])


def test_slices_with_the_same_traced_start_combine_and_go_back_without_moving():
    """`data[:, i:]`, `cov[i, i:]` and `cov[i:, i]` start at the same `i`, and `A[k + 1:, k]`,
    `A[k, k + 1:]`, `A[k + 1:, k + 1:]` at the same `k + 1`: their products and updates stay where
    they are in the base, so no array is padded to move a slice to 0 and back (PolyBench
    covariance at m=240: 21 ms -> 1.0 ms)."""
    data, cov = np.random.default_rng(0).random((12, 9)), np.zeros((9, 9))
    A = np.random.default_rng(1).random((9, 9)) + 9 * np.eye(9)
    for fn, args in ((column_products, (data, cov)), (trailing_update, (A,))):
        assert "stablehlo.pad" not in solvent.code_hlo(fn, *args, unroll=1)
        expected = [a.copy() for a in args]
        fn(*expected)
        solvent.jit(fn, unroll=1)(*args)
        for got, want in zip(args, expected):
            assert_same(got, want)


def test_masks_of_a_rolled_loop_cost_no_n_cubed_memory():
    """The optimizer precomputes a mask's tests for every iteration of the loop: made per axis and
    broadcast, that is n x n; made at the block's shape, it was n x n x n (2 GB of temporaries for
    the outer-product LU at n=1000)."""
    n = 100
    A = np.random.default_rng(0).random((n, n)) + n * np.eye(n)
    temp = solvent.compile(trailing_update, A).memory_analysis().temp_size_in_bytes
    assert temp < 64 * n * n



def segments(x, starts, ends, out):
    """Sums and in-place updates over segments whose bounds are read from arrays."""
    total = np.zeros(len(starts))
    for i in range(len(starts)):
        total[i] = x[starts[i]:ends[i]].sum()
        out[starts[i]:ends[i]] += total[i]
    return total


def test_slices_bounded_by_array_data_read_and_write_like_numpy():
    # Bounds from data (not from the loop index) are traced bounds too: empty, reversed (empty
    # too), whole and one-element segments, over a loop long enough to roll.
    rng = np.random.default_rng(3)
    starts = rng.integers(0, 30, 20)
    ends = starts + rng.integers(-2, 8, 20)
    starts[:3], ends[:3] = [0, 5, 29], [30, 5, 30]
    check_like_numpy(segments, rng.standard_normal(30), starts, ends, np.zeros(30))


def lengths_from_data(x, y, k, j):
    a, b = x[:int(k)], x[:int(j)]
    p = x[x > 0]
    y[:int(k)] = x[:int(j)]
    return a + b, np.where(a > 1.0, a, b), p * p[:1], p[1:] - p[:-1], y


def test_lengths_from_data_broadcast_a_length_of_one_as_numpy_does():
    """x[:k] + x[:j] with j = 1 spreads x[0] (solvent took k's length and paired the elements: 0, 2,
    4 for NumPy's 0, 1, 2); x[:k] = y[:j] writes y[0] three times (it wrote y[:3])."""
    x = np.array([2.0, -1.0, 3.0, 4.0, 0.5])
    for k, j in [(3, 1), (1, 1), (3, 3), (0, 0)]:
        check_like_numpy(lengths_from_data, x, np.zeros(5), np.array(k), np.array(j))
    check_like_numpy(lambda x, k, j: x[:int(k)] * x[:int(j)], x, np.array(1), np.array(4))


def knapsack(weights, values, capacity):
    dp = np.zeros(capacity + 1)
    for k in range(len(weights)):
        w, v = weights[k], values[k]
        dp[w:] = np.maximum(dp[w:], dp[:capacity + 1 - w] + v)
    return dp


def spread_into(x, y, k, j):
    for i in range(3):
        x[int(k) + i:] = np.maximum(x[int(k) + i:], y[int(j):int(j) + 1]) + i
    return x


def shifted_uses(dp, acc, shifts):
    """Results of slices at two starts, used at 0, at a third start and summed."""
    n, total = len(dp), 0.0
    for k in range(len(shifts)):
        w = shifts[k]
        both = np.maximum(dp[w:], dp[:n - w] * 0.5)
        acc[:n - w] += both - dp[:n - w]
        acc[w // 2:w // 2 + n - w] -= 0.25 * both
        total += np.sum(both * dp[w:])
        dp[w:] = both + 1.0
    return dp, acc, total


def test_a_write_of_lengths_broadcast_with_its_own_spreads_only_where_numpy_does():
    """`dp[w:] = np.maximum(dp[w:], dp[:n - w] + v)`: the value is as long as dp[w:] wherever that
    is not 1, so the write spreads nothing (it spread the value's first element, a select over
    the row, every step); a value of length 1 written into a longer slice still spreads. The
    value is also lined up where dp[w:] is, so the write moves nothing (XLA computed the spreads
    inside that move); uses elsewhere take the same value at 0."""
    rng = np.random.default_rng(5)
    weights = np.array([0, 1, 3, 7, 12, 13, 12, 5, 2, 11])  # from the whole row to past its end
    check_like_numpy(knapsack, weights, rng.random(10), 12)
    for k, j in [(0, 2), (4, 0), (7, 9)]:
        check_like_numpy(spread_into, np.arange(10.0), rng.random(10), np.array(k), np.array(j))
    check_like_numpy(shifted_uses, rng.random(12), np.zeros(12), np.array([0, 3, 11, 12, 1, 6, 2, 9]))
    text = solvent.code_hlo(knapsack, rng.integers(0, 50, 40), rng.random(40), 200)
    loop = text[text.index("stablehlo.while"):]
    assert loop.count("stablehlo.pad") == 1  # dp[:n - w] + v moved to dp[w:]; nothing moved back


def one_at_a_start(x, ws, ms):
    out, acc = np.zeros(len(ws), x.dtype), np.zeros(x.shape[0], x.dtype)
    for k in range(len(ws)):
        w, m = ws[k], ms[k]
        out[k] = np.sum(x[w:] + x[:m])
        acc[:m] = (x[w:] + x[:m]) * 2
        x[:x.shape[0] - w] = np.abs(x[w:] - x[:x.shape[0] - w])
    return out, acc, x


def test_a_slice_of_length_one_at_a_traced_start_spreads_over_a_longer_one():
    """x[9:] + x[:5] is 5 long from 0: lined up at 9 it ran past the end (its sum was x[9] + x[0])."""
    check_like_numpy(one_at_a_start, np.arange(10), np.array([9, -1, 3, 0]), np.array([5, 10, 7, 10]))


def other_extents(x, y, B, ms):
    """Slices with traced bounds of bases of different extents, combined, multiplied and written
    into one another."""
    out, z = np.zeros(len(ms)), np.zeros(x.shape[0] + 9)
    for k in range(len(ms)):
        m = ms[k]
        out[k] = np.sum(x[:m] * y[:m]) + np.dot(x[:m], y[:m]) + np.sum(y[:m] @ B[:m, :m])
        out[k] += np.inner(x[:m], y[:m]) + np.einsum("i,ij->", x[:m], B[:m, :m])
        z[:m] = np.maximum(x[:m], y[:m] - 1.0) + x[:1]
        y[m + 4:] = np.minimum(y[m + 4:], x[:x.shape[0] - m] * 3)
        x[:m] += y[:m]
        np.subtract(y[:m], x[:m] * 0.5, out=y[:m])
        B[:2, :m] = x[:m]  # (broadcast over the rows of a wider base)
        B[m:, :m] = y[:m] - 1.0
    return out, z, B


@pytest.mark.parametrize("n", [10, 70])
def test_slices_of_bases_of_different_extents_combine_as_numpys(n):
    """x[:m] * y[:m] with x of 10 and y of 14 elements raised a shape mismatch while tracing (both
    were held at their own base's extent); so did B[:2, :m] = x[:m] into B of 12 columns."""
    rng = np.random.default_rng(n)
    ms = np.array([0, 1, 3, n // 2, n - 1, n])
    check_like_numpy(other_extents, rng.random(n), rng.random(n + 4), rng.random((n + 2, n + 2)), ms)


def test_a_read_at_a_traced_step_is_refused_as_such():
    """`x[k::k]` read compared the traced step with None, whose error spoke of Python objects; its
    length is known only at run time (writes loop, see test_stepped)."""
    def strided_sum(x, k):
        return x[int(k)::int(k)].sum()

    with pytest.raises(solvent.UnsupportedError, match="a step other than 1 or -1"):
        solvent.jit(strided_sum)(np.arange(10.0), np.array(3))
