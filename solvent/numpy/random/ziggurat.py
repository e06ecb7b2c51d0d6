"""NumPy's ziggurat draws from a PCG64 state, as array code: `normals` (random_standard_normal) and
`exponentials` (random_standard_exponential), bit for bit.

A draw takes one 64-bit word, and 99% of draws are done with it: a layer of the ziggurat and a
point in it, kept if it lies under the layer's threshold. The rest are slow: a point in a layer's
edge is tested against the density with one more word (and the draw starts over if it fails), and
one in the base layer is drawn from the tail with one or more words through log1p. Each slow draw
is seen by the word it starts at, so the words are drawn in parallel, every word is taken as a
possible start, the slow ones (a few in a thousand) are finished and chained in order, and the
draws that result are packed in order. When the words of a round do not make enough draws, another
round starts at the first start not yet used.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from solvent.numpy.random import forms, libm, masks, streams, ziggurat_tables as tables
from solvent.numpy.random.libm import lookup, rounded
from solvent.numpy.random.loop import repeat_while

_NOR_R = 3.6541528853610087963519472518  # where the normal's base layer's tail begins
_NOR_INV_R = 0.27366123732975827203338247596
_EXP_R = 7.69711747013104972  # where the exponential's does
_MAGNITUDE = np.uint64(0x000FFFFFFFFFFFFF)
_BYTE = np.uint64(0xFF)
_WI, _FI = tables.WI.view(np.float64), tables.FI.view(np.float64)
_WE, _FE = tables.WE.view(np.float64), tables.FE.view(np.float64)


def normals(state, n: int):
    """`n` standard normals as NumPy's random_standard_normal draws them, and the state after."""
    return _draws(state, n, _normal_first, _normal_slow)


def exponentials(state, n: int):
    """`n` standard exponentials as NumPy's random_standard_exponential draws them, and the state after."""
    return _draws(state, n, _exponential_first, _exponential_slow)


def inverted_exponentials(state, n: int):
    """`n` standard exponentials by inversion, -log1p(-u) of doubles (NumPy's method="inv")."""
    words, state = streams.words64(state, n)
    return -libm.log1p(-_double(words), libm.fused("log1p")), state


def _double(word):
    """NumPy's next_double of a word: its top 53 bits over 2^53."""
    return forms.double(word >> np.uint64(11))


def _normal_first(word):
    """(the draw a word makes, whether it is done at once, its layer) for a normal: the layer is
    the low byte, the sign the next bit, the point the 52 bits above."""
    layer = (word & _BYTE).astype(np.int64)
    point = (word >> np.uint64(9)) & _MAGNITUDE
    x = point.astype(np.float64) * lookup(_WI, layer)
    x = np.where((word >> np.uint64(8)) & np.uint64(1) == 1, -x, x)
    return x, point < lookup(tables.KI, layer), layer


def _exponential_first(word):
    """As `_normal_first`, for an exponential: the layer is bits 3 to 10, the point the 53 above."""
    layer = ((word >> np.uint64(3)) & _BYTE).astype(np.int64)
    point = word >> np.uint64(11)
    return point.astype(np.float64) * lookup(_WE, layer), point < lookup(tables.KE, layer), layer


def _edge(x, layer, word, density, density_of):
    """Whether a point x in a layer's edge lies under the density, by one more word as NumPy tests it:
    (f[i-1] - f[i]) u + f[i] < density(x), the product rounded on its own as NumPy's C rounds it."""
    f = lookup(density, layer)
    return rounded((lookup(density, np.maximum(layer - 1, 0)) - f) * _double(word)) + f < density_of(x)


def _normal_slow(words, at, count: int):
    """The slow normals starting at positions `at` of `words` (`count` of them real):
    (where each ends, whether it makes a draw, the draw, whether its words are all in `words`)."""
    first = _word(words, at, count)
    x, _, layer = _normal_first(first)
    fused_exp, fused_log = libm.fused("exp"), libm.fused("log1p")
    nxt = _word(words, at + 1, count)
    kept = _edge(x, layer, nxt, _FI, lambda x: libm.exp(rounded(-0.5 * x) * x, fused_exp))
    tail = layer == 0
    negative = (first >> np.uint64(17)) & np.uint64(1) == 1  # bit 8 of the point

    def attempt(j, done, value, end):
        """One more try of the tails not yet done, from the two words after the last try's."""
        a = at + 1 + 2 * j
        valid = a + 1 < count
        logs = libm.log1p(-_double(_word(words, np.concatenate([a, a + 1]), count)), fused_log)
        xx, yy = rounded(-_NOR_INV_R * logs[:a.shape[0]]), -logs[a.shape[0]:]
        new = ~done & valid & (yy + yy > xx * xx)
        value = np.where(new, np.where(negative, -(_NOR_R + xx), _NOR_R + xx), value)
        return j + 1, done | new | ~valid, value, np.where(new, a + 2, end)

    _, _, value, end = repeat_while(lambda j, done, *_: ~np.all(done), attempt,
                                    (np.int64(0), ~tail | (at >= count), x, np.where(tail, count + 2, at + 2)))
    complete = np.where(tail, end <= count, at + 1 < count)
    return end, tail | kept, value, complete


def _exponential_slow(words, at, count: int):
    """As `_normal_slow`, for exponentials: a tail takes one more word, r - log1p(-u)."""
    x, _, layer = _exponential_first(_word(words, at, count))
    nxt = _word(words, at + 1, count)
    tail = layer == 0
    kept = _edge(x, layer, nxt, _FE, lambda x: libm.exp(-x, libm.fused("exp")))
    value = np.where(tail, _EXP_R - libm.log1p(-_double(nxt), libm.fused("log1p")), x)
    return at + 2, tail | kept, value, at + 1 < count


def _word(words, position, count: int):
    """words[position], the last word past the end (a draw that needs it is not complete)."""
    return words[np.minimum(position, count - 1)]


def sizes(n: int) -> tuple[int, int]:
    """The words a round of `n` draws takes, and the slow starts it finishes: slow draws start at
    1.5% of the words for normals and 2.2% for exponentials, and take 2 to 4% more words than
    there are draws, so that one round is enough but rarely."""
    chunk = n + n // 16 + 64
    return chunk, chunk // 32 + 64


def _draws(state, n: int, first: Callable, slow: Callable):
    """`n` draws in rounds of candidate words (`_round`), and the state after them."""
    if n == 0:
        return np.zeros(0, np.float64), state
    chunk, slots = sizes(n)

    def round_(state, out, filled):
        words, after = streams.candidates(state, chunk, 64)
        words = masks.once(words)
        out, filled, used = _round(words, out, filled, n, slots, first, slow)
        return after(used), out, filled

    state, out, _ = repeat_while(lambda state, out, filled: filled < n, round_,
                                 (state, np.zeros(n + 1, np.float64), np.int64(0)))
    return out[:n], state


def _round(words, out, filled, n: int, slots: int, first: Callable, slow: Callable):
    """The draws `words` make, written to out[filled:] up to n: returns (out, filled, the words used).
    Every word is taken as a start; the first `slots` slow starts are finished (`slow`) and chained
    (`_chained`); a fast word's draw is kept unless a slow draw before it took the word, and every
    draw goes to its place in order, up to the first start that cannot be told here."""
    count = words.shape[0]
    position = np.arange(count)
    value, fast, _ = first(words)
    value, fast = masks.once(value), masks.once(fast)
    packed, before = masks.packed(~fast)
    at = masks.first_set(packed, before, slots + 1, count)
    unknown, at = at[slots], at[:slots]  # the first slow start with no slot (count: none)
    end, makes, slow_value, complete = slow(words, at, count)
    live = _chained(at, end, count)
    boundary = np.minimum(unknown, np.min(np.where(live & ~complete, at, count)))
    live = live & complete & (at < boundary)
    # Before slow start k: the words taken without a draw, and the furthest word a slow draw takes.
    dropped = np.concatenate([np.zeros(1, np.int64), np.cumsum(np.where(live, end - at - makes, 0))])
    reach = np.concatenate([np.zeros(1, np.int64), np.maximum.accumulate(np.where(live, end, 0))])
    k = np.minimum(masks.counts_before(~fast), slots)
    index, slot_index = position - dropped[k], at - dropped[:slots]
    kept, slot_kept = fast & (reach[k] <= position) & (position < boundary), live & makes
    need = n - filled
    out = masks.scatter(out, np.where(kept & (index < need), filled + index, n), value)
    out = masks.scatter(out, np.where(slot_kept & (slot_index < need), filled + slot_index, n), slow_value)
    total = np.sum(kept) + np.sum(slot_kept)
    last = np.min(np.where(kept & (index == need - 1), position, count))  # the n-th draw's start, if fast
    last_slow = np.min(np.where(slot_kept & (slot_index == need - 1), end, count + 1))  # its end, if slow
    used = np.where(total >= need, np.minimum(last + 1, last_slow),
                    np.maximum(boundary, np.max(np.where(live, end, 0))))
    return out, np.minimum(filled + total, n), used


def _chained(at, end, count: int):
    """Which slow starts are starts at all: those no earlier start's draw takes the word of. Found
    by rounds from "all are": each takes the starts that the last round's do not cover, and a
    start's draw is right once those before it are, so the rounds end after the longest run of
    overlapping draws (one or two rounds but rarely)."""
    def round_(live, _, at, end):
        reach = np.maximum.accumulate(np.where(live, end, 0))  # the furthest word a draw so far takes
        covered = np.concatenate([np.zeros(1, bool), reach[:-1] > at[1:]])
        return ~covered, live, at, end
    start = (np.ones(at.shape, bool), np.zeros(at.shape, bool), at, end)
    live = repeat_while(lambda live, last, *_: np.any(live != last), round_, start)[0]
    return live & (at < count)
