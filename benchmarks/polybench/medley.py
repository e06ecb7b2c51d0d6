"""PolyBench medley kernels: deriche, floyd-warshall, nussinov."""

import jax.numpy as jnp
import numpy as np
from jax import lax

from .spec import Kernel


def deriche(alpha, imgIn, imgOut, y1, y2):
    """Deriche edge detector: causal and anti-causal recursive filters along rows, then columns."""
    k = (1.0 - np.exp(-alpha)) * (1.0 - np.exp(-alpha)) / (1.0 + 2.0 * alpha * np.exp(-alpha) - np.exp(2.0 * alpha))
    a1 = a5 = k
    a2 = a6 = k * np.exp(-alpha) * (alpha - 1.0)
    a3 = a7 = k * np.exp(-alpha) * (alpha + 1.0)
    a4 = a8 = -k * np.exp(-2.0 * alpha)
    b1 = 2.0 ** -alpha
    b2 = -np.exp(-2.0 * alpha)
    c1 = c2 = 1.0
    w, h = imgIn.shape
    # along each row (j), all rows i at once
    xm1 = np.zeros(w)
    ym1 = np.zeros(w)
    ym2 = np.zeros(w)
    for j in range(h):
        y1[:, j] = a1 * imgIn[:, j] + a2 * xm1 + b1 * ym1 + b2 * ym2
        xm1 = imgIn[:, j]
        ym2 = ym1
        ym1 = y1[:, j]
    yp1 = np.zeros(w)
    yp2 = np.zeros(w)
    xp1 = np.zeros(w)
    xp2 = np.zeros(w)
    for j in range(h - 1, -1, -1):
        y2[:, j] = a3 * xp1 + a4 * xp2 + b1 * yp1 + b2 * yp2
        xp2 = xp1
        xp1 = imgIn[:, j]
        yp2 = yp1
        yp1 = y2[:, j]
    imgOut[:] = c1 * (y1 + y2)
    # along each column (i), all columns j at once
    tm1 = np.zeros(h)
    ym1 = np.zeros(h)
    ym2 = np.zeros(h)
    for i in range(w):
        y1[i, :] = a5 * imgOut[i, :] + a6 * tm1 + b1 * ym1 + b2 * ym2
        tm1 = imgOut[i, :]
        ym2 = ym1
        ym1 = y1[i, :]
    tp1 = np.zeros(h)
    tp2 = np.zeros(h)
    yp1 = np.zeros(h)
    yp2 = np.zeros(h)
    for i in range(w - 1, -1, -1):
        y2[i, :] = a7 * tp1 + a8 * tp2 + b1 * yp1 + b2 * yp2
        tp2 = tp1
        tp1 = imgOut[i, :]
        yp2 = yp1
        yp1 = y2[i, :]
    imgOut[:] = c2 * (y1 + y2)


def deriche_jax(alpha, imgIn, imgOut, y1, y2):
    k = (1.0 - jnp.exp(-alpha)) * (1.0 - jnp.exp(-alpha)) / (1.0 + 2.0 * alpha * jnp.exp(-alpha) - jnp.exp(2.0 * alpha))
    a1 = a5 = k
    a2 = a6 = k * jnp.exp(-alpha) * (alpha - 1.0)
    a3 = a7 = k * jnp.exp(-alpha) * (alpha + 1.0)
    a4 = a8 = -k * jnp.exp(-2.0 * alpha)
    b1 = 2.0 ** -alpha
    b2 = -jnp.exp(-2.0 * alpha)
    c1 = c2 = 1.0

    def causal(a, b, x):  # the recursion runs along axis 0 of x
        def step(carry, xj):
            xm1, ym1, ym2 = carry
            yj = a * xj + b * xm1 + b1 * ym1 + b2 * ym2
            return (xj, yj, ym1), yj
        zero = jnp.zeros_like(x[0])
        return lax.scan(step, (zero, zero, zero), x)[1]

    def anticausal(a, b, x):
        def step(carry, xj):
            xp1, xp2, yp1, yp2 = carry
            yj = a * xp1 + b * xp2 + b1 * yp1 + b2 * yp2
            return (xj, xp1, yj, yp1), yj
        zero = jnp.zeros_like(x[0])
        return lax.scan(step, (zero, zero, zero, zero), x, reverse=True)[1]

    y1 = causal(a1, a2, imgIn.T).T
    y2 = anticausal(a3, a4, imgIn.T).T
    imgOut = c1 * (y1 + y2)
    y1 = causal(a5, a6, imgOut)
    y2 = anticausal(a7, a8, imgOut)
    return c2 * (y1 + y2), y1, y2


def deriche_init(w, h):
    i, j = np.ogrid[:w, :h]
    imgIn = ((313 * i + 991 * j) % 65536) / 65535.0
    return 0.25, imgIn, np.zeros((w, h)), np.zeros((w, h)), np.zeros((w, h))


def floyd_warshall(path):
    """All-pairs shortest paths (Floyd-Warshall), one row of the distance matrix at a time."""
    n = path.shape[0]
    for k in range(n):
        for i in range(n):
            path[i, :] = np.minimum(path[i, :], path[i, k] + path[k, :])


def floyd_warshall_jax(path):
    n = path.shape[0]

    def pivot(k, path):
        def row(i, path):
            return path.at[i].set(jnp.minimum(path[i], path[i, k] + path[k]))
        return lax.fori_loop(0, n, row, path)
    return (lax.fori_loop(0, n, pivot, path),)


def floyd_warshall_init(n):
    i, j = np.ogrid[:n, :n]
    path = (i * j % 7 + 1).astype(np.float64)
    far = ((i + j) % 13 == 0) | ((i + j) % 7 == 0) | ((i + j) % 11 == 0)
    return (np.where(far, 999.0, path),)


def nussinov(seq, table):
    """Nussinov RNA folding: maximum number of base pairs of every subsequence, by dynamic programming."""
    n = seq.shape[0]
    for i in range(n - 1, -1, -1):
        for j in range(i + 1, n):
            table[i, j] = max(table[i, j], table[i, j - 1])
            table[i, j] = max(table[i, j], table[i + 1, j])
            if i < j - 1:
                table[i, j] = max(table[i, j], table[i + 1, j - 1] + (1 if seq[i] + seq[j] == 3 else 0))
                table[i, j] = max(table[i, j], np.max(table[i, i + 1:j] + table[i + 2:j + 1, j]))
            else:
                table[i, j] = max(table[i, j], table[i + 1, j - 1])


def nussinov_jax(seq, table):
    n = seq.shape[0]
    idx = jnp.arange(n)
    lowest = jnp.iinfo(table.dtype).min

    def row(t, table):
        i = n - 1 - t

        def cell(j, table):
            best = jnp.maximum(table[i, j], table[i, j - 1])
            best = jnp.maximum(best, table[i + 1, j])
            pair = jnp.where((i < j - 1) & (seq[i] + seq[j] == 3), 1, 0)
            best = jnp.maximum(best, table[i + 1, j - 1] + pair)
            split = table[i] + jnp.roll(table[:, j], -1)  # split[k] = table[i, k] + table[k + 1, j]
            best = jnp.maximum(best, jnp.max(jnp.where((idx > i) & (idx < j), split, lowest)))
            return table.at[i, j].set(best)
        return lax.fori_loop(i + 1, n, cell, table)
    return (lax.fori_loop(0, n, row, table),)


def nussinov_init(n):
    seq = ((np.arange(n) + 1) % 4).astype(np.int8)  # C's `base` is char
    return seq, np.zeros((n, n), dtype=np.int32)  # C's DATA_TYPE is int


KERNELS = [
    Kernel("deriche", deriche, deriche_jax, deriche_init, outputs=(2, 3, 4),
           sizes={"mini": dict(w=64, h=64), "small": dict(w=192, h=128), "medium": dict(w=720, h=480)}),
    Kernel("floyd-warshall", floyd_warshall, floyd_warshall_jax, floyd_warshall_init, outputs=(0,),
           sizes={"mini": dict(n=60), "small": dict(n=180), "medium": dict(n=500)}),
    Kernel("nussinov", nussinov, nussinov_jax, nussinov_init, outputs=(1,),
           sizes={"mini": dict(n=60), "small": dict(n=180), "medium": dict(n=500)}),
]
