"""Unsigned loop carries as signless integers before batching (`passes.signless_carries`): the
loop carries no unsigned type afterwards, keeps its meaning, and modules without one are kept."""

import re

import numpy as np

import solvent
from solvent.ir.context import context
from solvent.passes import signless_carries


def halvings(x):
    n, s = np.uint64(0), np.sum(x)
    while s > 1.0:
        s = s / 2.0
        n += np.uint64(3)
    return n


def test_unsigned_carries_become_signless_and_the_loop_keeps_its_meaning():
    x = np.arange(40.0)
    text = solvent.code_hlo(halvings, x, optimize=False)
    with context():
        rewritten = signless_carries.signless(text)
    carried = lambda t: re.findall(r"stablehlo\.while\(.*\) : (.*)", t)
    assert "ui64" in carried(text)[0] and "ui64" not in carried(rewritten)[0]
    assert solvent.jit(lambda xs: solvent.vmap(halvings)(xs))(np.stack([x, x / 100])).tolist() == \
        [halvings(x), halvings(x / 100)]
    plain = solvent.code_hlo(lambda x: x * 2.0, x, optimize=False)
    assert signless_carries.signless(plain) is plain
