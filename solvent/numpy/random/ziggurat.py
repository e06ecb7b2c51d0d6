"""NumPy's ziggurat draws from a PCG64 state, as array code: `normals` (random_standard_normal) and
`exponentials` (random_standard_exponential), bit for bit.

A draw takes one 64-bit word, and 99% of draws are done with it: a layer of the ziggurat and a
point in it, kept if it lies under the layer's threshold. The rest are slow: a point in a layer's
edge is tested against the density with one more word (and the draw starts over if it fails), and
one in the base layer is drawn from the tail with one or more words through log1p. Each slow draw
is seen by the word it starts at, so the words are drawn in parallel, every word is taken as a
possible start, the slow ones (one or two in a hundred) are finished and chained in order, and
each place of the result finds the word its draw comes from. When the words of a round do not make
enough draws, another round starts at the first start not yet used.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from solvent.numpy.random import forms, libm, loop, masks, streams, ziggurat_tables as tables
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


def _normal_slow(words, at, count: int, tails: int):
    """The slow normals starting at positions `at` of `words` (`count` of them real):
    (where each ends, whether it makes a draw, the draw, whether its words are all in `words`).
    The tails among them (two in a hundred) are gathered into `tails` places first, so that their
    loop of tries runs over those alone; tails past the last place are left not complete."""
    x, _, layer = _normal_first(_word(words, at, count))
    nxt = _word(words, at + 1, count)
    kept = _edge(x, layer, nxt, _FI, lambda x: libm.exp(rounded(-0.5 * x) * x, libm.fused("exp")))
    tail = (layer == 0) & (at < count)
    rank = np.cumsum(tail) - 1
    place = np.where(tail & (rank < tails), rank, tails)
    tail_end, tail_value = _normal_tails(words, masks.scatter(np.full(tails + 1, count), place, at)[:tails], count)
    pick = np.minimum(rank, tails - 1)
    end = np.where(tail, tail_end[pick], at + 2)
    complete = np.where(tail, (rank < tails) & (tail_end[pick] <= count), at + 1 < count)
    return end, tail | kept, np.where(tail, tail_value[pick], x), complete


def _normal_tails(words, at, count: int):
    """(where each ends, its draw) for the tails starting at `at` (`count`: none): tries from the two
    words after the last try's, until y + y > x * x; a tail whose words run out ends past `count`."""
    negative = (_word(words, at, count) >> np.uint64(17)) & np.uint64(1) == 1  # bit 8 of the point
    fused_log = libm.fused("log1p")

    def attempt(j, done, value, end):
        """One more try of the tails not yet done."""
        a = at + 1 + 2 * j
        valid = a + 1 < count
        logs = libm.log1p(-_double(_word(words, np.concatenate([a, a + 1]), count)), fused_log)
        xx, yy = rounded(-_NOR_INV_R * logs[:a.shape[0]]), -logs[a.shape[0]:]
        new = ~done & valid & (yy + yy > xx * xx)
        value = np.where(new, np.where(negative, -(_NOR_R + xx), _NOR_R + xx), value)
        return j + 1, done | new | ~valid, value, np.where(new, a + 2, end)

    start = (np.int64(0), at >= count, np.zeros(at.shape, np.float64), np.full(at.shape, count + 2))
    _, _, value, end = repeat_while(lambda j, done, *_: ~np.all(done), attempt, start)
    return end, value


def _exponential_slow(words, at, count: int, tails: int):
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


def sizes(n: int) -> tuple[int, int, int]:
    """The words a round of `n` draws takes, the slow starts it finishes and the normals' tails among
    those: slow draws start at 1.5% of the words for normals and 2.2% for exponentials, and take 2 to
    4% more words than there are draws, so that one round is enough but rarely; a normal's tail starts
    at 0.026%. The words are a whole grid of PCG64 states (a multiple of a power of two near the
    root: `pcg64.states` then computes no states past them)."""
    want = n + n // 16 + 64
    width = 1 << math.ceil(math.log2(math.isqrt(want) + 1))
    chunk = -(-want // width) * width
    return chunk, chunk // 32 + 64, chunk // 1024 + 16


def _draws(state, n: int, first: Callable, slow: Callable):
    """`n` draws in rounds (`_round`) of at most `loop.BLOCK` draws, and the state after them."""
    if n == 0:
        return np.zeros(0, np.float64), state
    block = min(n, loop.BLOCK)
    chunk, slots, tails = sizes(block)

    def round_(state, out, filled):
        words, after = streams.candidates(state, chunk, 64)
        words = masks.once(words)
        out, filled, used = _round(words, out, filled, n, block, slots, lambda w, a, c: slow(w, a, c, tails), first)
        return after(used), out, filled

    state, out, _ = repeat_while(lambda state, out, filled: filled < n, round_,
                                 (state, np.zeros(n + block, np.float64), np.int64(0)))
    return out[:n], state


def _round(words, out, filled, n: int, block: int, slots: int, slow: Callable, first: Callable):
    """The draws `words` make, up to `block` of them and n in all, written to out[filled:]: returns (out,
    filled, the words used); out has `block` places past n, where draws that are not written over
    later may go. Every word is taken as a start; the first `slots` slow starts are finished (`slow`)
    and chained (`_chained`) into spans of words, each making at most one draw; the draws are the
    words between the spans and those the spans make, up to the first start that cannot be told
    here. Each place finds its word from the spans that begin before it (`_Spans`): no array of the
    words' places is made, and nothing is scattered a draw at a time."""
    count = words.shape[0]
    packed, before = masks.packed(~first(words)[1])
    at = masks.first_set(packed, before, slots + 1, count)
    unknown, at = at[slots], at[:slots]  # the first slow start with no slot (count: none)
    end, makes, slow_value, complete = slow(words, at, count)
    live = _chained(at, end, count)
    boundary = np.minimum(unknown, np.min(np.where(live & ~complete, at, count)))
    live = live & complete & (at < boundary)
    spans = _Spans(at, end, makes, slow_value, live, block)
    slow_one, value, source = spans.each()
    value = np.where(slow_one, value, first(_word(words, source, count))[0])
    out = masks.placed(out, value[:block], filled)
    need = np.minimum(n - filled, block)
    total = boundary - np.sum(np.where(live, np.minimum(end, boundary) - at - makes, 0))  # draws before the boundary
    used = np.where(total >= need, spans.end_of(need - 1), np.maximum(boundary, np.max(np.where(live, end, 0))))
    return out, filled + np.minimum(total, need), used


class _Spans:
    """The live slow starts of a round as spans of words [at, end), each making one draw or none, and
    for each place of the round's draws the span it comes after, by a popcount of packed marks at the
    places spans begin (of spans that begin at one place, all but the last make no draw: the last
    stands for them)."""

    def __init__(self, at, end, makes, value, live, n: int):
        skipped = np.where(live, end - at - makes, 0)  # words a span takes past its draw
        dropped = np.cumsum(skipped)  # ... with those of the spans before it
        place = at - dropped + skipped  # the place of the draw a span begins at
        later = np.minimum.accumulate(np.where(live, place, n)[::-1])[::-1]  # the place of the next live span
        last = live & (np.concatenate([later[1:], np.full(1, n)]) != place)
        row = np.where(last, np.cumsum(last) - 1, at.shape[0])
        self.dropped, self.end = (masks.scatter(np.zeros(at.shape[0] + 1, np.int64), row, x) for x in (dropped, end))
        self.values = masks.scatter(np.full(at.shape[0] + 1, np.nan), row, np.where(makes, value, np.nan))
        self.marks = masks.marks(np.where(last, place, n), n)

    def each(self):
        """For each place j of the round's draws (and a few past them): whether its draw is a span's,
        that draw (NaN where no span makes one at j), and the word j's draw comes from otherwise."""
        marked, count = masks.each(*self.marks)
        k = np.maximum(count - 1, 0)
        value = self.values[k]
        source = np.arange(count.shape[0]) + np.where(count > 0, self.dropped[k], 0)
        return marked & ~np.isnan(value), value, source

    def end_of(self, j):
        """Where the words of draw j end (j traced, a scalar)."""
        packed, before = self.marks
        count = masks.counts_through(packed, before, j)
        k = np.maximum(count - 1, 0)
        marked = (packed[j // 64] >> (j & 63).astype(np.uint64)) & np.uint64(1) == 1
        slow_one = marked & ~np.isnan(self.values[k])
        return np.where(slow_one, self.end[k], j + np.where(count > 0, self.dropped[k], 0) + 1)


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
