"""np.linalg on traced arrays: LAPACK custom calls that jaxlib registers, and StableHLO ops.

As NumPy does, every LAPACK routine runs in double precision (float64 or
complex128) and single precision inputs get their results cast back, so ranks
and cutoffs decide as NumPy's do. Compiled code cannot raise at run time: where NumPy raises `LinAlgError` for a
singular matrix (solve, inv) or one that is not positive definite (cholesky),
the results hold inf or nan instead; factorizations whose LAPACK routine
reports failure (cholesky, eigh, svd, eig) give nan for that matrix.
"""

from __future__ import annotations

import warnings


import numpy as np
from numpy.linalg import LinAlgError
from numpy.linalg._linalg import EighResult, EigResult, QRResult, SlogdetResult, SVDResult

from solvent.errors import user_stacklevel
from solvent.numpy.products import conjugate_value, diagonal_value
from solvent.numpy.registry import implements
from solvent.numpy.values import broadcast_value, cast, full, result_type, shape, value, wrap
from solvent.ops import elementwise as ew, lapack, shape as ops
from solvent.ops.base import dtype_of, is_complex, shape_of
from solvent.ops.constant import iota
from solvent.ops.gather import gather
from solvent.ops.linalg import pivots_to_permutation
from solvent.ops.reduction import reduce as reduce_op

_INEXACT = {(False, False): np.float64, (False, True): np.complex128,
            (True, False): np.float32, (True, True): np.complex64}


def linalg_dtype(*arrays) -> np.dtype:
    """NumPy's linalg type: float32/complex64 when every input is single precision, else float64/complex128."""
    dtypes = [np.dtype(result_type(a)) for a in arrays]
    for dtype in dtypes:
        if dtype.kind in "fc" and dtype not in (np.float32, np.float64, np.complex64, np.complex128):
            raise TypeError(f"array type {dtype.name} is unsupported in linalg")
    single = all(d in (np.float32, np.complex64) for d in dtypes)
    return np.dtype(_INEXACT[single, any(d.kind == "c" for d in dtypes)])


def in_double(a, dtype):
    """`a` as a double precision value: NumPy's linalg computes in float64/complex128, then casts back."""
    return value(a, np.complex128 if np.dtype(dtype).kind == "c" else np.float64)


def as_result(v, dtype, scalar=None):
    """A double precision value as NumPy's result: `dtype`'s precision, real or complex as `v` is."""
    single = np.dtype(dtype) in (np.float32, np.complex64)
    return wrap(ew.convert(v, _INEXACT[single, is_complex(dtype_of(v))]), scalar)


def check_stacked_2d(*arrays) -> None:
    for a in arrays:
        if len(shape(a)) < 2:
            raise LinAlgError(f"{len(shape(a))}-dimensional array given. Array must be at least two-dimensional")


def check_stacked_square(*arrays) -> None:
    check_stacked_2d(*arrays)
    for a in arrays:
        if shape(a)[-1] != shape(a)[-2]:
            raise LinAlgError("Last 2 dimensions of the array must be square")


def _square_operand(a):
    """(a in double precision, NumPy's result dtype) for a stack of square matrices (LinAlgError if not)."""
    check_stacked_square(a)
    dtype = linalg_dtype(a)
    return in_double(a, dtype), dtype


def eye_value(shape_, dtype):
    """Ones where the last two indices agree, zeros elsewhere (an identity per batch entry)."""
    rows, cols = iota(shape_, np.int64, len(shape_) - 2), iota(shape_, np.int64, len(shape_) - 1)
    return ew.convert(ew.compare("EQ", rows, cols), dtype)


def triangle(v, lower: bool):
    """`v` with the entries above (lower) or below (upper) the diagonal set to zero."""
    s = shape_of(v)
    rows, cols = iota(s, np.int64, len(s) - 2), iota(s, np.int64, len(s) - 1)
    return ew.select(ew.compare("GE" if lower else "LE", rows, cols), v, full(0, s, dtype_of(v)))


def _nan_unless(ok_info, v):
    """`v` where its matrix's LAPACK `info` is 0, nan elsewhere (NumPy would raise LinAlgError)."""
    batch = shape_of(ok_info)
    ok = ew.compare("EQ", ok_info, full(0, batch, np.int32))
    ok = ops.broadcast_in_dim(ok, shape_of(v), range(len(batch)))
    return ew.select(ok, v, full(np.nan, shape_of(v), dtype_of(v)))


def _swap_last(v):
    rank = len(shape_of(v))
    return ops.transpose(v, [*range(rank - 2), rank - 1, rank - 2])


def adjoint(v):
    """Conjugate transpose of the last two dimensions."""
    return conjugate_value(_swap_last(v))


def _lu(a):
    """(packed LU factors, row order p with a[..., p, :] = L U) of square matrices."""
    lu, pivots, _ = lapack.getrf(a)
    return lu, pivots_to_permutation(pivots, shape_of(a)[-1])


def _permute_rows(y, order):
    """`y[..., order, :]` per batch entry: a gather, so no arithmetic touches y's values."""
    *batch, n, _ = shape_of(y)
    at = (*batch, n, 1)
    parts = [iota(at, np.int32, d) for d in range(len(batch))] + [ops.reshape(order, at)]
    return gather(y, ops.concatenate(parts, len(batch) + 1), list(range(len(batch) + 1)))


def _solve_lu(lu, permuted):
    """x with L U x = permuted."""
    return lapack.trsm(lu, lapack.trsm(lu, permuted, lower=True, unit_diagonal=True), lower=False)


@implements(np.linalg.solve)
def solve(a, b):
    """x with a @ x = b; b is a vector only when it is 1-D (NumPy 2's rule)."""
    check_stacked_square(a)
    dtype = linalg_dtype(a, b)
    x, y = in_double(a, dtype), in_double(b, dtype)
    vector = len(shape(b)) == 1
    if vector:
        y = ops.reshape(y, (*shape(b), 1))
    elif not shape(b):
        raise ValueError("solve: Input operand 1 does not have enough dimensions (has 0, gufunc core with "
                         "signature (m,m),(m,n)->(m,n) requires 2)")
    n, rhs = shape(a)[-1], shape_of(y)[-2:]
    if rhs[0] != n:
        raise ValueError(f"solve: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature "
                         f"(m,m),(m,n)->(m,n) (size {rhs[0]} is different from {n})")
    batch = np.broadcast_shapes(shape(a)[:-2], shape_of(y)[:-2])
    y = broadcast_value(y, batch + rhs)
    if 0 in shape_of(y) or 0 in shape(a):
        result = y
    else:  # factor each distinct matrix once, then share its factors across b's batch
        lu, order = _lu(x)
        lu, order = broadcast_value(lu, batch + (n, n)), broadcast_value(order, batch + (n,))
        result = _solve_lu(lu, _permute_rows(y, order))
    return as_result(ops.reshape(result, shape_of(result)[:-1]) if vector else result, dtype)


@implements(np.linalg.inv)
def inv(a):
    """U^-1 L^-1 P from the LU factors (inf or nan for a singular matrix)."""
    x, dtype = _square_operand(a)
    if 0 in shape_of(x):
        return as_result(x, dtype)
    lu, order = _lu(x)
    *batch, n, _ = shape_of(x)
    spread = ops.broadcast_in_dim(order, shape_of(x), range(len(batch) + 1))
    permutation = ew.convert(ew.compare("EQ", spread, iota(shape_of(x), np.int32, len(batch) + 1)), dtype_of(x))
    return as_result(_solve_lu(lu, permutation), dtype)


def _lu_diagonal(a):
    """(diagonal of U, swap parity +1/-1 as int32) of square matrices' LU factors."""
    lu, pivots, _ = lapack.getrf(a)
    s = shape_of(pivots)
    swapped = ew.compare("NE", pivots, ew.binary("add", iota(s, np.int32, len(s) - 1), full(1, s, np.int32)))
    zero = full(0, (), np.int32)
    (count,) = reduce_op([ew.convert(swapped, np.int32)], [zero], [len(s) - 1],
                         lambda acc, e: [ew.binary("add", acc, e)])
    odd = ew.binary("and", count, full(1, s[:-1], np.int32))
    parity = ew.binary("subtract", full(1, s[:-1], np.int32), ew.binary("add", odd, odd))
    return diagonal_value(lu), parity


def _sign_and_log(x):
    """(sign, log|det|) of square matrices from U's diagonal, as NumPy's loop accumulates them: a real
    element flips the sign where it is negative (an infinite or NaN one keeps it), a complex one
    multiplies it by element / |element|; a zero one gives 0 and -inf."""
    diagonal, parity = _lu_diagonal(x)
    d = wrap(diagonal)
    size = np.abs(d)
    if np.iscomplexobj(d):
        unit = d / np.where(size == 0, 1, size)
    else:
        unit = np.where(d < 0, -1.0, 1.0).astype(d.dtype)
    singular = np.any(size == 0, axis=-1)  # (NumPy's: LAPACK's info > 0)
    sign = np.prod(unit, axis=-1) * wrap(ew.convert(parity, dtype_of(x)))
    return np.where(singular, 0, sign), np.where(singular, -np.inf, np.sum(np.log(size), axis=-1))


@implements(np.linalg.det)
def det(a):
    """sign * exp(log|det|), as NumPy computes it: a product of U's diagonal overflows (or underflows)
    where the determinant does not."""
    x, dtype = _square_operand(a)
    if 0 in shape_of(x):
        return as_result(full(1, shape_of(x)[:-2], dtype_of(x)), dtype)
    sign, log = _sign_and_log(x)
    return cast(sign * np.exp(log), dtype)


@implements(np.linalg.slogdet)
def slogdet(a):
    """(sign, log|det|): sign 0 and -inf for a singular matrix, as NumPy."""
    x, dtype = _square_operand(a)
    batch = shape_of(x)[:-2]
    if 0 in shape_of(x):
        return SlogdetResult(as_result(full(1, batch, dtype_of(x)), dtype), as_result(full(0, batch, np.float64), dtype))
    sign, log = _sign_and_log(x)
    return SlogdetResult(cast(sign, dtype), cast(log, lapack.real_dtype(dtype)))


@implements(np.linalg.cholesky)
def cholesky(a, /, *, upper=False):
    """L with a = L L^H (or U = L^H with upper=True); nan where a is not positive definite."""
    x, dtype = _square_operand(a)
    if 0 in shape_of(x):
        return as_result(x, dtype)
    factor, info = lapack.potrf(x, lower=not upper)
    return as_result(_nan_unless(info, triangle(factor, lower=not upper)), dtype)


def _uplo(UPLO) -> bool:
    if UPLO not in ("L", "U"):
        raise ValueError("UPLO argument must be 'L' or 'U'")
    return UPLO == "L"


def _hermitian_eigen(a, UPLO, vectors: bool):
    """(eigenvalues, eigenvectors or None) of Hermitian matrices, one triangle read (LAPACK syevd/heevd)."""
    lower = _uplo(UPLO)
    x, dtype = _square_operand(a)
    if 0 in shape_of(x):
        return as_result(full(0, shape_of(x)[:-1], np.float64), dtype, scalar=False), as_result(x, dtype)
    found, values, info = lapack.syevd(x, lower, vectors=vectors)
    return as_result(_nan_unless(info, values), dtype), as_result(_nan_unless(info, found), dtype) if vectors else None


@implements(np.linalg.eigh)
def eigh(a, UPLO="L"):
    """Ascending eigenvalues and orthonormal eigenvectors of Hermitian matrices."""
    return EighResult(*_hermitian_eigen(a, UPLO, vectors=True))


@implements(np.linalg.eigvalsh)
def eigvalsh(a, UPLO="L"):
    return _hermitian_eigen(a, UPLO, vectors=False)[0]


def svd_parts(x, full_matrices: bool, compute_uv: bool):
    """(s, u, vh) values of LAPACK's gesdd; identity factors for empty matrices, as NumPy."""
    *batch, m, n = shape_of(x)
    k = min(m, n)
    u_shape = (*batch, m, m if full_matrices else k)
    vh_shape = (*batch, n if full_matrices else k, n)
    if 0 in shape_of(x):
        s = full(0, (*batch, k), lapack.real_dtype(dtype_of(x)))
        return s, eye_value(u_shape, dtype_of(x)), eye_value(vh_shape, dtype_of(x))
    mode = "N" if not compute_uv else "A" if full_matrices else "S"
    s, u, vh, info = lapack.gesdd(x, mode)
    return _nan_unless(info, s), _nan_unless(info, u), _nan_unless(info, vh)


def hermitian_svd(a, compute_uv: bool = True):
    """NumPy's SVD of a Hermitian matrix (its lower triangle read) from eigh: the eigenvalues' sizes
    in descending order, their vectors as u, and vh = (u * sign)^H."""
    w, v = eigh(a) if compute_uv else (eigvalsh(a), None)
    size = np.abs(w)
    if not compute_uv:
        return np.flip(np.sort(size, axis=-1), axis=-1)
    order = np.flip(np.argsort(size, axis=-1), axis=-1)
    sign = np.take_along_axis(np.sign(w), order, axis=-1)
    u = np.take_along_axis(v, order[..., None, :], axis=-1)
    return SVDResult(u, np.take_along_axis(size, order, axis=-1), np.conj(np.swapaxes(u * sign[..., None, :], -1, -2)))


@implements(np.linalg.svd)
def svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    """u, s, vh with a = u @ diag(s) @ vh, s descending; for `hermitian` NumPy's from eigh."""
    if hermitian:
        return hermitian_svd(a, compute_uv)
    check_stacked_2d(a)
    dtype = linalg_dtype(a)
    s, u, vh = svd_parts(in_double(a, dtype), full_matrices, compute_uv)
    if not compute_uv:
        return as_result(s, dtype, scalar=False)
    return SVDResult(as_result(u, dtype), as_result(s, dtype), as_result(vh, dtype))


@implements(np.linalg.svdvals)
def svdvals(x, /):
    return svd(x, compute_uv=False)


@implements(np.linalg.qr)
def qr(a, mode="reduced"):
    """Householder QR (geqrf, then orgqr for Q); modes reduced, complete, r and raw, and NumPy's
    deprecated full (reduced) and economic (geqrf's packed factors)."""
    if mode in ("f", "full"):
        warnings.warn("The 'full' option is deprecated in favor of 'reduced'.\nFor backward compatibility let mode "
                      "default.", DeprecationWarning, stacklevel=user_stacklevel())
        mode = "reduced"
    elif mode in ("e", "economic"):
        warnings.warn("The 'economic' option is deprecated.", DeprecationWarning, stacklevel=user_stacklevel())
        mode = "economic"
    elif mode not in ("reduced", "complete", "r", "raw"):
        raise ValueError(f"Unrecognized mode '{mode}'")
    check_stacked_2d(a)
    dtype = linalg_dtype(a)
    x = in_double(a, dtype)
    *batch, m, n = shape_of(x)
    k = min(m, n)
    columns = m if mode == "complete" else k
    zeros = [0] * len(batch)
    if 0 in shape_of(x):
        packed, taus = x, full(0, (*batch, k), dtype_of(x))
    else:
        packed, taus = lapack.geqrf(x)
    r = triangle(ops.slice(packed, zeros + [0, 0], [*batch, columns if mode != "r" else k, n],
                           [1] * len(shape_of(x))), lower=False)
    if mode == "r":
        return as_result(r, dtype)
    if mode == "raw":
        return as_result(_swap_last(packed), dtype), as_result(taus, dtype)
    if mode == "economic":
        return as_result(packed, dtype)
    if 0 in shape_of(x):
        return QRResult(as_result(eye_value((*batch, m, columns), dtype_of(x)), dtype), as_result(r, dtype))
    reflectors = ops.slice(packed, zeros + [0, 0], [*batch, m, min(columns, n)], [1] * len(shape_of(x)))
    if columns > n:  # complete Q of a tall matrix: orgqr fills the extra columns from zeros
        pad = full(0, (), dtype_of(x))
        reflectors = ops.pad(reflectors, pad, [0] * len(shape_of(x)), zeros + [0, columns - n],
                             [0] * len(shape_of(x)))
    return QRResult(as_result(lapack.orgqr(reflectors, taus), dtype), as_result(r, dtype))


def _eig(a):
    """(eigenvalues, eigenvectors) as NumPy's complex result dtype."""
    x, dtype = _square_operand(a)
    if 0 in shape_of(x):
        values, vectors = full(0, shape_of(x)[:-1], np.complex128), full(0, shape_of(x), np.complex128)
    else:
        values, vectors, info = lapack.geev(x)
        values, vectors = _nan_unless(info, values), _nan_unless(info, vectors)
    return as_result(values, dtype, scalar=False), as_result(vectors, dtype)


@implements(np.linalg.eig)
def eig(a):
    """Eigenvalues and right eigenvectors of general matrices, always complex.

    NumPy gives real arrays when every eigenvalue of a real matrix is real, a
    dtype that depends on the data; compiled code keeps the complex type.
    """
    return EigResult(*_eig(a))


@implements(np.linalg.eigvals)
def eigvals(a):
    return _eig(a)[0]
