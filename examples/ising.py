"""The 2-D Ising model by Metropolis Monte Carlo, in plain NumPy.

Each step picks a random site of an ``n`` x ``n`` lattice of spins (+1 or -1, periodic at the
edges) and flips it with Metropolis' probability: always when that lowers the energy, else with
probability ``exp(-beta * dE)``. Random numbers come from a ``np.random.Generator`` passed in.
Nothing here imports solvent: the demo runs the very same ``metropolis`` with NumPy and with
``solvent.jit(metropolis)`` on two generators seeded alike, and gets the same lattice, spin for
spin, and the generators in the same state.

Example::

    rng = np.random.default_rng(0)
    spins = random_lattice(64, rng)
    metropolis(spins, rng, 0.44, 10_000)
"""

import numpy as np


def random_lattice(n, rng):
    """An ``n`` x ``n`` lattice of spins drawn at random."""
    return np.where(rng.random((n, n)) < 0.5, -1, 1)


def metropolis(spins, rng, beta, steps):
    """``steps`` single-spin Metropolis updates of ``spins`` in place; returns the magnetisation."""
    n = spins.shape[0]
    for _ in range(steps):
        i = rng.integers(n)
        j = rng.integers(n)
        s = spins[i, j]
        neighbours = spins[(i + 1) % n, j] + spins[i - 1, j] + spins[i, (j + 1) % n] + spins[i, j - 1]
        energy = 2 * s * neighbours
        if energy <= 0:
            spins[i, j] = -s
        elif rng.random() < np.exp(-beta * energy):
            spins[i, j] = -s
    return spins.mean()
