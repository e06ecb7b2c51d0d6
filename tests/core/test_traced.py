"""Traced arrays as NumPy arrays: attributes that NumPy lets a program set."""

import numpy as np
import pytest

import solvent
from differential import check_like_numpy


def reshapes_in_place(a):
    b = a * 2
    b.shape = (3, 2)
    c = np.arange(12)
    c.shape = (-1, 4)
    c[0] += 1
    return b, c, b.sum(axis=0), c.shape


def test_shape_assignment_reshapes_the_array_itself():
    check_like_numpy(reshapes_in_place, np.arange(6.0))


def reshapes_an_argument(a):
    a.shape = (3, 2)


def reshapes_a_viewed_array(a):
    b = a * 2
    first = b[0:2]
    b.shape = (3, 2)
    return first


@pytest.mark.parametrize("fn", [reshapes_an_argument, reshapes_a_viewed_array])
def test_shape_assignment_where_others_see_the_old_shape_is_refused(fn):
    a = np.arange(6.0)
    with pytest.raises(solvent.UnsupportedError, match="x.reshape"):
        solvent.jit(fn)(a)
    assert a.shape == (6,)


def test_shape_assignment_errors_are_numpys():
    def wrong_size(a):
        b = a * 2
        b.shape = (4,)

    def of_a_scalar(a):
        s = a.sum()
        s.shape = (1,)

    with pytest.raises(ValueError, match="cannot reshape array of size 6"):
        solvent.jit(wrong_size)(np.arange(6.0))
    with pytest.raises(AttributeError, match="not writable"):
        solvent.jit(of_a_scalar)(np.arange(6.0))
