"""Packing accepted draws: where the first k True of a mask are, on NumPy arrays and compiled,
against np.nonzero; packed masks and their counts against np.cumsum; and the one-scatter writes."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

import solvent
from solvent.numpy.random import masks


@settings(max_examples=100, deadline=None)
@given(st.lists(st.booleans(), min_size=1, max_size=300), st.integers(1, 300))
def test_first_positions_are_nonzeros(mask, k):
    mask = np.array(mask)
    position, count = masks.first_positions(mask, k)
    found = np.nonzero(mask)[0][:k]
    assert count == mask.sum() and np.array_equal(position[:len(found)], found)
    assert position.shape == (k,) and np.all((0 <= position) & (position < mask.size))


def test_first_positions_compiled():
    mask = np.random.default_rng(3).random(100003) < 0.78
    position, count = solvent.jit(lambda m: masks.first_positions(m, 70000))(mask)
    assert count == mask.sum() and np.array_equal(position, np.nonzero(mask)[0][:70000])


def test_scatter_of_distinct_positions_and_a_spare_slot():
    index = np.array([3, 5, 5, 0, 5])  # 5: the spare slot, written three times
    new = np.arange(10.0, 60.0, 10.0).reshape(5, 1) * np.ones((1, 2))
    got = solvent.jit(lambda i, v: masks.scatter(np.zeros((6, 2)), i, v))(index, new)
    want = masks.scatter(np.zeros((6, 2)), index, new)
    assert np.array_equal(got[:5], want[:5]) and np.array_equal(want[[3, 0]], new[[0, 3]])


@settings(max_examples=50, deadline=None)
@given(st.lists(st.booleans(), min_size=1, max_size=300), st.integers(1, 40))
def test_packed_masks_count_as_cumsum(mask, k):
    """A mask packed from booleans or marked from positions: its bits, the counts up to each position
    (all at once and at some), and where its first k True are."""
    mask = np.array(mask, bool)
    packed, before = masks.packed(mask)
    marked = masks.marks(np.append(np.flatnonzero(mask), [mask.size, mask.size + 5]), mask.size)
    assert np.array_equal(marked[0], packed) and np.array_equal(marked[1], before)
    bits, counts = masks.each(packed, before)
    assert np.array_equal(bits[:mask.size], mask) and np.array_equal(counts[:mask.size], np.cumsum(mask))
    positions = np.arange(mask.size)[::7]
    assert np.array_equal(masks.counts_through(packed, before, positions), np.cumsum(mask)[positions])
    first = np.append(np.flatnonzero(mask), np.full(k, mask.size))[:k]
    assert np.array_equal(masks.first_set(packed, before, k, mask.size), first)
