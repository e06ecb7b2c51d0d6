"""Sums, maxima and minima of expressions of loop-dependent slices taken chunk by chunk, against NumPy.

The slices start at 0, at the loop index or a constant past it, one along a row and one down a
column; the valid part is shorter than a chunk, a whole number of chunks or between; values
outside it (NaN, infinities, the integer extremes) must not reach the result. Expressions whose
slices cannot be lined up, or on axes too short for chunks, take the whole-extent path, with the
same results. A slice of one element spreads over the others (NumPy's broadcasting).
"""

import pathlib
import re
import sys
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import solvent
from differential import assert_same
from solvent.numpy.indexing.chunked_products import CHUNK

sys.path.insert(0, str(pathlib.Path(__file__).parents[3] / "benchmarks"))
from polybench.medley import nussinov  # noqa: E402  (PolyBench's, cell by cell)

#: Expressions of a row slice and a column slice of T (and a vector v) for the cell (i, j).
EXPRESSIONS = {
    "row + column": lambda T, v, i, j: T[i, i + 1:j] + T[i + 2:j + 1, j],
    "column": lambda T, v, i, j: T[i + 1:j + 1, j],
    "prefix - scaled": lambda T, v, i, j: T[i, :j] - 2 * v[:j],
    "nested": lambda T, v, i, j: np.maximum(T[i, i:j] * 3, v[i:j]) + 1,
    "apart": lambda T, v, i, j: T[i + 1:j + 1, j] - v[i:j],
    "unrelated": lambda T, v, i, j: T[i, :j - i] + v[i:j],  # starts 0 and i: no one offset lines them up
    # one element spread over the other's length (NumPy's broadcasting), or over one element
    "spread": lambda T, v, i, j: T[i, i + 1:j] * v[i:i + 1],
    "spread at its end": lambda T, v, i, j: v[j:j + 2] * v[j + 1:j + 2] - T[i, j:j + 1],
    "spread both": lambda T, v, i, j: v[i:i + 1] + T[i, i + 1:i + 2],
}
REDUCTIONS = {"max": np.max, "min": np.min, "sum": np.sum, "amax": np.amax}


def program(expression, reduction):
    def kernel(T, v, out):
        n = T.shape[0]
        for i in range(n - 2):
            for j in range(i + 2, n - 1):  # (no empty slice: NumPy has no max of one)
                out[i, j] = reduction(expression(T, v, i, j))
    return kernel


@settings(max_examples=60, deadline=None)
@given(expression=st.sampled_from(sorted(EXPRESSIONS)), reduction=st.sampled_from(sorted(REDUCTIONS)),
       n=st.sampled_from([2 * CHUNK, 2 * CHUNK + 7, 3 * CHUNK + 1, 20]),
       dtype=st.sampled_from([np.float64, np.int32, np.int64]), poison=st.booleans())
def test_reductions_of_loop_dependent_slices_are_numpys(expression, reduction, n, dtype, poison):
    rng = np.random.default_rng(n)
    T = rng.integers(-50, 50, (n, n)).astype(dtype)
    v = rng.integers(-50, 50, n).astype(dtype)
    if poison:  # where some cells' slices end or begin: outside them they decide nothing
        extreme = [np.nan, np.inf, -np.inf] if dtype == np.float64 else [np.iinfo(dtype).max, np.iinfo(dtype).min] * 2
        T[0, :len(extreme)] = extreme[:len(extreme)]
        T[-1, -len(extreme):] = extreme
        v[-1] = extreme[0]
    kernel = program(EXPRESSIONS[expression], REDUCTIONS[reduction])
    out = np.zeros((n, n), np.float64 if dtype == np.float64 else np.int64)
    expected = out.copy()
    with np.errstate(invalid="ignore", over="ignore"):
        kernel(T, v, expected)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (the loops roll)
        solvent.jit(kernel)(T, v, out)
    assert_same(out, expected, rtol=1e-12, atol=0)


@pytest.mark.parametrize("n", [2 * CHUNK, 3 * CHUNK + 5])
def test_a_slice_of_one_element_spreads_over_the_chunks_of_a_longer_one(n):
    def kernel(x, s):
        for k in range(x.shape[0]):  # lengths 2 and 1, then 1 and 0 at the end
            s[k] = np.sum(x[k:k + 2] * x[k + 1:k + 2])
    x = np.arange(n) % 7
    expected, out = np.zeros(n, x.dtype), np.zeros(n, x.dtype)
    kernel(x, expected)
    solvent.jit(kernel)(x, out)
    assert_same(out, expected)


def test_a_reduction_of_loop_dependent_slices_reads_chunks_not_whole_rows_and_columns():
    n = 4 * CHUNK
    seq, table = ((np.arange(n) + 1) % 4).astype(np.int8), np.zeros((n, n), np.int32)
    expected = table.copy()
    nussinov(seq, expected)
    text = solvent.code_hlo(nussinov, seq, table)
    solvent.jit(nussinov)(seq, table)
    np.testing.assert_array_equal(table, expected)
    reads = re.findall(r"dynamic_slice %\S+, [^:]*sizes = \[(\d+), (\d+)\]", text)
    assert (f"1", f"{CHUNK}") in reads and (f"{CHUNK}", "1") in reads  # a chunk of the row, of the column
    assert ("1", str(n)) not in reads and (str(n), "1") not in reads  # never a whole one


def sparse_rows(indptr, indices, data, x):
    """A sparse matrix in CSR form times a vector, a row at a time, and each row's distances to x."""
    n = len(indptr) - 1
    y, top = np.zeros(n, np.result_type(data, x)), np.zeros(n, np.result_type(data, x))
    for i in range(n):
        s, e = indptr[i], indptr[i + 1]
        y[i] = data[s:e] @ x[indices[s:e]]
        top[i] = np.sum(np.abs(data[s:e] - x[indices[s:e]]))
    return y, top


@settings(max_examples=12, deadline=None)
@given(dtype=st.sampled_from([np.float64, np.int64, np.float32]), poison=st.booleans(), seed=st.integers(0, 99))
def test_a_gather_by_a_loop_dependent_slice_is_summed_a_chunk_at_a_time(dtype, poison, seed):
    # x[indices[s:e]] gathered the whole of indices each row: a 2000-row matrix with 10 entries a
    # row took 86 ms (NumPy 8 ms), now 0.5 ms
    rng = np.random.default_rng(seed)
    lengths = rng.integers(0, 3 * CHUNK, 20)
    lengths[::7] = 0  # empty rows
    indptr = np.concatenate([[0], np.cumsum(lengths)])
    indices = rng.integers(-40, 40, indptr[-1])  # negative ones count from the end
    data, x = rng.integers(-9, 9, indptr[-1]).astype(dtype), rng.integers(-9, 9, 40).astype(dtype)
    if poison and dtype != np.int64:
        x[indices.max() + 1:] = np.nan  # (never indexed; read outside the rows' parts)
    expected = sparse_rows(indptr, indices, data, x)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (the loop rolls)
        assert_same(solvent.jit(sparse_rows)(indptr, indices, data, x), expected, rtol=1e-6, atol=0)
    if dtype != np.int64:  # (integer products are summed whole: `traced_bounds.contracted`)
        gathers = re.findall(r"stablehlo.gather.*-> tensor<(\d+)x", solvent.code_hlo(sparse_rows, indptr, indices, data, x))
        assert gathers and all(int(n) == CHUNK for n in gathers)  # of a chunk of the indices, never all of them
