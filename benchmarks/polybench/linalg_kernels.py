"""PolyBench linear-algebra/kernels: 2mm, 3mm, atax, bicg, doitgen, mvt."""

import jax.numpy as jnp
import numpy as np
from jax import lax

from .spec import Kernel


def two_mm(alpha, beta, tmp, A, B, C, D):
    """2mm: D := alpha*A*B*C + beta*D, through tmp = alpha*A*B, one row at a time."""
    for i in range(tmp.shape[0]):
        tmp[i, :] = alpha * (A[i, :] @ B)
    for i in range(D.shape[0]):
        D[i, :] *= beta
        D[i, :] += tmp[i, :] @ C


def two_mm_jax(alpha, beta, tmp, A, B, C, D):
    def tmp_row(i, tmp):
        return tmp.at[i, :].set(alpha * (A[i, :] @ B))
    tmp = lax.fori_loop(0, tmp.shape[0], tmp_row, tmp)

    def d_row(i, D):
        return D.at[i, :].set(beta * D[i, :] + tmp[i, :] @ C)
    return tmp, lax.fori_loop(0, D.shape[0], d_row, D)


def two_mm_init(ni, nj, nk, nl):
    i, k = np.ogrid[:ni, :nk]
    A = ((i * k + 1) % ni) / ni
    k, j = np.ogrid[:nk, :nj]
    B = (k * (j + 1) % nj) / nj
    j, l = np.ogrid[:nj, :nl]
    C = ((j * (l + 3) + 1) % nl) / nl
    i, l = np.ogrid[:ni, :nl]
    D = (i * (l + 2) % nk) / nk
    return 1.5, 1.2, np.zeros((ni, nj)), A, B, C, D


def three_mm(E, A, B, F, C, D, G):
    """3mm: G := (A*B)*(C*D), through E = A*B and F = C*D, one row at a time."""
    for i in range(E.shape[0]):
        E[i, :] = A[i, :] @ B
    for i in range(F.shape[0]):
        F[i, :] = C[i, :] @ D
    for i in range(G.shape[0]):
        G[i, :] = E[i, :] @ F


def three_mm_jax(E, A, B, F, C, D, G):
    def product(X, Y, Z):
        return lax.fori_loop(0, Z.shape[0], lambda i, Z: Z.at[i, :].set(X[i, :] @ Y), Z)
    E = product(A, B, E)
    F = product(C, D, F)
    return E, F, product(E, F, G)


def three_mm_init(ni, nj, nk, nl, nm):
    i, k = np.ogrid[:ni, :nk]
    A = ((i * k + 1) % ni) / (5 * ni)
    k, j = np.ogrid[:nk, :nj]
    B = ((k * (j + 1) + 2) % nj) / (5 * nj)
    j, m = np.ogrid[:nj, :nm]
    C = (j * (m + 3) % nl) / (5 * nl)
    m, l = np.ogrid[:nm, :nl]
    D = ((m * (l + 2) + 2) % nk) / (5 * nk)
    return np.zeros((ni, nj)), A, B, np.zeros((nj, nl)), C, D, np.zeros((ni, nl))


def atax(A, x, y, tmp):
    """y := A'*(A*x), one row of A at a time."""
    y[:] = 0.0
    for i in range(A.shape[0]):
        tmp[i] = A[i, :] @ x
        y += A[i, :] * tmp[i]


def atax_jax(A, x, y, tmp):
    def row(i, carry):
        y, tmp = carry
        t = A[i, :] @ x
        return y + A[i, :] * t, tmp.at[i].set(t)
    return lax.fori_loop(0, A.shape[0], row, (jnp.zeros_like(y), tmp))


def atax_init(m, n):
    x = 1 + np.arange(n) / float(n)
    i, j = np.ogrid[:m, :n]
    A = ((i + j) % n) / (5 * m)
    return A, x, np.zeros(n), np.zeros(m)


def bicg(A, s, q, p, r):
    """BiCG sub-kernel: s := A'*r and q := A*p, one row of A at a time."""
    s[:] = 0.0
    for i in range(A.shape[0]):
        s += r[i] * A[i, :]
        q[i] = A[i, :] @ p


def bicg_jax(A, s, q, p, r):
    def row(i, carry):
        s, q = carry
        return s + r[i] * A[i, :], q.at[i].set(A[i, :] @ p)
    return lax.fori_loop(0, A.shape[0], row, (jnp.zeros_like(s), q))


def bicg_init(m, n):
    p = (np.arange(m) % m) / m
    r = (np.arange(n) % n) / n
    i, j = np.ogrid[:n, :m]
    A = (i * (j + 1) % n) / n
    return A, np.zeros(m), np.zeros(n), p, r


def doitgen(A, C4, sum_):
    """Multiresolution analysis kernel: each A[r, q, :] := A[r, q, :] @ C4, through sum_."""
    nr, nq, _ = A.shape
    for r in range(nr):
        for q in range(nq):
            sum_[:] = A[r, q, :] @ C4
            A[r, q, :] = sum_


def doitgen_jax(A, C4, sum_):
    nr, nq, _ = A.shape

    def step(rq, carry):
        A, _ = carry
        r, q = rq // nq, rq % nq
        s = A[r, q, :] @ C4
        return A.at[r, q, :].set(s), s
    return lax.fori_loop(0, nr * nq, step, (A, sum_))


def doitgen_init(nq, nr, **sizes):
    n = sizes["np"]  # PolyBench's name for this size, which would hide NumPy here
    r, q, p = np.ogrid[:nr, :nq, :n]
    A = ((r * q + p) % n) / n
    i, j = np.ogrid[:n, :n]
    C4 = (i * j % n) / n
    return A, C4, np.zeros(n)


def mvt(x1, x2, y_1, y_2, A):
    """x1 += A*y_1 and x2 += A'*y_2, one element at a time."""
    n = A.shape[0]
    for i in range(n):
        x1[i] += A[i, :] @ y_1
    for i in range(n):
        x2[i] += A[:, i] @ y_2


def mvt_jax(x1, x2, y_1, y_2, A):
    n = A.shape[0]
    x1 = lax.fori_loop(0, n, lambda i, x1: x1.at[i].add(A[i, :] @ y_1), x1)
    x2 = lax.fori_loop(0, n, lambda i, x2: x2.at[i].add(A[:, i] @ y_2), x2)
    return x1, x2


def mvt_init(n):
    i = np.arange(n)
    x1 = (i % n) / n
    x2 = ((i + 1) % n) / n
    y_1 = ((i + 3) % n) / n
    y_2 = ((i + 4) % n) / n
    i, j = np.ogrid[:n, :n]
    A = (i * j % n) / n
    return x1, x2, y_1, y_2, A


KERNELS = [
    Kernel("2mm", two_mm, two_mm_jax, two_mm_init, outputs=(2, 6),
           sizes={"mini": dict(ni=16, nj=18, nk=22, nl=24),
                  "small": dict(ni=40, nj=50, nk=70, nl=80),
                  "medium": dict(ni=180, nj=190, nk=210, nl=220)}),
    Kernel("3mm", three_mm, three_mm_jax, three_mm_init, outputs=(0, 3, 6),
           sizes={"mini": dict(ni=16, nj=18, nk=20, nl=22, nm=24),
                  "small": dict(ni=40, nj=50, nk=60, nl=70, nm=80),
                  "medium": dict(ni=180, nj=190, nk=200, nl=210, nm=220)}),
    Kernel("atax", atax, atax_jax, atax_init, outputs=(2, 3),
           sizes={"mini": dict(m=38, n=42), "small": dict(m=116, n=124),
                  "medium": dict(m=390, n=410)}),
    Kernel("bicg", bicg, bicg_jax, bicg_init, outputs=(1, 2),
           sizes={"mini": dict(m=38, n=42), "small": dict(m=116, n=124),
                  "medium": dict(m=390, n=410)}),
    Kernel("doitgen", doitgen, doitgen_jax, doitgen_init, outputs=(0, 2),
           sizes={"mini": dict(nq=8, nr=10, np=12), "small": dict(nq=20, nr=25, np=30),
                  "medium": dict(nq=40, nr=50, np=60)}),
    Kernel("mvt", mvt, mvt_jax, mvt_init, outputs=(0, 1),
           sizes={"mini": dict(n=40), "small": dict(n=120), "medium": dict(n=400)}),
]
