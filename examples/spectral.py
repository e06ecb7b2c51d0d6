"""Phase separation (the Cahn-Hilliard equation) by a pseudo-spectral method, in plain NumPy.

The concentration ``u`` lives on a periodic ``n x n`` grid. One semi-implicit
step of ``du/dt = laplacian(u**3 - u - EPS2 * laplacian(u))`` treats the stiff
fourth-order term implicitly in Fourier space, where the Laplacian is a
multiplication by ``-k**2``:

    u_hat <- (u_hat - dt * k2 * fft(u**3 - u)) / (1 + dt * EPS2 * k2**2)

The mean of ``u`` (the total mass) is conserved exactly.  Nothing here imports
solvent: the demo runs the very same ``step`` with NumPy and with
``solvent.jit(step)``.

Example::

    u, k2 = initial_state(64)
    step(u, k2, DT)          # u now holds the concentration one step later
"""

import numpy as np

EPS2 = 1.0
"""Squared interface width, in grid cells."""

DT = 0.05
"""Time step (the semi-implicit scheme is stable far beyond the explicit limit)."""


def initial_state(n=256, seed=0):
    """Return ``(u, k2)``: a well-mixed random concentration around 0 and the squared wave numbers.

    ``k2`` has the shape of ``np.fft.rfft2(u)``: full frequencies on the first axis, the
    non-negative half on the last.
    """
    rng = np.random.default_rng(seed)
    u = 0.05 * rng.standard_normal((n, n))
    kx = 2 * np.pi * np.fft.fftfreq(n)
    ky = 2 * np.pi * np.fft.rfftfreq(n)
    k2 = kx[:, None] ** 2 + ky[None, :] ** 2
    return u, k2


def step(u, k2, dt):
    """Advance ``u`` in place by one semi-implicit step; return its free energy.

    The energy ``mean((u**2 - 1)**2 / 4 + EPS2 / 2 * |grad u|**2)`` decreases as the
    phases separate.
    """
    u_hat = np.fft.rfft2(u)
    nonlinear = np.fft.rfft2(u ** 3 - u)
    u_hat = (u_hat - dt * k2 * nonlinear) / (1 + dt * EPS2 * k2 ** 2)
    u[...] = np.fft.irfft2(u_hat, s=u.shape)
    gradient = np.gradient(u)
    return np.mean((u ** 2 - 1) ** 2 / 4 + EPS2 / 2 * (gradient[0] ** 2 + gradient[1] ** 2))
