"""NumPy functions on slices with traced bounds whose order does not matter, against NumPy, one test
per kind of rule: argmax and argmin count from the slice's start; the other reductions, elementwise
functions, products and joins give NumPy's results on the valid part in a rolled loop (sum, dot and
where are covered with the slices in test_traced_bounds)."""

import warnings

import numpy as np
import pytest

import solvent
from differential import check_like_numpy, rolled_like_numpy, with_nans
from solvent.errors import UnsupportedError


def test_argmax_and_argmin_of_loop_dependent_slices_count_from_the_slice():
    def along(x, A):
        out = np.zeros((x.shape[0], 3), np.int64)
        for k in range(x.shape[0]):
            out[k, 0] = np.argmax(x[k:]) + 10 * np.argmin(x[:k + 1])
            out[k, 1] = A[k, k:].argmax()
            out[k, 2] = np.argmin(A[k:, :], axis=0)[1]
        return out

    rng = np.random.default_rng(3)
    check_like_numpy(along, rng.standard_normal(20), rng.standard_normal((20, 20)))

    def tails(x):  # (a comprehension: its slices stay where they are in x)
        return np.array([np.argmin(x[i:]) + 10 * np.argmax(x[:i + 1]) for i in range(x.shape[0])])

    # a tail of the extreme the padding holds (inf for argmin, the integer limit): the padding before
    # the start won the tie, and the position came out negative
    x = rng.standard_normal(70)  # (long enough to roll)
    x[-3:] = np.inf
    check_like_numpy(tails, x)
    check_like_numpy(tails, np.where(np.isinf(x), np.iinfo(np.int64).max, np.arange(70)))


def test_extremes_of_boolean_selections_and_builtin_max_of_a_selection():
    """np.iinfo(bool) raised from inside solvent (ValueError: Invalid integer data type 'b')."""
    check_like_numpy(lambda x: (max(x[x < 0]), min(x[x > 0]), np.argmax(x[x > 0] > 2.8), (x[x > 0] > 2.8).max(),
                                (x[x > 0] > 2.8).min(), np.argmin(x[x > 0] > 2.8)),
                     np.array([3.0, -1.0, 2.5, -3.0, 4.0, -2.0]))


def test_extremes_of_complex_slices_order_by_real_then_imaginary_part():
    """np.iinfo(complex) raised from inside solvent (ValueError: Invalid integer data type 'c')."""
    def running(x):
        at, extremes = np.zeros((x.shape[0], 2), np.int64), np.zeros((x.shape[0], 2), x.dtype)
        for i in range(x.shape[0]):
            at[i] = np.argmax(x[:i + 1]), np.argmin(x[i:])
            extremes[i] = np.max(x[i:]), np.min(x[:i + 1])
        return at, extremes

    rng = np.random.default_rng(4)
    x = rng.integers(-3, 3, 70) + 1j * rng.integers(-3, 3, 70)  # (ties in the real parts)
    x[[5, 20, 40, 69]] = complex(np.nan, 0), complex(0, np.nan), complex(-np.inf, -np.inf), complex(np.inf, np.inf)
    rolled_like_numpy(running, x)
    rolled_like_numpy(running, x.astype(np.complex64))


def test_reductions_and_elementwise_functions_of_loop_dependent_slices():
    """ufunc.reduce, the nan- reductions, ptp, average, vector norms and clip over growing and
    shrinking slices (NaNs among them), each on the valid part only."""
    def kernel(x, A, out):
        for i in range(x.shape[0]):
            v, w = x[:i + 1], A[i, i:]
            out[i, 0] = np.nansum(v) + np.nanprod(w * 0.1 + 1.0) + np.nanmax(v) - np.nanmin(w) + np.nanmean(v)
            out[i, 1] = np.ptp(w) + np.average(w) + np.average(w, weights=np.abs(w) + 1.0)
            out[i, 2] = np.linalg.norm(w) + np.linalg.norm(w, 1) + np.linalg.norm(w, -np.inf) + np.linalg.norm(w, 3)
            out[i, 3] = np.linalg.norm(v, 0) + np.linalg.norm(A[:i + 1, i], np.inf)
            out[i, 4] = np.clip(w, -0.5, 0.5).sum() + np.maximum.reduce(w) + np.add.reduce(v) + np.fmin.reduce(v)
            out[i, 5] = np.round(w, 1).sum() + np.nan_to_num(v).sum() + np.isclose(v, 0.1, atol=0.5).sum()
            out[i, 6] = np.allclose(A[i, :i + 1], A[:i + 1, i]) + np.allclose(w, w)

    rng = np.random.default_rng(5)
    A = rng.standard_normal((24, 24))
    rolled_like_numpy(kernel, with_nans(rng.standard_normal(24)), A + A.T * np.eye(24)[::-1], np.zeros((24, 7)))


def nan_statistics_of_selections(x, X):
    s, m = x[x > 1], X[X[:, 0] > 4]
    return (np.nanvar(s), np.nanstd(s, ddof=1), np.nanargmax(s), np.nanargmin(s), np.nanvar(s.astype(np.float32)),
            np.nanvar(s, ddof=10), np.nanvar(m, axis=0), np.nanvar(m, axis=1, keepdims=True), np.nanargmax(m, axis=0),
            np.nanstd(m, axis=0, ddof=1))


def test_nan_variances_and_positions_of_selections():
    """nanvar, nanstd, nanargmax and nanargmin of x[mask] were refused (the message said the nan-
    reductions were covered)."""
    x = np.array([3.0, np.nan, 1.0, 5.0, 2.0, np.nan, 7.0, 0.5])
    X = np.array([[3.0, np.nan, 1.0], [5.0, 2.0, np.nan], [7.0, 0.5, 4.0], [np.nan, np.nan, np.nan]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's "Degrees of freedom <= 0"
        check_like_numpy(nan_statistics_of_selections, x, X)


def householder_qr(A):
    m, n = A.shape
    R, Q = A.copy(), np.eye(m)
    for k in range(n):
        x = R[k:, k]
        e = np.zeros_like(x)
        e[0] = 1.0
        v = x + np.sign(x[0]) * np.linalg.norm(x) * e
        v = v / np.linalg.norm(v)
        R[k:, :] -= 2.0 * np.outer(v, v @ R[k:, :])
        Q[:, k:] -= 2.0 * np.outer(Q[:, k:] @ v, v)
    return Q, R, np.ones_like(R[k:, k], dtype=np.int32).sum(), np.full_like(R[:k, 0], 2.5).sum()


def test_arrays_made_like_loop_dependent_slices():
    """np.zeros_like & co. were refused, and Householder's QR unrolled (2 s to compile at 25x20)."""
    rolled_like_numpy(householder_qr, np.random.default_rng(0).random((25, 20)))


def test_products_and_joins_of_loop_dependent_slices():
    """Products sum over the zero padding; joins put each piece where the valid ones before it end
    (elements read back: a[-1] counts from the traced length)."""
    def kernel(x, A, out):
        for i in range(x.shape[0]):
            v, w = x[:i + 1], x[i:]
            out[i, 0] = np.inner(w, w) + np.vdot(v, v) + np.tensordot(A[i, :i + 1], A[:i + 1, i], axes=1)
            out[i, 1] = np.einsum("i,i->", v, v) + np.einsum("ij,j", A[i:, :i + 1], v)[-1]
            out[i, 2] = np.convolve(v, x[:3])[-2] + np.convolve(w, v).sum()
            out[i, 3] = np.concatenate([x[:i], 2.0 * x[i:]]).sum() + np.concatenate([w, x[:2], v])[-1]
            out[i, 4] = np.stack([v, 2.0 * v], axis=1)[-1, 1] + np.vstack([v, v]).sum() + np.hstack([w, v]).sum()
            out[i, 5] = np.append(v, 7.0)[-1] + np.append(w, v)[0]
            out[i, 6] = np.concatenate([np.outer(v, x[:2]), np.outer(v, x[:3])], 1)[-1, -1]

    rng = np.random.default_rng(6)
    x = rng.standard_normal(20)
    rolled_like_numpy(kernel, x, rng.standard_normal((20, 20)), np.zeros((20, 7)))
    rolled_like_numpy(kernel, with_nans(x), rng.standard_normal((20, 20)), np.zeros((20, 7)))


def test_matmul_with_a_dtype_of_loop_dependent_slices_is_refused_by_name():
    """A raw TypeError (matmul() got an unexpected keyword argument 'dtype') came out before."""
    def kernel(A, x, out):
        for i in range(x.shape[0]):
            out[i] = np.sum(np.matmul(A[:i, :i], x[:i], dtype=np.float64))

    with pytest.raises(UnsupportedError, match=r"np.matmul with dtype=: cast the operands instead"):
        solvent.jit(kernel)(np.ones((5, 5)), np.ones(5), np.zeros(5))


def test_a_function_no_rule_covers_raises_naming_it_and_what_is_covered():
    def running_spectrum(x, out):
        for i in range(x.shape[0]):
            out[i] = np.fft.fft(x[:i + 1])[0].real

    with pytest.raises(UnsupportedError, match=r"np.fft of a slice whose bounds are traced.*scans \(cumsum"):
        solvent.jit(running_spectrum)(np.ones(300), np.zeros(300))


def test_an_element_past_the_traced_length_is_clamped_into_it_as_traced_indices_are():
    """NumPy raises IndexError for x[:i + 1][5] while i < 5; the compiled loop cannot, and reads the
    last element of the slice, as an out-of-bounds traced index reads the last of its array."""
    def fifth(x, out):
        for i in range(x.shape[0]):
            out[i] = x[:i + 1][5] + x[i:][-9]

    x, out = np.random.default_rng(8).random(30), np.zeros(30)
    solvent.jit(fifth)(x, out)
    np.testing.assert_array_equal(out, [x[min(5, i)] + x[max(i, 30 - 9)] for i in range(30)])


def test_linear_algebra_of_a_growing_leading_block_and_moved_axes():
    """solve, det, slogdet, inv and cholesky of A[:k, :k] (the identity beside the block), and
    transposes, swapped, moved and new axes carrying their lengths."""
    def kernel(A, b, out, X):
        for k in range(1, A.shape[0]):
            x = np.linalg.solve(A[:k, :k], b[:k])
            out[k, 0] = x[-1] + x.sum() + np.linalg.det(A[:k, :k]) + np.prod(np.linalg.slogdet(A[:k, :k]))
            out[k, 1] = np.linalg.inv(A[:k, :k])[0, -1]
            out[k, 2] = np.linalg.cholesky(A[:k, :k] @ A[:k, :k].T + np.eye(A.shape[0])[:k, :k])[-1, -1]
            out[k, 3] = np.swapaxes(A[:k, 2:], 0, 1)[-1, -1] + np.moveaxis(np.expand_dims(A[k:, :k], 2), 0, 2)[-1, 0, 0]
            out[k, 4] = np.expand_dims(b[:k], 0)[0, -1] + np.transpose(A[:k, k:])[0, -1]
            X[k, :k] = np.linalg.solve(A[:k, :k], A[:k, k])

    rng = np.random.default_rng(11)
    A = rng.standard_normal((18, 18)) + 18 * np.eye(18)
    rolled_like_numpy(kernel, A, rng.standard_normal(18), np.zeros((18, 5)), np.zeros((18, 18)))


def test_flips_transposes_and_parts_are_views_that_see_later_writes_and_refuse_writes_through_them():
    """NumPy's np.flip, .T, np.transpose and np.real give views: reads after a write to the array
    see it; a write through one would change the array in NumPy, and is refused (it was lost)."""
    def reads_after_writes(x, A, out):
        for i in range(1, x.shape[0]):
            f, t, r = np.flip(x[:i]), A[:i, :i].T, np.real(x[:i])
            x[0] += 1.0
            A[0, i - 1] = -1.0
            out[i] = f[-1] + f[0] + t[-1, 0] + r[0]

    rolled_like_numpy(reads_after_writes, np.arange(1.0, 21.0), np.arange(400.0).reshape(20, 20), np.zeros(20))

    def writes_through(x):
        for i in range(1, x.shape[0]):
            np.flip(x[:i])[0] = 0.0

    with pytest.raises(UnsupportedError, match="a write through np.flip of an array whose length depends on traced"):
        solvent.jit(writes_through)(np.ones(300))


def test_products_of_a_shorter_slice_of_a_selection_or_loop_dependent_slice_read_only_its_part():
    """s[:2] of a selection, or v[:-1] of x[:i + 1]: a view zero past its own length, so products
    over it add nothing beyond (dot, einsum, convolve gave sums over the longer slice's data)."""
    x = np.random.default_rng(15).random(10)
    check_like_numpy(lambda x: (np.dot(x[x > 0][:2], x[x > 0][:2]), np.einsum("i,i", x[x > 0][1:3], x[x > 0][1:3]),
                                np.convolve(x[x > 0][:2], x[:3])), x)

    def shorter(x, out):
        for i in range(x.shape[0]):
            v = x[:i + 1]
            out[i] = np.dot(v[:-1], v[:-1]) + np.inner(v[1:], v[1:])

    rolled_like_numpy(shorter, np.random.default_rng(16).random(24), np.zeros(24))


def test_methods_of_a_selection_keep_its_length():
    """astype, copy, flatten, np.array/np.asarray, ravel and .T of x[mask] give its valid part (they
    gave the padded full size as the array: len() 6 where NumPy's is 3, a mean halved); sort and fill
    in place change only it; a float32 mean or variance stays float32."""
    def kept(img, t):
        vals = img[img > t].astype(np.float64)
        s = img[img > t]
        sorted_copy = s.copy()
        sorted_copy.sort()
        low = s.astype(np.int64)
        low.fill(7)
        return (vals.mean(), vals.min(), len(vals), len(s.copy()), s.flatten().sum(), np.array(s).max(),
                np.asarray(s, np.float32).mean(), np.asarray(s, np.float32).var(), np.ravel(s).sum(),
                s.reshape(-1).sum(), s.T.sum(), s.T, sorted_copy, low.sum(), len(low))

    check_like_numpy(kept, np.array([[10, 200, 5], [220, 30, 140]], dtype=np.uint8), 100)

    def in_place(x, out):
        for i in range(1, x.shape[0]):
            v = x[:i].copy()
            v.sort()
            w = x[i:]
            w.sort()  # sorts the tail of x in place, as NumPy's view does
            out[i] = v[0] + (v * 100).astype(np.int64).sum()

    rolled_like_numpy(in_place, np.random.default_rng(17).random(24), np.zeros(24))


@pytest.mark.parametrize("method", [lambda s: s.tolist(), lambda s: s.view(), lambda s: s.flat[0],
                                    lambda s: s.squeeze(), lambda s: np.array(s, ndmin=2)])
def test_methods_that_would_read_the_full_size_of_a_selection_raise(method):
    with pytest.raises(UnsupportedError, match="length depends|selection whose length"):
        solvent.jit(lambda x: method(x[x > 0]))(np.array([3.0, -1.0, 2.5]))
