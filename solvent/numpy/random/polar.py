"""NumPy's legacy Gaussian (RandomState's standard_normal, randn and normal) as array code, bit for
bit: Marsaglia's polar method on pairs of MT19937 doubles, each pair inside the unit circle giving
two normals, one returned and one cached in the generator's state for the next draw.

Attempts (four 32-bit words each) are drawn in parallel and the accepted ones packed in order
(`streams.accepted`); the logarithm is glibc's, operation for operation (`libm.log`).
"""

from __future__ import annotations

import math

import numpy as np

from solvent.numpy.random import forms, libm, loop, masks, mt19937, streams
from solvent.numpy.random.libm import rounded

_N = mt19937.N


def _attempts(state, count: int):
    """`count` attempts: rows of the two doubles' 53-bit integers, the second first (the order
    the pair's normals come out in), and the state after k of them."""
    tops, after = mt19937.doubles_and_after(state, 2 * count)
    return tops.reshape(count, 2)[:, ::-1], lambda k: after(2 * k)


def _coordinates(tops):
    """(rows of x2 and x1, x1^2 + x2^2) of attempts: each double d as 2d - 1 (exact), the squares
    rounded apart as NumPy's C rounds them (XLA would fuse one into the sum)."""
    x = 2.0 * forms.double(tops) - 1.0
    return x, rounded(x[:, 1] * x[:, 1]) + rounded(x[:, 0] * x[:, 0])


def _inside(tops):
    r2 = _coordinates(tops)[1]
    return tops, (r2 < 1.0) & (r2 != 0.0)


def gaussians(state, n: int):
    """`_gaussians` in blocks (`loop.blocked`)."""
    return loop.blocked(_gaussians, state, n, np.float64)


def _gaussians(state, n: int):
    """`n` standard normals as NumPy's legacy_gauss gives them one by one, and the state after: the
    one cached in the state first, then two from each accepted pair (f x2, then f x1 with
    f = sqrt(-2 log(r2) / r2)), the second of the last pair cached when it is left over."""
    if n == 0:
        return np.zeros(0, np.float64), state
    has = state[_N + 1].astype(np.int64)
    cached = state[_N + 2:_N + 3].view(np.float64)
    most = (n + 1) // 2  # the pairs n draws take with nothing cached
    wanted = (n - has + 1) // 2
    chunk = math.ceil(most / (math.pi / 4) * 1.05) + 64  # attempts: enough for every pair, but rarely
    tops, state = streams.accepted(state, most, _attempts, _inside, chunk, rare=False, wanted=wanted, item=(2,))
    x, r2 = _coordinates(tops)
    f = np.sqrt(-2.0 * libm.log(r2, libm.fused("log")) / r2)
    pairs = (f[:, None] * x).reshape(-1)  # f x2, f x1 of each pair, in place: no gather or reversal here,
    # and the draws made once: fused into what uses them, the shift by the cached one is a branch per
    # element, and math on them (np.exp of 10^4 draws) ran unvectorized, 3.5x slower
    joined = masks.once(np.concatenate([cached, pairs]))
    values = np.where(has == 1, joined[:n], joined[1:n + 1])
    left = (n - has) % 2 == 1  # the last pair's second is cached
    kept = np.where(left, pairs[np.maximum(2 * wanted - 1, 0)], 0.0)
    return values, np.concatenate([state[:_N + 1], left.astype(np.uint64).reshape(1),
                                   kept.reshape(1).view(np.uint64)])
