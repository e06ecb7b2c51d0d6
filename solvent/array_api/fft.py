"""The Array API's `fft` extension (`solvent.array_api.fft`), written with `np.fft` calls."""

from __future__ import annotations

import numpy as np

from solvent.array_api.common import constant, program


def _one_axis(name: str):
    numpy_function = getattr(np.fft, name)

    def function(x, /, *, n=None, axis=-1, norm="backward"):
        return numpy_function(x, n=n, axis=axis, norm=norm)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"Array API `fft.{name}`: NumPy's `np.fft.{name}`."
    return program(function)


def _many_axes(name: str):
    numpy_function = getattr(np.fft, name)

    def function(x, /, *, s=None, axes=None, norm="backward"):
        return numpy_function(x, s=s, axes=axes, norm=norm)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"Array API `fft.{name}`: NumPy's `np.fft.{name}`."
    return program(function)


fft, ifft, rfft, irfft, hfft, ihfft = map(_one_axis, ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"])
fftn, ifftn, rfftn, irfftn = map(_many_axes, ["fftn", "ifftn", "rfftn", "irfftn"])


def fftfreq(n, /, *, d=1.0, dtype=None, device=None):
    """Sample frequencies of an `n`-point FFT (static, computed once); `dtype` as in Array API 2024.12."""
    return constant(np.fft.fftfreq(n, d).astype(dtype or np.float64), device)


def rfftfreq(n, /, *, d=1.0, dtype=None, device=None):
    return constant(np.fft.rfftfreq(n, d).astype(dtype or np.float64), device)


@program
def fftshift(x, /, *, axes=None):
    return np.fft.fftshift(x, axes=axes)


@program
def ifftshift(x, /, *, axes=None):
    return np.fft.ifftshift(x, axes=axes)


__all__ = ["fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn", "hfft", "ihfft",
           "fftfreq", "rfftfreq", "fftshift", "ifftshift"]
