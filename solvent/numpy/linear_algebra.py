"""np.linalg on traced arrays: LAPACK custom calls that jaxlib registers, and StableHLO ops.

As NumPy does, every LAPACK routine runs in double precision (float64 or
complex128) and single precision inputs get their results cast back, so ranks
and cutoffs decide as NumPy's do. Compiled code cannot raise at run time: where NumPy raises `LinAlgError` for a
singular matrix (solve, inv) or one that is not positive definite (cholesky),
the results hold inf or nan instead; factorizations whose LAPACK routine
reports failure (cholesky, eigh, svd, eig) give nan for that matrix.
"""

from __future__ import annotations

import operator

import numpy as np
from numpy.linalg import LinAlgError
from numpy.linalg._linalg import EighResult, EigResult, QRResult, SlogdetResult, SVDResult

from solvent.numpy.products import as_traced, conjugate_value, diagonal_value
from solvent.numpy.registry import implements
from solvent.numpy.values import broadcast_value, full, result_type, shape, value, wrap
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


def _double(a, dtype):
    """`a` as a double precision value: NumPy's linalg computes in float64/complex128, then casts back."""
    return value(a, np.complex128 if np.dtype(dtype).kind == "c" else np.float64)


def _result(v, dtype, scalar=None):
    """A double precision value as NumPy's result: `dtype`'s precision, real or complex as `v` is."""
    single = np.dtype(dtype) in (np.float32, np.complex64)
    return wrap(ew.convert(v, _INEXACT[single, is_complex(dtype_of(v))]), scalar)


def _stacked_2d(*arrays) -> None:
    for a in arrays:
        if len(shape(a)) < 2:
            raise LinAlgError(f"{len(shape(a))}-dimensional array given. Array must be at least two-dimensional")


def _stacked_square(*arrays) -> None:
    _stacked_2d(*arrays)
    for a in arrays:
        if shape(a)[-1] != shape(a)[-2]:
            raise LinAlgError("Last 2 dimensions of the array must be square")


def _square_operand(a):
    """(a in double precision, NumPy's result dtype) for a stack of square matrices (LinAlgError if not)."""
    _stacked_square(a)
    dtype = linalg_dtype(a)
    return _double(a, dtype), dtype


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


def _adjoint(v):
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
    _stacked_square(a)
    dtype = linalg_dtype(a, b)
    x, y = _double(a, dtype), _double(b, dtype)
    vector = len(shape(b)) == 1
    if vector:
        y = ops.reshape(y, (*shape(b), 1))
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
    return _result(ops.reshape(result, shape_of(result)[:-1]) if vector else result, dtype)


@implements(np.linalg.inv)
def inv(a):
    """U^-1 L^-1 P from the LU factors (inf or nan for a singular matrix)."""
    x, dtype = _square_operand(a)
    if 0 in shape_of(x):
        return _result(x, dtype)
    lu, order = _lu(x)
    *batch, n, _ = shape_of(x)
    spread = ops.broadcast_in_dim(order, shape_of(x), range(len(batch) + 1))
    permutation = ew.convert(ew.compare("EQ", spread, iota(shape_of(x), np.int32, len(batch) + 1)), dtype_of(x))
    return _result(_solve_lu(lu, permutation), dtype)


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


@implements(np.linalg.det)
def det(a):
    """Product of U's diagonal times the sign of the row swaps."""
    x, dtype = _square_operand(a)
    if 0 in shape_of(x):
        return _result(full(1, shape_of(x)[:-2], dtype_of(x)), dtype)
    diagonal, parity = _lu_diagonal(x)
    return _as(np.prod(wrap(diagonal), axis=-1) * wrap(ew.convert(parity, dtype_of(x))), dtype)


@implements(np.linalg.slogdet)
def slogdet(a):
    """(sign, log|det|): sign 0 and -inf for a singular matrix, as NumPy."""
    x, dtype = _square_operand(a)
    batch = shape_of(x)[:-2]
    if 0 in shape_of(x):
        return SlogdetResult(_result(full(1, batch, dtype_of(x)), dtype), _result(full(0, batch, np.float64), dtype))
    diagonal, parity = _lu_diagonal(x)
    d = wrap(diagonal)
    size = np.abs(d)
    unit = np.where(size == 0, 0, d / np.where(size == 0, 1, size))
    sign = np.prod(unit, axis=-1) * wrap(ew.convert(parity, dtype_of(x)))
    return SlogdetResult(_as(sign, dtype), _as(np.sum(np.log(size), axis=-1), lapack.real_dtype(dtype)))


@implements(np.linalg.cholesky)
def cholesky(a, /, *, upper=False):
    """L with a = L L^H (or U = L^H with upper=True); nan where a is not positive definite."""
    x, dtype = _square_operand(a)
    if 0 in shape_of(x):
        return _result(x, dtype)
    factor, info = lapack.potrf(x, lower=not upper)
    return _result(_nan_unless(info, triangle(factor, lower=not upper)), dtype)


def _uplo(UPLO) -> bool:
    if UPLO not in ("L", "U"):
        raise ValueError("UPLO argument must be 'L' or 'U'")
    return UPLO == "L"


def _hermitian_eigen(a, UPLO, vectors: bool):
    """(eigenvalues, eigenvectors or None) of Hermitian matrices, one triangle read (LAPACK syevd/heevd)."""
    lower = _uplo(UPLO)
    x, dtype = _square_operand(a)
    if 0 in shape_of(x):
        return _result(full(0, shape_of(x)[:-1], np.float64), dtype, scalar=False), _result(x, dtype)
    found, values, info = lapack.syevd(x, lower, vectors=vectors)
    return _result(_nan_unless(info, values), dtype), _result(_nan_unless(info, found), dtype) if vectors else None


@implements(np.linalg.eigh)
def eigh(a, UPLO="L"):
    """Ascending eigenvalues and orthonormal eigenvectors of Hermitian matrices."""
    return EighResult(*_hermitian_eigen(a, UPLO, vectors=True))


@implements(np.linalg.eigvalsh)
def eigvalsh(a, UPLO="L"):
    return _hermitian_eigen(a, UPLO, vectors=False)[0]


def _svd(x, full_matrices: bool, compute_uv: bool):
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


@implements(np.linalg.svd)
def svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    """u, s, vh with a = u @ diag(s) @ vh, s descending.

    `hermitian=True` is accepted and computes the same general SVD (a valid
    factorization; NumPy's comes from eigh and may differ in signs).
    """
    _stacked_2d(a)
    dtype = linalg_dtype(a)
    s, u, vh = _svd(_double(a, dtype), full_matrices, compute_uv)
    if not compute_uv:
        return _result(s, dtype, scalar=False)
    return SVDResult(_result(u, dtype), _result(s, dtype), _result(vh, dtype))


@implements(np.linalg.svdvals)
def svdvals(x, /):
    return svd(x, compute_uv=False)


@implements(np.linalg.qr)
def qr(a, mode="reduced"):
    """Householder QR (geqrf, then orgqr for Q); modes reduced, complete, r and raw."""
    if mode not in ("reduced", "complete", "r", "raw"):
        raise ValueError(f"Unrecognized mode '{mode}'")
    _stacked_2d(a)
    dtype = linalg_dtype(a)
    x = _double(a, dtype)
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
        return _result(r, dtype)
    if mode == "raw":
        return _result(_swap_last(packed), dtype), _result(taus, dtype)
    if 0 in shape_of(x):
        return QRResult(_result(eye_value((*batch, m, columns), dtype_of(x)), dtype), _result(r, dtype))
    reflectors = ops.slice(packed, zeros + [0, 0], [*batch, m, min(columns, n)], [1] * len(shape_of(x)))
    if columns > n:  # complete Q of a tall matrix: orgqr fills the extra columns from zeros
        pad = full(0, (), dtype_of(x))
        reflectors = ops.pad(reflectors, pad, [0] * len(shape_of(x)), zeros + [0, columns - n],
                             [0] * len(shape_of(x)))
    return QRResult(_result(lapack.orgqr(reflectors, taus), dtype), _result(r, dtype))


def _eig(a):
    """(eigenvalues, eigenvectors) as NumPy's complex result dtype."""
    x, dtype = _square_operand(a)
    if 0 in shape_of(x):
        values, vectors = full(0, shape_of(x)[:-1], np.complex128), full(0, shape_of(x), np.complex128)
    else:
        values, vectors, info = lapack.geev(x)
        values, vectors = _nan_unless(info, values), _nan_unless(info, vectors)
    return _result(values, dtype, scalar=False), _result(vectors, dtype)


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


def _inexact(x):
    """NumPy's norm input rule: non-inexact arrays become float64."""
    x = as_traced(x)
    return x if x.dtype.kind in "fc" else wrap(ew.convert(x.value, np.float64), scalar=False)


def _as(x, dtype):
    return wrap(ew.convert(value(x), dtype), scalar=shape(x) == ())


def _vector_norm(x, ord, axis, keepdims):
    """NumPy's norm along one axis, every `ord`."""
    if ord == np.inf:
        return np.max(np.abs(x), axis=axis, keepdims=keepdims, initial=0)
    if ord == -np.inf:
        return np.min(np.abs(x), axis=axis, keepdims=keepdims)
    if ord == 0:
        return np.sum(_as(np.not_equal(x, 0), np.real(x).dtype), axis=axis, keepdims=keepdims)
    if ord == 1:
        return np.sum(np.abs(x), axis=axis, keepdims=keepdims)
    if ord is None or ord == 2:
        return np.sqrt(np.sum(np.real(np.conjugate(x) * x), axis=axis, keepdims=keepdims))
    if isinstance(ord, str):
        raise ValueError(f"Invalid norm order '{ord}' for vectors")
    powers = np.abs(x)
    powers = _as(np.power(powers, ord), powers.dtype)  # NumPy raises in place: the dtype stays
    total = np.sum(powers, axis=axis, keepdims=keepdims)
    return _as(np.power(total, np.reciprocal(ord, dtype=total.dtype)), total.dtype)


def _svd_norm(x, row, col, reduction, **initial):
    s = svdvals(np.moveaxis(x, (row, col), (-2, -1)))
    return reduction(s, axis=-1, **initial)


def _matrix_norm(x, ord, row, col):
    """NumPy's norm over the two axes (row, col), without keepdims."""
    if ord == 2:
        return _svd_norm(x, row, col, np.max, initial=0)
    if ord == -2:
        return _svd_norm(x, row, col, np.min)
    if ord == "nuc":
        return _svd_norm(x, row, col, np.sum)
    if ord in (None, "fro", "f"):
        return np.sqrt(np.sum(np.real(np.conjugate(x) * x), axis=(row, col)))
    if ord not in (1, -1, np.inf, -np.inf):
        raise ValueError("Invalid norm order for matrices.")
    summed, kept = (row, col) if ord in (1, -1) else (col, row)
    sums = np.sum(np.abs(x), axis=summed)
    kept -= kept > summed
    return np.max(sums, axis=kept, initial=0) if ord > 0 else np.min(sums, axis=kept)


def _axes(axis, ndim: int) -> tuple:
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, tuple):
        return axis
    try:
        return (int(axis),)
    except Exception as error:
        raise TypeError("'axis' must be None, an integer or a tuple of integers") from error


@implements(np.linalg.norm)
def norm(x, ord=None, axis=None, keepdims=False):
    """Vector and matrix norms of every order, as NumPy computes them."""
    x = _inexact(x)
    ndim = x.ndim
    if axis is None and (ord is None or (ord in ("f", "fro") and ndim == 2) or (ord == 2 and ndim == 1)):
        flat = np.ravel(x)
        parts = (np.real(flat), np.imag(flat)) if x.dtype.kind == "c" else (flat,)
        result = np.sqrt(sum(np.dot(p, p) for p in parts))
        return np.reshape(result, [1] * ndim) if keepdims else result
    axes = _axes(axis, ndim)
    if len(axes) == 1:
        return _vector_norm(x, ord, axes, keepdims)
    if len(axes) != 2:
        raise ValueError("Improper number of dimensions to norm.")
    row, col = (int(np.lib.array_utils.normalize_axis_index(a, ndim)) for a in axes)
    if row == col:
        raise ValueError("Duplicate axes given.")
    result = _matrix_norm(x, ord, row, col)
    if keepdims:
        result = np.reshape(result, [1 if i in (row, col) else n for i, n in enumerate(x.shape)])
    return result


@implements(np.linalg.matrix_norm)
def matrix_norm(x, /, *, keepdims=False, ord="fro"):
    return norm(x, axis=(-2, -1), keepdims=keepdims, ord=ord)


@implements(np.linalg.vector_norm)
def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    """The norm of `x` as one vector along `axis` (any number of axes, flattened together)."""
    x = as_traced(x)
    full_shape = list(x.shape)
    if axis is None:
        x, along = np.ravel(x), 0
    elif isinstance(axis, tuple):
        axes = np.lib.array_utils.normalize_axis_tuple(axis, x.ndim)
        rest = tuple(i for i in range(x.ndim) if i not in axes)
        moved = np.transpose(x, axes + rest)
        x, along = np.reshape(moved, (int(np.prod([x.shape[i] for i in axes])), *[x.shape[i] for i in rest])), 0
    else:
        along = axis
    result = norm(x, axis=along, ord=ord)
    if keepdims:
        for i in np.lib.array_utils.normalize_axis_tuple(range(len(full_shape)) if axis is None else axis,
                                                         len(full_shape)):
            full_shape[i] = 1
        result = np.reshape(result, tuple(full_shape))
    return result


@implements(np.linalg.matrix_power)
def matrix_power(a, n):
    """a @ a @ ... (n times, static n) by repeated squaring; inv(a) for negative n; identity for 0."""
    a = as_traced(a)
    _stacked_square(a)
    try:
        n = operator.index(n)
    except TypeError as error:
        raise TypeError("exponent must be an integer") from error
    if n == 0:
        return wrap(eye_value(a.shape, a.dtype))
    if n < 0:
        a, n = inv(a), -n
    result, square = None, None
    while n:
        square = a if square is None else np.matmul(square, square)
        n, bit = divmod(n, 2)
        if bit:
            result = square if result is None else np.matmul(result, square)
    return result


def chain_order(dims: list[int]) -> dict:
    """Classic matrix-chain DP: split[i, j] is where the cheapest product of matrices i..j splits."""
    n = len(dims) - 1
    cost, split = {(i, i): 0 for i in range(n)}, {}
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i, j], split[i, j] = min((cost[i, k] + cost[k + 1, j] + dims[i] * dims[k + 1] * dims[j + 1], k)
                                          for k in range(i, j))
    return split


def _chain(arrays, split, i, j, out=None):
    if i == j:
        return arrays[i]
    k = split[i, j]
    return np.dot(_chain(arrays, split, i, k), _chain(arrays, split, k + 1, j), out=out)


@implements(np.linalg.multi_dot)
def multi_dot(arrays, *, out=None):
    """Product of a chain of matrices in the cheapest order (chosen at trace time)."""
    if len(arrays) < 2:
        raise ValueError("Expecting at least two arrays.")
    if len(arrays) == 2:
        return np.dot(arrays[0], arrays[1], out=out)
    arrays = [as_traced(a) for a in arrays]
    first, last = arrays[0].ndim, arrays[-1].ndim
    if first == 1:
        arrays[0] = np.reshape(arrays[0], (1, -1))
    if last == 1:
        arrays[-1] = np.reshape(arrays[-1], (-1, 1))
    for a in arrays:
        if a.ndim != 2:
            raise LinAlgError(f"{a.ndim}-dimensional array given. Array must be two-dimensional")
    split = chain_order([a.shape[0] for a in arrays] + [arrays[-1].shape[1]])
    result = _chain(arrays, split, 0, len(arrays) - 1, out if first == last == 2 else None)
    if first == 1 and last == 1:
        return wrap(ops.reshape(result.value, ()))
    return np.ravel(result) if first == 1 or last == 1 else result


def _pseudo_inverse(u, s, vh, cutoff):
    """vh^H diag(1/s where s > cutoff, else 0) u^H."""
    large = np.greater(wrap(s, scalar=False), cutoff)
    inverse = np.where(large, np.divide(1, np.where(large, wrap(s, scalar=False), 1)), 0)
    scaled = np.multiply(np.expand_dims(_as(inverse, dtype_of(u)), -1), wrap(_adjoint(u)))
    return np.matmul(wrap(_adjoint(vh)), scaled)


@implements(np.linalg.pinv)
def pinv(a, rcond=None, hermitian=False, *, rtol=np._NoValue):
    """Moore-Penrose inverse from the SVD, dropping singular values at or below rcond * max(s)."""
    a = as_traced(a)
    if rcond is None:
        rcond = 1e-15 if rtol is np._NoValue else max(a.shape[-2:]) * np.finfo(a.dtype).eps if rtol is None else rtol
    elif rtol is not np._NoValue:
        raise ValueError("`rtol` and `rcond` can't be both set.")
    _stacked_2d(a)
    dtype = linalg_dtype(a)
    x = _double(a, dtype)
    *batch, m, n = shape_of(x)
    if 0 in (m, n):
        return _result(full(0, (*batch, n, m), dtype_of(x)), dtype)
    s, u, vh = _svd(x, full_matrices=False, compute_uv=True)
    cutoff = np.expand_dims(rcond, -1) * np.max(wrap(s, scalar=False), axis=-1, keepdims=True)
    return _as(_pseudo_inverse(u, s, vh, cutoff), dtype)


@implements(np.linalg.lstsq)
def lstsq(a, b, rcond=None):
    """Least squares through the SVD: (x, residuals, rank, singular values).

    Residuals have NumPy's static shape: (K,) when M > N, else (0,). NumPy gives
    an empty array when a is rank deficient, which compiled code cannot know:
    here they are the residual sums all the same.
    """
    vector = len(shape(b)) == 1
    dtype = linalg_dtype(a, b)
    x, y = _double(a, dtype), _double(b, dtype)
    if vector:
        y = ops.reshape(y, (*shape(b), 1))
    for v in (x, y):
        if len(shape_of(v)) != 2:
            raise LinAlgError(f"{len(shape_of(v))}-dimensional array given. Array must be two-dimensional")
    m, n = shape_of(x)
    if m != shape_of(y)[0]:
        raise LinAlgError("Incompatible dimensions")
    if rcond is None:
        rcond = np.finfo(np.float64).eps * max(m, n)  # NumPy computes in double precision
    s, u, vh = _svd(x, full_matrices=False, compute_uv=True)
    s_array = wrap(s, scalar=False)
    cutoff = rcond * np.max(s_array, axis=-1, initial=0)
    solution = np.matmul(_pseudo_inverse(u, s, vh, cutoff), wrap(y))
    rank = _as(np.sum(np.greater(s_array, cutoff)), np.int32)
    if m > n:
        error = np.subtract(wrap(y), np.matmul(wrap(x), solution))
        residuals = np.sum(np.real(np.conjugate(error) * error), axis=0)
    else:
        residuals = wrap(full(0, (0,), np.float64), scalar=False)
    real = lapack.real_dtype(dtype)
    solution = _as(np.reshape(solution, (n,)) if vector else solution, dtype)
    return solution, _as(residuals, real), rank, _as(s_array, real)


@implements(np.linalg.matrix_rank)
def matrix_rank(A, tol=None, hermitian=False, *, rtol=None):
    """Number of singular values above tol (default max(s) * max(M, N) * eps)."""
    if rtol is not None and tol is not None:
        raise ValueError("`tol` and `rtol` can't be both set.")
    A = as_traced(A)
    if A.ndim < 2:
        return _as(np.any(np.not_equal(A, 0)), np.int64)
    s = np.abs(eigvalsh(A)) if hermitian else svdvals(A)
    if tol is None:
        rtol = max(A.shape[-2:]) * np.finfo(s.dtype).eps if rtol is None else np.expand_dims(rtol, -1)
        tol = np.max(s, axis=-1, keepdims=True) * rtol
    else:
        tol = np.expand_dims(tol, -1)
    return np.sum(np.greater(s, tol), axis=-1)


@implements(np.linalg.cond)
def cond(x, p=None):
    """Condition number: ratio of extreme singular values (p None, 2, -2) or norm(x) * norm(inv(x))."""
    x = as_traced(x)
    _stacked_2d(x)
    if x.size == 0:
        raise LinAlgError("cond is not defined on empty arrays")
    if p is None or p in (2, -2):
        s = svdvals(x)
        first, last = s[..., 0], s[..., -1]
        ratio = np.divide(last, first) if p == -2 else np.divide(first, last)
    else:
        _stacked_square(x)
        ratio = norm(x, p, axis=(-2, -1)) * norm(inv(x), p, axis=(-2, -1))
        ratio = _as(ratio, lapack.real_dtype(linalg_dtype(x)))
    nan_input = np.any(np.isnan(x), axis=(-2, -1))
    return np.where(np.isnan(ratio) & ~nan_input, np.inf, ratio)[()]


@implements(np.linalg.tensorsolve)
def tensorsolve(a, b, axes=None):
    """x with tensordot(a, x, x.ndim) = b, through one square solve."""
    a, b = as_traced(a), as_traced(b)
    if axes is not None:
        order = [i for i in range(a.ndim) if i not in axes] + list(axes)
        a = np.transpose(a, order)
    old_shape = a.shape[-(a.ndim - b.ndim):]
    size = int(np.prod(old_shape))
    if a.size != size ** 2:
        raise LinAlgError("Input arrays must satisfy the requirement "
                          "prod(a.shape[b.ndim:]) == prod(a.shape[:b.ndim])")
    return np.reshape(solve(np.reshape(a, (size, size)), np.ravel(b)), old_shape)


@implements(np.linalg.tensorinv)
def tensorinv(a, ind=2):
    """The inverse of `a` as a linear map from its last dimensions to its first `ind`."""
    a = as_traced(a)
    if ind <= 0:
        raise ValueError("Invalid ind argument.")
    size = int(np.prod(a.shape[ind:]))
    return np.reshape(inv(np.reshape(a, (size, -1))), a.shape[ind:] + a.shape[:ind])
