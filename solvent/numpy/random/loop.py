"""Long streams of draws made in blocks by a loop of array code (`repeat.repeat_while`)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from solvent.numpy.random import masks
from solvent.numpy.repeat import repeat_while


#: The most draws made at once: the arrays behind many more took XLA's temporary memory past 32 MiB,
#: which the C library then maps afresh on every call and the kernel zeroes page by page (a million
#: rejection-sampled draws ran three times slower than four blocks of a quarter million).
BLOCK = 1 << 17


def blocked(draw: Callable, state, n: int, dtype, *args):
    """`draw(state, n, *args)` (n draws of `dtype` and the state after) for a stream whose n draws are
    those of any split of n in turn: above BLOCK, made in equal blocks by a loop (one size for all
    where one divides n, else one block more for the rest)."""
    if n <= BLOCK:
        return draw(state, n, *args)
    blocks = -(-n // BLOCK)
    size = next((m for m in range(-(-n // blocks), BLOCK // 2, -1) if n % m == 0), -(-n // blocks))
    full = n // size

    def step(i, state, out):
        values, state = draw(state, size, *args)
        return i + 1, state, masks.placed(out, values, i * size)

    _, state, out = repeat_while(lambda i, *_: i < full, step, (np.int64(0), state, np.zeros(n, dtype)))
    if full * size == n:
        return out, state
    rest, state = draw(state, n - full * size, *args)
    return np.concatenate([out[:full * size], rest]), state
