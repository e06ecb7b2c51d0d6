"""MT19937 as array code, run on NumPy arrays against NumPy's own legacy generator: the same words,
doubles and state, from any position in the key and across twists."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

from solvent.numpy.random import legacy, mt19937


def _after(seed: int, used: int) -> np.random.RandomState:
    generator = np.random.RandomState(seed)
    generator.randint(0, 2 ** 32, size=used, dtype=np.uint32)  # one word each
    return generator


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2 ** 32 - 1), st.integers(0, 1300), st.integers(0, 2000))
def test_words_and_state_from_any_position(seed, used, n):
    generator = _after(seed, used)
    words, state = mt19937.words32(legacy.host_state(generator), n)
    expected = generator.randint(0, 2 ** 32, size=n, dtype=np.uint32)
    assert words.dtype == np.uint64 and np.array_equal(words, expected.astype(np.uint64))
    assert np.array_equal(state, legacy.host_state(generator))


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2 ** 32 - 1), st.integers(0, 700), st.integers(0, 800), st.integers(0, 800))
def test_state_after_part_of_the_words(seed, used, n, k):
    k = min(k, n)
    generator = _after(seed, used)
    _, after = mt19937.words32_and_after(legacy.host_state(generator), n)
    generator.randint(0, 2 ** 32, size=k, dtype=np.uint32)
    assert np.array_equal(after(np.int64(k)), legacy.host_state(generator))


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2 ** 32 - 1), st.integers(0, 700), st.integers(0, 1500))
def test_doubles_are_random_samples(seed, used, n):
    generator = _after(seed, used)
    top, state = mt19937.doubles(legacy.host_state(generator), n)
    assert np.array_equal(top.astype(np.float64) / 2.0 ** 53, generator.random_sample(n))
    assert np.array_equal(state, legacy.host_state(generator))


def test_host_state_round_trip_keeps_the_cached_gaussian():
    generator = np.random.RandomState(4)
    generator.standard_normal()  # caches the second of a pair
    copy = np.random.RandomState(0)
    legacy.set_host_state(copy, legacy.host_state(generator))
    assert copy.get_state(legacy=False)["has_gauss"] == 1
    assert copy.standard_normal(5).tolist() == generator.standard_normal(5).tolist()
