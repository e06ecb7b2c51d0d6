"""PolyBench stencils kernels: adi, fdtd-2d, heat-3d, jacobi-1d, jacobi-2d, seidel-2d."""

import numpy as np
from jax import lax

from .spec import Kernel


def adi(u, v, p, q, tsteps):
    """Alternating-direction implicit 2-D heat solver: tridiagonal sweeps along columns, then rows."""
    n = u.shape[0]
    DX = 1.0 / n
    DY = 1.0 / n
    DT = 1.0 / tsteps
    B1 = 2.0
    B2 = 1.0
    mul1 = B1 * DT / (DX * DX)
    mul2 = B2 * DT / (DY * DY)
    a = -mul1 / 2.0
    b = 1.0 + mul1
    c = a
    d = -mul2 / 2.0
    e = 1.0 + mul2
    f = d
    for t in range(1, tsteps + 1):
        # column sweep, every column i at once
        v[0, 1:-1] = 1.0
        p[1:-1, 0] = 0.0
        q[1:-1, 0] = v[0, 1:-1]
        for j in range(1, n - 1):
            p[1:-1, j] = -c / (a * p[1:-1, j - 1] + b)
            q[1:-1, j] = (-d * u[j, :-2] + (1.0 + 2.0 * d) * u[j, 1:-1] - f * u[j, 2:]
                          - a * q[1:-1, j - 1]) / (a * p[1:-1, j - 1] + b)
        v[n - 1, 1:-1] = 1.0
        for j in range(n - 2, 0, -1):
            v[j, 1:-1] = p[1:-1, j] * v[j + 1, 1:-1] + q[1:-1, j]
        # row sweep, every row i at once
        u[1:-1, 0] = 1.0
        p[1:-1, 0] = 0.0
        q[1:-1, 0] = u[1:-1, 0]
        for j in range(1, n - 1):
            p[1:-1, j] = -f / (d * p[1:-1, j - 1] + e)
            q[1:-1, j] = (-a * v[:-2, j] + (1.0 + 2.0 * a) * v[1:-1, j] - c * v[2:, j]
                          - d * q[1:-1, j - 1]) / (d * p[1:-1, j - 1] + e)
        u[1:-1, n - 1] = 1.0
        for j in range(n - 2, 0, -1):
            u[1:-1, j] = p[1:-1, j] * u[1:-1, j + 1] + q[1:-1, j]


def adi_jax(u, v, p, q, tsteps):
    n = u.shape[0]
    DX = 1.0 / n
    DY = 1.0 / n
    DT = 1.0 / tsteps
    mul1 = 2.0 * DT / (DX * DX)
    mul2 = 1.0 * DT / (DY * DY)
    a = -mul1 / 2.0
    b = 1.0 + mul1
    c = a
    d = -mul2 / 2.0
    e = 1.0 + mul2
    f = d

    def step(t, state):
        u, v, p, q = state
        v = v.at[0, 1:-1].set(1.0)
        p = p.at[1:-1, 0].set(0.0)
        q = q.at[1:-1, 0].set(v[0, 1:-1])

        def forward_v(j, pq):
            p, q = pq
            den = a * p[1:-1, j - 1] + b
            p = p.at[1:-1, j].set(-c / den)
            q = q.at[1:-1, j].set((-d * u[j, :-2] + (1.0 + 2.0 * d) * u[j, 1:-1] - f * u[j, 2:]
                                   - a * q[1:-1, j - 1]) / den)
            return p, q
        p, q = lax.fori_loop(1, n - 1, forward_v, (p, q))
        v = v.at[n - 1, 1:-1].set(1.0)

        def backward_v(s, v):
            j = n - 2 - s
            return v.at[j, 1:-1].set(p[1:-1, j] * v[j + 1, 1:-1] + q[1:-1, j])
        v = lax.fori_loop(0, n - 2, backward_v, v)

        u = u.at[1:-1, 0].set(1.0)
        p = p.at[1:-1, 0].set(0.0)
        q = q.at[1:-1, 0].set(u[1:-1, 0])

        def forward_u(j, pq):
            p, q = pq
            den = d * p[1:-1, j - 1] + e
            p = p.at[1:-1, j].set(-f / den)
            q = q.at[1:-1, j].set((-a * v[:-2, j] + (1.0 + 2.0 * a) * v[1:-1, j] - c * v[2:, j]
                                   - d * q[1:-1, j - 1]) / den)
            return p, q
        p, q = lax.fori_loop(1, n - 1, forward_u, (p, q))
        u = u.at[1:-1, n - 1].set(1.0)

        def backward_u(s, u):
            j = n - 2 - s
            return u.at[1:-1, j].set(p[1:-1, j] * u[1:-1, j + 1] + q[1:-1, j])
        u = lax.fori_loop(0, n - 2, backward_u, u)
        return u, v, p, q
    return lax.fori_loop(1, tsteps + 1, step, (u, v, p, q))


def adi_init(tsteps, n):
    i, j = np.ogrid[:n, :n]
    u = (i + n - j) / n
    return u, np.zeros((n, n)), np.zeros((n, n)), np.zeros((n, n)), tsteps


def fdtd_2d(ex, ey, hz, fict, tmax):
    """2-D finite-difference time-domain Maxwell solver (TE mode), a source row driven by fict."""
    for t in range(tmax):
        ey[0, :] = fict[t]
        ey[1:, :] -= 0.5 * (hz[1:, :] - hz[:-1, :])
        ex[:, 1:] -= 0.5 * (hz[:, 1:] - hz[:, :-1])
        hz[:-1, :-1] -= 0.7 * (ex[:-1, 1:] - ex[:-1, :-1] + ey[1:, :-1] - ey[:-1, :-1])


def fdtd_2d_jax(ex, ey, hz, fict, tmax):
    def step(t, fields):
        ex, ey, hz = fields
        ey = ey.at[0, :].set(fict[t])
        ey = ey.at[1:, :].set(ey[1:, :] - 0.5 * (hz[1:, :] - hz[:-1, :]))
        ex = ex.at[:, 1:].set(ex[:, 1:] - 0.5 * (hz[:, 1:] - hz[:, :-1]))
        hz = hz.at[:-1, :-1].set(hz[:-1, :-1] - 0.7 * (ex[:-1, 1:] - ex[:-1, :-1] + ey[1:, :-1] - ey[:-1, :-1]))
        return ex, ey, hz
    return lax.fori_loop(0, tmax, step, (ex, ey, hz))


def fdtd_2d_init(tmax, nx, ny):
    i, j = np.ogrid[:nx, :ny]
    ex = i * (j + 1) / nx
    ey = i * (j + 2) / ny
    hz = i * (j + 3) / nx
    return ex, ey, hz, np.arange(tmax, dtype=np.float64), tmax


def heat_3d(A, B, tsteps):
    """3-D heat equation, explicit seven-point stencil, A and B in turn."""
    for t in range(1, tsteps + 1):
        B[1:-1, 1:-1, 1:-1] = (0.125 * (A[2:, 1:-1, 1:-1] - 2.0 * A[1:-1, 1:-1, 1:-1] + A[:-2, 1:-1, 1:-1])
                               + 0.125 * (A[1:-1, 2:, 1:-1] - 2.0 * A[1:-1, 1:-1, 1:-1] + A[1:-1, :-2, 1:-1])
                               + 0.125 * (A[1:-1, 1:-1, 2:] - 2.0 * A[1:-1, 1:-1, 1:-1] + A[1:-1, 1:-1, :-2])
                               + A[1:-1, 1:-1, 1:-1])
        A[1:-1, 1:-1, 1:-1] = (0.125 * (B[2:, 1:-1, 1:-1] - 2.0 * B[1:-1, 1:-1, 1:-1] + B[:-2, 1:-1, 1:-1])
                               + 0.125 * (B[1:-1, 2:, 1:-1] - 2.0 * B[1:-1, 1:-1, 1:-1] + B[1:-1, :-2, 1:-1])
                               + 0.125 * (B[1:-1, 1:-1, 2:] - 2.0 * B[1:-1, 1:-1, 1:-1] + B[1:-1, 1:-1, :-2])
                               + B[1:-1, 1:-1, 1:-1])


def heat_3d_jax(A, B, tsteps):
    def stencil(X):
        c = X[1:-1, 1:-1, 1:-1]
        return (0.125 * (X[2:, 1:-1, 1:-1] - 2.0 * c + X[:-2, 1:-1, 1:-1])
                + 0.125 * (X[1:-1, 2:, 1:-1] - 2.0 * c + X[1:-1, :-2, 1:-1])
                + 0.125 * (X[1:-1, 1:-1, 2:] - 2.0 * c + X[1:-1, 1:-1, :-2])
                + c)

    def step(t, AB):
        A, B = AB
        B = B.at[1:-1, 1:-1, 1:-1].set(stencil(A))
        return A.at[1:-1, 1:-1, 1:-1].set(stencil(B)), B
    return lax.fori_loop(1, tsteps + 1, step, (A, B))


def heat_3d_init(tsteps, n):
    i, j, k = np.ogrid[:n, :n, :n]
    A = (i + j + (n - k)) * 10 / n + np.zeros((n, n, n))
    return A, A.copy(), tsteps


def jacobi_1d(A, B, tsteps):
    """1-D Jacobi three-point averaging, A and B in turn."""
    for t in range(tsteps):
        B[1:-1] = 0.33333 * (A[:-2] + A[1:-1] + A[2:])
        A[1:-1] = 0.33333 * (B[:-2] + B[1:-1] + B[2:])


def jacobi_1d_jax(A, B, tsteps):
    def step(t, AB):
        A, B = AB
        B = B.at[1:-1].set(0.33333 * (A[:-2] + A[1:-1] + A[2:]))
        return A.at[1:-1].set(0.33333 * (B[:-2] + B[1:-1] + B[2:])), B
    return lax.fori_loop(0, tsteps, step, (A, B))


def jacobi_1d_init(tsteps, n):
    i = np.arange(n, dtype=np.float64)
    return (i + 2) / n, (i + 3) / n, tsteps


def jacobi_2d(A, B, tsteps):
    """2-D Jacobi five-point averaging, A and B in turn."""
    for t in range(tsteps):
        B[1:-1, 1:-1] = 0.2 * (A[1:-1, 1:-1] + A[1:-1, :-2] + A[1:-1, 2:] + A[2:, 1:-1] + A[:-2, 1:-1])
        A[1:-1, 1:-1] = 0.2 * (B[1:-1, 1:-1] + B[1:-1, :-2] + B[1:-1, 2:] + B[2:, 1:-1] + B[:-2, 1:-1])


def jacobi_2d_jax(A, B, tsteps):
    def step(t, AB):
        A, B = AB
        B = B.at[1:-1, 1:-1].set(0.2 * (A[1:-1, 1:-1] + A[1:-1, :-2] + A[1:-1, 2:] + A[2:, 1:-1] + A[:-2, 1:-1]))
        return A.at[1:-1, 1:-1].set(0.2 * (B[1:-1, 1:-1] + B[1:-1, :-2] + B[1:-1, 2:] + B[2:, 1:-1]
                                           + B[:-2, 1:-1])), B
    return lax.fori_loop(0, tsteps, step, (A, B))


def jacobi_2d_init(tsteps, n):
    i, j = np.ogrid[:n, :n]
    return (i * (j + 2) + 2) / n, (i * (j + 3) + 3) / n, tsteps


def seidel_2d(A, tsteps):
    """2-D Gauss-Seidel nine-point averaging in place, point by point (each uses its updated neighbours).

    "medium" is tsteps=50, n=180 (PolyBench's MEDIUM, 100 and 400, takes NumPy about 17 s)."""
    n = A.shape[0]
    for t in range(tsteps):
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                A[i, j] = (A[i - 1, j - 1] + A[i - 1, j] + A[i - 1, j + 1]
                           + A[i, j - 1] + A[i, j] + A[i, j + 1]
                           + A[i + 1, j - 1] + A[i + 1, j] + A[i + 1, j + 1]) / 9.0


def seidel_2d_jax(A, tsteps):
    n = A.shape[0]

    def point(i, j, A):
        w = lax.dynamic_slice(A, (i - 1, j - 1), (3, 3))
        return A.at[i, j].set((w[0, 0] + w[0, 1] + w[0, 2] + w[1, 0] + w[1, 1] + w[1, 2]
                               + w[2, 0] + w[2, 1] + w[2, 2]) / 9.0)

    def row(i, A):
        return lax.fori_loop(1, n - 1, lambda j, A: point(i, j, A), A)

    def step(t, A):
        return lax.fori_loop(1, n - 1, row, A)
    return (lax.fori_loop(0, tsteps, step, A),)


def seidel_2d_init(tsteps, n):
    i, j = np.ogrid[:n, :n]
    return (i * (j + 2) + 2) / n, tsteps


_STEPS = ("tsteps",)

KERNELS = [
    Kernel("adi", adi, adi_jax, adi_init, outputs=(0, 1, 2, 3), statics=_STEPS,
           sizes={"mini": dict(tsteps=20, n=20), "small": dict(tsteps=40, n=60),
                  "medium": dict(tsteps=100, n=200)}),
    Kernel("fdtd-2d", fdtd_2d, fdtd_2d_jax, fdtd_2d_init, outputs=(0, 1, 2), statics=("tmax",),
           sizes={"mini": dict(tmax=20, nx=20, ny=30), "small": dict(tmax=40, nx=60, ny=80),
                  "medium": dict(tmax=100, nx=200, ny=240)}),
    Kernel("heat-3d", heat_3d, heat_3d_jax, heat_3d_init, outputs=(0, 1), statics=_STEPS,
           sizes={"mini": dict(tsteps=20, n=10), "small": dict(tsteps=40, n=20),
                  "medium": dict(tsteps=100, n=40)}),
    Kernel("jacobi-1d", jacobi_1d, jacobi_1d_jax, jacobi_1d_init, outputs=(0, 1), statics=_STEPS,
           sizes={"mini": dict(tsteps=20, n=30), "small": dict(tsteps=40, n=120),
                  "medium": dict(tsteps=100, n=400)}),
    Kernel("jacobi-2d", jacobi_2d, jacobi_2d_jax, jacobi_2d_init, outputs=(0, 1), statics=_STEPS,
           sizes={"mini": dict(tsteps=20, n=30), "small": dict(tsteps=40, n=90),
                  "medium": dict(tsteps=100, n=250)}),
    Kernel("seidel-2d", seidel_2d, seidel_2d_jax, seidel_2d_init, outputs=(0,), statics=_STEPS,
           sizes={"mini": dict(tsteps=20, n=40), "small": dict(tsteps=40, n=120),
                  "medium": dict(tsteps=50, n=180)}),
]
