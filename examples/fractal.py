"""The Mandelbrot set by escape time, in plain NumPy with boolean masks, written two ways.

``escape_counts`` squares and shifts only the points that have not escaped yet (``z[alive] =
...``) and counts the steps each point stays bounded, as NumPy tutorials write it.
``escape_times`` shrinks its working set instead, as in Rougier's "From Python to NumPy": each
step drops the points that escaped (``z = z[~escaped]``) and records when they did, so the arrays
get shorter from one step to the next. Nothing here imports solvent: the demo runs the very same
functions with NumPy and with ``solvent.jit``.

Example::

    c = grid(200)
    counts = escape_counts(c, 50)
    times = escape_times(c, 50)
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


def escape_times(c, iterations):
    """The step at which each point of ``c`` left the horizon (0 if it never did), computing
    only on the points still inside it."""
    times = np.zeros(c.shape, dtype=np.int64)
    rows, columns = np.mgrid[0:c.shape[0], 0:c.shape[1]]
    c, rows, columns = c.ravel(), rows.ravel(), columns.ravel()
    z = np.zeros_like(c)
    for i in range(iterations):
        z = z ** 2 + c
        escaped = np.abs(z) > HORIZON
        times[rows[escaped], columns[escaped]] = i + 1
        z, c = z[~escaped], c[~escaped]
        rows, columns = rows[~escaped], columns[~escaped]
    return times
