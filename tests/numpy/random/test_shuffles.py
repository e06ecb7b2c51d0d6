"""NumPy's shuffles and samples without replacement as array code, run on NumPy arrays against
NumPy's own generator over many seeds: the same orders, samples and state afterwards."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from solvent.numpy.random import shuffles
from solvent.numpy.random.argument import GeneratorArgument

STATE = GeneratorArgument()
pytestmark = pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")  # see test_streams


def _pair(seed: int, buffered: bool):
    a, b = np.random.default_rng(seed), np.random.default_rng(seed)
    if buffered:
        for g in (a, b):
            g.integers(0, 2 ** 32, dtype=np.uint32)
    return a, b


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2 ** 64), st.booleans(), st.integers(0, 600))
def test_shuffle_masks_and_rejects_as_random_interval(seed, buffered, n):
    a, b = _pair(seed, buffered)
    x = np.arange(n)
    a.shuffle(x)
    order, state = shuffles.shuffled(STATE.read(b), n, 1, shuffles.masked)
    STATE.write(b, state)
    assert np.array_equal(order[0], x) and a.bit_generator.state == b.bit_generator.state


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2 ** 64), st.booleans(), st.integers(0, 40), st.integers(0, 5))
def test_permuted_shuffles_each_lane_from_the_first_element(seed, buffered, n, lanes):
    a, b = _pair(seed, buffered)
    want = a.permuted(np.arange(n * lanes).reshape(lanes, n), axis=1)
    order, state = shuffles.shuffled(STATE.read(b), n, 0, shuffles.masked, lanes)
    STATE.write(b, state)
    assert np.array_equal(order + n * np.arange(lanes)[:, None], want)
    assert a.bit_generator.state == b.bit_generator.state


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2 ** 64), st.booleans(), st.integers(0, 3000), st.integers(0, 300))
def test_floyds_sample(seed, buffered, population, size):
    size = min(size, population)
    a, b = _pair(seed, buffered)
    want = a.choice(population, size, replace=False, shuffle=False) if population <= 10000 else None
    out, state = shuffles.floyd(STATE.read(b), population, size)
    STATE.write(b, state)
    assert np.array_equal(out, want) and a.bit_generator.state == b.bit_generator.state


@pytest.mark.parametrize("seed", range(6))
def test_samples_of_large_populations(seed):
    """Floyd's sample of a few of 2^20, and the tail of a Lemire shuffle of 20000 (NumPy's path for
    a large part of a large population)."""
    a, b = _pair(seed, bool(seed % 2))
    few, most = a.choice(2 ** 20, 5, replace=False, shuffle=False), a.choice(20000, 1500, replace=False, shuffle=False)
    out, state = shuffles.floyd(STATE.read(b), 2 ** 20, 5)
    order, state = shuffles.shuffled(state, 20000, 20000 - 1500, shuffles.lemire)
    STATE.write(b, state)
    assert np.array_equal(out, few) and np.array_equal(order[0, 20000 - 1500:], most)
    assert a.bit_generator.state == b.bit_generator.state
