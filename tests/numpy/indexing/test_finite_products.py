"""Products of slices with traced bounds (`finite_products`): a vector times a matrix, both cut
to a loop-dependent length along the summed axis, zeroes only the vector, and takes the product
again with both zeroed where infinities or NaNs outside the valid part made the result
non-finite. Either way the values are NumPy's, and the matrix is zeroed only in that branch.
Two such vectors make their products and zero those once."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from jaxlib.mlir import ir

import solvent
from differential import check_like_numpy

from solvent.ir.module import parse


#: Long enough that the loops roll (solvent unrolls static loops of up to 16 steps).
ROLLED = 18


def row_products(M, x, out):
    for i in range(M.shape[0]):
        out[i, :] = x[:i] @ M[:i, :]            # vector @ matrix
        out[i, :] += np.dot(M[:, i:], x[i:])    # matrix @ vector, the other half
    return out


def lu(A):
    n = A.shape[0]
    for i in range(n):
        A[i, i:] -= A[i, :i] @ A[:i, i:]
        A[i + 1:, i] /= A[i, i]
    return A


def forward_substitution(L, x, b):
    for i in range(L.shape[0]):
        x[i] = (b[i] - L[i, :i] @ x[:i]) / L[i, i]
        b[i] -= np.dot(x[:i], L[i, :i])           # np.dot, in the other order


def _inputs(n, bad, seed):
    rng = np.random.default_rng(seed)
    M = rng.standard_normal((n, n))
    for (r, c), v in bad:
        M[r % n, c % n] = v
    return M, rng.standard_normal(n), np.zeros((n, n))


@pytest.mark.parametrize("bad", [[], [((3, 2), np.inf)], [((0, 0), np.nan)], [((5, 1), -np.inf), ((2, 4), np.nan)]])
@pytest.mark.filterwarnings("ignore:invalid value")
def test_products_with_non_finite_entries_match_numpy(bad):
    check_like_numpy(row_products, *_inputs(ROLLED, bad, 0))


@pytest.mark.filterwarnings("ignore:invalid value")
@settings(max_examples=15, deadline=None)
@given(n=st.integers(ROLLED, ROLLED + 3), bad=st.lists(st.tuples(st.tuples(st.integers(0, 20), st.integers(0, 20)),
                                                   st.sampled_from([np.inf, -np.inf, np.nan])), max_size=3))
def test_products_with_non_finite_entries_anywhere_match_numpy(n, bad):
    check_like_numpy(row_products, *_inputs(n, bad, n))


def test_integer_products_match_numpy():
    rng = np.random.default_rng(1)
    n = ROLLED
    check_like_numpy(row_products, rng.integers(-9, 9, (n, n)), rng.integers(-9, 9, n), np.zeros((n, n), np.int64))


def test_lu_zeroes_its_matrix_only_where_the_fast_product_is_not_finite():
    A = np.eye(30) * 30 + np.random.default_rng(2).random((30, 30))
    check_like_numpy(lu, A, rtol=1e-10)
    module = parse(solvent.code_mhlo(lu, A))
    zeroings = []

    def visit(op):
        if op.name == "stablehlo.select" and str(op.results[0].type) == "tensor<30x30xf64>":
            parent = op.parent
            while parent is not None and parent.name not in ("stablehlo.if", "func.func"):
                parent = parent.parent
            zeroings.append(parent.name)
        return ir.WalkResult.ADVANCE
    module.operation.walk(visit)
    assert zeroings and set(zeroings) == {"stablehlo.if"}


def _selects(module, shape):
    """The stablehlo.select ops of `shape` in `module`."""
    found = []

    def visit(op):
        if op.name == "stablehlo.select" and str(op.results[0].type) == shape:
            found.append(op)
        return ir.WalkResult.ADVANCE
    module.operation.walk(visit)
    return found


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128, np.float16, np.int64])
@pytest.mark.parametrize("bad", [[], [((7, 9), np.inf)], [((ROLLED - 1, 0), np.nan)]])
@pytest.mark.filterwarnings("ignore:invalid value", "ignore:overflow")
def test_vector_products_match_numpy(bad, dtype):
    M, _, _ = _inputs(ROLLED, bad if np.dtype(dtype).kind in "fc" else [], 3)
    L = (np.tril(M) + 4 * np.eye(ROLLED)).astype(dtype)
    if np.dtype(dtype).kind in "fc":
        L[np.triu_indices(ROLLED, 1)] = np.nan  # never read by NumPy: must not reach the result
    b = np.arange(ROLLED).astype(dtype)
    check_like_numpy(forward_substitution, L, np.full(ROLLED, np.inf).astype(dtype), b, rtol=1e-3)


def test_vector_products_zero_no_matrix():
    """The optimizer made a zeroed row of a matrix into the whole matrix zeroed before the loop."""
    L = np.tril(np.random.default_rng(4).random((30, 30))) + np.eye(30)
    check_like_numpy(forward_substitution, L, np.zeros(30), np.ones(30), rtol=1e-10)
    assert not _selects(parse(solvent.code_mhlo(forward_substitution, L, np.zeros(30), np.ones(30))),
                        "tensor<30x30xf64>")
