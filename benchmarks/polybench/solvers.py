"""PolyBench linear-algebra/solvers kernels: cholesky, durbin, gramschmidt, lu, ludcmp, trisolv."""

import jax.numpy as jnp
import numpy as np
from jax import lax

from .spec import Kernel

_N = {"mini": dict(n=40), "small": dict(n=120), "medium": dict(n=400)}


def _psd(n):
    """The lower-triangular start of cholesky/lu/ludcmp, made positive semi-definite as B*B^T."""
    i, j = np.ogrid[:n, :n]
    L = np.where(j <= i, np.fmod(-j, n) / n + 1, 0.0)  # C's %: -j % n is -j
    np.fill_diagonal(L, 1.0)
    return L @ L.T


def cholesky(A):
    """Cholesky factor A = L*L^T in place (lower triangle), row by row."""
    n = A.shape[0]
    for i in range(n):
        for j in range(i):
            A[i, j] -= A[i, :j] @ A[j, :j]
            A[i, j] /= A[j, j]
        A[i, i] -= A[i, :i] @ A[i, :i]
        A[i, i] = np.sqrt(A[i, i])


def cholesky_jax(A):
    n = A.shape[0]
    cols = jnp.arange(n)

    def row(i, A):
        def lower(j, A):
            dot = jnp.sum(jnp.where(cols < j, A[i] * A[j], 0.0))
            return A.at[i, j].set((A[i, j] - dot) / A[j, j])
        A = lax.fori_loop(0, i, lower, A)
        dot = jnp.sum(jnp.where(cols < i, A[i] * A[i], 0.0))
        return A.at[i, i].set(jnp.sqrt(A[i, i] - dot))
    return (lax.fori_loop(0, n, row, A),)


def cholesky_init(n):
    return (_psd(n),)


def durbin(r, y):
    """Levinson-Durbin recursion: solves the Yule-Walker equations for autocorrelations r into y."""
    n = r.shape[0]
    y[0] = -r[0]
    beta = 1.0
    alpha = -r[0]
    for k in range(1, n):
        beta = (1 - alpha * alpha) * beta
        alpha = -(r[k] + r[k - 1::-1] @ y[:k]) / beta
        y[:k] += alpha * y[k - 1::-1]
        y[k] = alpha


def durbin_jax(r, y):
    n = r.shape[0]
    idx = jnp.arange(n)

    def step(k, carry):
        y, alpha, beta = carry
        beta = (1 - alpha * alpha) * beta
        below = idx < k
        rev = jnp.clip(k - 1 - idx, 0, n - 1)  # i -> k-1-i
        alpha = -(r[k] + jnp.sum(jnp.where(below, r[rev] * y, 0.0))) / beta
        y = jnp.where(below, y + alpha * y[rev], y)
        return y.at[k].set(alpha), alpha, beta
    y = y.at[0].set(-r[0])
    y, _, _ = lax.fori_loop(1, n, step, (y, -r[0], jnp.ones((), r.dtype)))
    return (y,)


def durbin_init(n):
    return (n + 1 - np.arange(n, dtype=np.float64)), np.zeros(n)


def gramschmidt(A, R, Q):
    """Modified Gram-Schmidt QR of A (m x n): Q and R, A overwritten by the residuals (A made full rank
    and tall: PolyBench's is wider than tall, so past its rank Q is rounding noise in every engine)."""
    n = A.shape[1]
    for k in range(n):
        R[k, k] = np.sqrt(A[:, k] @ A[:, k])
        Q[:, k] = A[:, k] / R[k, k]
        R[k, k + 1:] = Q[:, k] @ A[:, k + 1:]
        A[:, k + 1:] -= np.outer(Q[:, k], R[k, k + 1:])


def gramschmidt_jax(A, R, Q):
    n = A.shape[1]
    cols = jnp.arange(n)

    def step(k, carry):
        A, R, Q = carry
        nrm = jnp.sqrt(A[:, k] @ A[:, k])
        R = R.at[k, k].set(nrm)
        q = A[:, k] / nrm
        Q = Q.at[:, k].set(q)
        after = cols > k
        R = R.at[k].set(jnp.where(after, q @ A, R[k]))
        A = jnp.where(after, A - jnp.outer(q, R[k]), A)
        return A, R, Q
    return lax.fori_loop(0, n, step, (A, R, Q))


def gramschmidt_init(m, n):
    i, j = np.ogrid[:m, :n]
    A = ((i * j) % m) / m * 100 + 10 + 100 * np.eye(m, n)  # PolyBench's A is rank-deficient: made full rank
    return A, np.zeros((n, n)), np.zeros((m, n))


def lu(A):
    """LU decomposition without pivoting in place (Doolittle, unit lower L), row by row."""
    n = A.shape[0]
    for i in range(n):
        for j in range(i):
            A[i, j] -= A[i, :j] @ A[:j, j]
            A[i, j] /= A[j, j]
        A[i, i:] -= A[i, :i] @ A[:i, i:]


def _lu_jax(A):
    n = A.shape[0]
    cols = jnp.arange(n)

    def row(i, A):
        def lower(j, A):
            dot = jnp.sum(jnp.where(cols < j, A[i] * A[:, j], 0.0))
            return A.at[i, j].set((A[i, j] - dot) / A[j, j])
        A = lax.fori_loop(0, i, lower, A)
        upper = A[i] - jnp.where(cols < i, A[i], 0.0) @ A
        return A.at[i].set(jnp.where(cols >= i, upper, A[i]))
    return lax.fori_loop(0, n, row, A)


def lu_jax(A):
    return (_lu_jax(A),)


def lu_init(n):
    return (_psd(n),)


def ludcmp(A, b, x, y):
    """LU decomposition of A in place, then forward (y) and back (x) substitution for A x = b."""
    n = A.shape[0]
    for i in range(n):
        for j in range(i):
            A[i, j] = (A[i, j] - A[i, :j] @ A[:j, j]) / A[j, j]
        A[i, i:] -= A[i, :i] @ A[:i, i:]
    for i in range(n):
        y[i] = b[i] - A[i, :i] @ y[:i]
    for i in range(n - 1, -1, -1):
        x[i] = (y[i] - A[i, i + 1:] @ x[i + 1:]) / A[i, i]


def ludcmp_jax(A, b, x, y):
    n = A.shape[0]
    cols = jnp.arange(n)
    A = _lu_jax(A)

    def forward(i, y):
        return y.at[i].set(b[i] - jnp.where(cols < i, A[i], 0.0) @ y)
    y = lax.fori_loop(0, n, forward, y)

    def backward(t, x):
        i = n - 1 - t
        return x.at[i].set((y[i] - jnp.where(cols > i, A[i], 0.0) @ x) / A[i, i])
    x = lax.fori_loop(0, n, backward, x)
    return A, x, y


def ludcmp_init(n):
    b = (np.arange(n) + 1) / n / 2.0 + 4
    return _psd(n), b, np.zeros(n), np.zeros(n)


def trisolv(L, x, b):
    """Forward substitution: solves the lower-triangular system L x = b."""
    for i in range(L.shape[0]):
        x[i] = (b[i] - L[i, :i] @ x[:i]) / L[i, i]


def trisolv_jax(L, x, b):
    n = L.shape[0]
    cols = jnp.arange(n)

    def row(i, x):
        return x.at[i].set((b[i] - jnp.where(cols < i, L[i], 0.0) @ x) / L[i, i])
    return (lax.fori_loop(0, n, row, x),)


def trisolv_init(n):
    i, j = np.ogrid[:n, :n]
    L = np.where(j <= i, (i + n - j + 1) * 2 / n, 0.0)
    return L, np.full(n, -999.0), np.arange(n, dtype=np.float64)


KERNELS = [
    Kernel("cholesky", cholesky, cholesky_jax, cholesky_init, sizes=_N, outputs=(0,)),
    # durbin's r and ludcmp's A (condition 1.4e5 at medium) amplify rounding: numba, jax and solvent
    # all differ from NumPy by up to 7e-9 and 4e-10 there.
    Kernel("durbin", durbin, durbin_jax, durbin_init, sizes=_N, outputs=(1,), rtol=1e-7),
    Kernel("gramschmidt", gramschmidt, gramschmidt_jax, gramschmidt_init, outputs=(0, 1, 2),
           sizes={"mini": dict(m=30, n=20), "small": dict(m=80, n=60), "medium": dict(m=240, n=200)}),
    Kernel("lu", lu, lu_jax, lu_init, sizes=_N, outputs=(0,)),
    Kernel("ludcmp", ludcmp, ludcmp_jax, ludcmp_init, sizes=_N, outputs=(0, 2, 3), rtol=1e-8),
    Kernel("trisolv", trisolv, trisolv_jax, trisolv_init, sizes=_N, outputs=(1,)),
]
