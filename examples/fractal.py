"""The Mandelbrot set by escape time, in plain NumPy with boolean masks.

Each step squares and shifts only the points that have not escaped yet (``z[alive] = ...``),
and counts the steps each point stays bounded, as NumPy tutorials write it. Nothing here
imports solvent: the demo runs the very same ``escape_counts`` with NumPy and with
``solvent.jit(escape_counts)``.

Example::

    c = grid(200)
    counts = escape_counts(c, 50)
"""

import numpy as np

HORIZON = 2.0


def grid(n, xmin=-2.25, xmax=0.75, ymin=-1.5, ymax=1.5):
    """An ``n x n`` grid of points of the complex plane."""
    x = np.linspace(xmin, xmax, n)
    y = np.linspace(ymin, ymax, n)
    return x[np.newaxis, :] + 1j * y[:, np.newaxis]


def escape_counts(c, iterations):
    """How many steps of z -> z**2 + c each point of ``c`` stays within the horizon."""
    z = np.zeros_like(c)
    counts = np.zeros(c.shape, dtype=np.int64)
    for _ in range(iterations):
        alive = np.abs(z) <= HORIZON
        z[alive] = z[alive] ** 2 + c[alive]
        counts[alive] += 1
    return counts
