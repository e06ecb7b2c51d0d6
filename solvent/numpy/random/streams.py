"""NumPy's raw draws from a PCG64 state, as array code: 64-bit words, 32-bit words through the
generator's one-word buffer, 8- and 16-bit parts of those, and Lemire's bounded integers with
their rejections.

A state is the uint64 vector [state high, state low, inc high, inc low, has_uint32, uinteger]
(NumPy's `bit_generator.state`, see `numpy.random.argument`). Each function returns its draws and
the state after them, exactly as NumPy's C code leaves it, and runs on NumPy arrays as on traced ones.
"""

from __future__ import annotations

import numpy as np

from solvent.numpy.random import masks, pcg64
from solvent.numpy.random.loop import blocked
from solvent.numpy.repeat import repeat_while
from solvent.numpy.values import is_traced

_LOW32 = np.uint64(0xFFFFFFFF)


def _parts(state):
    return (state[0], state[1]), (state[2], state[3]), state[4].astype(np.int64), state[5]


def _state(generator, inc, has, uinteger):
    return np.stack([generator[0], generator[1], inc[0], inc[1], has.astype(np.uint64), uinteger])


def words64(state, n: int):
    """n 64-bit words (NumPy's next_uint64, which leaves the 32-bit buffer alone), and the new state."""
    if n == 0:
        return np.zeros(0, np.uint64), state
    generator, inc, has, uinteger = _parts(state)
    words = pcg64.output(pcg64.states(generator, inc, n))
    return words, _state(pcg64.jump(generator, inc, n, n), inc, has, uinteger)


def words32(state, n: int):
    """n 32-bit words (NumPy's next_uint32: the buffered high half of a 64-bit word first, then each
    new word's low half and high half), and the state after them."""
    if n == 0:
        return np.zeros(0, np.uint64), state
    draws, after = words32_and_after(state, n)
    return draws, after(n)


def words32_and_after(state, n: int):
    """`n` 32-bit words, and a function giving the state after the first k of them (k may be traced)."""
    generator, inc, has, uinteger = _parts(state)
    count = n // 2 + 1
    words = pcg64.output(pcg64.states(generator, inc, count))
    halves = ((words[:, None] >> np.array([0, 32], np.uint64)) & _LOW32).reshape(-1)  # low, high, low, ...
    buffered_first = np.concatenate([uinteger.reshape(1), halves[:n - 1]])  # when a half is buffered
    draws = np.where(has == 1, buffered_first, halves[:n])

    def after(k):
        fresh = k - has  # halves taken from new words (-1: none, the buffer not used up either)
        used = np.maximum(fresh + 1, 0) // 2
        new_has = np.where(k > 0, fresh & 1, has)
        moved = pcg64.jump(generator, inc, used, count)
        new_uinteger = np.where(used > 0, pcg64.output(moved) >> 32, uinteger)  # the last word's high half
        return _state(moved, inc, new_has, new_uinteger)

    return draws, after


def bounded(state, n: int, span: int, width: int):
    """n integers in [0, span] by Lemire's method as NumPy draws them from `width`-bit words (8, 16,
    32 or 64), and the new state. A draw whose low product falls under the threshold is rejected and
    the next word taken: words are drawn in parallel, accepted ones packed in order, and (rarely)
    another round drawn until n are accepted. 8- and 16-bit words are the parts of 32-bit ones,
    low bits first; the parts of the last one left unused are dropped, as NumPy drops its buffer."""
    if n == 0:
        return np.zeros(0, np.uint64), state
    if width < 32:  # (not in blocks: NumPy drops the unused parts of the last word of each call)
        values, state = _bounded(np.concatenate([state, np.zeros(1, np.uint64)]), n, span, width)
        return values, whole_words(state)
    return blocked(_bounded, state, n, np.uint64, span, width)


def _bounded(state, n: int, span, width: int):
    """`bounded`'s draws; a traced span (uint64, at most 2^32 - 1 for 32-bit words) always takes the
    rejection test, which accepts every word where NumPy skips it, and 2^64 - 1 (excl 0) whole words."""
    if is_traced(span):
        excl = span + np.uint64(1)
        return _packed(state, n, excl, (np.uint64(2 ** width % 2 ** 64) - excl) % excl, width)
    excl = span + 1
    threshold = (2 ** width - excl) % excl
    if span == 2 ** width - 1 or threshold == 0:  # the whole range, or a power of two: no rejection
        words, after = candidates(state, n, width)
        return (words if span == 2 ** width - 1 else _scaled(words, excl, width)[0]), after(n)
    return _packed(state, n, excl, threshold, width)


def _uint64(x):
    return x if is_traced(x) else np.uint64(x)


def _scaled(words, excl, width: int):
    """(the drawn integers, the low products Lemire compares with the threshold)."""
    if width == 64:
        factor = _uint64(excl)
        high = pcg64.mulhi(words, factor)
        return (np.where(factor == 0, words, high) if is_traced(factor) else high), words * factor
    product = words * _uint64(excl)
    return product >> np.uint64(width), product & np.uint64(2 ** width - 1)


#: Candidate words drawn per round after the first rejection (see `_packed`).
CHUNK = 4096
#: The most draws whose candidates past the first ones `accepted` takes one at a time.
ONE_AT_A_TIME = 64


def _packed(state, n: int, excl: int, threshold: int, width: int):
    """n draws by Lemire's method, those whose low product is under the threshold rejected."""
    def judge(words):
        values, low = _scaled(words, excl, width)
        return values, low >= _uint64(threshold)
    return accepted(state, n, lambda state, count: candidates(state, count, width), judge, CHUNK)


def accepted(state, n: int, draw, judge, chunk: int, rare: bool = True, wanted=None, item: tuple = ()):
    """The first n draws a rejection method accepts, in order, and the state after the word that
    gave the last. `draw(state, count)` gives `count` candidate words (or rows of words) and a
    function giving the state after the first k of them; `judge(words)` gives (values, accepted).
    Rounds of `chunk` candidates are packed in order until n are accepted. Where rejections are
    `rare` (Lemire's), the first n words are drawn at once and the draws before the first rejected
    one stand, so that no round runs when nothing is rejected, the common case. Otherwise `wanted`
    (at most n, maybe traced) may say how many draws the state is to move past (the rest are drawn
    but not taken), and each value may be a row of shape `item`. Up to ONE_AT_A_TIME draws, what the
    first candidates leave is taken a candidate at a time rather than in rounds."""
    wanted = n if wanted is None else wanted

    def round_(state, out, filled):
        words, after = draw(state, chunk)
        values, good = judge(words)
        total = filled + np.cumsum(good)
        keep = good & (total <= n)
        out = masks.scatter(out, np.where(keep, total - 1, n), values)
        taken = np.minimum(np.sum(total < wanted) + 1, chunk)  # candidates up to and with the last one wanted
        return after(taken), out, np.minimum(total[-1], n)

    def one(state, out, filled):
        """The next candidate, kept at `filled` if accepted."""
        words, after = draw(state, 1)
        values, good = judge(words)
        return after(1), masks.placed(out, values, filled), filled + good[0]

    more = one if n <= ONE_AT_A_TIME else round_  # rounds compile to tens of kernels, for draws rarely made

    if not rare:  # the first round packs by positions (no scatter); more rounds are rare
        words, after = draw(state, chunk)
        values, good = judge(words)
        position, count = masks.first_positions(good, n)
        last = position[np.maximum(wanted - 1, 0)]
        taken = np.where(count >= wanted, np.where(wanted > 0, last + 1, 0), chunk)
        start = (after(taken), np.concatenate([values[position], np.zeros((1, *item), np.uint64)]),
                 np.minimum(count, n))
        state, out, _ = repeat_while(lambda s, o, filled: filled < wanted, more, start)
        return out[:n], state
    words, after = draw(state, n)
    values, kept = judge(words)
    kept = masks.leading(kept)  # the draws before the first rejection
    chunk = min(chunk, n)
    start = (after(np.minimum(kept + 1, n)), np.concatenate([values, np.zeros(1, values.dtype)]), kept)
    state, out, _ = repeat_while(lambda s, o, filled: filled < n, more, start)
    return out[:n], np.where(kept == n, after(n), state)


def candidates(state, count: int, width: int):
    """`count` words of `width` bits (1, 8 and 16: parts of 32-bit words, see `parts_of_words`),
    and a function giving the state after the first k of them."""
    if width < 32:
        return parts_of_words(state, count, width)
    if width == 32:
        return words32_and_after(state, count)
    generator, inc, _, _ = _parts(state)

    def after(k):
        return np.concatenate([np.stack(pcg64.jump(generator, inc, k, count)), state[2:]])
    return pcg64.output(pcg64.states(generator, inc, count)), after


def parts_of_words(state, count: int, bits: int, source=words32_and_after):
    """`count` `bits`-bit draws as NumPy's buffered_uint8/16 (and its single bits) take them, the low
    part of each 32-bit word first, from a state whose last entry counts the parts of its next word
    already used; and a function giving the state after the first k draws (in the same form). The
    words come from `source` (PCG64's; MT19937's for the legacy RandomState)."""
    per = 32 // bits
    used = state[-1].astype(np.int64)
    words, after_words = source(state[:-1], count // per + 2)
    shifts = np.arange(per, dtype=np.uint64) * np.uint64(bits)
    parts = ((words[:, None] >> shifts) & np.uint64(2 ** bits - 1)).reshape(-1)

    def after(k):
        position = used + k
        return np.concatenate([after_words(position // per), (position % per).astype(np.uint64).reshape(1)])
    return masks.window(parts, used, count), after


def whole_words(state, source=words32_and_after):
    """A state of `parts_of_words`' form as NumPy leaves it: a word whose parts were begun is used up."""
    return np.where(state[-1] > 0, source(state[:-1], 1)[1](1), state[:-1])
