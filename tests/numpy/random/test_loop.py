"""Streams of draws made in blocks (`loop.blocked`, with blocks made small here): compiled, the same
bits as NumPy's one call and the generator left in NumPy's state, with blocks that divide the draws
and blocks that leave a rest."""

from __future__ import annotations

import numpy as np
import pytest

import solvent
from solvent.numpy.random import loop


def _legacy(rs):
    return (rs.standard_normal(51), rs.randint(0, 1000, 50), rs.randint(0, 2 ** 40, 33, dtype=np.int64),
            rs.standard_exponential(45))


def _generator(rng):
    return rng.integers(0, 1000, 50), rng.integers(0, 2 ** 40, 33), rng.standard_normal(40)


@pytest.mark.parametrize("block", [7, 16])
def test_streams_in_blocks_are_numpys(block, monkeypatch):
    monkeypatch.setattr(loop, "BLOCK", block)
    for draw, make, state in ((_legacy, np.random.RandomState, lambda g: g.get_state(legacy=False)),
                              (_generator, np.random.default_rng, lambda g: g.bit_generator.state)):
        ours, numpys = make(5), make(5)
        jitted = solvent.jit(draw)
        for _ in range(2):
            for got, want in zip(jitted(ours), draw(numpys)):
                assert got.dtype == want.dtype and np.array_equal(got, want)
            assert repr(state(ours)) == repr(state(numpys))
