"""NumPy's `choice` without replacement and with probabilities `p`, for both of its generators, as
array code: rounds of uniform doubles, each round searching them in the cumulative sums of the
probabilities not yet taken and keeping the first occurrence of each element drawn, until the
sample is full."""

from __future__ import annotations

import numpy as np

from solvent.numpy.random import forms, masks
from solvent.numpy.repeat import repeat_while


def cumulative_sum(x):
    """np.cumsum of a 1-d float array added left to right, as NumPy adds it (a compiled cumulative
    sum adds in a tree, which rounds otherwise): one element an iteration of a loop."""
    def step(i, total, sums, x):
        total = total + x[i]
        sums[i] = total
        return i + 1, total, sums, x
    start = (np.int64(0), np.float64(0.0), np.zeros(x.shape), x)
    return repeat_while(lambda i, *_: i < x.shape[0], step, start)[2]


def sample(state, p: np.ndarray, size: int, doubles):
    """`size` distinct indices drawn with probabilities `p` (known, checked), and the state after.
    `doubles(state, count)` gives `count` doubles' 53-bit integers and a function giving the state
    after the first k; a round takes one double for each index still to draw."""
    population = p.size
    if np.count_nonzero(p > 0) < size:
        raise ValueError("Fewer non-zero entries in p than size")
    if size == 0:
        return np.zeros(0, np.int64), state
    slot = np.arange(size)

    def round_(state, found, taken, weights):
        tops, after = doubles(state, size)
        wanted = size - taken  # the doubles this round draws
        cdf = cumulative_sum(weights[:population])
        new = np.searchsorted(cdf / cdf[-1], forms.double(tops), side="right")
        drawn = slot < wanted
        repeated = np.any((new[:, None] == new[None, :]) & (slot[None, :] < slot[:, None]) & drawn[None, :], axis=1)
        first = drawn & ~repeated  # each element's first draw, in order
        rank = np.cumsum(first) - first
        found = masks.scatter(found, np.where(first, taken + rank, size), new)
        weights = masks.scatter(weights, np.where(first, new, population), np.zeros(size))
        return after(wanted), found, taken + np.sum(first), weights

    start = (state, np.zeros(size + 1, np.int64), np.int64(0), np.concatenate([np.asarray(p, np.float64), [0.0]]))
    state, found, _, _ = repeat_while(lambda state, found, taken, _: taken < size, round_, start)
    return found[:size], state
