"""np.linalg functions built from the decompositions and products: norms, matrix_power,
multi_dot (NumPy's cheapest parenthesization), pinv, lstsq, matrix_rank and cond.

They follow NumPy's own formulas, so cutoffs and ranks decide as NumPy's do; the LAPACK work
is in `linalg`.
"""

from __future__ import annotations

import operator

import numpy as np
from numpy.linalg import LinAlgError

from solvent.errors import UnsupportedError
from solvent.numpy.linalg import (adjoint, as_result, check_stacked_2d, check_stacked_square, eigvalsh,
                                  eye_value, hermitian_svd, in_double, inv, linalg_dtype, solve, svd_parts, svdvals)
from solvent.numpy.products import as_traced
from solvent.numpy.registry import implements
from solvent.numpy.values import cast, full, is_traced, shape, value, wrap
from solvent.ops import elementwise as ew, lapack, shape as ops
from solvent.ops.base import dtype_of, shape_of

def _inexact(x):
    """NumPy's norm input rule: non-inexact arrays become float64."""
    x = as_traced(x)
    return x if x.dtype.kind in "fc" else wrap(ew.convert(x.value, np.float64), scalar=False)



def _vector_norm(x, ord, axis, keepdims):
    """NumPy's norm along one axis, every `ord`."""
    if ord == np.inf:
        return np.max(np.abs(x), axis=axis, keepdims=keepdims, initial=0)
    if ord == -np.inf:
        return np.min(np.abs(x), axis=axis, keepdims=keepdims)
    if ord == 0:
        return np.sum(cast(np.not_equal(x, 0), np.real(x).dtype), axis=axis, keepdims=keepdims)
    if ord == 1:
        return np.sum(np.abs(x), axis=axis, keepdims=keepdims)
    if ord is None or ord == 2:
        return np.sqrt(np.sum(np.real(np.conjugate(x) * x), axis=axis, keepdims=keepdims))
    if isinstance(ord, str):
        raise ValueError(f"Invalid norm order '{ord}' for vectors")
    powers = np.abs(x)
    powers = cast(np.power(powers, ord), powers.dtype)  # NumPy raises in place: the dtype stays
    total = np.sum(powers, axis=axis, keepdims=keepdims)
    return cast(np.power(total, np.reciprocal(ord, dtype=total.dtype)), total.dtype)


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
    if is_traced(ord):
        raise UnsupportedError("np.linalg.norm's ord must be a static Python number or string, not a traced value: "
                               "it decides which norm the program computes")
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
    """a @ a @ ... (n times, static n) by repeated squaring; inv(a) for negative n; identity for 0;
    a traced `a` itself for 1, as NumPy returns its argument (a write to the result writes it)."""
    given, a = a, as_traced(a)
    check_stacked_square(a)
    if is_traced(n):
        raise UnsupportedError("np.linalg.matrix_power's exponent must be a static Python int, not a traced value: "
                               "it decides how many products the program makes")
    try:
        n = operator.index(n)
    except TypeError as error:
        raise TypeError("exponent must be an integer") from error
    if n == 0:
        return wrap(eye_value(a.shape, a.dtype))
    if n < 0:
        a, n = inv(a), -n
    elif n == 1 and is_traced(given):
        return given
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


def _pseudo_inverse(u, s, vh, cutoff, rhs=None):
    """vh^H diag(1/s where s > cutoff, else 0) u^H, times `rhs` if given: u^H rhs first, as LAPACK's
    least squares solves (the explicit pseudo-inverse times rhs lost 3 digits on a degree-18 fit)."""
    large = np.greater(wrap(s, scalar=False), cutoff)
    inverse = np.where(large, np.divide(1, np.where(large, wrap(s, scalar=False), 1)), 0)
    projected = wrap(adjoint(u)) if rhs is None else np.matmul(wrap(adjoint(u)), rhs)
    scaled = np.multiply(np.expand_dims(cast(inverse, dtype_of(u)), -1), projected)
    return np.matmul(wrap(adjoint(vh)), scaled)


@implements(np.linalg.pinv)
def pinv(a, rcond=None, hermitian=False, *, rtol=np._NoValue):
    """Moore-Penrose inverse from the SVD, dropping singular values at or below rcond * max(s)."""
    a = as_traced(a)
    if rcond is None:
        rcond = 1e-15 if rtol is np._NoValue else max(a.shape[-2:]) * np.finfo(a.dtype).eps if rtol is None else rtol
    elif rtol is not np._NoValue:
        raise ValueError("`rtol` and `rcond` can't be both set.")
    check_stacked_2d(a)
    dtype = linalg_dtype(a)
    x = in_double(a, dtype)
    *batch, m, n = shape_of(x)
    if 0 in (m, n):
        return as_result(full(0, (*batch, n, m), dtype_of(x)), dtype)
    if hermitian:  # (NumPy's: from eigh, reading the lower triangle)
        u, s, vh = (value(v) for v in hermitian_svd(wrap(x)))
    else:
        s, u, vh = svd_parts(x, full_matrices=False, compute_uv=True)
    cutoff = np.expand_dims(rcond, -1) * np.max(wrap(s, scalar=False), axis=-1, keepdims=True)
    return cast(_pseudo_inverse(u, s, vh, cutoff), dtype)


@implements(np.linalg.lstsq)
def lstsq(a, b, rcond=None):
    """Least squares through the SVD: (x, residuals, rank, singular values).

    Residuals have NumPy's static shape: (K,) when M > N, else (0,). NumPy gives
    an empty array when a is rank deficient, which compiled code cannot know:
    here they are the residual sums all the same.
    """
    vector = len(shape(b)) == 1
    dtype = linalg_dtype(a, b)
    x, y = in_double(a, dtype), in_double(b, dtype)
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
    # LAPACK's dgelsd takes its precision (half of eps) for an rcond outside (0, 1), as rcond=-1
    rcond = np.where((np.less_equal(rcond, 0)) | (np.greater_equal(rcond, 1)), np.finfo(np.float64).eps / 2, rcond)
    s, u, vh = svd_parts(x, full_matrices=False, compute_uv=True)
    s_array = wrap(s, scalar=False)
    cutoff = rcond * np.max(s_array, axis=-1, initial=0)
    solution = _pseudo_inverse(u, s, vh, cutoff, wrap(y))
    rank = cast(np.sum(np.greater(s_array, cutoff)), np.int32)
    if m > n:
        error = np.subtract(wrap(y), np.matmul(wrap(x), solution))
        residuals = np.sum(np.real(np.conjugate(error) * error), axis=0)
    else:
        residuals = wrap(full(0, (0,), np.float64), scalar=False)
    real = lapack.real_dtype(dtype)
    solution = cast(np.reshape(solution, (n,)) if vector else solution, dtype)
    return solution, cast(residuals, real), rank, cast(s_array, real)


@implements(np.linalg.matrix_rank)
def matrix_rank(A, tol=None, hermitian=False, *, rtol=None):
    """Number of singular values above tol (default max(s) * max(M, N) * eps)."""
    if rtol is not None and tol is not None:
        raise ValueError("`tol` and `rtol` can't be both set.")
    A = as_traced(A)
    if A.ndim < 2:
        return cast(np.any(np.not_equal(A, 0)), np.int64)
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
    check_stacked_2d(x)
    if x.size == 0:
        raise LinAlgError("cond is not defined on empty arrays")
    if p is None or p in (2, -2):
        s = svdvals(x)
        first, last = s[..., 0], s[..., -1]
        ratio = np.divide(last, first) if p == -2 else np.divide(first, last)
    else:
        check_stacked_square(x)
        ratio = norm(x, p, axis=(-2, -1)) * norm(inv(x), p, axis=(-2, -1))
        ratio = cast(ratio, lapack.real_dtype(linalg_dtype(x)))
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
