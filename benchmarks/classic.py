"""Classic kernels beyond PolyBench, written as people write them in NumPy (loops over rows,
slices, in-place updates), each with a hand-written `jax.numpy` port of the same algorithm:
reaction-diffusion, a convolution and a CNN layer by loops, a pure-Python Game of Life, the
examples' heat equation, a wave equation on three buffers that take turns, Gaussian elimination
with partial pivoting, a double pendulum by RK4 and an n-body step."""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from polybench.spec import Kernel


def gray_scott(U, V, steps, Du=0.16, Dv=0.08, F=0.035, k=0.065):
    """Gray-Scott reaction-diffusion, the five-point Laplacian by slices."""
    for _ in range(steps):
        u, v = U[1:-1, 1:-1], V[1:-1, 1:-1]
        Lu = U[:-2, 1:-1] + U[2:, 1:-1] + U[1:-1, :-2] + U[1:-1, 2:] - 4 * u
        Lv = V[:-2, 1:-1] + V[2:, 1:-1] + V[1:-1, :-2] + V[1:-1, 2:] - 4 * v
        uvv = u * v * v
        u += Du * Lu - uvv + F * (1 - u)
        v += Dv * Lv + uvv - (F + k) * v


def gray_scott_jax(U, V, steps, Du=0.16, Dv=0.08, F=0.035, k=0.065):
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


def convolve_loops(image, kernel):
    """A direct 2-D convolution ("valid") with two loops over output pixels."""
    k = kernel.shape[0]
    out = np.zeros((image.shape[0] - k + 1, image.shape[1] - k + 1))
    for i in range(out.shape[0]):
        for j in range(out.shape[1]):
            out[i, j] = np.sum(image[i:i + k, j:j + k] * kernel)
    return out


def convolve_loops_jax(image, kernel):
    k = kernel.shape[0]
    h, w = image.shape[0] - k + 1, image.shape[1] - k + 1

    def pixel(i, j):
        return jnp.sum(lax.dynamic_slice(image, (i, j), (k, k)) * kernel)
    return jax.vmap(lambda i: jax.vmap(lambda j: pixel(i, j))(jnp.arange(w)))(jnp.arange(h))


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


def conv_layer_jax(x, w, b):
    c_out, c_in, k, _ = w.shape
    h, width = x.shape[1] - k + 1, x.shape[2] - k + 1
    out = jnp.zeros((c_out, h, width))
    for di in range(k):
        for dj in range(k):
            out = out + jnp.einsum("oc,chw->ohw", w[:, :, di, dj], x[:, di:di + h, dj:dj + width])
    return jnp.maximum(out + b[:, None, None], 0)


def life(board, generations):
    """Conway's Game of Life in pure Python loops over the cells (with a wrap-around edge)."""
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


def life_jax(board, generations):
    def body(_, board):
        alive = sum(jnp.roll(jnp.roll(board, di, 0), dj, 1) for di in (-1, 0, 1) for dj in (-1, 0, 1)
                    if di or dj)
        return jnp.where((board == 1) & ((alive < 2) | (alive > 3)), 0,
                         jnp.where((board == 0) & (alive == 3), 1, board))
    return lax.fori_loop(0, generations, body, board)


def heat_steps(u, steps):
    """The examples' heat equation: the whole time loop in one call."""
    for _ in range(steps):
        u[1:-1, 1:-1] += 0.2 * (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2] - 4 * u[1:-1, 1:-1])
    return u


def heat_steps_jax(u, steps):
    def body(_, u):
        return u.at[1:-1, 1:-1].add(0.2 * (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2]
                                           - 4 * u[1:-1, 1:-1]))
    return lax.fori_loop(0, steps, body, u)


def wave_buffers(u_prev, u, u_next, steps):
    """The 2-D wave equation by leapfrog on three buffers that take turns."""
    for _ in range(steps):
        u_next[1:-1, 1:-1] = (2 * u[1:-1, 1:-1] - u_prev[1:-1, 1:-1]
                              + 0.25 * (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2] - 4 * u[1:-1, 1:-1]))
        u_prev, u, u_next = u, u_next, u_prev
    return u


def wave_buffers_jax(u_prev, u, u_next, steps):
    def body(_, c):
        u_prev, u, u_next = c
        u_next = u_next.at[1:-1, 1:-1].set(2 * u[1:-1, 1:-1] - u_prev[1:-1, 1:-1] + 0.25 * (
            u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2] - 4 * u[1:-1, 1:-1]))
        return u, u_next, u_prev
    names = lax.fori_loop(0, steps, body, (u_prev, u, u_next))
    return tuple(names[(k - steps) % 3] for k in range(3))  # each argument's array, wherever it ended


def gauss_pivot(A, b, x):
    """Gaussian elimination with partial pivoting, rows swapped by index arrays, then back substitution."""
    n = len(b)
    for k in range(n - 1):
        p = k + np.argmax(np.abs(A[k:, k]))
        A[[k, p]] = A[[p, k]]
        b[k], b[p] = b[p], b[k]
        for i in range(k + 1, n):
            f = A[i, k] / A[k, k]
            A[i, k:] -= f * A[k, k:]
            b[i] -= f * b[k]
    for i in range(n - 1, -1, -1):
        x[i] = (b[i] - A[i, i + 1:] @ x[i + 1:]) / A[i, i]


def gauss_pivot_jax(A, b, x):
    n = len(b)
    rows = jnp.arange(n)

    def eliminate(k, c):
        A, b = c
        p = jnp.argmax(jnp.where(rows >= k, jnp.abs(A[:, k]), -1.0))
        A, b = A.at[jnp.stack([k, p])].set(A[jnp.stack([p, k])]), b.at[jnp.stack([k, p])].set(b[jnp.stack([p, k])])
        f = jnp.where(rows > k, A[:, k] / A[k, k], 0.0)
        return A - jnp.outer(f, jnp.where(rows >= k, A[k], 0.0)), b - f * b[k]

    def substitute(j, x):
        i = n - 1 - j
        return x.at[i].set((b[i] - A[i] @ jnp.where(rows > i, x, 0.0)) / A[i, i])
    A, b = lax.fori_loop(0, n - 1, eliminate, (A, b))
    return A, b, lax.fori_loop(0, n, substitute, x)


def nbody_step(pos, vel, mass, dt):
    """One leapfrog step of an all-pairs gravity simulation."""
    diff = pos[None, :, :] - pos[:, None, :]
    dist3 = (np.sum(diff * diff, axis=-1) + 0.01) ** 1.5
    acc = np.sum(diff * (mass[None, :, None] / dist3[:, :, None]), axis=1)
    vel += dt * acc
    pos += dt * vel
    return pos, vel


def nbody_step_jax(pos, vel, mass, dt):
    diff = pos[None, :, :] - pos[:, None, :]
    dist3 = (jnp.sum(diff * diff, axis=-1) + 0.01) ** 1.5
    acc = jnp.sum(diff * (mass[None, :, None] / dist3[:, :, None]), axis=1)
    vel = vel + dt * acc
    return pos + dt * vel, vel


def _pendulum_rates(y, xp=np, g=9.81):
    """The double pendulum's rates (unit masses and lengths), for NumPy or jax.numpy as `xp`."""
    th1, w1, th2, w2 = y
    d = th2 - th1
    den = 2.0 - xp.cos(d) * xp.cos(d)
    dw1 = (w1 * w1 * xp.sin(d) * xp.cos(d) + g * xp.sin(th2) * xp.cos(d) + w2 * w2 * xp.sin(d)
           - 2.0 * g * xp.sin(th1)) / den
    dw2 = (-w2 * w2 * xp.sin(d) * xp.cos(d) + 2.0 * g * xp.sin(th1) * xp.cos(d) - 2.0 * w1 * w1 * xp.sin(d)
           - 2.0 * g * xp.sin(th2)) / den
    return xp.array([w1, dw1, w2, dw2])


def pendulum_rk4(y, dt, steps):
    """A double pendulum by RK4, each state kept: a loop of scalar arithmetic appending the state it goes on with."""
    out = []
    for _ in range(steps):
        k1 = _pendulum_rates(y)
        k2 = _pendulum_rates(y + 0.5 * dt * k1)
        k3 = _pendulum_rates(y + 0.5 * dt * k2)
        k4 = _pendulum_rates(y + dt * k3)
        y = y + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        out.append(y)
    return np.array(out)


def pendulum_rk4_jax(y, dt, steps):
    def step(y, _):
        k1 = _pendulum_rates(y, jnp)
        k2 = _pendulum_rates(y + 0.5 * dt * k1, jnp)
        k3 = _pendulum_rates(y + 0.5 * dt * k2, jnp)
        k4 = _pendulum_rates(y + dt * k3, jnp)
        y = y + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        return y, y
    return lax.scan(step, y, None, length=steps)[1]


def _bump(n):
    """A Gaussian bump off the middle of an n x n grid."""
    return np.exp(-((np.arange(n)[:, None] - n / 2) ** 2 + (np.arange(n) - n / 3) ** 2) / n)


def _random(*shape, seed=0):
    return np.random.default_rng(seed).random(shape)


KERNELS = [
    Kernel("gray_scott", gray_scott, gray_scott_jax, outputs=(0, 1), statics=("steps",),
           init=lambda n, steps: (np.ones((n, n)), _random(n, n) * 0.25, steps),
           sizes={"mini": dict(n=16, steps=3), "small": dict(n=128, steps=20), "medium": dict(n=256, steps=50)}),
    Kernel("convolve_loops", convolve_loops, convolve_loops_jax, outputs=None,
           init=lambda n, k: (_random(n, n), _random(k, k, seed=1)),
           sizes={"mini": dict(n=8, k=3), "small": dict(n=32, k=5), "medium": dict(n=64, k=5)}),
    Kernel("conv_layer", conv_layer, conv_layer_jax, outputs=None,
           init=lambda c_in, c_out, n: (_random(c_in, n, n), _random(c_out, c_in, 3, 3, seed=1),
                                        _random(c_out, seed=2)),
           sizes={"mini": dict(c_in=2, c_out=2, n=6), "small": dict(c_in=4, c_out=8, n=16),
                  "medium": dict(c_in=8, c_out=16, n=32)}),
    Kernel("life", life, life_jax, outputs=(0,), statics=("generations",),
           init=lambda n, generations: ((_random(n, n) < 0.4).astype(np.int64), generations),
           sizes={"mini": dict(n=5, generations=2), "small": dict(n=8, generations=4),
                  "medium": dict(n=16, generations=8)}),
    Kernel("heat_steps", heat_steps, heat_steps_jax, outputs=(0,), statics=("steps",),
           init=lambda n, steps: (_random(n, n), steps),
           sizes={"mini": dict(n=16, steps=3), "small": dict(n=256, steps=100), "medium": dict(n=512, steps=100)}),
    Kernel("wave_buffers", wave_buffers, wave_buffers_jax, outputs=(0, 1, 2), statics=("steps",),
           init=lambda n, steps: (_bump(n), _bump(n), np.zeros((n, n)), steps),
           sizes={"mini": dict(n=16, steps=20), "small": dict(n=256, steps=100), "medium": dict(n=512, steps=100)}),
    Kernel("gauss_pivot", gauss_pivot, gauss_pivot_jax, outputs=(0, 1, 2),
           init=lambda n: (_random(n, n), _random(n, seed=1), np.zeros(n)),
           sizes={"mini": dict(n=20), "small": dict(n=100), "medium": dict(n=200)}),
    Kernel("pendulum_rk4", pendulum_rk4, pendulum_rk4_jax, outputs=None, statics=("steps",),
           init=lambda steps: (np.array([2.0, 0.0, 1.0, 0.0]), 0.001, steps),
           sizes={"mini": dict(steps=3), "small": dict(steps=8), "medium": dict(steps=16)}),
    Kernel("nbody_step", nbody_step, nbody_step_jax, outputs=(0, 1),
           init=lambda n: (_random(n, 3), np.zeros((n, 3)), _random(n, seed=1), 0.01),
           sizes={"mini": dict(n=8), "small": dict(n=256), "medium": dict(n=1024)}),
]
