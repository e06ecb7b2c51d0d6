"""np.fft against NumPy: values (within a bound relative to the input's magnitude), dtypes, shapes, out=."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import solvent
from differential import check_like_numpy
from numpy_samples import check, check_or_raises, elements, numpy_raises, sample

DTYPES = [np.dtype(t) for t in (np.bool_, np.int8, np.int64, np.uint8, np.float16, np.float32, np.float64,
                                np.complex64, np.complex128)]
ONE_D = [np.fft.fft, np.fft.ifft, np.fft.rfft, np.fft.irfft, np.fft.hfft, np.fft.ihfft]
N_D = [np.fft.fftn, np.fft.ifftn, np.fft.rfftn, np.fft.irfftn, np.fft.fft2, np.fft.ifft2, np.fft.rfft2,
       np.fft.irfft2]
NORMS = [None, "backward", "ortho", "forward"]

#: Unit roundoff by result dtype: an FFT's error is a few of these times the input's size.
EPSILON = {"e": 1e-3, "f": 1e-6, "F": 1e-6, "d": 1e-14, "D": 1e-14}


def check_transform(fn, x):
    """`fn(x)` by solvent equals NumPy's, up to eps * (sum |x| + 1) and eps * |result| for rounding;
    where NumPy raises, solvent raises the same family."""
    error = numpy_raises(fn, x)
    if error is not None:
        return check_or_raises(fn, x)
    expected = fn(x.copy())
    actual = np.asarray(solvent.jit(fn)(x.copy()))
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    eps = EPSILON[expected.dtype.char]
    magnitude = np.abs(x.astype(np.complex128)).sum() + 1
    bound = 2 * eps * magnitude * max(1, np.log2(max(2, expected.size))) + eps * np.abs(expected).max(initial=0)
    assert np.abs(actual.astype(np.complex128) - expected).max(initial=0) <= bound
    return actual


def array_of(data, dtype, shape):
    """Hypothesis values in [-3, 3] of `dtype` (complex64 drawn as complex128, then rounded)."""
    drawn = np.dtype(np.complex128) if dtype == np.complex64 else dtype
    return data.draw(hnp.arrays(drawn, shape, elements=elements(drawn, bound=3))).astype(dtype)


# -- hypothesis over dtypes, shapes, axes, lengths and norms -----------------------------------------

@settings(max_examples=60, deadline=None)
@given(data=st.data(), fn=st.sampled_from(ONE_D), dtype=st.sampled_from(DTYPES),
       shape=hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=6), norm=st.sampled_from(NORMS),
       n=st.one_of(st.none(), st.integers(1, 9)))
def test_one_dimensional_transforms(data, fn, dtype, shape, norm, n):
    x = array_of(data, dtype, shape)
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    check_transform(lambda x: fn(x, n=n, axis=axis, norm=norm), x)


@st.composite
def _axes_and_lengths(draw, ndim):
    """None, or axes (sometimes repeated) with s=None or one length per axis."""
    if draw(st.booleans()):
        return None, None
    axes = draw(st.lists(st.integers(-ndim, ndim - 1), min_size=1, max_size=4))
    lengths = draw(st.one_of(st.none(), st.lists(st.sampled_from([-1, 1, 2, 3, 5, 6]),
                                                min_size=len(axes), max_size=len(axes))))
    return axes, lengths


@settings(max_examples=60, deadline=None)
@given(data=st.data(), fn=st.sampled_from(N_D), dtype=st.sampled_from(DTYPES),
       shape=hnp.array_shapes(min_dims=1, max_dims=4, min_side=1, max_side=5), norm=st.sampled_from(NORMS))
def test_n_dimensional_transforms(data, fn, dtype, shape, norm):
    x = array_of(data, dtype, shape)
    axes, s = data.draw(_axes_and_lengths(len(shape)))
    if axes is None and fn.__name__.endswith("2"):
        check_transform(lambda x: fn(x, norm=norm), x)
    else:
        check_transform(lambda x: fn(x, s=s, axes=axes, norm=norm), x)


# -- fixed cases ---------------------------------------------------------------------------------

def test_four_axes_round_trip():
    x = sample(np.float64, (2, 3, 4, 5), seed=1)
    check(lambda x: (np.fft.fftn(x), np.fft.ifftn(np.fft.fftn(x)).real,
                     np.fft.irfftn(np.fft.rfftn(x), x.shape, axes=range(4))), x, scale=100)


def test_transforms_chained_across_calls():
    x = sample(np.float64, (2, 3, 4, 5), seed=10)
    for fn in (lambda x: np.fft.fft(x).transpose(1, 2, 0, 3),
               lambda x: np.fft.fftn(np.fft.fft(x, axis=1), axes=[1, 0]),
               lambda x: np.fft.rfftn(x, s=[2, 2, 3], axes=[1, 0, 1])):
        check_transform(fn, x)


def test_single_precision_is_kept():
    x32, z64 = sample(np.float32, (4, 6), seed=2), sample(np.complex64, (4, 6), seed=3)
    check(lambda x, z: (np.fft.fft(x), np.fft.rfft2(x), np.fft.ifftn(z), np.fft.irfft(z), np.fft.hfft(z, 7)),
          x32, z64, scale=20)


def test_out_is_written():
    def f(x, out, real_out):
        np.fft.fft(x, out=out)
        np.fft.irfft(out[:, :3], n=4, out=real_out)
        return out, real_out
    check(f, sample(np.float64, (2, 4), seed=4), np.zeros((2, 4), np.complex128), np.zeros((2, 4)))


def test_ifft2_ignores_out_as_numpy_does():
    check(lambda x, out: (np.fft.ifft2(x, out=out), out), sample(np.complex128, (2, 3), seed=5),
          np.zeros((2, 3), np.complex128))


def test_empty_batch_and_errors():
    check(lambda x: (np.fft.fft(x), np.fft.rfft(x, axis=1)), np.zeros((0, 4)))
    for fn in (lambda x: np.fft.fft(x, 0), lambda x: np.fft.irfft(x[:1]), lambda x: np.fft.rfft(x + 1j),
               lambda x: np.fft.fft(x, norm="sideways"), lambda x: np.fft.fft(x, axis=2),
               lambda x: np.fft.fftn(x, s=(2, 2), axes=(0,)), lambda x: np.fft.fft(x[0, 0])):
        check_or_raises(fn, sample(np.float64, (2, 4), seed=6))


def test_traced_length_is_unsupported():
    with pytest.raises((solvent.UnsupportedError, solvent.TracerConversionError)):
        solvent.jit(lambda x, n: np.fft.fft(x, n=n))(np.ones(4), solvent.Scalar(3))


def test_frequencies():
    check(lambda: (np.fft.fftfreq(6), np.fft.fftfreq(7, d=0.5), np.fft.rfftfreq(6, 0.1), np.fft.rfftfreq(5)))
    check(lambda d: (np.fft.fftfreq(5, d), np.fft.rfftfreq(8, d)), np.float64(0.25))
    x = np.array(0.25)
    expected = np.fft.fftfreq(5, x)
    np.testing.assert_allclose(np.asarray(solvent.jit(lambda d: np.fft.fftfreq(5, d))(solvent.Scalar(x))),
                               expected, rtol=1e-15)
    names = solvent.supported()
    assert "np.fft.fftfreq" in names and "np.fft.rfftfreq" in names


def test_shifts():
    check(lambda x: (np.fft.fftshift(x), np.fft.ifftshift(x), np.fft.fftshift(x, axes=1),
                     np.fft.ifftshift(x, axes=(0,)), np.fft.fftshift(np.fft.fftfreq(5))),
          sample(np.float64, (3, 4), seed=7))


def test_spectral_derivative_program():
    """A real use: d/dx of a periodic signal by multiplying its spectrum by i k."""
    def derivative(u):
        k = 2j * np.pi * np.fft.rfftfreq(u.shape[-1], d=1.0 / u.shape[-1])
        return np.fft.irfft(k * np.fft.rfft(u), n=u.shape[-1])
    t = np.linspace(0, 2 * np.pi, 32, endpoint=False)
    check_like_numpy(derivative, np.stack([np.sin(t), np.cos(3 * t)]), rtol=1e-9, atol=1e-9)


def test_gradient_through_transforms():
    x = sample(np.float64, (8,), seed=8)
    gradient = solvent.grad(lambda x: np.sum(np.abs(np.fft.fft(x)) ** 2))(x)
    np.testing.assert_allclose(np.asarray(gradient), 2 * x.size * x, rtol=1e-12)  # Parseval: |F x|^2 = N |x|^2


def test_transforms_of_device_arrays_outside_jit():
    x = sample(np.float32, (4, 6), seed=9)
    result = np.fft.rfft2(solvent.asarray(x))
    assert isinstance(result, solvent.Array) and np.asarray(result).dtype == np.complex64
    np.testing.assert_allclose(np.asarray(result), np.fft.rfft2(x), rtol=1e-5, atol=1e-5)
