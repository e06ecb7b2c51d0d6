"""Robust linear regression (Huber loss) by iteratively reweighted least squares, in plain NumPy.

Each step scales the residuals by a robust estimate of their spread (the median
absolute deviation), turns them into Huber weights, and solves the weighted
normal equations ``(X^T W X) beta = X^T W y`` with ``np.linalg.solve``.  Outliers
get small weights, so the fit follows the bulk of the data.  Nothing here
imports solvent: the demo runs the very same ``step`` with NumPy and with
``solvent.jit(step)``.

Example::

    data = make_data(1000, 8)
    beta = np.zeros(8)
    for _ in range(10):
        beta, scale = step(data.x, data.y, beta)
"""

from dataclasses import dataclass

import numpy as np

HUBER = 1.345
"""Huber's threshold, in units of the residuals' robust standard deviation (95% efficiency)."""


@dataclass
class Data:
    """Design matrix ``x`` (one row per observation), observations ``y`` and the true coefficients."""

    x: np.ndarray
    y: np.ndarray
    beta: np.ndarray


def make_data(m=20000, n=16, outliers=0.1, seed=0):
    """Return noisy observations of a linear model with a fraction of gross outliers."""
    rng = np.random.default_rng(seed)
    x = np.column_stack([np.ones(m), rng.standard_normal((m, n - 1))])
    beta = rng.uniform(-2, 2, n)
    y = x @ beta + 0.1 * rng.standard_normal(m)
    bad = rng.random(m) < outliers
    y[bad] += rng.uniform(-50, 50, bad.sum())
    return Data(x, y, beta)


def step(x, y, beta):
    """One reweighting step: return the new coefficients and the robust residual scale."""
    residual = y - x @ beta
    scale = 1.4826 * np.median(np.abs(residual - np.median(residual))) + 1e-12
    r = np.abs(residual) / scale
    weights = np.where(r <= HUBER, 1.0, HUBER / np.maximum(r, HUBER))
    gram = np.einsum("ki,k,kj->ij", x, weights, x)
    return np.linalg.solve(gram, x.T @ (weights * y)), scale
