"""PCG64 and NumPy's raw draws as array code, run on NumPy arrays against NumPy's own generator:
the same words, the same bounded integers (rejections included) and the same state afterwards."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from solvent.numpy.random import pcg64, streams
from solvent.numpy.random.argument import GeneratorArgument

STATE = GeneratorArgument()
#: Host runs do scalar uint64 arithmetic, which wraps as meant and which NumPy warns about (arrays it does not).
pytestmark = pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")


def _pair(seed: int, buffered: bool):
    """Two generators in one state; `buffered`: a 32-bit draw left the other half in the buffer."""
    a = np.random.default_rng(seed)
    if buffered:
        a.integers(0, 2 ** 32, dtype=np.uint32)
    b = np.random.default_rng()
    b.bit_generator.state = a.bit_generator.state
    return a, b


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2 ** 64), st.integers(1, 3000))
def test_states_are_pcg64s_in_order(seed, n):
    a, b = _pair(seed, False)
    s = STATE.read(b)
    state, inc = (s[0:1], s[1:2]), (s[2:3], s[3:4])
    words = pcg64.output(pcg64.states(state, inc, n))
    assert np.array_equal(words, a.integers(0, 2 ** 64 - 1, size=n, dtype=np.uint64, endpoint=True))


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2 ** 32), st.booleans(), st.integers(0, 300))
def test_words_and_the_32_bit_buffer(seed, buffered, n):
    for width, draw in ((64, streams.words64), (32, streams.words32)):
        a, b = _pair(seed, buffered)
        dtype = np.uint64 if width == 64 else np.uint32
        want = a.integers(0, 2 ** width - 1, size=n, dtype=dtype, endpoint=True)
        got, state = draw(STATE.read(b), n)
        assert np.array_equal(got, want.astype(np.uint64))
        assert np.array_equal(state, STATE.read(a))


SPANS_32 = st.one_of(st.integers(1, 200), st.integers(2 ** 31 - 5, 2 ** 31 + 5), st.integers(1, 2 ** 32 - 1))
SPANS_64 = st.one_of(st.integers(2 ** 32, 2 ** 33), st.integers(2 ** 63 - 5, 2 ** 63 + 5), st.integers(2 ** 32, 2 ** 64 - 1))


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 2 ** 32), st.booleans(), st.integers(0, 200), st.one_of(SPANS_32, SPANS_64),
       st.sampled_from([np.uint64, np.uint32]))
def test_bounded_integers_as_lemire_draws_them(seed, buffered, n, span, dtype):
    if dtype is np.uint32 and span >= 2 ** 32:
        dtype = np.uint64
    a, b = _pair(seed, buffered)
    want = a.integers(0, span, size=n, dtype=dtype, endpoint=True)
    got, state = streams.bounded(STATE.read(b), n, span, 64 if span >= 2 ** 32 else 32)
    assert np.array_equal(got, want.astype(np.uint64))
    assert np.array_equal(state, STATE.read(a))


def test_a_range_rejecting_half_its_draws_takes_more_rounds():
    a, b = _pair(3, False)
    span = 2 ** 31  # 2^32 mod (2^31 + 1) = 2^31 - 1: nearly half the words are rejected
    want = a.integers(0, span, size=5000, dtype=np.uint32, endpoint=True)
    got, state = streams.bounded(STATE.read(b), 5000, span, 32)
    assert np.array_equal(got, want.astype(np.uint64)) and np.array_equal(state, STATE.read(a))


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 2 ** 32), st.booleans(), st.integers(0, 200), st.sampled_from([8, 16]), st.data())
def test_8_and_16_bit_integers_as_numpy_takes_them_from_32_bit_words(seed, buffered, n, bits, data):
    """Parts of 32-bit words, low bits first; the unused parts of the last word dropped."""
    span = data.draw(st.one_of(st.integers(1, 5), st.integers(1, 2 ** bits - 1),
                               st.integers(2 ** (bits - 1) - 2, 2 ** (bits - 1) + 2)))
    a, b = _pair(seed, buffered)
    want = a.integers(0, span, size=n, dtype=np.uint8 if bits == 8 else np.uint16, endpoint=True)
    got, state = streams.bounded(STATE.read(b), n, span, bits)
    assert np.array_equal(got, want.astype(np.uint64))
    assert np.array_equal(state, STATE.read(a))


def test_a_16_bit_range_rejecting_half_its_draws_takes_more_rounds():
    a, b = _pair(5, True)
    span = 2 ** 15  # 2^16 mod (2^15 + 1) = 2^15 - 1
    want = a.integers(0, span, size=9000, dtype=np.uint16, endpoint=True)
    got, state = streams.bounded(STATE.read(b), 9000, span, 16)
    assert np.array_equal(got, want.astype(np.uint64)) and np.array_equal(state, STATE.read(a))


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2 ** 32), st.integers(1, 40), st.integers(0, 2), st.integers(1, 8), st.booleans(),
       st.booleans())
def test_accepted_draws_one_at_a_time_or_in_rounds_as_a_filter_of_the_stream(seed, n, short, chunk, rare, rounds):
    """`accepted` where its first candidates leave draws to make (a byte under 100 accepted: 39%),
    the rest taken a candidate at a time (n <= ONE_AT_A_TIME) or, `rounds`, in rounds of `chunk`:
    the accepted values in order, and the state after the last one wanted, as a filter of the words."""
    state = STATE.read(_pair(seed, False)[0])
    words, after = streams.candidates(state, 400, 32)
    good = np.flatnonzero(words & np.uint64(0xFF) < 100)
    wanted = n if rare else max(n - short, 0)

    def judge(drawn):
        return drawn & np.uint64(0xFF), drawn & np.uint64(0xFF) < 100

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(streams, "ONE_AT_A_TIME", 0 if rounds else streams.ONE_AT_A_TIME)
        got, end = streams.accepted(state, n, lambda s, count: streams.candidates(s, count, 32), judge, chunk,
                                    rare=rare, wanted=None if rare else wanted)
    assert np.array_equal(got[:wanted], words[good[:wanted]] & np.uint64(0xFF))
    assert np.array_equal(end, after(good[wanted - 1] + 1 if wanted else 0))
