"""NumPy's ziggurat draws from a PCG64 state, as array code: `normals` (random_standard_normal) and
`exponentials` (random_standard_exponential), bit for bit.

A draw takes one 64-bit word, and 99% of draws are done with it: a layer of the ziggurat and a
point in it, kept if it lies under the layer's threshold. The rest are slow: a point in a layer's
edge is tested against the density with one more word (and the draw starts over if it fails), and
one in the base layer is drawn from the tail with one or more words through log1p. Each slow draw
is seen by the word it starts at, so the words are drawn in parallel, every word is taken as a
possible start, the slow ones (one or two in a hundred) are finished and chained in order, and
each place of the result finds the word its draw comes from. When the words of a round do not make
enough draws, another round starts at the first start not yet used. A call of at most
MOST_IN_TURNS draws makes them in turns instead, each slow one a turn of NumPy's loop: rounds
compile to a hundred kernels.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from solvent.numpy.random import forms, libm, loop, masks, streams, ziggurat_tables as tables
from solvent.numpy.random.libm import lookup, rounded
from solvent.numpy.repeat import repeat_while


@dataclass(frozen=True)
class _Precision:
    """What NumPy's float64 and float32 ziggurats differ in: the words (64- or 32-bit), the uniform
    a word makes, the C library's log1p (and expf) of that precision, the tables, the constants, and
    where a word's point lies (a normal's above its 9 low bits; an exponential's above its layer)."""
    width: int
    dtype: type
    uniform: Callable
    log1p: Callable
    exp: Callable  # the exponential's density at its edges
    normal_tables: tuple  # (k, w, f)
    exponential_tables: tuple
    normal_point: np.uint64  # the mask of a normal's point
    exponential_shift: int  # the exponential's layer starts at this bit, its point 8 bits above
    normal_r: float  # where the normal's base layer's tail begins, and its inverse
    normal_inv_r: float
    exponential_r: float  # where the exponential's does


_DOUBLE = _Precision(
    64, np.float64, lambda word: forms.double(word >> np.uint64(11)),
    lambda x: libm.log1p(x, libm.fused("log1p")), lambda x: libm.exp(x, libm.fused("exp")),
    (tables.KI, tables.WI.view(np.float64), tables.FI.view(np.float64)),
    (tables.KE, tables.WE.view(np.float64), tables.FE.view(np.float64)),
    np.uint64(0x000FFFFFFFFFFFFF), 3, 3.6541528853610087963519472518, 0.27366123732975827203338247596,
    7.69711747013104972)
_SINGLE = _Precision(
    32, np.float32, forms.single,
    lambda x: libm.log1pf(x, libm.fused("log1pf")), libm.expf,
    (tables.KI_F, tables.WI_F.view(np.float32), tables.FI_F.view(np.float32)),
    (tables.KE_F, tables.WE_F.view(np.float32), tables.FE_F.view(np.float32)),
    np.uint64(0x007FFFFF), 1, np.float32(3.6541528853610087963519472518), np.float32(0.27366123732975827203338247596),
    np.float32(7.69711747013104972))
_BYTE = np.uint64(0xFF)


def _precision(dtype) -> _Precision:
    return _SINGLE if np.dtype(dtype) == np.float32 else _DOUBLE


def normals(state, n: int, dtype=np.float64):
    """`n` standard normals as NumPy's random_standard_normal (or for float32, its _f) draws them,
    and the state after."""
    p = _precision(dtype)
    return _draws(state, n, p, functools.partial(_normal_first, p=p), functools.partial(_normal_slow, p=p),
                  functools.partial(_normal_step, p=p))


def exponentials(state, n: int, dtype=np.float64):
    """`n` standard exponentials as NumPy's random_standard_exponential (or its _f) draws them, and
    the state after."""
    p = _precision(dtype)
    return _draws(state, n, p, functools.partial(_exponential_first, p=p), functools.partial(_exponential_slow, p=p),
                  functools.partial(_exponential_step, p=p))


def inverted_exponentials(state, n: int, dtype=np.float64):
    """`n` standard exponentials by inversion (NumPy's method="inv"): -log1p(-u) of uniforms, in double
    also for float32 ones (NumPy's C takes the double log1p of the float, and stores it as a float)."""
    p = _precision(dtype)
    words, state = (streams.words32 if p.width == 32 else streams.words64)(state, n)
    return (-_DOUBLE.log1p(-p.uniform(words).astype(np.float64))).astype(p.dtype), state


def _normal_first(word, p: _Precision):
    """(the draw a word makes, whether it is done at once, its layer) for a normal: the layer is
    the low byte, the sign the next bit, the point the bits above."""
    layer = (word & _BYTE).astype(np.int64)
    point = (word >> np.uint64(9)) & p.normal_point
    k, w, _ = p.normal_tables
    x = point.astype(p.dtype) * lookup(w, layer)
    x = np.where((word >> np.uint64(8)) & np.uint64(1) == 1, -x, x)
    return x, point < lookup(k, layer), layer


def _exponential_first(word, p: _Precision):
    """As `_normal_first`, for an exponential: the layer is the byte at `exponential_shift`, the point
    the bits above it."""
    layer = ((word >> np.uint64(p.exponential_shift)) & _BYTE).astype(np.int64)
    point = word >> np.uint64(p.exponential_shift + 8)
    k, w, _ = p.exponential_tables
    return point.astype(p.dtype) * lookup(w, layer), point < lookup(k, layer), layer


def _edge(x, layer, u, density, density_of):
    """Whether a point x in a layer's edge lies under the density, by one more uniform u as NumPy tests
    it: (f[i-1] - f[i]) u + f[i] < density(x), the product rounded on its own as NumPy's C rounds it."""
    f = lookup(density, layer)
    return rounded((lookup(density, np.maximum(layer - 1, 0)) - f) * u) + f < density_of(x)


def _normal_slow(words, at, count: int, tails: int, p: _Precision):
    """The slow normals starting at positions `at` of `words` (`count` of them real):
    (where each ends, whether it makes a draw, the draw, whether its words are all in `words`).
    The tails among them (two in a hundred) are gathered into `tails` places first, so that their
    loop of tries runs over those alone; tails past the last place are left not complete."""
    x, _, layer = _normal_first(_word(words, at, count), p)
    kept = _normal_edge(x, layer, p.uniform(_word(words, at + 1, count)), p)
    tail = (layer == 0) & (at < count)
    rank = np.cumsum(tail) - 1
    place = np.where(tail & (rank < tails), rank, tails)
    tail_end, tail_value = _normal_tails(words, masks.scatter(np.full(tails + 1, count), place, at)[:tails], count, p)
    pick = np.minimum(rank, tails - 1)
    end = np.where(tail, tail_end[pick], at + 2)
    complete = np.where(tail, (rank < tails) & (tail_end[pick] <= count), at + 1 < count)
    return end, tail | kept, np.where(tail, tail_value[pick], x), complete


def _normal_tails(words, at, count: int, p: _Precision):
    """(where each ends, its draw) for the tails starting at `at` (`count`: none): tries from the two
    words after the last try's, until y + y > x * x; a tail whose words run out ends past `count`."""
    negative = (_word(words, at, count) >> np.uint64(17)) & np.uint64(1) == 1  # bit 8 of the point

    def attempt(j, done, value, end):
        """One more try of the tails not yet done."""
        a = at + 1 + 2 * j
        valid = a + 1 < count
        accepted, draw = _tail_try(_word(words, np.concatenate([a, a + 1]), count), negative, p)
        new = ~done & valid & accepted
        return j + 1, done | new | ~valid, np.where(new, draw, value), np.where(new, a + 2, end)

    start = (np.int64(0), at >= count, np.zeros(at.shape, p.dtype), np.full(at.shape, count + 2))
    _, _, value, end = repeat_while(lambda j, done, *_: ~np.all(done), attempt, start)
    return end, value


def _normal_edge(x, layer, u, p: _Precision):
    """Whether a normal's point x in its layer's edge is kept (`_edge`): the density is a double for
    either precision, as NumPy's C calls exp on -0.5 x x, a double."""
    xd = x.astype(np.float64)
    return _edge(x, layer, u, p.normal_tables[2], lambda _: libm.exp(rounded(-0.5 * xd) * xd, libm.fused("exp")))


def _tail_try(words, negative, p: _Precision):
    """One try of normal tails, from two words each (the first half of `words` for xx, the second for
    yy, as NumPy's inner loop takes them): whether it is accepted, and the draw it makes then."""
    half = words.shape[0] // 2
    logs = p.log1p(-p.uniform(words))
    xx, yy = rounded(-p.normal_inv_r * logs[:half]), -logs[half:]
    return yy + yy > xx * xx, np.where(negative, -(p.normal_r + xx), p.normal_r + xx)


def _normal_step(words, tail, negative, p: _Precision):
    """One turn of NumPy's random_standard_normal loop, on the next two words (the second read only by
    an edge test or a tail's try): (the draw, whether this turn makes it, the words it took, whether a
    tail is being drawn after it, that tail's sign). Outside a tail, the first word starts a draw:
    done, or its edge tested with the second, or a tail begun; in a tail, the two make one try."""
    x, fast, layer = _normal_first(words[:1], p)
    kept = _normal_edge(x, layer, p.uniform(words[1:]), p)
    begins = ~fast & (layer == 0)
    accepted, tail_value = _tail_try(words, negative, p)
    value = np.where(tail, tail_value, x)[0]
    made = np.where(tail, accepted, fast | (~begins & kept))[0]
    used = np.where(~tail & (fast | begins), 1, 2)[0]
    sign = (words[0] >> np.uint64(17)) & np.uint64(1) == 1  # bit 8 of the point, as in `_normal_tails`
    return value, made, used, np.where(tail, ~accepted[0], begins[0]), np.where(tail, negative, sign)


def _exponential_step(words, tail, negative, p: _Precision):
    """As `_normal_step`, for an exponential: a slow draw takes the second word for its edge test or
    its tail, and is then done or starts over (`tail` and `negative` pass through)."""
    x, fast, _ = _exponential_first(words[:1], p)
    _, makes, value, _ = _exponential_slow(words, np.zeros(1, np.int64), 2, 0, p)
    return np.where(fast, x, value)[0], (fast | makes)[0], np.where(fast, 1, 2)[0], tail, negative


def _exponential_slow(words, at, count: int, tails: int, p: _Precision):
    """As `_normal_slow`, for exponentials: a tail takes one more word, r - log1p(-u)."""
    x, _, layer = _exponential_first(_word(words, at, count), p)
    u = p.uniform(_word(words, at + 1, count))
    tail = layer == 0
    kept = _edge(x, layer, u, p.exponential_tables[2], lambda x: p.exp(-x))
    value = np.where(tail, p.exponential_r - p.log1p(-u), x)
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


#: The words a turn looks at (see `_in_turns`), and the most draws a call makes in turns, not in rounds.
TURN_WORDS, MOST_IN_TURNS = 64, 2048


def _draws(state, n: int, p: _Precision, first: Callable, slow: Callable, step: Callable):
    """`n` draws, and the state after them: up to MOST_IN_TURNS in turns (`_in_turns`), more in rounds
    (`_round`) of at most `loop.BLOCK` draws."""
    if n == 0:
        return np.zeros(0, p.dtype), state
    if n <= MOST_IN_TURNS:
        return _in_turns(state, n, p, first, step)
    block = min(n, loop.BLOCK)
    chunk, slots, tails = sizes(block)

    def round_(state, out, filled):
        words, after = streams.candidates(state, chunk, p.width)
        words = masks.once(words)
        out, filled, used = _round(words, out, filled, n, block, slots, lambda w, a, c: slow(w, a, c, tails), first)
        return after(used), out, filled

    start = (state, np.zeros(n + block, p.dtype), np.int64(0))
    state, out, _ = repeat_while(lambda state, out, filled: filled < n, round_, start)
    return out[:n], state


def _in_turns(state, n: int, p: _Precision, first: Callable, step: Callable):
    """`n` draws in turns, and the state after them. A turn makes the draws of the next TURN_WORDS
    words up to the first slow one at once, and then that one a turn of NumPy's loop (`step`: its
    edge test, or the start of its tail; in a tail, a try). There is a turn per slow draw (1.5% of
    words) or per TURN_WORDS words, of a few microseconds: up to MOST_IN_TURNS draws that runs about
    as fast as rounds (1024 normals: 190 against 175 us a call), and it compiles to 30 kernels where
    rounds take 130 (standard_normal(1000): XLA's compile 0.5 s, 1.5 s in rounds)."""
    width = min(n, TURN_WORDS)

    def turn(state, out, filled, tail, negative):
        words, after = streams.candidates(state, width + 1, p.width)
        value, done, _ = first(words[:width])
        fast = np.where(tail, 0, np.minimum(masks.leading(done), n - filled))
        at = filled + fast  # the slow draw's place, where this turn reaches one
        slow = tail | ((at < n) & (fast < width))
        drawn, made, used, next_tail, next_negative = step(words[np.minimum(fast + np.arange(2), width)], tail,
                                                           negative)
        out = masks.placed(masks.placed(out, value, filled), drawn.reshape(1), at)
        return after(fast + np.where(slow, used, 0)), out, at + (slow & made), slow & next_tail, next_negative

    words, after = streams.candidates(state, width, p.width)  # the first turn's draws before its slow one,
    value, done, _ = first(words)  # outside the loop: a few draws (a random walk's step) mostly need no turn
    fast = masks.leading(done)
    start = (after(fast), masks.placed(np.zeros(n + width, p.dtype), value, 0), fast, np.False_, np.False_)
    state, out, *_ = repeat_while(lambda state, out, filled, *_: filled < n, turn, start)
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
