"""A gravitational n-body simulation on a dataclass state, in plain NumPy.

Every body attracts every other one (``G = 1``); forces are computed for all
pairs at once by broadcasting, with a softening length ``eps`` that keeps close
encounters finite and makes the self-interaction term vanish (its separation is
exactly zero).  Time stepping is the symplectic Euler scheme (kick, then drift),
which keeps the total energy bounded for small ``dt``.

Nothing here imports solvent: the demo runs the very same ``step`` with NumPy
and with ``solvent.jit(step)``, which writes the new ``state.vel`` and
``state.pos`` back into the caller's dataclass.

Example::

    state = initial_state(64)
    for _ in range(10):
        kinetic = step(state, DT, EPS)
"""

from dataclasses import dataclass

import numpy as np

DT = 1e-3
"""Time step, small against the crossing time of the cluster (about 1)."""

EPS = 0.05
"""Softening length: forces behave like ``r / (r**2 + EPS**2) ** 1.5``."""


@dataclass
class Bodies:
    """Positions ``(n, 3)``, velocities ``(n, 3)`` and masses ``(n,)``, all float64."""

    pos: np.ndarray
    vel: np.ndarray
    mass: np.ndarray


def initial_state(n=512, seed=0):
    """Return ``n`` bodies of total mass 1, uniform in the unit ball.

    Velocities are random with a spread chosen so that kinetic energy is about
    half the magnitude of the potential energy (virial equilibrium): the
    cluster neither collapses nor flies apart.  The random generator is
    seeded, so the same arguments give the same state, and the centre of mass
    is at rest at the origin.

    >>> b = initial_state(4)
    >>> b.pos.shape, b.vel.shape, float(b.mass.sum())
    ((4, 3), (4, 3), 1.0)
    """
    rng = np.random.default_rng(seed)
    direction = rng.normal(size=(n, 3))
    direction /= np.linalg.norm(direction, axis=1, keepdims=True)
    radius = rng.uniform(size=(n, 1)) ** (1 / 3)
    pos = direction * radius
    vel = 0.45 * rng.normal(size=(n, 3))
    mass = np.full(n, 1.0 / n)
    pos -= np.sum(mass[:, None] * pos, axis=0)
    vel -= np.sum(mass[:, None] * vel, axis=0)
    return Bodies(pos=pos, vel=vel, mass=mass)


def accelerations(pos, mass, eps):
    """Return the ``(n, 3)`` gravitational acceleration of every body.

    ``sep[i, j]`` is the vector from body ``i`` to body ``j``; the diagonal is
    zero, so with ``eps > 0`` a body exerts no force on itself.
    """
    sep = pos[None, :, :] - pos[:, None, :]
    dist2 = np.sum(sep * sep, axis=-1) + eps**2
    weight = mass[None, :] / (dist2 * np.sqrt(dist2))
    return np.sum(sep * weight[:, :, None], axis=1)


def kinetic_energy(state):
    """Return ``sum(m * |v|**2) / 2`` as a float64 scalar."""
    return 0.5 * np.sum(state.mass * np.sum(state.vel * state.vel, axis=1))


def potential_energy(state, eps):
    """Return the softened potential energy ``-sum_{i<j} m_i m_j / sqrt(r_ij**2 + eps**2)``.

    The pairwise matrix includes ``i == j``, where the term is ``m_i**2 / eps``;
    that self-energy is subtracted instead of masking the diagonal.
    """
    sep = state.pos[None, :, :] - state.pos[:, None, :]
    inverse = 1.0 / np.sqrt(np.sum(sep * sep, axis=-1) + eps**2)
    pairs = state.mass[:, None] * state.mass[None, :] * inverse
    return -0.5 * (np.sum(pairs) - np.sum(state.mass * state.mass) / eps)


def step(state, dt, eps):
    """Advance ``state`` by one symplectic Euler step and return its kinetic energy.

    The step assigns new arrays to ``state.vel`` and ``state.pos``; under
    ``solvent.jit`` those attribute assignments reach the caller's object.

    >>> b = initial_state(8)
    >>> before = b.pos.copy()
    >>> float(step(b, 1e-3, 0.05)) > 0, bool((b.pos != before).all())
    (True, True)
    """
    acc = accelerations(state.pos, state.mass, eps)
    state.vel = state.vel + dt * acc
    state.pos = state.pos + dt * state.vel
    return kinetic_energy(state)


def total_energy(state, eps=EPS):
    """Return kinetic plus potential energy, the quantity the scheme should keep."""
    return kinetic_energy(state) + potential_energy(state, eps)


if __name__ == "__main__":
    bodies = initial_state(256)
    start = total_energy(bodies)
    for _ in range(1000):
        step(bodies, DT, EPS)
    end = total_energy(bodies)
    print(f"256 bodies, 1000 steps: energy {start:.6f} -> {end:.6f} "
          f"(relative drift {abs(end - start) / abs(start):.2e})")
