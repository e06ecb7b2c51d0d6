"""Products of loop-dependent slices summed chunk by chunk, against NumPy.

The valid part starts at 0, at the loop index or past it, runs to the index or to the end, and is
shorter than a chunk, a whole number of chunks or between; infinities and NaN outside it must
not reach the sum. Pairs whose chunks cannot line up take the whole-extent path, with the same
results.
"""

import pathlib
import re
import sys
import warnings

import numpy as np
from hypothesis import given, settings, strategies as st

import solvent
from differential import assert_same
from solvent.numpy.indexing.chunked_products import CHUNK, COLUMNS, ROWS

sys.path.insert(0, str(pathlib.Path(__file__).parents[3] / "benchmarks"))
from polybench.solvers import cholesky  # noqa: E402  (PolyBench's, by rows)

#: (A's row slice, x's slice) as a loop over i writes them; the last pair starts apart (1 and 0).
PAIRS = {
    "prefix": lambda i, n: (slice(None, i), slice(None, i)),
    "suffix": lambda i, n: (slice(i, None), slice(i, None)),
    "past": lambda i, n: (slice(i + 1, None), slice(i + 1, None)),
    "to n-i": lambda i, n: (slice(None, n - i), slice(None, n - i)),
    "apart": lambda i, n: (slice(1, i + 1), slice(None, i)),
}


#: Where each product of a loop's slices goes: a vector with a vector, with the rows of a matrix
#: and a matrix's columns with a vector (the matrix's other axis whole, or from the loop index on,
#: in blocks of COLUMNS where it is long enough).
FORMS = {
    "vector": lambda A, x, out, i, a, b: out.__setitem__((i, 0), A[i, a] @ x[b]),
    "rows": lambda A, x, out, i, a, b: out.__setitem__((i, slice(None)), x[a] @ A[b, :]),
    "rows from i": lambda A, x, out, i, a, b: out.__setitem__((i, slice(i, None)), x[a] @ A[b, i:]),
    "columns": lambda A, x, out, i, a, b: out.__setitem__((slice(None), i), A[:, a] @ x[b]),
    "columns from i": lambda A, x, out, i, a, b: out.__setitem__((slice(i, None), i), A[i:, a] @ x[b]),
}


def program(pair, form):
    def kernel(A, x, out):
        n = A.shape[0]
        for i in range(n):
            a, b = pair(i, n)
            form(A, x, out, i, a, b)
    return kernel


@settings(max_examples=50, deadline=None)
@given(pair=st.sampled_from(sorted(PAIRS)), form=st.sampled_from(sorted(FORMS)),
       n=st.sampled_from([2 * CHUNK, 2 * CHUNK + 1, 3 * CHUNK + 5, 2 * COLUMNS + 3]),
       dtype=st.sampled_from([np.float64, np.float32, np.complex128]), poison=st.booleans())
def test_products_of_loop_dependent_slices_are_numpys(pair, form, n, dtype, poison):
    rng = np.random.default_rng(n)
    A = rng.standard_normal((n, n)).astype(dtype)
    x = rng.standard_normal(n).astype(dtype)
    if poison:  # NaN and inf where some rows' slices end or begin: outside them they add nothing
        x[[ROWS + 1, CHUNK - 1, CHUNK + 3, n - 1]] = [np.nan, np.inf, np.nan, -np.inf]
    kernel, out = program(PAIRS[pair], FORMS[form]), np.zeros((n, n), dtype)
    expected = out.copy()
    with np.errstate(invalid="ignore"):
        kernel(A, x, expected)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (the loop rolls)
        solvent.jit(kernel)(A, x, out)
    tolerance = 1e-5 if dtype == np.float32 else 1e-12  # (sums taken in another order)
    assert_same(out, expected, rtol=tolerance, atol=tolerance)


def spd(n):
    m = np.random.default_rng(n).standard_normal((n, n))
    return m @ m.T + n * np.eye(n)


def _row_reads(text, n):
    """The sizes of the reads of the n x n matrix."""
    return set(re.findall(rf"stablehlo\.dynamic_slice %\w+, .* : \(tensor<{n}x{n}xf64>.* -> tensor<([\dx]+)xf64>", text))


def test_a_cholesky_by_rows_sums_chunks_read_from_its_carry():
    """Both dots read the carried matrix 32 elements at a time (never a whole row), and the
    factor is NumPy's."""
    n = 3 * CHUNK
    A = spd(n)
    assert _row_reads(solvent.code_hlo(cholesky, A.copy()), n) == {"1x1", f"1x{CHUNK}"}
    expected, got = A.copy(), A.copy()
    cholesky(expected)
    solvent.jit(cholesky)(got)
    assert_same(got, expected, rtol=1e-10)


def test_short_axes_keep_the_whole_extent_product():
    n = 2 * CHUNK - 1
    assert _row_reads(solvent.code_hlo(cholesky, spd(n)), n) == {"1x1", f"1x{n}"}
