"""PolyBench linear-algebra/blas kernels: gemm, gemver, gesummv, symm, syr2k, syrk, trmm."""

import jax.numpy as jnp
import numpy as np
from jax import lax

from .spec import Kernel


def gemm(alpha, beta, C, A, B):
    """C := alpha*A*B + beta*C, one row of C at a time."""
    for i in range(C.shape[0]):
        C[i, :] *= beta
        C[i, :] += alpha * (A[i, :] @ B)


def gemm_jax(alpha, beta, C, A, B):
    def row(i, C):
        return C.at[i, :].set(beta * C[i, :] + alpha * (A[i, :] @ B))
    return (lax.fori_loop(0, C.shape[0], row, C),)


def gemm_init(ni, nj, nk):
    i, j = np.ogrid[:ni, :nj]
    C = ((i * j + 1) % ni) / ni
    i, k = np.ogrid[:ni, :nk]
    A = (i * (k + 1) % nk) / nk
    k, j = np.ogrid[:nk, :nj]
    B = (k * (j + 2) % nj) / nj
    return 1.5, 1.2, C, A, B


def gemver(alpha, beta, A, u1, v1, u2, v2, w, x, y, z):
    """A += u1*v1' + u2*v2'; x += beta*A'*y + z; w += alpha*A*x."""
    n = A.shape[0]
    for i in range(n):
        A[i, :] += u1[i] * v1 + u2[i] * v2
    for i in range(n):
        x[i] += beta * (A[:, i] @ y)
    x += z
    for i in range(n):
        w[i] += alpha * (A[i, :] @ x)


def gemver_jax(alpha, beta, A, u1, v1, u2, v2, w, x, y, z):
    n = A.shape[0]

    def update(i, A):
        return A.at[i, :].add(u1[i] * v1 + u2[i] * v2)
    A = lax.fori_loop(0, n, update, A)

    def xrow(i, x):
        return x.at[i].add(beta * (A[:, i] @ y))
    x = lax.fori_loop(0, n, xrow, x) + z

    def wrow(i, w):
        return w.at[i].add(alpha * (A[i, :] @ x))
    return A, lax.fori_loop(0, n, wrow, w), x


def gemver_init(n):
    fn = float(n)
    i = np.arange(n)
    u1 = i.astype(np.float64)
    u2 = ((i + 1) / fn) / 2.0
    v1 = ((i + 1) / fn) / 4.0
    v2 = ((i + 1) / fn) / 6.0
    y = ((i + 1) / fn) / 8.0
    z = ((i + 1) / fn) / 9.0
    x = np.zeros(n)
    w = np.zeros(n)
    i, j = np.ogrid[:n, :n]
    A = (i * j % n) / n
    return 1.5, 1.2, A, u1, v1, u2, v2, w, x, y, z


def gesummv(alpha, beta, A, B, tmp, x, y):
    """y := alpha*A*x + beta*B*x, one row at a time."""
    for i in range(A.shape[0]):
        tmp[i] = A[i, :] @ x
        y[i] = B[i, :] @ x
        y[i] = alpha * tmp[i] + beta * y[i]


def gesummv_jax(alpha, beta, A, B, tmp, x, y):
    def row(i, carry):
        tmp, y = carry
        t = A[i, :] @ x
        return tmp.at[i].set(t), y.at[i].set(alpha * t + beta * (B[i, :] @ x))
    return lax.fori_loop(0, A.shape[0], row, (tmp, y))


def gesummv_init(n):
    i, j = np.ogrid[:n, :n]
    A = ((i * j + 1) % n) / n
    B = ((i * j + 2) % n) / n
    x = (np.arange(n) % n) / n
    return 1.5, 1.2, A, B, np.zeros(n), x, np.zeros(n)


def symm(alpha, beta, C, A, B):
    """C := alpha*A*B + beta*C with A symmetric, stored in its lower triangle."""
    for i in range(C.shape[0]):
        C[:i, :] += alpha * np.outer(A[i, :i], B[i, :])
        temp2 = A[i, :i] @ B[:i, :]
        C[i, :] = beta * C[i, :] + alpha * B[i, :] * A[i, i] + alpha * temp2


def symm_jax(alpha, beta, C, A, B):
    m = C.shape[0]
    ks = jnp.arange(m)

    def row(i, C):
        a = jnp.where(ks < i, A[i, :], 0.0)
        C = C + alpha * jnp.outer(a, B[i, :])
        return C.at[i, :].set(beta * C[i, :] + alpha * B[i, :] * A[i, i] + alpha * (a @ B))
    return (lax.fori_loop(0, m, row, C),)


def symm_init(m, n):
    i, j = np.ogrid[:m, :n]
    C = ((i + j) % 100) / m
    B = ((n + i - j) % 100) / m
    i, j = np.ogrid[:m, :m]
    A = np.where(j <= i, ((i + j) % 100) / m, -999.0)
    return 1.5, 1.2, C, A, B


def syr2k(alpha, beta, C, A, B):
    """C := alpha*A*B' + alpha*B*A' + beta*C on the lower triangle of C."""
    for i in range(C.shape[0]):
        C[i, :i + 1] *= beta
        C[i, :i + 1] += alpha * (A[:i + 1, :] @ B[i, :]) + alpha * (B[:i + 1, :] @ A[i, :])


def syr2k_jax(alpha, beta, C, A, B):
    n = C.shape[0]
    js = jnp.arange(n)

    def row(i, C):
        new = beta * C[i, :] + alpha * (A @ B[i, :]) + alpha * (B @ A[i, :])
        return C.at[i, :].set(jnp.where(js <= i, new, C[i, :]))
    return (lax.fori_loop(0, n, row, C),)


def syr2k_init(n, m):
    i, j = np.ogrid[:n, :m]
    A = ((i * j + 1) % n) / n
    B = ((i * j + 2) % m) / m
    i, j = np.ogrid[:n, :n]
    C = ((i * j + 3) % n) / m
    return 1.5, 1.2, C, A, B


def syrk(alpha, beta, C, A):
    """C := alpha*A*A' + beta*C on the lower triangle of C."""
    for i in range(C.shape[0]):
        C[i, :i + 1] *= beta
        C[i, :i + 1] += alpha * (A[:i + 1, :] @ A[i, :])


def syrk_jax(alpha, beta, C, A):
    n = C.shape[0]
    js = jnp.arange(n)

    def row(i, C):
        new = beta * C[i, :] + alpha * (A @ A[i, :])
        return C.at[i, :].set(jnp.where(js <= i, new, C[i, :]))
    return (lax.fori_loop(0, n, row, C),)


def syrk_init(n, m):
    i, j = np.ogrid[:n, :m]
    A = ((i * j + 1) % n) / n
    i, j = np.ogrid[:n, :n]
    C = ((i * j + 2) % m) / m
    return 1.5, 1.2, C, A


def trmm(alpha, A, B):
    """B := alpha*A'*B with A unit lower triangular."""
    m = B.shape[0]
    for i in range(m):
        B[i, :] += A[i + 1:, i] @ B[i + 1:, :]
        B[i, :] *= alpha


def trmm_jax(alpha, A, B):
    m = B.shape[0]
    ks = jnp.arange(m)

    def row(i, B):
        a = jnp.where(ks > i, A[:, i], 0.0)
        return B.at[i, :].set(alpha * (B[i, :] + a @ B))
    return (lax.fori_loop(0, m, row, B),)


def trmm_init(m, n):
    i, j = np.ogrid[:m, :m]
    A = np.where(j < i, ((i + j) % m) / m, 0.0)
    A[np.arange(m), np.arange(m)] = 1.0
    i, j = np.ogrid[:m, :n]
    B = ((n + (i - j)) % n) / n
    return 1.5, A, B


_MN = {"mini": dict(m=20, n=30), "small": dict(m=60, n=80), "medium": dict(m=200, n=240)}

KERNELS = [
    Kernel("gemm", gemm, gemm_jax, gemm_init, outputs=(2,),
           sizes={"mini": dict(ni=20, nj=25, nk=30), "small": dict(ni=60, nj=70, nk=80),
                  "medium": dict(ni=200, nj=220, nk=240)}),
    Kernel("gemver", gemver, gemver_jax, gemver_init, outputs=(2, 7, 8),
           sizes={"mini": dict(n=40), "small": dict(n=120), "medium": dict(n=400)}),
    Kernel("gesummv", gesummv, gesummv_jax, gesummv_init, outputs=(4, 6),
           sizes={"mini": dict(n=30), "small": dict(n=90), "medium": dict(n=250)}),
    Kernel("symm", symm, symm_jax, symm_init, outputs=(2,),
           sizes=_MN),
    Kernel("syr2k", syr2k, syr2k_jax, syr2k_init, outputs=(2,),
           sizes=_MN),
    Kernel("syrk", syrk, syrk_jax, syrk_init, outputs=(2,),
           sizes=_MN),
    Kernel("trmm", trmm, trmm_jax, trmm_init, outputs=(2,),
           sizes=_MN),
]
