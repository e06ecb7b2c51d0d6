"""NumPy's window functions (hanning, hamming, blackman, bartlett, kaiser). Their length is their
shape, so it must be known while tracing; NumPy computes them then, except a Kaiser window of a
traced `beta`, which is i0 of it. They do not dispatch on their arguments (see `UNDISPATCHED`)."""

from __future__ import annotations

import numpy as np

from solvent.errors import UnsupportedError
from solvent.numpy.folding import static
from solvent.numpy.registry import UNDISPATCHED, implements
from solvent.numpy.values import as_array, cast, is_traced


def _length(M, name: str):
    """M as NumPy's window takes it (a number, float too), known while tracing."""
    M = static(M)
    if is_traced(M):
        raise UnsupportedError(f"np.{name} of a traced length M: the window's length is its shape, fixed when the "
                               "program is compiled; pass M as a Python int")
    return M


def _window(numpy_window):
    def apply(M):
        return numpy_window(_length(M, numpy_window.__name__))
    return apply


for _window_function in (np.hanning, np.hamming, np.blackman, np.bartlett):
    implements(_window_function)(_window(_window_function))
    UNDISPATCHED.add(_window_function)


@implements(np.kaiser)
def kaiser(M, beta):
    """NumPy's Kaiser window: i0(beta * sqrt(1 - ((n - alpha) / alpha)^2)) / i0(beta), in float64 at least."""
    M, beta = _length(M, "kaiser"), static(beta)
    if not is_traced(beta):
        return np.kaiser(M, beta)
    beta = cast(as_array(beta), np.result_type(np.array([0.0, M]).dtype, beta.dtype))
    if M == 1:
        return np.ones(1, beta.dtype)
    alpha = (M - 1) / 2.0
    return np.i0(beta * np.sqrt(1 - ((np.arange(0, M) - alpha) / alpha) ** 2.0)) / np.i0(beta)


UNDISPATCHED.add(np.kaiser)
