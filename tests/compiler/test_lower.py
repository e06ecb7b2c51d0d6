"""Lowering: a compilation runs the stages of STAGES in their order, and times each."""

import numpy as np

import solvent
from solvent.compiler.lower import STAGES


def test_a_compilation_runs_every_stage_in_order():
    def step(u):
        u[1:-1] += 0.5 * (u[2:] - u[:-2])  # mutated: donation in the export stage
        return np.sum(u)

    seconds = solvent.compile(step, np.zeros(8)).seconds
    assert list(seconds) == [name for name, _ in STAGES]
    assert all(t >= 0.0 for t in seconds.values())
