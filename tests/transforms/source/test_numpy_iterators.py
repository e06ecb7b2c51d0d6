"""np.ndindex and np.ndenumerate over traced arrays (`transforms.source.numpy_iterators`): loops
over them roll, and give NumPy's indices and items; np.nditer is refused with a way out."""

import warnings

import numpy as np
import pytest

import solvent
from differential import check_types_like_numpy


def weighted_by_index(m):
    total, last = 0.0, (0,) * m.ndim
    for idx in np.ndindex(m.shape):
        total += m[idx] * (idx[0] + 2 * idx[-1])
        last = idx
    return total, last


def enumerated(m):
    best, where = -np.inf, (0,) * m.ndim
    for idx, v in np.ndenumerate(m):
        if v > best:
            best, where = v, idx
    return best, where


@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 4), (40, 50), (7,)])
def test_loops_over_ndindex_and_ndenumerate_are_numpys(shape):
    m = np.random.default_rng(0).standard_normal(shape)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # rolled where long: no warning that a loop unrolls
        check_types_like_numpy(weighted_by_index, m)
        check_types_like_numpy(enumerated, m)


def test_ndindex_takes_the_shape_as_separate_numbers():
    check_types_like_numpy(lambda m: [m[i, j] * i for i, j in np.ndindex(2, 3)], np.ones((2, 3)))


def test_nditer_is_refused_with_a_way_out():
    def f(m):
        return sum(v for v in np.nditer(m))

    with pytest.raises(solvent.UnsupportedError, match="np.ndindex"):
        solvent.jit(f)(np.ones(3))
