"""np.fft on traced arrays, as stablehlo.fft."""

from __future__ import annotations
