"""np.linalg against NumPy: solves, inverses, determinants, factorizations (compared through their
invariants where the factors are not unique), norms, powers, chains, ranks and least squares."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from numpy.linalg import LinAlgError

import solvent
from differential import assert_same
from numpy_samples import check, check_or_raises, sample, tolerance
from solvent.numpy.matrices import chain_order

LAPACK_DTYPES = [np.float32, np.float64, np.complex64, np.complex128]


def well_conditioned(dtype, shape, seed=0):
    """Random matrices with a dominant diagonal (condition numbers near 1), any dtype."""
    a = sample(dtype, shape, -1, 1, seed=seed)
    n = shape[-1]
    if a.dtype == np.bool_:  # unit upper triangular
        return np.triu(a) | np.eye(n, dtype=bool)
    return (a + (2 * n * np.eye(n) if a.dtype.kind in "fc" else n * np.eye(n, dtype=a.dtype))).astype(a.dtype)


def spd(dtype, shape, seed=0):
    """Hermitian positive definite matrices."""
    a = sample(dtype, shape, -1, 1, seed=seed)
    return (a @ np.conj(np.swapaxes(a, -1, -2)) + shape[-1] * np.eye(shape[-1])).astype(dtype)


def assert_orthonormal_columns(q):
    gram = np.conj(np.swapaxes(q, -1, -2)) @ q
    close(gram, np.broadcast_to(np.eye(q.shape[-1]), gram.shape), q.dtype)


def run(f, *args):
    return solvent.jit(f)(*args)


def close(actual, expected, dtype):
    np.testing.assert_allclose(actual, expected, **{k: 20 * v for k, v in tolerance(np.zeros(1, dtype)).items()})


SOLVE_SHAPES = [((3, 3), (3,)), ((3, 3), (3, 2)), ((2, 3, 3), (2, 3, 2)), ((2, 3, 3), (3,)), ((2, 3, 3), (3, 4)),
                ((1, 3, 3), (4, 3, 2)), ((0, 3, 3), (0, 3, 1)), ((3, 3), (2,)), ((1, 1), (1,)), ((3, 3), (3, 0))]


@pytest.mark.parametrize("shapes", SOLVE_SHAPES, ids=str)
def test_solve_shapes(shapes):
    a, b = well_conditioned(np.float64, shapes[0]), sample(np.float64, shapes[1], seed=1)
    check_or_raises(np.linalg.solve, a, b)


@pytest.mark.parametrize("dtypes", [(np.float32, np.float32), (np.float32, np.float64), (np.complex64, np.float32),
                                    (np.complex128, np.complex128), (np.int64, np.int32), (np.bool_, np.float32)],
                         ids=str)
def test_solve_inv_det_dtypes(dtypes):
    a, b = well_conditioned(dtypes[0], (2, 4, 4), seed=2), sample(dtypes[1], (4, 2), seed=3)
    check(lambda a, b: (np.linalg.solve(a, b), np.linalg.inv(a), np.linalg.det(a), np.linalg.slogdet(a)), a, b,
          scale=10)


@pytest.mark.parametrize("shape", [(1, 1), (4, 4), (3, 5, 5), (0, 0), (2, 0, 0), (0, 2, 2)], ids=str)
def test_inv_det_slogdet_shapes(shape):
    a = sample(np.float64, shape, seed=4)  # no dominant diagonal: pivoting matters
    check(lambda a: (np.linalg.inv(a), np.linalg.det(a), np.linalg.slogdet(a)), a, scale=100)


def test_pivoting_and_permutation_parity():
    a = np.array([[0.0, 2.0, 1.0], [1.0, 0.0, 0.0], [3.0, 1.0, 4.0]])
    batch = np.stack([a, a[[2, 0, 1]], a[[1, 0, 2]], -a])
    check(lambda a: (np.linalg.det(a), np.linalg.slogdet(a), np.linalg.inv(a), np.linalg.solve(a, a[..., :1])), batch)


def test_singular_matrices():
    """det and slogdet are exact; inv and solve cannot raise LinAlgError when compiled: inf or nan instead."""
    a = np.array([[[1.0, 2.0], [2.0, 4.0]], [[0.0, 0.0], [0.0, 0.0]]])
    check(lambda a: (np.linalg.det(a), np.linalg.slogdet(a)), a)
    inverse, solution = run(lambda a: (np.linalg.inv(a), np.linalg.solve(a, np.ones(2))), a)
    assert not np.isfinite(inverse).all(axis=(1, 2)).any() and not np.isfinite(solution).all(axis=1).any()


def test_determinants_as_numpy_computes_them():
    """det is sign * exp(log|det|), as NumPy's: the product of U's diagonal overflowed (inf, or nan as
    inf * 0) for rows in very different units, where the determinant is finite; slogdet's sign of a
    matrix with an infinite element is 1, not inf / inf."""
    rows = np.random.default_rng(0).standard_normal((40, 40))
    rows[:20] *= 1e12
    rows[20:] *= 1e-12
    for a in (rows, np.diag([1e200, 1e200, 1e-300]), np.array([[1.0, 2.0], [2.0, 4.0]])):
        check(np.linalg.det, a, scale=1e4)
    check(np.linalg.slogdet, np.array([[np.inf, 1.0], [1.0, 1.0]]))
    assert np.isfinite(run(np.linalg.det, rows))


@pytest.mark.parametrize("rcond", [-1, 0, 2.0, 1.0, 1e-3])
def test_lstsq_takes_lapacks_precision_for_an_rcond_outside_zero_to_one(rcond):
    """dgelsd uses its machine precision for rcond <= 0 or >= 1 (rcond=-1 is the old NumPy idiom):
    solvent used the value itself, which kept every singular value (or none)."""
    deficient, y = np.array([[1.0, 2, 3], [2, 4, 6], [1, 0, 1], [0, 0, 0]]), np.array([1.0, 2, 3, 4])
    check(lambda a, b: np.linalg.lstsq(a, b, rcond=rcond)[0::2], deficient, y, scale=100)
    x, _, rank, _ = run(lambda a, b, r: np.linalg.lstsq(a, b, rcond=r), deficient, y, solvent.Scalar(float(rcond)))
    want = np.linalg.lstsq(deficient, y, rcond=rcond)
    close(x, want[0], x.dtype)
    assert rank == want[2]


@pytest.mark.parametrize("mode", ["full", "f", "economic", "e"])
def test_qr_takes_numpys_deprecated_modes_and_warns_at_the_users_line(mode):
    a = sample(np.float64, (5, 3), seed=30)
    with pytest.warns(DeprecationWarning, match="deprecated") as caught:
        result = run(lambda a: np.linalg.qr(a, mode=mode), a)
    assert caught[0].filename == __file__
    with pytest.warns(DeprecationWarning):
        expected = np.linalg.qr(a, mode=mode)
    close(result[0] if mode in ("full", "f") else result, expected[0] if mode in ("full", "f") else expected,
          np.float64)


def test_traced_orders_and_exponents_and_a_scalar_right_hand_side_are_clear_errors():
    with pytest.raises(solvent.UnsupportedError, match="ord must be a static"):
        run(lambda a, k: np.linalg.norm(a, ord=k), np.eye(2), solvent.Scalar(1.0))
    with pytest.raises(solvent.UnsupportedError, match="exponent must be a static Python int"):
        run(lambda a, k: np.linalg.matrix_power(a, k), np.eye(2), solvent.Scalar(3))
    check_or_raises(lambda a: np.linalg.solve(a, a[0, 0]), np.eye(2))


def test_matrix_power_of_one_is_the_argument_itself():
    def f(a):
        b = np.linalg.matrix_power(a, 1)
        b += 1
        return b is a
    expected, given = np.zeros((2, 2)), np.zeros((2, 2))
    assert solvent.jit(f)(given) == f(expected)
    assert_same(given, expected)


@pytest.mark.parametrize("fn", [np.linalg.inv, np.linalg.det, np.linalg.slogdet, np.linalg.cholesky, np.linalg.eig,
                                np.linalg.eigh, np.linalg.eigvals, np.linalg.eigvalsh,
                                lambda a: np.linalg.matrix_power(a, 2), lambda a: np.linalg.solve(a, a)])
@pytest.mark.parametrize("shape", [(2, 3), (3,), ()], ids=str)
def test_square_required(fn, shape):
    with pytest.raises(LinAlgError):
        run(fn, np.ones(shape))


def test_unsupported_dtype_raises():
    with pytest.raises(TypeError, match="float16"):
        run(np.linalg.inv, np.eye(2, dtype=np.float16))


@pytest.mark.parametrize("dtype", LAPACK_DTYPES)
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky(dtype, upper):
    a = spd(dtype, (2, 4, 4), seed=5)
    check(lambda a: np.linalg.cholesky(a, upper=upper), a, scale=10)


def test_cholesky_not_positive_definite_is_nan():
    a = np.stack([np.eye(2), -np.eye(2)])
    got = run(np.linalg.cholesky, a)
    np.testing.assert_array_equal(got[0], np.eye(2))
    assert np.isnan(got[1]).all()


@pytest.mark.parametrize("dtype", LAPACK_DTYPES + [np.int64])
@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh(dtype, uplo):
    a = sample(dtype, (2, 4, 4), seed=6)  # not Hermitian: only the named triangle is read
    values, vectors = run(lambda a: np.linalg.eigh(a, UPLO=uplo), a)
    expected = np.linalg.eigh(a, UPLO=uplo)
    assert type(expected) is type(run(lambda a: np.linalg.eigh(a, UPLO=uplo), a))
    assert values.dtype == expected.eigenvalues.dtype and vectors.dtype == expected.eigenvectors.dtype
    close(values, expected.eigenvalues, values.dtype)
    strict = np.tril(a, -1) if uplo == "L" else np.triu(a, 1)
    hermitian = strict + np.conj(np.swapaxes(strict, -1, -2)) + np.real(a) * np.eye(4)  # LAPACK reads a real diagonal
    close(hermitian @ vectors, vectors * values[..., None, :], vectors.dtype)
    assert_orthonormal_columns(vectors)
    check(lambda a: np.linalg.eigvalsh(a, UPLO=uplo), a, scale=10)


def test_eigh_bad_uplo_and_empty():
    check_or_raises(lambda a: np.linalg.eigh(a, UPLO="X"), np.eye(2))
    check(lambda a: (np.linalg.eigh(a), np.linalg.eigvalsh(a)), np.zeros((2, 0, 0)))


def _check_svd(a, full_matrices):
    u, s, vh = run(lambda a: np.linalg.svd(a, full_matrices=full_matrices), a)
    expected = np.linalg.svd(a, full_matrices=full_matrices)
    for got, want in zip((u, s, vh), expected):
        assert got.dtype == want.dtype and got.shape == want.shape
    close(s, expected.S, s.dtype)
    k = s.shape[-1]
    close((u[..., :, :k] * s[..., None, :]) @ vh[..., :k, :], a, u.dtype)
    for q in (u, np.conj(np.swapaxes(vh, -1, -2))):
        assert_orthonormal_columns(q)


@pytest.mark.parametrize("dtype", LAPACK_DTYPES + [np.int32])
@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (2, 3, 5)], ids=str)
@pytest.mark.parametrize("full_matrices", [True, False])
def test_svd(dtype, shape, full_matrices):
    _check_svd(sample(dtype, shape, seed=7), full_matrices)


def test_svd_values_hermitian_and_empty():
    a = sample(np.float64, (3, 4, 4), seed=8)
    check(lambda a: (np.linalg.svd(a, compute_uv=False), np.linalg.svdvals(a)), a)
    sym = a + np.swapaxes(a, -1, -2)
    u, s, vh = run(lambda a: np.linalg.svd(a, hermitian=True), sym)
    close(s, np.linalg.svd(sym, hermitian=True).S, s.dtype)
    close((u * s[..., None, :]) @ vh, sym, s.dtype)
    for shape in [(0, 3), (3, 0), (2, 0, 0)]:
        check(lambda a: (np.linalg.svd(a), np.linalg.svd(a, full_matrices=False), np.linalg.svdvals(a)),
              np.zeros(shape))


@pytest.mark.parametrize("dtype", LAPACK_DTYPES)
@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5), (2, 4, 2)], ids=str)
def test_qr(dtype, shape):
    a = sample(dtype, shape, seed=9)
    for mode in ("reduced", "complete"):
        q, r = run(lambda a: np.linalg.qr(a, mode=mode), a)
        want_q, want_r = np.linalg.qr(a, mode=mode)
        assert (q.shape, r.shape, q.dtype, r.dtype) == (want_q.shape, want_r.shape, want_q.dtype, want_r.dtype)
        close(q @ r, a, q.dtype)
        assert_orthonormal_columns(q)
        close(np.abs(r), np.abs(want_r), r.dtype)
        assert np.all(np.tril(r, -1) == 0)
    check(lambda a: (np.linalg.qr(a, mode="r"), np.linalg.qr(a, mode="raw")), a, scale=100)


def test_qr_errors_and_empty():
    check_or_raises(lambda a: np.linalg.qr(a, mode="bad"), np.eye(2))
    check_or_raises(np.linalg.qr, np.ones(3))
    for shape in [(0, 3), (3, 0)]:
        check(lambda a: (np.linalg.qr(a), np.linalg.qr(a, mode="complete"), np.linalg.qr(a, mode="r")), np.zeros(shape))


@pytest.mark.parametrize("dtype", LAPACK_DTYPES + [np.int64])
def test_eig(dtype):
    """Eigenvalues as a set; eigenvectors through a v = v w. Results are always complex."""
    a = sample(dtype, (3, 4, 4), seed=10)
    values, vectors = run(np.linalg.eig, a)
    expected = np.linalg.eig(a).eigenvalues
    complex_dtype = np.result_type(expected.dtype, np.complex64)
    assert values.dtype == vectors.dtype == complex_dtype and values.shape == expected.shape
    close(np.sort_complex(values), np.sort_complex(expected.astype(complex_dtype)), values.dtype)
    close(a @ vectors, vectors * values[..., None, :], values.dtype)
    close(np.linalg.norm(vectors, axis=-2), np.ones(values.shape), values.dtype)
    close(np.sort_complex(run(np.linalg.eigvals, a)), np.sort_complex(expected.astype(complex_dtype)), values.dtype)


@pytest.mark.parametrize("shapes", [((5, 3), (5,)), ((5, 3), (5, 2)), ((3, 3), (3,)), ((3, 5), (3, 2)),
                                    ((4, 2), (4, 0)), ((3, 2), (4,))], ids=str)
def test_lstsq(shapes):
    a, b = sample(np.float64, shapes[0], seed=11), sample(np.float64, shapes[1], seed=12)
    check_or_raises(lambda a, b: np.linalg.lstsq(a, b), a, b, scale=100)


def test_lstsq_dtypes_rcond_and_rank():
    a = sample(np.float32, (6, 3), seed=13)
    check(lambda a, b: (np.linalg.lstsq(a, b), np.linalg.lstsq(a.astype(np.complex64), b, rcond=0.3)), a, a[:, 0],
          scale=100)
    deficient = np.array([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]])
    x, _, rank, s = run(lambda a, b: np.linalg.lstsq(a, b), deficient, np.ones(3))
    want = np.linalg.lstsq(deficient, np.ones(3))
    close(x, want[0], x.dtype)
    assert rank == want[2] == 1 and rank.dtype == want[2].dtype
    check_or_raises(lambda a: np.linalg.lstsq(a, a[0]), np.ones((2, 2, 2)))


def test_least_squares_keep_numpys_accuracy_on_an_ill_conditioned_fit():
    """u^H b before the singular values, as LAPACK's: the explicit pseudo-inverse times b gave a
    degree-18 fit of cos(3x) residuals of 5e-11 where NumPy's are 1e-14."""
    x = np.linspace(-1, 1, 40)
    worst = lambda x, y: np.abs(np.polyval(np.polyfit(x, y, 18), x) - y).max()
    assert solvent.jit(worst)(x, np.cos(3 * x)) < 4 * worst(x, np.cos(3 * x))


@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (2, 3, 5), (0, 3)], ids=str)
def test_pinv(shape):
    a = sample(np.float64, shape, seed=14)
    check(lambda a: (np.linalg.pinv(a), np.linalg.pinv(a, rcond=0.2), np.linalg.pinv(a, rtol=None),
                     np.linalg.pinv(a.astype(np.complex64), rtol=0.1)), a, scale=100)


def test_pinv_hermitian_and_singular():
    a = sample(np.float64, (4, 4), seed=15)
    check(lambda a: (np.linalg.pinv(a + a.T, hermitian=True), np.linalg.pinv(np.outer(a[0], a[1]))), a, scale=100)
    check_or_raises(lambda a: np.linalg.pinv(a, rcond=0.1, rtol=0.1), a)


@pytest.mark.parametrize("dtype", LAPACK_DTYPES)
def test_hermitian_svd_and_pinv_are_numpys_from_eigh(dtype):
    """hermitian=True was ignored: the general SVD of a matrix that is not Hermitian differs from
    NumPy's, which reads its lower triangle (pinv of [[1, 2], [0, 1]] is the identity there)."""
    upper = np.array([[1.0, 2.0], [0.0, 1.0]], dtype)
    a = sample(dtype, (2, 4, 4), seed=31)
    a = a + np.conj(np.swapaxes(a, -1, -2))
    check(lambda a, b: (np.linalg.pinv(b, hermitian=True), np.linalg.pinv(a, hermitian=True),
                        np.linalg.svd(a, hermitian=True), np.linalg.svd(b, compute_uv=False, hermitian=True)),
          a, upper, scale=100)
    check_or_raises(lambda a: np.linalg.pinv(a, hermitian=True), np.ones((2, 3)))


VECTOR_ORDS = [None, np.inf, -np.inf, 0, 1, -1, 2, -2, 3, 0.5]
MATRIX_ORDS = [None, "fro", "nuc", np.inf, -np.inf, 1, -1, 2, -2]


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128, np.int32, np.bool_])
def test_vector_norms(dtype):
    x = sample(dtype, (3, 5), seed=16)
    check(lambda x: ([np.linalg.norm(x[0], ord) for ord in VECTOR_ORDS]
                     + [np.linalg.norm(x, ord, axis=1, keepdims=True) for ord in VECTOR_ORDS]
                     + [np.linalg.norm(x, ord, axis=-2) for ord in VECTOR_ORDS]), x, scale=10)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128, np.int64])
def test_matrix_norms(dtype):
    x = sample(dtype, (2, 3, 4), seed=17)
    check(lambda x: ([np.linalg.norm(x[0], ord) for ord in MATRIX_ORDS]
                     + [np.linalg.norm(x, ord, axis=(2, 0), keepdims=True) for ord in MATRIX_ORDS]
                     + [np.linalg.norm(x, ord, axis=(-2, -1)) for ord in MATRIX_ORDS]), x, scale=10)


@settings(max_examples=15, deadline=None)
@given(shape_=st.lists(st.integers(1, 3), min_size=1, max_size=3), matrix=st.booleans(), keepdims=st.booleans(),
       dtype=st.sampled_from([np.float32, np.float64, np.complex64, np.int16]), data=st.data())
def test_random_norms(shape_, matrix, keepdims, dtype, data):
    x = sample(dtype, shape_, seed=len(shape_))
    ndim = len(shape_)
    if matrix and ndim >= 2:
        axis = tuple(data.draw(st.permutations(range(-ndim, 0)))[:2])
        ord = data.draw(st.sampled_from(MATRIX_ORDS))
    else:
        axis = data.draw(st.integers(-ndim, ndim - 1))
        ord = data.draw(st.sampled_from(VECTOR_ORDS))
    check(lambda x: np.linalg.norm(x, ord, axis, keepdims), x, scale=10)


def test_norm_defaults_and_errors():
    x = sample(np.float64, (2, 3, 4), seed=18)
    check(lambda x: (np.linalg.norm(x), np.linalg.norm(x, keepdims=True), np.linalg.norm(x[0, 0], 2),
                     np.linalg.norm(x[0], "fro"), np.linalg.norm(x, axis=1)), x)
    for bad in [lambda x: np.linalg.norm(x, "fro", axis=0), lambda x: np.linalg.norm(x, 3, axis=(0, 1)),
                lambda x: np.linalg.norm(x, 2), lambda x: np.linalg.norm(x, axis=(1, 1)),
                lambda x: np.linalg.norm(x, axis=1.5)]:
        check_or_raises(bad, x)


def test_matrix_and_vector_norm():
    x = sample(np.complex128, (2, 3, 4), seed=19)
    check(lambda x: (np.linalg.matrix_norm(x), np.linalg.matrix_norm(x, ord=2, keepdims=True),
                     np.linalg.matrix_norm(x, ord=-np.inf), np.linalg.vector_norm(x),
                     np.linalg.vector_norm(x, axis=(0, 2), keepdims=True, ord=3), np.linalg.vector_norm(x, axis=1),
                     np.linalg.vector_norm(x, keepdims=True, ord=np.inf), np.linalg.vector_norm(x, ord=0)), x)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, 6, -1, -2, -3])
def test_matrix_power(n):
    a = well_conditioned(np.float64, (2, 3, 3), seed=20) / 6
    check(lambda a: np.linalg.matrix_power(a, n), a, scale=100)


def test_matrix_power_integers_and_errors():
    a = sample(np.int8, (3, 3), -2, 2, seed=21)
    check(lambda a: [np.linalg.matrix_power(a, n) for n in (0, 1, 4, 7)] + [np.linalg.matrix_power(a > 0, 3)], a)
    check_or_raises(lambda a: np.linalg.matrix_power(a, 1.5), np.eye(2))


@pytest.mark.parametrize("shapes", [[(2, 3), (3, 4)], [(3,), (3, 4), (4, 2)], [(10, 30), (30, 5), (5, 60)],
                                    [(4,), (4, 6), (6, 2), (2, 5), (5,)], [(3, 1), (1, 3), (3, 1), (1, 3), (3, 2)],
                                    [(2,), (2,)], [(2, 3, 3), (3, 3), (3, 3)]], ids=str)
def test_multi_dot(shapes):
    arrays = [sample(np.float64, s, -1, 1, seed=i) for i, s in enumerate(shapes)]
    check_or_raises(lambda *arrays: np.linalg.multi_dot(arrays), *arrays)


def test_multi_dot_order_is_numpys():
    from numpy.linalg._linalg import _multi_dot_matrix_chain_order
    for dims in [[10, 30, 5, 60], [4, 6, 2, 5, 1, 7], [3, 1, 3, 1, 3, 2], [30, 35, 15, 5, 10, 20, 25]]:
        want = _multi_dot_matrix_chain_order([np.empty((m, n)) for m, n in zip(dims, dims[1:])])
        split = chain_order(dims)
        assert all(split[key] == want[key] for key in split)


def test_multi_dot_out():
    def f(a, b, c, out):
        np.linalg.multi_dot([a, b, c], out=out)
        return out
    check(f, sample(np.float64, (2, 3)), sample(np.float64, (3, 4), seed=1), sample(np.float64, (4, 2), seed=2),
          np.zeros((2, 2)))


def test_matrix_rank():
    a = sample(np.float64, (3, 4, 5), seed=22)
    low = a[..., :2] @ a[..., :2, :]
    check(lambda a, low: (np.linalg.matrix_rank(a), np.linalg.matrix_rank(low), np.linalg.matrix_rank(low[0], tol=0.5),
                          np.linalg.matrix_rank(a, rtol=0.5), np.linalg.matrix_rank(low[0, :3, :3] + low[0, :3, :3].T,
                                                                                     hermitian=True),
                          np.linalg.matrix_rank(np.zeros((2, 2)))), a, low)
    assert run(np.linalg.matrix_rank, np.zeros(3)) == 0 and run(np.linalg.matrix_rank, np.ones(3)) == 1
    check_or_raises(lambda a: np.linalg.matrix_rank(a, tol=1.0, rtol=1.0), a)


@pytest.mark.parametrize("p", [None, 2, -2, 1, -1, np.inf, -np.inf, "fro", "nuc"])
def test_cond(p):
    a = sample(np.float64, (2, 3, 3), seed=23)
    singular = np.stack([np.ones((3, 3)), np.zeros((3, 3))])
    check(lambda a: (np.linalg.cond(a, p), np.linalg.cond(a[0], p)), a, scale=1000)
    got = run(lambda a: np.linalg.cond(a, p), singular)
    if p in (None, 2, -2):
        # From singular values: inf or merely huge for a singular matrix, as LAPACK's rounding on
        # this CPU decides (NumPy gives 1.4e48 for ones((3, 3)) on some machines), so as NumPy does.
        expected = np.linalg.cond(singular, p)
        assert [(g > 1e15, g < 1e-15, np.isinf(g)) for g in got] == [
            (e > 1e15, e < 1e-15, np.isinf(e)) for e in expected]
    else:  # NumPy raises LinAlgError from inv(); solvent gives inf (documented)
        assert np.isinf(got).all()


def test_cond_errors():
    check(lambda a: np.linalg.cond(a), sample(np.float64, (3, 5)))
    check_or_raises(lambda a: np.linalg.cond(a, 1), sample(np.float64, (3, 5)))
    check_or_raises(np.linalg.cond, np.zeros((0, 0)))


def test_tensorsolve_and_tensorinv():
    a = well_conditioned(np.float64, (6, 6), seed=24).reshape(2, 3, 6)
    b = sample(np.float64, (2, 3), seed=25)
    check(lambda a, b: (np.linalg.tensorsolve(a, b), np.linalg.tensorinv(a.reshape(6, 2, 3), ind=1),
                        np.linalg.tensorsolve(np.moveaxis(a.reshape(2, 3, 2, 3), 0, 3), b, axes=(3,)),
                        np.linalg.tensorinv(a.reshape(2, 3, 2, 3))), a, b, scale=100)
    check_or_raises(lambda a: np.linalg.tensorinv(a, ind=0), a)
    check_or_raises(lambda a: np.linalg.tensorsolve(a, a[0]), a)


@settings(max_examples=12, deadline=None)
@given(batch=st.lists(st.integers(0, 2), max_size=2), n=st.integers(1, 4), k=st.integers(1, 3),
       dtype=st.sampled_from(LAPACK_DTYPES), vector=st.booleans(), seed=st.integers(0, 100))
def test_random_solve_inv_det(batch, n, k, dtype, vector, seed):
    a = well_conditioned(dtype, (*batch, n, n), seed=seed)
    b = sample(dtype, (n,) if vector else (*batch, n, k), seed=seed + 1)
    check(lambda a, b: (np.linalg.solve(a, b), np.linalg.inv(a), np.linalg.det(a)), a, b, scale=10)


def test_inside_larger_program():
    """LAPACK custom calls mix with other ops and with mutation of arguments."""
    def f(a, b):
        a[0] = np.linalg.solve(a[0], b)[:, None] * np.ones(a.shape[-1])
        return np.linalg.det(a[1]) + np.sum(np.linalg.svd(a[1], compute_uv=False))
    check(f, well_conditioned(np.float64, (2, 3, 3), seed=26), sample(np.float64, (3,), seed=27))


def test_results_types_match_numpy():
    a = spd(np.float64, (3, 3), seed=28)
    for fn in (np.linalg.svd, np.linalg.eigh, np.linalg.eig, np.linalg.qr, np.linalg.slogdet):
        got, want = run(fn, a), fn(a)
        assert type(got) is type(want)
    assert_same(run(np.linalg.det, a), np.linalg.det(a))


def _dot_result_sizes(fn, *args):
    text = str(solvent.code_hlo(fn, *args, optimize="none"))
    shapes = re.findall(r"dot_general.*-> tensor<([0-9x]+)x\w+>", text)
    return [int(np.prod([int(n) for n in s.split("x")])) for s in shapes]


def test_multi_dot_traces_the_cheap_order():
    a, b, c = np.ones((10, 100)), np.ones((100, 5)), np.ones((5, 50))
    sizes = _dot_result_sizes(lambda a, b, c: np.linalg.multi_dot([a, b, c]), a, b, c)
    assert sorted(sizes) == [10 * 5, 10 * 50]  # (ab)c, never a(bc) with its 100 x 50 intermediate


def test_eager_arrays():
    a = well_conditioned(np.float64, (3, 3), seed=29)
    device = solvent.asarray(a)
    got = np.linalg.solve(device, np.ones(3))
    assert isinstance(got, solvent.Array)
    close(np.asarray(got), np.linalg.solve(a, np.ones(3)), np.float64)
    close(np.asarray(np.linalg.det(device)), np.linalg.det(a), np.float64)


def test_solve_keeps_infinite_right_hand_sides_in_their_column():
    # The row permutation is a gather: an inf in b must not turn other entries into NaN.
    a = np.array([[0.0, 1.0], [2.0, 3.0]])
    check(np.linalg.solve, a, np.array([[np.inf, 1.0], [1.0, 2.0]]))
