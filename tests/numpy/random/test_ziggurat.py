"""NumPy's ziggurat draws as array code, run on NumPy arrays against NumPy itself: values and the
state after, over seeds and sizes where the slow draws (layer edges and tails) are many, and with
rounds so small that draws straddle them; and the packed counts the rounds are built on."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from solvent.numpy.random import masks, ziggurat
from solvent.numpy.random.argument import GeneratorArgument

pytestmark = pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")  # see test_streams

METHODS = {"normal": (ziggurat.normals, "standard_normal"),
           "exponential": (ziggurat.exponentials, "standard_exponential")}


def _check(kind: str, seed: int, n: int):
    draw, method = METHODS[kind]
    rng = np.random.default_rng(seed)
    values, state = draw(GeneratorArgument().read(rng), n)
    want = getattr(rng, method)(n)
    assert values.dtype == np.float64 and np.array_equal(values.view(np.uint64), want.view(np.uint64))
    assert np.array_equal(state, GeneratorArgument().read(rng))


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2 ** 32), st.integers(0, 30000))
@pytest.mark.parametrize("kind", METHODS)
def test_draws_as_numpy(kind, seed, n):
    _check(kind, seed, n)


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2 ** 32), n=st.integers(1, 3000), chunk=st.integers(3, 40), slots=st.integers(1, 4))
@pytest.mark.parametrize("kind", METHODS)
def test_rounds_too_small_for_their_draws(kind, seed, n, chunk, slots):
    """Rounds of a few words and slow starts: draws end in the next round, slow starts go without a
    slot, tails need more words than a round has."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ziggurat, "sizes", lambda n: (chunk, slots))
        _check(kind, seed, n)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.booleans(), min_size=1, max_size=300), st.integers(1, 40))
def test_counts_and_positions_of_a_packed_mask(mask, k):
    mask = np.array(mask, bool)
    assert np.array_equal(masks.counts_before(mask), np.cumsum(mask) - mask)
    packed, before = masks.packed(mask)
    positions = np.append(np.flatnonzero(mask), np.full(k, mask.size))[:k]
    assert np.array_equal(masks.first_set(packed, before, k, mask.size), positions)
