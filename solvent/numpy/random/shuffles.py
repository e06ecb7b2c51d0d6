"""NumPy's draws over a range that changes with every draw, as array code: the Fisher-Yates
shuffle (`shuffle`, `permutation`, `permuted`) and Floyd's sample without replacement (`choice`).

Each draw depends on the one before only through the range it is drawn from and the word it
starts at, so the candidate 32-bit words are drawn in parallel (`streams`) and one loop walks them
in order, a word per iteration, accepting or rejecting each for the draw it falls to, as NumPy's
C loop does. The loop is sequential because the swaps are: each reads what the last one wrote.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from solvent.errors import UnsupportedError
from solvent.numpy.random import streams
from solvent.numpy.repeat import repeat_while

_LOW32 = np.uint64(0xFFFFFFFF)
_MOST = 0xFFFFFFFE  # the widest span drawn here: NumPy takes wider ones from 64-bit words
_TAKEN = 1 << 24  # the largest population Floyd's sample keeps a table of taken elements for


def masked(word, span):
    """NumPy's random_interval: the word under the smallest all-ones mask covering span, kept if
    it is at most span. (value, kept)."""
    mask = span
    for shift in (1, 2, 4, 8, 16):
        mask = mask | (mask >> np.uint64(shift))
    value = word & mask
    return value, value <= span


def lemire(word, span):
    """NumPy's buffered_bounded_lemire_uint32 for [0, span]: the high half of word * (span + 1),
    kept if its low half is at least NumPy's threshold. (value, kept)."""
    excl = span + np.uint64(1)
    product = word * excl
    threshold = (np.uint64(1 << 32) - excl) % excl
    return product >> np.uint64(32), (product & _LOW32) >= threshold


def serial(state, steps: int, span_of: Callable, method: Callable, apply: Callable, carry: tuple,
           words: Callable = streams.words32_and_after):
    """`steps` draws, draw s in [0, span_of(s)] by `method` (`masked` or `lemire`), each applied as
    `carry = apply(carry, s, value, kept)`; a rejected word (kept False) must change nothing. A span
    of 0 takes no word and gives 0. Rounds of candidate 32-bit words (from `words`: PCG64's, or
    MT19937's for the legacy RandomState) are drawn until every draw is made.
    Returns (the carry, the state after)."""
    if steps == 0:
        return carry, state
    chunk = steps + steps // 2 + 64  # enough for all draws but rarely: a masked word is kept half the time or more

    def round_(state, s, *carry):
        drawn_words, after = words(state, chunk)

        def step(s, p, words, *carry):
            span = span_of(s)
            drawn = span > np.uint64(0)
            value, kept = method(words[np.minimum(p, chunk - 1)], span)
            kept = kept | ~drawn
            carry = apply(carry, s, np.where(drawn, value, 0).astype(np.int64), kept)
            return (s + kept.astype(np.int64), p + drawn.astype(np.int64), words, *carry)

        s, p, _, *carry = repeat_while(lambda s, p, *_: (s < steps) & (p < chunk), step,
                                       (s, np.int64(0), drawn_words, *carry))
        return (after(p), s, *carry)

    state, _, *carry = repeat_while(lambda state, s, *_: s < steps, round_, (state, np.int64(0), *carry))
    return tuple(carry), state


def shuffled(state, n: int, first: int, method: Callable, lanes: int = 1,
             words: Callable = streams.words32_and_after):
    """The order Fisher-Yates leaves `lanes` rows of arange(n) in, as NumPy's _shuffle_raw and
    _shuffle_int do to each: for i = n-1 down to `first`, swap i with a draw in [0, i]. Returns
    (the orders, shape (lanes, n); the state after)."""
    if n - 1 > _MOST:
        raise UnsupportedError("shuffling more than 2^32 elements inside solvent.jit")
    per = max(n - first, 0)
    if lanes * per == 0:
        return np.tile(np.arange(n), (lanes, 1)), state

    def span_of(s):
        return (np.int64(n - 1) - s % per).astype(np.uint64)

    def apply(carry, s, value, kept):
        (order,) = carry
        base, within = (s // per) * n, (n - 1) - s % per
        i, j = base + within, base + np.where(kept, value, within)
        a, b = order[i], order[j]
        order[i] = b
        order[j] = a
        return (order,)

    (order,), state = serial(state, lanes * per, span_of, method, apply, (np.tile(np.arange(n), lanes),), words)
    return order.reshape(lanes, n), state


def floyd(state, population: int, size: int):
    """Floyd's sample of `size` of range(population) as NumPy takes it: for j = population - size
    up to population - 1, a draw in [0, j], or j itself where the draw was taken before."""
    if population > _TAKEN:
        raise UnsupportedError(f"Generator.choice without replacement of {size} from a population over 2^24 "
                               "inside solvent.jit; draw the sample outside the function")
    start = population - size

    def span_of(s):
        return (start + s).astype(np.uint64)

    def apply(carry, s, value, kept):
        out, taken = carry
        pick = np.where(taken[value], start + s, value)
        out[s] = np.where(kept, pick, out[s])
        taken[pick] = taken[pick] | kept
        return out, taken

    carry = (np.zeros(size, np.int64), np.zeros(population, np.bool_))
    (out, _), state = serial(state, size, span_of, lemire, apply, carry)
    return out, state
