"""NumPy's MT19937 (the legacy `RandomState`'s bit generator) as array code: its 32-bit words and
53-bit doubles from a traced state, and the state after them.

A state is the uint64 vector [key[0], ..., key[623], pos, has_gauss, gauss's bits] (NumPy's
`get_state()`, see `numpy.random.legacy`). The key is renewed 624 words at a time by the twist, a
recurrence whose three runs (words 0-226, 227-453, 454-623) each read only the run before, so a
twist is three vector steps; the twists a draw needs run in one loop, and tempering and the rest
run on all the words at once. Every function runs unchanged on NumPy arrays (tested against
NumPy's own generator) and on traced ones.
"""

from __future__ import annotations

import numpy as np

from solvent.numpy.random import masks
from solvent.numpy.repeat import repeat_while

N, M = 624, 397
_MATRIX_A = np.uint32(0x9908B0DF)
_UPPER, _LOWER = np.uint32(0x80000000), np.uint32(0x7FFFFFFF)
_SPLIT = N - M  # 227: the words whose partner is still the old key


def _next(upper, lower, partner):
    """key[i] renewed from the top bit of key[i], the low 31 of key[i + 1] and key[i + M]."""
    y = (upper & _UPPER) | (lower & _LOWER)
    return partner ^ (y >> np.uint32(1)) ^ ((y & np.uint32(1)) * _MATRIX_A)


def twist(key):
    """The next 624 words of the key (NumPy's mt19937_gen), as three runs of vector steps."""
    first = _next(key[:_SPLIT], key[1:_SPLIT + 1], key[M:])
    second = _next(key[_SPLIT:2 * _SPLIT], key[_SPLIT + 1:2 * _SPLIT + 1], first)
    lower = np.concatenate([key[2 * _SPLIT + 1:], first[:1]])  # the last word wraps to the new key[0]
    third = _next(key[2 * _SPLIT:], lower, second[:N - 2 * _SPLIT])
    return np.concatenate([first, second, third])


def temper(y):
    """MT19937's output of key words."""
    y = y ^ (y >> np.uint32(11))
    y = y ^ ((y << np.uint32(7)) & np.uint32(0x9D2C5680))
    y = y ^ ((y << np.uint32(15)) & np.uint32(0xEFC60000))
    return y ^ (y >> np.uint32(18))


def _keys(key, twists: int):
    """The key and the `twists` keys after it, shape (twists + 1, 624)."""
    if twists <= 2:
        keys = [key]
        for _ in range(twists):
            keys.append(twist(keys[-1]))
        return np.stack(keys)

    def step(t, key, keys):
        key = twist(key)
        keys[t] = key
        return t + 1, key, keys

    keys = np.concatenate([key[None, :], np.zeros((twists, N), np.uint32)])
    return repeat_while(lambda t, *_: t <= twists, step, (np.int64(1), key, keys))[2]


def words32_and_after(state, n: int):
    """`n` 32-bit words (NumPy's mt19937_next32), and a function giving the state after the first k
    of them (k may be traced)."""
    key, pos = state[:N].astype(np.uint32), state[N].astype(np.int64)
    twists = -(-n // N)  # from any position, the stream reaches n words within this many twists
    keys = _keys(key, twists)
    stream = keys.reshape(-1)
    words = temper(masks.window(stream, pos, n)).astype(np.uint64)

    def after(k):
        end = pos + k  # words are taken from the current key up to its end, then from twisted ones
        done = np.maximum(end - 1, 0) // N
        return np.concatenate([keys[done].astype(np.uint64), (end - done * N).astype(np.uint64).reshape(1),
                               state[N + 1:]])

    return words, after


def words32(state, n: int):
    """n 32-bit words and the state after them."""
    return _all(words32_and_after, state, n)


def words64_and_after(state, n: int):
    """n 64-bit words (NumPy's mt19937_next64: the first of two 32-bit words high), and a function
    giving the state after the first k of them."""
    words, after = words32_and_after(state, 2 * n)
    pairs = words.reshape(n, 2)
    return (pairs[:, 0] << np.uint64(32)) | pairs[:, 1], lambda k: after(2 * k)


def words64(state, n: int):
    """n 64-bit words and the state after them."""
    return _all(words64_and_after, state, n)


def doubles_and_after(state, n: int):
    """n doubles in [0, 1) as NumPy's legacy random_sample makes them, 27 bits of one word and 26 of
    the next, (a 2^26 + b) / 2^53, as their 53-bit integers (a 2^26 + b); and a function giving the
    state after the first k of them."""
    words, after = words32_and_after(state, 2 * n)
    pairs = words.reshape(n, 2)
    return ((pairs[:, 0] >> np.uint64(5)) << np.uint64(26)) + (pairs[:, 1] >> np.uint64(6)), lambda k: after(2 * k)


def doubles(state, n: int):
    """`doubles_and_after`'s n integers and the state after them."""
    return _all(doubles_and_after, state, n)


def _all(draws_and_after, state, n: int):
    """n draws and the state after all of them."""
    if n == 0:
        return np.zeros(0, np.uint64), state
    values, after = draws_and_after(state, n)
    return values, after(n)
