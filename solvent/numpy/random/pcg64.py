"""NumPy's PCG64 (128-bit LCG, XSL-RR output) as array code: a stream of n draws in parallel.

Every function takes and returns arrays and runs unchanged on NumPy arrays (tested against
NumPy's own generator) and on traced ones (compiled into StableHLO). 128-bit numbers are
(high, low) pairs of uint64 arrays. The k-th state is M^k s + G_k inc with G_k = M^(k-1) + ... + 1;
the jump constants (M^k, G_k) are host integers, so n draws are one elementwise product of a
column of states and a row of jumps, with no sequential loop.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from solvent.numpy.random import masks
from solvent.numpy.random.libm import lookup

MULTIPLIER = 0x2360ED051FC65DA44385DF649FCCF645  # PCG's default 128-bit multiplier (NumPy's PCG64)
_MOD = (1 << 128) - 1
_LOW32 = np.uint64(0xFFFFFFFF)


def split(values) -> tuple[np.ndarray, np.ndarray]:
    """(high, low) uint64 arrays of 128-bit host integers."""
    return (np.array([v >> 64 for v in values], dtype=np.uint64),
            np.array([v & 0xFFFFFFFFFFFFFFFF for v in values], dtype=np.uint64))


def mulhi(a, b):
    """The high 64 bits of the 128-bit product of uint64 arrays, from 32-bit halves."""
    a0, a1, b0, b1 = a & _LOW32, a >> 32, b & _LOW32, b >> 32
    p01, p10 = a0 * b1, a1 * b0
    middle = ((a0 * b0) >> 32) + (p10 & _LOW32) + (p01 & _LOW32)
    return a1 * b1 + (p10 >> 32) + (p01 >> 32) + (middle >> 32)


def multiply(a, b):
    """a * b modulo 2^128 for (high, low) pairs."""
    return mulhi(a[1], b[1]) + a[1] * b[0] + a[0] * b[1], a[1] * b[1]


def add(a, b):
    """a + b modulo 2^128 for (high, low) pairs."""
    low = a[1] + b[1]
    return a[0] + b[0] + (low < a[1]).astype(np.uint64), low


def output(state):
    """PCG's XSL-RR output of a state: its halves xor-ed, rotated right by its top six bits."""
    high, low = state
    v, r = high ^ low, high >> 58
    return (v >> r) | (v << ((64 - r) & 63))


@lru_cache(maxsize=128)
def _jumps(first: int, step: int, count: int) -> tuple:
    """(M^k, G_k) as (high, low) arrays for k = first, first + step, ... (`count` of them)."""
    a, g = pow(MULTIPLIER, first, 1 << 128), _geometric(first)
    a_step, g_step = pow(MULTIPLIER, step, 1 << 128), _geometric(step)
    powers, sums = [], []
    for _ in range(count):
        powers.append(a)
        sums.append(g)
        a, g = (a * a_step) & _MOD, (g * a_step + g_step) & _MOD
    return split(powers), split(sums)


def _geometric(k: int) -> int:
    """G_k = M^(k-1) + ... + M + 1 modulo 2^128 (the increment's factor after k steps), by the
    bits of k: G_2j = G_j (1 + M^j) and G_(j+1) = M G_j + 1."""
    total, power = 0, 1
    for bit in bin(k)[2:]:
        total, power = (total * (1 + power)) & _MOD, (power * power) & _MOD
        if bit == "1":
            total, power = (total * MULTIPLIER + 1) & _MOD, (power * MULTIPLIER) & _MOD
    return total


#: Bits of a traced step count that `jump` takes per affine step (from a table of 2^CHUNK steps).
CHUNK = 4


def jump(state, inc, k, most: int):
    """The state k steps on, for k from 0 to `most` (k may be traced): one affine step for each
    CHUNK bits of k, its (M^j, G_j) taken from a table of the 2^CHUNK values those bits can have, so
    no array of states is needed to find it (and the program stays small: a step is some 50 ops)."""
    if isinstance(k, int):
        (a_high, a_low), (g_high, g_low) = _jumps(k, 1, 1)
        return add(multiply((a_high[0], a_low[0]), state), multiply((g_high[0], g_low[0]), inc))
    for shift in range(0, max(1, most.bit_length()), CHUNK):
        tables = _jumps(0, 1 << shift, min(1 << CHUNK, (most >> shift) + 1))
        bits = (k >> shift) & ((1 << CHUNK) - 1)
        (a_high, a_low), (g_high, g_low) = ((lookup(high, bits), lookup(low, bits)) for high, low in tables)
        state = add(multiply((a_high, a_low), state), multiply((g_high, g_low), inc))
    return state


def _width(n: int) -> int:
    """The width of the grid of n states: a divisor of n near its square root where there is one
    (the grid is then the n states as they are: XLA runs over its rows without cutting a tail off,
    a third faster), else the power of two above the root."""
    root = math.isqrt(n - 1) + 1 if n > 1 else 1
    divisor = next((d for d in range(root, 4 * root + 1) if n % d == 0), None)
    return divisor or 1 << max(0, math.ceil(math.log2(root)))


def states(state, inc, n: int):
    """The next n states after `state` as (high, low) arrays of shape (n,): column j of a
    (rows, width) grid is state j + 1, row r jumps it r * width steps on."""
    width = _width(n)
    rows = -(-n // width)
    col_a, col_g = _jumps(1, 1, width)
    row_a, row_g = _jumps(0, width, rows)
    # The column and the row offsets are computed once, not once per element of the grid: divided by
    # a 1 known only at run time (the increment is odd), they are too costly for XLA to recompute.
    one = inc[1] & np.uint64(1)
    row_a = masks.tied(row_a, state[1])  # in a loop, not hoisted: its broadcast stays in the grid's loop
    column = tuple(part // one for part in add(multiply(col_a, state), multiply(col_g, inc)))
    offset = tuple(part // one for part in multiply(row_g, inc))
    grid = add(multiply((row_a[0][:, None], row_a[1][:, None]), (column[0][None, :], column[1][None, :])),
               (offset[0][:, None], offset[1][:, None]))
    return grid[0].reshape(-1)[:n], grid[1].reshape(-1)[:n]
