"""Polynomial functions against NumPy: polyval, polymul, polyder, polyint, vander, poly, polyfit."""

from __future__ import annotations

import numpy as np
import pytest

import solvent
from numpy_samples import EVERY_DTYPE, check, check_or_raises, sample

def _sample(dtype, shape=(3, 5), seed=3):
    """Values in [-40, 40] with ties at .5 (rounding) for every dtype."""
    return sample(dtype, shape, -40, 40, seed=seed, halves=True)



@pytest.mark.parametrize("a, b", [([0.0, 1.0, 2.0], [1.0, 1.0]), ([0.0, 0.0], [1.0, 1.0]),
                                  ([3.0, 1.0], [0.0, 0.0, 2.0]), ([1.0, 2.0], 2.0), ([], [1.0, 2.0]),
                                  ([0, 0, 5], [0, 2])], ids=str)
def test_products_of_polynomials_lose_their_leading_zeros_as_numpys(a, b):
    """NumPy's poly1d strips leading zeros (all zeros: to one): a traced product kept them, a
    polynomial of another length (its first coefficient 0). Its length is traced now, and
    polyval takes it."""
    a, b, x = np.array(a), np.array(b), np.arange(4.0)
    check(np.polymul, a, b)
    check(lambda a, b, x: np.polyval(np.polymul(a, b), x), a, b, x)


@pytest.mark.parametrize("dtype", EVERY_DTYPE, ids=str)
def test_polynomials(dtype):
    p, x = _sample(dtype, (3,), seed=6), _sample(dtype, (2, 4), seed=7)
    check_or_raises(lambda p, x: (np.polyval(p, x), np.polyval(p, 2), np.polyval([1, 2], x), np.polyadd(p, x[0]),
                                  np.polysub(x[0, :2], p), np.polysub(p, 3), np.polyder(p), np.polyder(p, 4),
                                  np.polyint(p), np.polyint(p, 2, k=[1, 2]), np.polyint(p, 3, k=2),
                                  np.polymul(p, x[0, :2]), np.polymul(p, [0, 0, 1, 2])), p, x)


def test_vander():
    for dtype in (np.bool_, np.int8, np.uint64, np.float32, np.complex64):
        x = _sample(dtype, (4,), seed=8)
        check(lambda x: (np.vander(x), np.vander(x, 2, increasing=True), np.vander(x, 0), np.vander(x, 6)), x)
    check_or_raises(lambda x: np.vander(x), np.ones((2, 2)))


# -- vecdot, matvec, vecmat ------------------------------------------------------------------------


@pytest.mark.parametrize("deg", [0, 1, 3], ids=str)
@pytest.mark.parametrize("columns", [None, 2], ids=["y1d", "y2d"])
def test_polyfit(deg, columns):
    x = np.linspace(-1, 1, 12)
    y = sample(np.float64, (12,) if columns is None else (12, columns), seed=3) + 2 * x.reshape(12, *[1] * bool(columns))
    w = np.abs(sample(np.float64, (12,), seed=4)) + 0.5
    check(lambda x, y, w: (np.polyfit(x, y, deg), np.polyfit(x, y, deg, w=w), np.polyfit(x, y, deg, full=True),
                           np.polyfit(x, y, deg, cov=True), np.polyfit(x, y, deg, cov="unscaled")), x, y, w,
          scale=1e3)
    check_or_raises(lambda x, y: np.polyfit(x, y, -1), x, y)


def test_polyval_and_polyfit_refuse_what_numpy_does():
    """polyval of 0-d coefficients raised a raw IndexError and of 2-d ones a raw reshape error; complex
    weights of real data were taken, where NumPy's in-place scaling raises."""
    x = np.arange(6.0)
    check_or_raises(lambda x: np.polyval(3.0, x), x)
    with pytest.raises(solvent.UnsupportedError, match="give a 1-d array"):
        solvent.jit(np.polyval)(np.ones((2, 6)), x)
    check_or_raises(lambda x: np.polyfit(x, x ** 2, 2, w=np.ones(6) * 1j), x)
    check(lambda x: np.polyfit(x, x ** 2, 2, w=np.arange(6)), x, scale=1e3)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.int8], ids=str)
def test_poly_of_real_roots(dtype):
    check(lambda r: (np.poly(r), np.poly(r[:1]), np.poly(r[:0])), sample(dtype, (4,), seed=5))
    with pytest.raises(solvent.UnsupportedError, match="np.poly"):
        solvent.jit(np.poly)(np.eye(2))


@pytest.mark.parametrize("dtype", [np.float64, np.int64, np.complex128], ids=str)
def test_polyval_of_many_coefficients_is_a_loop(dtype):
    """Past 16 coefficients Horner's steps run in a loop (1000 unrolled took 1.1 s to compile)."""
    p, x = sample(dtype, (40,), -1, 1, seed=10), sample(np.float32, (3, 4), -1, 1, seed=11)
    check(lambda p, x: (np.polyval(p, x), np.polyval(p, 0.5)), p, x, scale=10)
    assert solvent.code_hlo(np.polyval, np.zeros(1000), np.zeros(3)).count("stablehlo.while") == 1


@pytest.mark.parametrize("roots", [[1.0, np.inf, 2.0], [np.nan, 1.0], [0.0, -0.0, 3.0], [0.0] * 20 + [-np.inf]],
                         ids=["infinite", "nan", "zeros", "rolled"])
def test_poly_of_special_roots_as_numpy(roots):
    """The first coefficient is 1 and the last -root times the one before, as NumPy's convolution
    computes them (root times the zero around the coefficients made an infinite root's first NaN)."""
    check(np.poly, np.array(roots))


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int8], ids=str)
def test_poly_of_many_roots_is_a_loop(dtype):
    """Past 16 roots the products run in a loop (1000 roots unrolled took 21 s to compile)."""
    roots = sample(dtype, (40,), -1, 1, seed=8)
    roots[5] = roots[6]  # a double root
    check(np.poly, roots, scale=10)
    assert solvent.code_hlo(np.poly, np.zeros(1000)).count("stablehlo.while") == 1


@pytest.mark.parametrize("dtype", [np.float64, np.complex64, np.int64, np.bool_], ids=str)
def test_vander_of_many_columns_is_a_loop(dtype):
    """Past 16 columns the powers run in a loop (1000 unrolled took 3.3 s to compile)."""
    x = sample(dtype, (9,), -2, 2, seed=9)
    check(lambda x: (np.vander(x, 40), np.vander(x, 17, increasing=True)), x)
    assert solvent.code_hlo(lambda x: np.vander(x, 1000), np.zeros(5)).count("stablehlo.while") == 1
