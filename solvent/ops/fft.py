"""`stablehlo.fft`: discrete Fourier transforms over the innermost one to three dimensions."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo

from solvent.ops.base import check, dtype_of, i64_array, is_complex, one, shape_of

_COMPLEX_OF = {np.dtype(np.float32): np.dtype(np.complex64), np.dtype(np.float64): np.dtype(np.complex128)}
_REAL_OF = {c: r for r, c in _COMPLEX_OF.items()}


def fft(x: ir.Value, fft_type: str, lengths: Sequence[int]) -> ir.Value:
    """`stablehlo.fft` of type FFT, IFFT, RFFT or IRFFT over the last `len(lengths)` dimensions.

    FFT and IFFT map complex to complex of one shape (IFFT divides by the length);
    RFFT maps real to complex, halving the last dimension to `n // 2 + 1`; IRFFT
    maps those `n // 2 + 1` complex values back to `n` real ones.
    Example: `fft(x, "RFFT", [8])` of a `tensor<3x8xf64>` is a `tensor<3x5xcomplex<f64>>`.
    """
    shape, dtype, lengths = list(shape_of(x)), dtype_of(x), [int(n) for n in lengths]
    check(1 <= len(lengths) <= min(3, len(shape)), f"fft: {len(lengths)} dimensions of a rank-{len(shape)} value")
    inner = shape[len(shape) - len(lengths):]
    if fft_type in ("FFT", "IFFT"):
        check(is_complex(dtype) and inner == lengths, f"fft {fft_type}: {dtype} {shape} with lengths {lengths}")
    elif fft_type == "RFFT":
        check(dtype in _COMPLEX_OF and inner == lengths, f"fft RFFT: {dtype} {shape} with lengths {lengths}")
        shape[-1], dtype = lengths[-1] // 2 + 1, _COMPLEX_OF[dtype]
    else:
        check(fft_type == "IRFFT" and dtype in _REAL_OF, f"fft {fft_type}: {dtype}")
        check(inner == lengths[:-1] + [lengths[-1] // 2 + 1], f"fft IRFFT: {shape} with lengths {lengths}")
        shape[-1], dtype = lengths[-1], _REAL_OF[dtype]
    return one("stablehlo.fft", [x], shape, dtype, fft_type=stablehlo.FftTypeAttr.get(fft_type),
               fft_length=i64_array(lengths))
