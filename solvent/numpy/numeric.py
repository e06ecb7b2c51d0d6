"""Numerical routines on traced arrays: differences, gradients, convolution, interpolation, integration, polynomials."""

from __future__ import annotations
