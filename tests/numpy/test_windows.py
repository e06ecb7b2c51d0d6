"""Window functions against NumPy: static lengths computed while tracing, a Kaiser window of a traced
beta (also one per step of a rolled loop), and a clear error for a traced length."""

from __future__ import annotations

import numpy as np
import pytest

import solvent
from numpy_samples import check


@pytest.mark.parametrize("M", [0, 1, 2, 5, 8, 6.0], ids=str)
def test_kaiser_of_a_traced_beta(M):
    """NumPy's own kaiser needs beta on the host: it was refused as unsupported."""
    beta = np.array([0.0, 2.5, 14.0], np.float32)
    check(lambda b: (np.kaiser(M, b[1]), np.kaiser(M, b.astype(np.float64)[2]), np.kaiser(M, 3.0) * b[0]), beta)


def test_a_kaiser_window_a_step_of_a_rolled_loop():
    def windows(b):
        out = np.zeros((40, 6))
        for i in range(40):
            out[i] = np.kaiser(6, b[i])
        return out
    check(windows, np.linspace(0.0, 10.0, 40))


@pytest.mark.parametrize("window", [np.hanning, np.hamming, np.blackman, np.bartlett,
                                    lambda M: np.kaiser(M, 5.0)], ids=["hanning", "hamming", "blackman", "bartlett",
                                                                      "kaiser"])
def test_windows_of_a_traced_length_say_it_must_be_static(window):
    check(lambda x: window(5) * x[0] + window(1) + window(np.arange(4).sum() - 1), np.ones(3))
    with pytest.raises(solvent.UnsupportedError, match="traced length M"):
        solvent.jit(lambda n: window(n[0]))(np.array([5]))
