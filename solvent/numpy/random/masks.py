"""Compaction of draws, which NumPy's C loops do one element at a time, as array code: boolean
masks packed 64 to a word (how many True come up to each position, where the first k True are:
XLA's cumulative sum over a million elements takes ten times what popcounts of the packed words
do), writes into new arrays, and values XLA must compute once or must not move out of a loop."""

from __future__ import annotations

import numpy as np

from solvent.core import trace
from solvent.numpy import values
from solvent.numpy.random.libm import lookup
from solvent.numpy.repeat import repeat_while
from solvent.numpy.values import is_traced
from solvent.ops import elementwise, scatter as ops, shape
from solvent.ops.base import create


def _bytes(mask):
    """A 1-d boolean mask packed 8 to a byte, shape (words, 8): bit j of byte (r, b) is
    mask[64 r + 8 b + j] (XLA packs bytes fast, and whole words from them)."""
    count = mask.shape[0]
    rows = -(-count // 64)
    bits = np.concatenate([mask, np.zeros(rows * 64 - count, bool)]).reshape(rows, 8, 8).astype(np.uint8)
    return np.sum(bits << np.arange(8, dtype=np.uint8), axis=2, dtype=np.uint8)


def packed(mask):
    """A 1-d boolean mask 64 to a word (bit j of word r: mask[64 r + j]), and the count of True
    before each word."""
    words = np.sum(_bytes(mask).astype(np.uint64) << (np.uint64(8) * np.arange(8, dtype=np.uint64)), axis=1,
                   dtype=np.uint64)
    per_row = np.bitwise_count(words).astype(np.int64)
    return words, np.cumsum(per_row) - per_row


def first_set(packed, before, k: int, count: int):
    """The positions of the first k True of a packed mask (`packed`), `count` past the last: the
    word of each by a search of the counts, the bit by halving the word with popcounts. Both run as
    loops: unrolled, XLA fused their steps again into each use of the result (two fifths of a
    ziggurat's compiled code)."""
    rank = np.arange(k)
    row = _rows(before + np.bitwise_count(packed).astype(np.int64), rank)
    inside = np.minimum(row, packed.shape[0] - 1)
    word, j = packed[inside], rank - before[inside]

    def halve(width, bit, j):
        part = (word >> bit.astype(np.uint64)) & ((np.uint64(1) << width.astype(np.uint64)) - np.uint64(1))
        low = np.bitwise_count(part).astype(np.int64)
        step = j >= low
        return width >> 1, np.where(step, bit + width, bit), np.where(step, j - low, j)

    start = (np.int64(32), np.zeros(k, np.int64), j)
    bit = repeat_while(lambda width, *_: width > 0, halve, start, reads=(word,))[1]
    return np.where(row < packed.shape[0], np.minimum(inside * 64 + bit, count), count)


def _rows(through, rank):
    """np.searchsorted(through, rank, side="right"), by a bisection."""
    rows = through.shape[0]

    def step(low, high):
        middle = (low + high) >> 1
        right = through[np.minimum(middle, rows - 1)] <= rank
        active = low < high
        return np.where(active & right, middle + 1, low), np.where(active & ~right, middle, high)

    start = (np.zeros(rank.shape, np.int64), np.full(rank.shape, rows, np.int64))
    return repeat_while(lambda low, high: np.any(low < high), step, start, reads=(through, rank))[0]


#: For each byte, the positions of its set bits, lowest first (then zeros): row m of (256, 8).
_SET_BITS = np.array([[j for j in range(8) if m >> j & 1] + [0] * (8 - bin(m).count("1")) for m in range(256)],
                     np.int64)


def first_positions(mask, k: int):
    """Where the first k True of a 1-d boolean mask are (past the count: some position of the mask),
    and the count of True. Bytes of the mask say where their True are (`_SET_BITS`); each of the k
    finds its byte by a running maximum of the bytes' first ranks, set only where a byte has True (a
    scatter of one in eight positions: XLA scatters an element at a time, and slowly)."""
    count = mask.shape[0]
    rows = -(-count // 8)
    bits = np.concatenate([mask, np.zeros(rows * 8 - count, bool)]).reshape(rows, 8).astype(np.uint8)
    byte = np.sum(bits << np.arange(8, dtype=np.uint8), axis=1, dtype=np.uint8)
    per_byte = np.bitwise_count(byte).astype(np.int64)
    first = np.cumsum(per_byte) - per_byte  # the rank of each byte's first True
    starts = scatter(np.zeros(k + 1, np.int64), np.where((per_byte > 0) & (first < k), first, k), np.arange(rows))
    row = np.maximum.accumulate(starts[:k])
    within = np.minimum(np.arange(k) - first[row], 7)
    bit = lookup(_SET_BITS.reshape(-1), byte[row].astype(np.int64) * 8 + within)
    return np.minimum(row * 8 + bit, count - 1), first[-1] + per_byte[-1]


def scatter(out, index, new, combine: str = "replace"):
    """out with out[index] = new (or, with `combine="or"`, out[index] |= new), out a new array (traced
    where index or new are) whose first axis `index` indexes, its entries distinct but for those that
    all go to one spare slot nobody reads (or, in an or, any). Traced, that is one stablehlo.scatter:
    NumPy's rule for repeated indices (the last write wins), which an index write must follow, would
    double its cost."""
    if not (is_traced(index) or is_traced(new)):
        out = out.copy()
        if combine == "or":
            np.bitwise_or.at(out, index, new)
        else:
            out[index] = new
        return out
    with trace.current().emitting():
        count = index.shape[0]
        join = (lambda old, update: [elementwise.binary("or", old, update)]) if combine == "or" else \
            (lambda old, update: [update])
        written = ops.scatter(values.value(out, out.dtype), shape.reshape(values.value(index, np.int64), [count, 1]),
                              values.value(new, out.dtype), [0], join)
        return values.wrap(written, scalar=False)


def marks(positions, size: int):
    """`positions` (those at `size` or past it left out) as a mask packed 64 to a word, and the count
    of marks before each word: `packed`'s form, made by one scatter of the positions' bits."""
    words = -(-size // 64)
    inside = positions < size
    bits = np.uint64(1) << (np.where(inside, positions, 0) & 63).astype(np.uint64)
    marked = scatter(np.zeros(words + 1, np.uint64), np.where(inside, positions // 64, words), bits, "or")[:words]
    per_word = np.bitwise_count(marked).astype(np.int64)
    return marked, np.cumsum(per_word) - per_word


def each(packed, before):
    """For every position of a packed mask (64 per word): whether it is set, and how many are set up to
    and with it; from broadcasts of each word, with no gather."""
    shifts = np.arange(64, dtype=np.uint64)
    below = (np.uint64(2) << shifts) - np.uint64(1)  # 2 << 63 wraps to 0: all set
    counts = before[:, None] + np.bitwise_count(packed[:, None] & below).astype(np.int64)
    return ((packed[:, None] >> shifts) & np.uint64(1) == 1).reshape(-1), counts.reshape(-1)


def counts_through(packed, before, position):
    """How many positions of a packed mask up to and with each of `position` (from 0 to its size - 1)
    are set: the count before its word, and the popcount of its word below and at it."""
    word = position // 64
    below = (np.uint64(2) << (position & 63).astype(np.uint64)) - np.uint64(1)  # 2 << 63 wraps to 0: all set
    return before[word] + np.bitwise_count(packed[word] & below).astype(np.int64)


def leading(mask):
    """How many entries of a 1-d boolean mask come before its first False (all of them: its length)."""
    return np.min(np.where(mask, mask.shape[0], np.arange(mask.shape[0])))


def placed(out, block, at):
    """out with out[at:at + len(block)] = block along its first axis (at traced or not; the block fits)."""
    if not (is_traced(out) or is_traced(block) or is_traced(at)):
        out = out.copy()
        out[at:at + block.shape[0]] = block
        return out
    with trace.current().emitting():
        return values.wrap(shape.dynamic_update_slice(values.value(out), values.value(block, out.dtype),
                                                      _starts(at, np.ndim(out))), scalar=False)


def window(x, at, size: int):
    """x[at:at + size] along its first axis (at traced or not; the window fits): one contiguous read,
    where an index array would be a gather XLA does not vectorize."""
    if not (is_traced(x) or is_traced(at)):
        return x[at:at + size]
    with trace.current().emitting():
        return values.wrap(shape.dynamic_slice(values.value(x), _starts(at, np.ndim(x)), [size, *np.shape(x)[1:]]),
                           scalar=False)


def _starts(at, ndim: int) -> list:
    """The start indices of a block at `at` along the first of `ndim` axes."""
    return [values.value(at, np.int64)] + [values.value(0, np.int64)] * (ndim - 1)


def once(x):
    """x, computed once: XLA would otherwise fuse what makes it (the words' PCG64 output, the
    tables looked up) into each of its users and compute it again there."""
    if not is_traced(x):
        return x
    with trace.current().emitting():
        v = values.value(x)
        return values.wrap(create("stablehlo.optimization_barrier", [v], [v.type]).result, scalar=False)


def tied(constants: tuple, anchor) -> tuple:
    """`constants` as if computed from `anchor` (one barrier over both): inside a loop that `anchor`
    varies in, no optimizer hoists them out, where a broadcast of them would become a whole array."""
    if not is_traced(anchor):
        return constants
    with trace.current().emitting():
        operands = [values.value(x) for x in (*constants, anchor)]
        barrier = create("stablehlo.optimization_barrier", operands, [v.type for v in operands])
        return tuple(values.wrap(r, scalar=False) for r in list(barrier.results)[:-1])
