"""apply_along_axis, apply_over_axes and piecewise on traced arrays against NumPy."""

from __future__ import annotations

import numpy as np
import pytest

from numpy_samples import check, check_or_raises, sample
from differential import check_types_like_numpy


@pytest.mark.parametrize("axis", [0, 1, 2, -1], ids=str)
@pytest.mark.parametrize("func1d", [lambda r: np.sum(r ** 2) - r[0], lambda r: r[::-1] * 2.0,
                                    lambda r: np.outer(r, r)], ids=["scalar", "vector", "matrix"])
def test_apply_along_axis(func1d, axis):
    check(lambda a: np.apply_along_axis(func1d, axis, a), sample(np.float64, (2, 3, 4)))


def test_apply_along_axis_passes_extra_arguments():
    check(lambda a, w: np.apply_along_axis(lambda r, w, scale: np.dot(r, w) * scale, 1, a, w, scale=3.0),
          sample(np.float32, (3, 4)), sample(np.float32, (4,)))


@pytest.mark.parametrize("axes", [0, [0, 2], (1,), [-1]], ids=str)
def test_apply_over_axes(axes):
    check(lambda a: (np.apply_over_axes(np.sum, a, axes), np.apply_over_axes(np.max, a, axes)),
          sample(np.int32, (2, 3, 4)))


def test_piecewise():
    x = sample(np.float64, (9,))
    check(lambda x: np.piecewise(x, [x < 0, x >= 0], [lambda v: -v, lambda v: v ** 2]), x)
    check(lambda x: np.piecewise(x, [x < -1, x > 1], [0.5, lambda v: v * 2, lambda v: v - 1]), x)
    check(lambda x: np.piecewise(x, x > 0, [lambda v: np.sin(v)]), x)
    check(lambda x: np.piecewise(x, [x > 0, x > 2], [1, 2]), sample(np.int16, (6,)))  # later pieces win
    check_or_raises(lambda x: np.piecewise(x, [x > 0], [np.sin, np.cos, np.tan]), x)


@pytest.mark.parametrize("piece", [300, 3.7, np.nan, 1j], ids=str)
def test_piecewise_casts_a_constant_piece_as_a_store_does(piece):
    """NumPy stores a constant piece with y[condition] = piece: 300 into int8 raises, 3.7 truncates."""
    for dtype in (np.int8, np.float64):
        check_or_raises(lambda x: np.piecewise(x, [x > 2], [piece]), np.arange(6, dtype=dtype))


def test_piecewise_of_a_scalar():
    """One condition in a list made an array of one (NumPy's asarray): a condition per row."""
    check_types_like_numpy(lambda x: (np.piecewise(x[0], [x[0] > 0.2], [1.0, 2.0]),
                                      np.piecewise(x[1], [x[1] > 0.2], [lambda v: v * 2, 0.0])), np.array([0.1, 0.4]))


@pytest.mark.parametrize("shape", [(2, 2), (4, 4), (2, 3)], ids=str)
def test_piecewise_reads_an_array_of_conditions_as_numpy_does(shape):
    """An array is a condition per row (NumPy wraps only what is not a list or an array), each a mask
    of the leading axes: `a > 4` of a 2x2 array gave another result, of a 4x4 one a raw error."""
    x = np.arange(np.prod(shape), dtype=np.float64).reshape(shape)
    check_or_raises(lambda a: np.piecewise(a, a > 4, [1.0, 2.0]), x)
    check_or_raises(lambda a: np.piecewise(a, a > 4, [1.0, 2.0, 3.0, 4.0]), x)
    check_or_raises(lambda a: np.piecewise(a, [True], [5.0]), x[0])
