"""The per-function cache of compiled signatures: bounded, least recently used evicted first."""

import numpy as np
import pytest

import solvent
from solvent.compiler.lower import Options

pytestmark = pytest.mark.filterwarnings("ignore::solvent.RecompileWarning")  # many signatures on purpose


def test_the_cache_keeps_the_most_recently_used_signatures():
    f = solvent.jit(lambda x: x + 1, cache_size=4)
    for n in range(1, 11):
        f(np.zeros(n))
    assert len(f.cache) == 4
    f(np.zeros(7))           # used again: kept
    f(np.zeros(11))          # evicts the least recently used, 8
    kept = sorted(key[0][1][0] for key in f.cache.entries)  # keys of one array: (type, shape, dtype)
    assert kept == [7, 9, 10, 11]
    np.testing.assert_array_equal(f(np.zeros(8)), np.ones(8))  # compiled again when needed


def test_a_function_called_with_ever_new_shapes_stays_bounded():
    f = solvent.jit(lambda x: x * 2)
    for n in range(1, 200):
        f(np.zeros(n))
    assert len(f.cache) == Options().cache_size


def test_static_zeros_of_either_sign_and_nans_are_signatures_of_their_own():
    # -0.0 == 0.0: both the call key and the fast path's guard took one for the other
    f = solvent.jit(lambda x, s: 1.0 / (x * s))
    x = np.ones(2)
    for s in (0.0, -0.0, 0.0, np.float64(-0.0), np.float64(0.0), -0.0, float("nan"), 2.0):
        with np.errstate(divide="ignore", invalid="ignore"):
            np.testing.assert_array_equal(f(x, s), 1.0 / (x * s))
