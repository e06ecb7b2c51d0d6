"""Classic kernels written as people write them in NumPy (loops over rows, slices, in-place
updates), each with a hand-written `jax.numpy` port of the same algorithm for `jax.jit`.

`CASES` lists (name, NumPy function, JAX port, make arguments, static argument names).
"""

import numpy as np


def jacobi_2d(A, B, steps):
    """PolyBench's Jacobi 2-D: two half-steps per time step, in place."""
    for _ in range(steps):
        B[1:-1, 1:-1] = 0.2 * (A[1:-1, 1:-1] + A[1:-1, :-2] + A[1:-1, 2:] + A[2:, 1:-1] + A[:-2, 1:-1])
        A[1:-1, 1:-1] = 0.2 * (B[1:-1, 1:-1] + B[1:-1, :-2] + B[1:-1, 2:] + B[2:, 1:-1] + B[:-2, 1:-1])


def gray_scott(U, V, steps, Du=0.16, Dv=0.08, F=0.035, k=0.065):
    """Gray-Scott reaction-diffusion, the five-point Laplacian by slices."""
    for _ in range(steps):
        u, v = U[1:-1, 1:-1], V[1:-1, 1:-1]
        Lu = U[:-2, 1:-1] + U[2:, 1:-1] + U[1:-1, :-2] + U[1:-1, 2:] - 4 * u
        Lv = V[:-2, 1:-1] + V[2:, 1:-1] + V[1:-1, :-2] + V[1:-1, 2:] - 4 * v
        uvv = u * v * v
        u += Du * Lu - uvv + F * (1 - u)
        v += Dv * Lv + uvv - (F + k) * v


def convolve_loops(image, kernel):
    """A direct 2-D convolution ("valid") with two loops over output pixels."""
    k = kernel.shape[0]
    out = np.zeros((image.shape[0] - k + 1, image.shape[1] - k + 1))
    for i in range(out.shape[0]):
        for j in range(out.shape[1]):
            out[i, j] = np.sum(image[i:i + k, j:j + k] * kernel)
    return out


def conv_layer(x, w, b):
    """A small CNN layer by loops: channels in and out, 3x3 windows, bias and ReLU."""
    c_out, c_in, k, _ = w.shape
    h, width = x.shape[1] - k + 1, x.shape[2] - k + 1
    out = np.zeros((c_out, h, width))
    for o in range(c_out):
        for c in range(c_in):
            for di in range(k):
                for dj in range(k):
                    out[o] += w[o, c, di, dj] * x[c, di:di + h, dj:dj + width]
        out[o] += b[o]
    return np.maximum(out, 0)


def lu(A):
    """Doolittle LU in place, the row-by-row form with growing slices."""
    n = A.shape[0]
    for i in range(n):
        for j in range(i):
            A[i, j] = (A[i, j] - A[i, :j] @ A[:j, j]) / A[j, j]
        for j in range(i, n):
            A[i, j] -= A[i, :i] @ A[:i, j]
    return A


def life(board, generations):
    """Conway's Game of Life in pure Python loops over an 8x8 board (with a wrap-around edge)."""
    n = board.shape[0]
    for _ in range(generations):
        new = board.copy()
        for i in range(n):
            for j in range(n):
                alive = 0
                for di in (-1, 0, 1):
                    for dj in (-1, 0, 1):
                        if di or dj:
                            alive += board[(i + di) % n, (j + dj) % n]
                if board[i, j] == 1 and (alive < 2 or alive > 3):
                    new[i, j] = 0
                elif board[i, j] == 0 and alive == 3:
                    new[i, j] = 1
        board[:] = new
    return board


def heat_steps(u, steps):
    """The examples' heat equation: the whole time loop in one call."""
    for _ in range(steps):
        u[1:-1, 1:-1] += 0.2 * (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2] - 4 * u[1:-1, 1:-1])
    return u


def nbody_step(pos, vel, mass, dt):
    """One leapfrog step of an all-pairs gravity simulation."""
    diff = pos[None, :, :] - pos[:, None, :]
    dist3 = (np.sum(diff * diff, axis=-1) + 0.01) ** 1.5
    acc = np.sum(diff * (mass[None, :, None] / dist3[:, :, None]), axis=1)
    vel += dt * acc
    pos += dt * vel
    return pos, vel


# -- hand-written jax.numpy ports (lax loops, functional updates) -------------------------------

def jax_ports():
    import jax
    import jax.numpy as jnp
    from jax import lax

    def jacobi(A, B, steps):
        def body(_, c):
            A, B = c
            B = B.at[1:-1, 1:-1].set(0.2 * (A[1:-1, 1:-1] + A[1:-1, :-2] + A[1:-1, 2:] + A[2:, 1:-1] + A[:-2, 1:-1]))
            A = A.at[1:-1, 1:-1].set(0.2 * (B[1:-1, 1:-1] + B[1:-1, :-2] + B[1:-1, 2:] + B[2:, 1:-1] + B[:-2, 1:-1]))
            return A, B
        return lax.fori_loop(0, steps, body, (A, B))

    def gray(U, V, steps, Du=0.16, Dv=0.08, F=0.035, k=0.065):
        def body(_, c):
            U, V = c
            u, v = U[1:-1, 1:-1], V[1:-1, 1:-1]
            Lu = U[:-2, 1:-1] + U[2:, 1:-1] + U[1:-1, :-2] + U[1:-1, 2:] - 4 * u
            Lv = V[:-2, 1:-1] + V[2:, 1:-1] + V[1:-1, :-2] + V[1:-1, 2:] - 4 * v
            uvv = u * v * v
            U = U.at[1:-1, 1:-1].add(Du * Lu - uvv + F * (1 - u))
            V = V.at[1:-1, 1:-1].add(Dv * Lv + uvv - (F + k) * v)
            return U, V
        return lax.fori_loop(0, steps, body, (U, V))

    def convolve(image, kernel):
        k = kernel.shape[0]
        h, w = image.shape[0] - k + 1, image.shape[1] - k + 1

        def pixel(i, j):
            return jnp.sum(lax.dynamic_slice(image, (i, j), (k, k)) * kernel)
        return jax.vmap(lambda i: jax.vmap(lambda j: pixel(i, j))(jnp.arange(w)))(jnp.arange(h))

    def layer(x, w, b):
        c_out, c_in, k, _ = w.shape
        h, width = x.shape[1] - k + 1, x.shape[2] - k + 1
        out = jnp.zeros((c_out, h, width))
        for di in range(k):
            for dj in range(k):
                out = out + jnp.einsum("oc,chw->ohw", w[:, :, di, dj], x[:, di:di + h, dj:dj + width])
        return jnp.maximum(out + b[:, None, None], 0)

    def lu_port(A):
        n = A.shape[0]
        cols = jnp.arange(n)

        def row(i, A):
            def lower(j, A):
                dot = jnp.sum(jnp.where(cols < j, A[i] * A[:, j], 0.0))
                return A.at[i, j].set(jnp.where(j < i, (A[i, j] - dot) / A[j, j], A[i, j]))

            def upper(j, A):
                dot = jnp.sum(jnp.where(cols < i, A[i] * A[:, j], 0.0))
                return A.at[i, j].set(jnp.where(j >= i, A[i, j] - dot, A[i, j]))
            A = lax.fori_loop(0, n, lower, A)
            return lax.fori_loop(0, n, upper, A)
        return lax.fori_loop(0, n, row, A)

    def life_port(board, generations):
        def body(_, board):
            alive = sum(jnp.roll(jnp.roll(board, di, 0), dj, 1) for di in (-1, 0, 1) for dj in (-1, 0, 1)
                        if di or dj)
            return jnp.where((board == 1) & ((alive < 2) | (alive > 3)), 0,
                             jnp.where((board == 0) & (alive == 3), 1, board))
        return lax.fori_loop(0, generations, body, board)

    def heat(u, steps):
        def body(_, u):
            return u.at[1:-1, 1:-1].add(0.2 * (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2]
                                               - 4 * u[1:-1, 1:-1]))
        return lax.fori_loop(0, steps, body, u)

    def nbody(pos, vel, mass, dt):
        diff = pos[None, :, :] - pos[:, None, :]
        dist3 = (jnp.sum(diff * diff, axis=-1) + 0.01) ** 1.5
        acc = jnp.sum(diff * (mass[None, :, None] / dist3[:, :, None]), axis=1)
        vel = vel + dt * acc
        return pos + dt * vel, vel

    return {"jacobi_2d": jacobi, "gray_scott": gray, "convolve_loops": convolve, "conv_layer": layer, "lu": lu_port,
            "life": life_port, "heat_steps": heat, "nbody_step": nbody}


def _rng(seed=0):
    return np.random.default_rng(seed)


CASES = [
    ("jacobi_2d", jacobi_2d, lambda: (_rng().random((150, 150)), _rng(1).random((150, 150)), 50), ("steps",)),
    ("gray_scott", gray_scott, lambda: (np.ones((128, 128)), _rng().random((128, 128)) * 0.25, 20), ("steps",)),
    ("convolve_loops", convolve_loops, lambda: (_rng().random((32, 32)), _rng(1).random((5, 5))), ()),
    ("conv_layer", conv_layer, lambda: (_rng().random((4, 16, 16)), _rng(1).random((8, 4, 3, 3)),
                                        _rng(2).random(8)), ()),
    ("lu", lu, lambda: (_rng().random((40, 40)) + 40 * np.eye(40),), ()),
    ("life", life, lambda: ((_rng().random((8, 8)) < 0.4).astype(np.int64), 4), ("generations",)),
    ("heat_steps", heat_steps, lambda: (_rng().random((256, 256)), 100), ("steps",)),
    ("nbody_step", nbody_step, lambda: (_rng().random((256, 3)), np.zeros((256, 3)), _rng(1).random(256), 0.01),
     ("dt",)),
]
