"""Global sequence alignment (Needleman-Wunsch) by dynamic programming, in plain NumPy.

The score table is filled cell by cell as textbooks write it: each cell takes the best
of a diagonal step (match or mismatch) and a gap in either sequence, with Python's
``max``. Sequences are integer arrays (0-3 for DNA bases). Nothing here imports solvent:
the demo runs the very same ``score`` with NumPy and with ``solvent.jit(score)``.

Example::

    a, b = random_pair(200)
    best = score(a, b)
"""

import numpy as np

MATCH, MISMATCH, GAP = 1.0, -1.0, -2.0


def random_pair(n, seed=0):
    """Two related DNA sequences of length ``n``: the second is the first with random mutations."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 4, n)
    b = a.copy()
    mutated = rng.random(n) < 0.3
    b[mutated] = rng.integers(0, 4, mutated.sum())
    return a, b


def score(a, b):
    """The best global alignment score of sequences ``a`` and ``b`` (and the table it fills)."""
    n, m = len(a), len(b)
    table = np.zeros((n + 1, m + 1))
    for i in range(1, n + 1):
        table[i, 0] = i * GAP
    for j in range(1, m + 1):
        table[0, j] = j * GAP
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            diagonal = table[i - 1, j - 1] + (MATCH if a[i - 1] == b[j - 1] else MISMATCH)
            table[i, j] = max(diagonal, table[i - 1, j] + GAP, table[i, j - 1] + GAP)
    return table[n, m], table
