"""NumPy's ziggurat draws (of float64 and float32) as array code, run on NumPy arrays against NumPy
itself: values and the state after, over seeds and sizes where the slow draws (layer edges and
tails) are many, and with rounds so small that draws straddle them; tails past the places a round
has for them, and tails among draws made in turns; and the tables, as NumPy's own binary holds them."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import solvent
from solvent.numpy.random import loop, streams, ziggurat, ziggurat_tables
from solvent.numpy.random.argument import GeneratorArgument

pytestmark = pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")  # see test_streams

METHODS = {f"{name} {np.dtype(dtype)}": (draw, method, dtype)
           for name, draw, method in (("normal", ziggurat.normals, "standard_normal"),
                                      ("exponential", ziggurat.exponentials, "standard_exponential"))
           for dtype in (np.float64, np.float32)}


def _check(kind: str, seed: int, n: int):
    draw, method, dtype = METHODS[kind]
    rng = np.random.default_rng(seed)
    values, state = draw(GeneratorArgument().read(rng), n, dtype)
    want = getattr(rng, method)(n, dtype=dtype)
    assert values.dtype == dtype and np.array_equal(values, want)
    assert np.array_equal(np.signbit(values), np.signbit(want))
    assert np.array_equal(state, GeneratorArgument().read(rng))


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2 ** 32), st.integers(0, 30000))
@pytest.mark.parametrize("kind", METHODS)
def test_draws_as_numpy(kind, seed, n):
    _check(kind, seed, n)


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2 ** 32), n=st.integers(1, 3000), chunk=st.integers(3, 40), slots=st.integers(1, 4),
       tails=st.integers(1, 2), block=st.integers(1, 50))
@pytest.mark.parametrize("kind", METHODS)
def test_rounds_too_small_for_their_draws(kind, seed, n, chunk, slots, tails, block):
    """Rounds of a few words, slow starts and draws: draws end in the next round, slow starts go
    without a slot, tails need more words than a round has, a round's words make more draws than it
    may write."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ziggurat, "sizes", lambda n: (chunk, slots, tails))
        patch.setattr(ziggurat, "MOST_IN_TURNS", 0)
        patch.setattr(loop, "BLOCK", block)
        _check(kind, seed, n)


def _first_slow(kind: str, seed: int) -> int:
    """Where the first slow draw of a fresh generator's stream starts (past a turn: TURN_WORDS + 1)."""
    _, _, dtype = METHODS[kind]
    precision = ziggurat._precision(dtype)
    first = ziggurat._normal_first if kind.startswith("normal") else ziggurat._exponential_first
    state = GeneratorArgument().read(np.random.default_rng(seed))
    words, _ = streams.candidates(state, ziggurat.TURN_WORDS + 1, precision.width)
    done = first(words, precision)[1]
    return int(np.argmin(done)) if not done.all() else ziggurat.TURN_WORDS + 1


@pytest.mark.parametrize("kind", METHODS)
def test_draws_around_the_first_slow_one_of_a_turn(kind):
    """A turn makes the draws before the first slow one at once, then that one: a slow draw first, one
    just inside and just past the first turn's words, and none in them, each with sizes up to it, at
    it, past it, past a turn, and in rounds."""
    turn = ziggurat.TURN_WORDS
    wanted = {0: None, 1: None, turn - 1: None, turn: None, turn + 1: None}
    for seed in range(20000):
        position = _first_slow(kind, seed)
        if position in wanted and wanted[position] is None:
            wanted[position] = seed
            if None not in wanted.values():
                break
    assert None not in wanted.values(), wanted
    for position, seed in wanted.items():
        for n in {1, max(position, 1), position + 1, position + 2, turn, turn + 3, 300, ziggurat.MOST_IN_TURNS + 1}:
            _check(kind, seed, n)


def _tail_first(dtype, accepted: bool) -> int:
    """A seed whose stream's first slow normal within the first turn's words is a tail, its first try
    `accepted` or not (a tail starts at one word in 4000: a few thousand seeds hold one)."""
    precision = ziggurat._precision(dtype)
    for seed in range(40000):
        words, _ = streams.candidates(GeneratorArgument().read(np.random.default_rng(seed)),
                                      ziggurat.TURN_WORDS + 2, precision.width)
        _, fast, layer = ziggurat._normal_first(words, precision)
        start = int(np.argmin(fast))
        if not fast[start] and layer[start] == 0 and start < ziggurat.TURN_WORDS:
            if ziggurat._tail_try(words[[start + 1, start + 2]], np.False_, precision)[0][0] == accepted:
                return seed
    raise AssertionError("no such seed")


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_tails_among_draws_made_in_turns(dtype):
    """A tail begun in the first turn, accepted at its first try or not: as array code, and compiled
    (one program for both seeds)."""
    seeds = [_tail_first(dtype, accepted) for accepted in (True, False)]
    n = ziggurat.TURN_WORDS + 10
    jitted = solvent.jit(lambda rng: rng.standard_normal(n, dtype))
    for seed in seeds:
        _check(f"normal {np.dtype(dtype)}", seed, n)
        ours, numpys = np.random.default_rng(seed), np.random.default_rng(seed)
        assert np.array_equal(jitted(ours), numpys.standard_normal(n, dtype))
        assert ours.bit_generator.state == numpys.bit_generator.state


@settings(max_examples=20, deadline=None)
@given(st.lists(st.integers(0, 2 ** 64 - 1), min_size=12, max_size=12), st.integers(1, 3))
def test_tails_past_their_places_are_left_not_complete(noise, places):
    """Three normal tails (base layer, a point past its threshold) among slow starts: with fewer places
    for tails than tails, those past the places are not complete, the rest as with room for all."""
    words = np.array(noise, np.uint64)
    tail = np.uint64((2 ** 52 - 1) << 9)  # layer 0, the largest point
    words[[0, 4, 8]] = tail
    at = np.array([0, 4, 8, 12])  # the last: no start (past the words)
    wide = ziggurat._normal_slow(words, at, 12, 3, ziggurat._DOUBLE)
    narrow = ziggurat._normal_slow(words, at, 12, places, ziggurat._DOUBLE)
    assert not narrow[3][places:3].any()
    for got, want in zip(narrow, wide):
        assert np.array_equal(got[:places], want[:places])


def test_tables_are_those_numpy_is_built_with():
    """Each table, as bytes, lies in the binary of NumPy's Generator that this process imports."""
    with open(np.random._generator.__file__, "rb") as compiled:
        binary = compiled.read()
    for name in ("KI", "WI", "FI", "KE", "WE", "FE", "KI_F", "WI_F", "FI_F", "KE_F", "WE_F", "FE_F"):
        assert getattr(ziggurat_tables, name).tobytes() in binary, name
