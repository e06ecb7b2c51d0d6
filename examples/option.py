"""An Asian option priced by Monte Carlo, in plain NumPy with NumPy's global random numbers.

Each of ``paths`` random walks moves a stock price through ``steps`` steps of geometric
Brownian motion, drawing its shocks with ``np.random.standard_normal``; the option pays the
amount by which the walk's average price ends above the strike, discounted. This is the
script style most NumPy code is written in: ``np.random.seed`` once, then ``np.random.*``
calls anywhere. Nothing here imports solvent: the demo runs the same ``asian_call`` with NumPy
and with ``solvent.jit(asian_call)`` after the same seed, and gets the same price and leaves
the global generator in the same state.

Example::

    np.random.seed(0)
    asian_call(100.0, 105.0, 0.03, 0.2, 1.0, 50, 10_000)
"""

import numpy as np


def asian_call(spot, strike, rate, volatility, maturity, steps, paths):
    """The discounted mean payoff of an arithmetic-average Asian call over ``paths`` walks."""
    dt = maturity / steps
    drift = (rate - 0.5 * volatility ** 2) * dt
    prices = np.full(paths, spot)
    total = np.zeros(paths)
    for _ in range(steps):
        shocks = np.random.standard_normal(paths)
        prices = prices * np.exp(drift + volatility * np.sqrt(dt) * shocks)
        total += prices
    payoff = np.maximum(total / steps - strike, 0.0)
    return np.exp(-rate * maturity) * payoff.mean()
