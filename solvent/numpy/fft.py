"""np.fft on traced arrays, as stablehlo.fft.

Every transform runs NumPy's own plan (which axis, which length, in which
order) on static shapes: complex-to-complex axes go to XLA up to three at a
time, moved innermost by a transpose; the real axis of rfft/irfft is one
transform of its own (cuFFT's multi-dimensional IRFFT assumes Hermitian
symmetry on every axis, NumPy only on the last).
"""

from __future__ import annotations

import operator
import warnings

import numpy as np

from solvent.errors import UnsupportedError, user_stacklevel
from solvent.numpy.registry import implements
from solvent.numpy.values import full, is_traced, normalize_axis, shape, value, wrap, write_out
from solvent.ops import elementwise as ew
from solvent.ops import shape as shape_ops
from solvent.ops.base import dtype_of, is_complex, shape_of
from solvent.ops.fft import fft as fft_op

_SWAP_DIRECTION = {"backward": "forward", "ortho": "ortho", "forward": "backward"}


# -- value-level pieces -------------------------------------------------------------------

def _resize(v, axis: int, n: int):
    """`v` cut or zero-padded to length `n` along `axis` (NumPy's `n=`)."""
    old = shape_of(v)
    if n <= old[axis]:
        limit = list(old)
        limit[axis] = n
        return shape_ops.slice(v, [0] * len(old), limit, [1] * len(old))
    high = [n - m if d == axis else 0 for d, m in enumerate(old)]
    return shape_ops.pad(v, full(0, (), dtype_of(v)), [0] * len(old), high, [0] * len(old))


def _transform(v, axes, fft_type: str, lengths):
    """`stablehlo.fft` over `axes` (at most three, distinct), moved innermost and back."""
    rank = len(shape_of(v))
    perm = [d for d in range(rank) if d not in axes] + list(axes)
    out = fft_op(shape_ops.transpose(v, perm), fft_type, lengths)
    return shape_ops.transpose(out, [perm.index(d) for d in range(rank)])


def _complex_transforms(v, pairs, inverse: bool):
    """(I)FFT along each (axis, n) in turn, batched three distinct axes at a time."""
    groups = []
    for axis, n in pairs:
        if not groups or len(groups[-1]) == 3 or axis in dict(groups[-1]):
            groups.append([])
        groups[-1].append((axis, n))
    for group in groups:
        for axis, n in group:
            v = _resize(v, axis, n)
        v = _transform(v, [axis for axis, _ in group], "IFFT" if inverse else "FFT", [n for _, n in group])
    return v


def _scale(v, lengths, inverse: bool, norm, first_dtype):
    """NumPy's normalization, one factor per transform in the order applied, each rounded to the
    precision NumPy uses (float16 for a first step on float16); XLA's inverses already divide by n."""
    direction = _swapped(norm) if inverse else _norm(norm)  # an inverse scales as the swapped forward
    factor = 1.0
    for step, n in enumerate(lengths):
        real = _real_dtype(first_dtype if step == 0 else dtype_of(v))
        factor *= {"backward": 1.0, "ortho": float(np.reciprocal(np.sqrt(n, dtype=real))),
                   "forward": float(np.reciprocal(n, dtype=real))}[direction] * (n if inverse else 1)
    if factor == 1.0:
        return v
    return ew.binary("multiply", v, full(factor, shape_of(v), dtype_of(v)))


def _norm(norm) -> str:
    if norm is not None and norm not in _SWAP_DIRECTION:
        raise ValueError(f'Invalid norm value {norm}; should be "backward", "ortho" or "forward".')
    return "backward" if norm is None else norm


def _swapped(norm) -> str:
    """The norm of the opposite direction (hfft is irfft of the conjugate, scaled as its inverse)."""
    return _SWAP_DIRECTION[_norm(norm)]


def _conjugate(v):
    return ew.binary("complex", ew.unary("real", v), ew.unary("negate", ew.unary("imag", v)))


# -- NumPy-level plan ---------------------------------------------------------------------

def _operand(a):
    """The array to transform (host data when only `out=` is traced)."""
    return a if is_traced(a) else np.asarray(a)


def _real_dtype(dtype) -> np.dtype:
    """NumPy's result dtype of an inverse real transform of `dtype` input."""
    return np.result_type(np.zeros((), dtype).real.dtype, 1.0)


def _length(n, name: str) -> int:
    """A static transform length, as NumPy checks it."""
    if is_traced(n):
        raise UnsupportedError(f"np.fft.{name} with a traced length: n= and s= must be Python ints")
    if operator.index(n) < 1:
        raise ValueError(f"Invalid number of FFT data points ({n}) specified.")
    return operator.index(n)


def _plan(a, s, axes, inverse_real: bool, name: str):
    """NumPy's `_cook_nd_args`: the (axis, n) pairs of an n-dimensional transform."""
    dims = shape(a)
    if s is None:
        axes = list(range(len(dims))) if axes is None else list(axes)
        s = [None] * len(axes)  # each axis's 1-D default, as NumPy's None entries
    else:
        s = list(s)
        if axes is None:
            warnings.warn("`axes` should not be `None` if `s` is not `None` (Deprecated in NumPy 2.0)",
                          DeprecationWarning, stacklevel=user_stacklevel())
            axes = list(range(-len(s), 0))
        axes = list(axes)
        if len(s) != len(axes):
            raise ValueError("Shape and axes have different lengths.")
    axes = [normalize_axis(ax, len(dims)) for ax in axes]
    sizes = [dims[ax] if n is None or n == -1 else n for n, ax in zip(s, axes)]
    if inverse_real and s and s[-1] is None:
        sizes[-1] = (dims[axes[-1]] - 1) * 2
    return [(ax, _length(n, name)) for ax, n in zip(axes, sizes)]


def _one_axis(a, n, axis, inverse_real: bool, name: str):
    """The single (axis, n) pair of a one-dimensional transform."""
    dims = shape(a)
    axis = normalize_axis(axis, len(dims))
    if n is None:
        n = (dims[axis] - 1) * 2 if inverse_real else dims[axis]
    return [(axis, _length(n, name))]


def _finish(v, out, name: str):
    result = wrap(v, scalar=False)
    return result if out is None else write_out(out, result, where_from=f"np.fft.{name}")


def _complex(a, pairs, inverse: bool, norm, out, name: str):
    """fft/ifft/fftn/ifftn: NumPy applies the last axis first."""
    if not pairs:
        return a  # fftn(a, axes=()): NumPy hands back the input itself
    dtype = np.result_type(a.dtype, 1j)
    v = _complex_transforms(value(a, dtype), pairs[::-1], inverse)
    return _finish(_scale(v, [n for _, n in pairs[::-1]], inverse, norm, a.dtype), out, name)


def _real_forward(a, pairs, norm, out, name: str, conjugate=False):
    """rfft/rfftn: RFFT along the last axis, then FFT along the others, last first."""
    if is_complex(a.dtype):
        raise TypeError(f"np.fft.{name} takes real input, not {a.dtype}")
    complex_dtype = np.result_type(a.dtype, 1j)
    axis, n = pairs[-1]
    v = _resize(value(a, np.float32 if complex_dtype == np.complex64 else np.float64), axis, n)
    v = _complex_transforms(_transform(v, [axis], "RFFT", [n]), pairs[-2::-1], False)
    v = _scale(v, [n for _, n in pairs[::-1]], False, norm, a.dtype)
    return _finish(_conjugate(v) if conjugate else v, out, name)


def _real_inverse(a, pairs, norm, out, name: str, conjugate=False):
    """irfft/irfftn: IFFT along the other axes, first first, then IRFFT along the last."""
    v = value(a, np.result_type(a.dtype, 1j))
    v = _complex_transforms(_conjugate(v) if conjugate else v, pairs[:-1], True)
    dtype = _real_dtype(a.dtype if len(pairs) == 1 else dtype_of(v))  # after an IFFT, never float16
    axis, n = pairs[-1]
    v = _scale(_transform(_resize(v, axis, n // 2 + 1), [axis], "IRFFT", [n]), [n for _, n in pairs], True, norm,
               a.dtype)
    return _finish(ew.convert(v, dtype), out, name)


# -- np.fft functions -----------------------------------------------------------------------

@implements(np.fft.fft)
def fft(a, n=None, axis=-1, norm=None, out=None):
    """`np.fft.fft(a, n, axis)`: complex64 for float32/complex64 input, complex128 otherwise."""
    a = _operand(a)
    return _complex(a, _one_axis(a, n, axis, False, "fft"), False, norm, out, "fft")


@implements(np.fft.ifft)
def ifft(a, n=None, axis=-1, norm=None, out=None):
    a = _operand(a)
    return _complex(a, _one_axis(a, n, axis, False, "ifft"), True, norm, out, "ifft")


@implements(np.fft.rfft)
def rfft(a, n=None, axis=-1, norm=None, out=None):
    a = _operand(a)
    return _real_forward(a, _one_axis(a, n, axis, False, "rfft"), norm, out, "rfft")


@implements(np.fft.irfft)
def irfft(a, n=None, axis=-1, norm=None, out=None):
    a = _operand(a)
    return _real_inverse(a, _one_axis(a, n, axis, True, "irfft"), norm, out, "irfft")


@implements(np.fft.hfft)
def hfft(a, n=None, axis=-1, norm=None, out=None):
    """`np.fft.hfft`: irfft of the conjugate with the opposite normalization (out= ignored, as NumPy)."""
    a = _operand(a)
    return _real_inverse(a, _one_axis(a, n, axis, True, "hfft"), _swapped(norm), None, "hfft", conjugate=True)


@implements(np.fft.ihfft)
def ihfft(a, n=None, axis=-1, norm=None, out=None):
    a = _operand(a)
    return _real_forward(a, _one_axis(a, n, axis, False, "ihfft"), _swapped(norm), out, "ihfft", conjugate=True)


@implements(np.fft.fftn)
def fftn(a, s=None, axes=None, norm=None, out=None):
    a = _operand(a)
    return _complex(a, _plan(a, s, axes, False, "fftn"), False, norm, out, "fftn")


@implements(np.fft.ifftn)
def ifftn(a, s=None, axes=None, norm=None, out=None):
    a = _operand(a)
    return _complex(a, _plan(a, s, axes, False, "ifftn"), True, norm, out, "ifftn")


@implements(np.fft.fft2)
def fft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    a = _operand(a)
    return _complex(a, _plan(a, s, axes, False, "fft2"), False, norm, out, "fft2")


@implements(np.fft.ifft2)
def ifft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """`np.fft.ifft2`; NumPy 2.3 ignores its `out=`, and so does this."""
    a = _operand(a)
    return _complex(a, _plan(a, s, axes, False, "ifft2"), True, norm, None, "ifft2")


@implements(np.fft.rfftn)
def rfftn(a, s=None, axes=None, norm=None, out=None):
    a = _operand(a)
    return _real_forward(a, _plan(a, s, axes, False, "rfftn"), norm, out, "rfftn")


@implements(np.fft.rfft2)
def rfft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    a = _operand(a)
    return _real_forward(a, _plan(a, s, axes, False, "rfft2"), norm, out, "rfft2")


@implements(np.fft.irfftn)
def irfftn(a, s=None, axes=None, norm=None, out=None):
    a = _operand(a)
    return _real_inverse(a, _plan(a, s, axes, True, "irfftn"), norm, out, "irfftn")


@implements(np.fft.irfft2)
def irfft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """`np.fft.irfft2`; NumPy 2.3 ignores its `out=`, and so does this."""
    a = _operand(a)
    return _real_inverse(a, _plan(a, s, axes, True, "irfft2"), norm, None, "irfft2")


# -- helpers ----------------------------------------------------------------------------------

def _shifts(x, axes, sign: int):
    dims = shape(x)
    if axes is None:
        return [sign * (n // 2) for n in dims], tuple(range(len(dims)))
    if isinstance(axes, (int, np.integer)):
        return sign * (dims[axes] // 2), axes
    return [sign * (dims[ax] // 2) for ax in axes], axes


@implements(np.fft.fftshift)
def fftshift(x, axes=None):
    """`np.fft.fftshift`: the zero frequency moved to the centre (np.roll, as NumPy does)."""
    return np.roll(x, *_shifts(x, axes, 1))


@implements(np.fft.ifftshift)
def ifftshift(x, axes=None):
    return np.roll(x, *_shifts(x, axes, -1))


# NumPy never dispatches fftfreq/rfftfreq (no array argument): called with a static `n` they
# run NumPy's own code and give a host constant, and with a traced `d` that code's arithmetic
# dispatches to traced values. Registered so the coverage table lists them.
implements(np.fft.fftfreq)(np.fft.fftfreq)
implements(np.fft.rfftfreq)(np.fft.rfftfreq)
