"""The Array API's `linalg` extension (`solvent.array_api.linalg`), written with `np.linalg` calls."""

from __future__ import annotations

import builtins
from typing import NamedTuple

import numpy as np

from solvent.array_api.common import program
from solvent.array_api.functions import matmul, matrix_transpose, tensordot, vecdot


class EighResult(NamedTuple):
    eigenvalues: object
    eigenvectors: object


class QRResult(NamedTuple):
    Q: object
    R: object


class SlogdetResult(NamedTuple):
    sign: object
    logabsdet: object


class SVDResult(NamedTuple):
    U: object
    S: object
    Vh: object


def _conjugate_transpose(x):
    x = np.swapaxes(x, -1, -2)
    return np.conj(x) if np.dtype(x.dtype).kind == "c" else x


@program
def cholesky(x, /, *, upper=False):
    """The Cholesky factor: lower `L` with `x = L @ L^H`, or its conjugate transpose if `upper`."""
    lower = np.linalg.cholesky(x)
    return _conjugate_transpose(lower) if upper else lower


@program
def cross(x1, x2, /, *, axis=-1):
    return np.cross(x1, x2, axis=axis)


@program
def det(x, /):
    return np.linalg.det(x)


@program
def diagonal(x, /, *, offset=0):
    return np.diagonal(x, offset=offset, axis1=-2, axis2=-1)


@program
def eigh(x, /):
    return EighResult(*np.linalg.eigh(x))


@program
def eigvalsh(x, /):
    return np.linalg.eigvalsh(x)


@program
def inv(x, /):
    return np.linalg.inv(x)


@program
def matrix_norm(x, /, *, keepdims=False, ord="fro"):  # noqa: A002  (the standard's name)
    return np.linalg.norm(x, ord=ord, axis=(-2, -1), keepdims=keepdims)


@program
def matrix_power(x, n, /):
    return np.linalg.matrix_power(x, n)


def _default_rtol(x):
    """The standard's default relative tolerance: max(M, N) * eps of `x`'s real dtype."""
    return builtins.max(x.shape[-2:]) * np.finfo(np.result_type(x.dtype, np.float32)).eps


@program
def matrix_rank(x, /, *, rtol=None):
    """The number of singular values above `rtol` times the largest."""
    singular = np.linalg.svd(x, compute_uv=False)
    rtol = _default_rtol(x) if rtol is None else rtol
    if np.ndim(rtol):
        rtol = np.expand_dims(rtol, -1)
    cutoff = np.max(singular, axis=-1, keepdims=True) * rtol
    return np.sum(singular > cutoff, axis=-1)


@program
def outer(x1, x2, /):
    return np.outer(x1, x2)


@program
def pinv(x, /, *, rtol=None):
    return np.linalg.pinv(x, _default_rtol(x) if rtol is None else rtol)


@program
def qr(x, /, *, mode="reduced"):
    return QRResult(*np.linalg.qr(x, mode=mode))


@program
def slogdet(x, /):
    return SlogdetResult(*np.linalg.slogdet(x))


@program
def solve(x1, x2, /):
    return np.linalg.solve(x1, x2)


@program
def svd(x, /, *, full_matrices=True):
    return SVDResult(*np.linalg.svd(x, full_matrices=full_matrices))


@program
def svdvals(x, /):
    return np.linalg.svd(x, compute_uv=False)


@program
def trace(x, /, *, offset=0, dtype=None):
    return np.trace(x, offset=offset, axis1=-2, axis2=-1, dtype=dtype)


@program
def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):  # noqa: A002
    """The `ord`-norm of the vectors along `axis` (all axes when None), in `x`'s real float dtype."""
    size = np.abs(x)
    if np.dtype(size.dtype).kind in "biu":
        size = size.astype(np.float64)
    if ord == np.inf:
        return np.max(size, axis=axis, keepdims=keepdims)
    if ord == -np.inf:
        return np.min(size, axis=axis, keepdims=keepdims)
    if ord == 0:
        return np.sum(size != 0, axis=axis, keepdims=keepdims).astype(size.dtype)
    if ord == 1:
        return np.sum(size, axis=axis, keepdims=keepdims)
    if ord == 2:
        return np.sqrt(np.sum(size * size, axis=axis, keepdims=keepdims))
    return np.sum(size ** ord, axis=axis, keepdims=keepdims) ** (1.0 / ord)


__all__ = ["cholesky", "cross", "det", "diagonal", "eigh", "eigvalsh", "inv", "matmul", "matrix_norm",
           "matrix_power", "matrix_rank", "matrix_transpose", "outer", "pinv", "qr", "slogdet", "solve",
           "svd", "svdvals", "tensordot", "trace", "vecdot", "vector_norm"]
