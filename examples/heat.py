"""The 2-D heat equation solved by explicit finite differences, in plain NumPy.

The temperature ``u`` lives on an ``n x n`` grid with unit spacing; the
outermost ring of cells is a fixed cold boundary (Dirichlet, ``u = 0``).  One
explicit Euler step of ``du/dt = alpha * laplacian(u)`` updates the interior in
place with the five-point stencil.  The scheme is stable while
``alpha * dt <= 1/4``.

Nothing here imports solvent: the demo runs the very same ``step`` with NumPy
and with ``solvent.jit(step)``.

Example::

    u = initial_condition(64)
    run(step, u, steps=10)          # u now holds the temperature after 10 steps
"""

import numpy as np

ALPHA = 1.0
"""Thermal diffusivity, in grid cells squared per unit time."""

DT = 0.2
"""Time step; ``ALPHA * DT = 0.2`` is inside the stability limit of 0.25."""


def initial_condition(n=512):
    """Return an ``n x n`` float64 grid: a hot square (1.0) in a cold plate (0.0).

    The square covers the middle quarter of the plate, so heat takes about
    ``(n / 4) ** 2 / (4 * ALPHA)`` time units to reach the boundary; until then
    the total heat is conserved.

    >>> initial_condition(8)[3, 3], initial_condition(8)[0, 0]
    (np.float64(1.0), np.float64(0.0))
    """
    u = np.zeros((n, n))
    lo, hi = 3 * n // 8, 5 * n // 8
    u[lo:hi, lo:hi] = 1.0
    return u


def step(u, alpha, dt):
    """Advance ``u`` by one explicit Euler step, in place.

    ``alpha`` and ``dt`` are Python floats, so solvent treats them as
    compile-time constants.  The right-hand side is evaluated in full before
    the in-place addition, exactly as NumPy does, so every cell sees the old
    values of its neighbours.

    >>> u = initial_condition(8)
    >>> step(u, 1.0, 0.2)
    >>> float(u[3, 3]), float(u[2, 3])
    (0.6, 0.2)
    """
    u[1:-1, 1:-1] += alpha * dt * (
        u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2] - 4 * u[1:-1, 1:-1]
    )


def run(step_fn, u, steps, alpha=ALPHA, dt=DT):
    """Call ``step_fn(u, alpha, dt)`` ``steps`` times and return ``u``.

    ``step_fn`` is :func:`step` itself or ``solvent.jit(step)``; ``u`` is a
    ``numpy.ndarray`` or a ``solvent.Array``, updated in place either way.

    >>> float(run(step, initial_condition(16), 3).sum())  # heat is conserved
    16.0
    """
    for _ in range(steps):
        step_fn(u, alpha, dt)
    return u


def simulate(u, steps, alpha=ALPHA, dt=DT):
    """Advance ``u`` by ``steps`` time steps in place, in one call.

    Plain NumPy; under ``solvent.jit`` the loop becomes one ``stablehlo.while``
    (``steps`` is a compile-time constant above the unroll threshold), so the
    whole time loop runs inside XLA.

    >>> float(simulate(initial_condition(16), 3).sum())
    16.0
    """
    for _ in range(steps):
        step(u, alpha, dt)
    return u


def total_heat(u):
    """Return the total heat on the plate (the sum of all temperatures).

    >>> float(total_heat(initial_condition(8)))
    4.0
    """
    return np.sum(u)


if __name__ == "__main__":
    grid = initial_condition(128)
    before = total_heat(grid)
    run(step, grid, 100)
    print(f"128x128, 100 steps: heat {before:.6f} -> {total_heat(grid):.6f}, "
          f"peak {grid.max():.4f}")
