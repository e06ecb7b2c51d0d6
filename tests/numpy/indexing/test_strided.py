"""Views by strides (`numpy.indexing.strided`): `a.strides`, sliding windows and as_strided give
NumPy's values, see later writes to their array as NumPy's views do, and refuse writes."""

import numpy as np
import pytest
from numpy.lib.stride_tricks import as_strided, sliding_window_view

import solvent
from differential import check_like_numpy


def strides_of_views(a):
    return (a.strides, a.T.strides, a[::2, 1:].strides, a.reshape(4, 3).strides, a[:, None].strides,
            np.zeros((2, 3), np.int32).strides, np.sin(a).strides, a.astype(np.float32).strides)


@pytest.mark.parametrize("layout", ["C", "F"])
def test_strides_are_numpys(layout):
    check_like_numpy(strides_of_views, np.asarray(np.arange(12.0).reshape(3, 4), order=layout))


def rolling_window(a, window):  # the recipe people copy
    shape = a.shape[:-1] + (a.shape[-1] - window + 1, window)
    strides = a.strides + (a.strides[-1],)
    return as_strided(a, shape=shape, strides=strides)


def moving_averages(x):
    return rolling_window(x, 3).mean(axis=-1), rolling_window(x.reshape(2, -1), 2).sum(axis=-1)


def windows_see_later_writes(x):
    strided, windows = rolling_window(x, 4), sliding_window_view(x, 4)
    x[0] = 100.0
    return strided.sum(axis=1), windows.max(axis=1)


def test_as_strided_and_sliding_windows_are_views_with_numpys_values():
    check_like_numpy(moving_averages, np.arange(12.0) ** 2)
    check_like_numpy(windows_see_later_writes, np.arange(10.0))
    check_like_numpy(lambda x: sliding_window_view(x, (2, 3)).sum(axis=(-1, -2)), np.arange(20.0).reshape(4, 5))


def every_other(x):
    as_strided(x, shape=(3,), strides=(16,))[:] = -1.0
    as_strided(x[1:], shape=(2, 2), strides=(8, 24))[1] *= 10.0
    return x


def test_writes_through_as_strided_without_overlap_go_back():
    """Only overlapping elements have no order of writes; these were refused too."""
    check_like_numpy(every_other, np.arange(6.0))


def test_refused_forms_say_why():
    def through_windows(x):
        sliding_window_view(x, 3)[0, 0] = 1.0

    def through_strided(x):
        rolling_window(x, 3)[0, 0] = 1.0

    def outside(x):
        return as_strided(x, shape=(4,), strides=(24,))

    def of_a_transpose(x):
        return as_strided(x.T, shape=(2,), strides=(8,))

    x = np.arange(6.0)
    with pytest.raises(ValueError, match="read-only"):
        through_windows(x.copy())  # NumPy's own
    with pytest.raises(ValueError, match="read-only"):
        solvent.jit(through_windows)(x)
    with pytest.raises(solvent.UnsupportedError, match="overlap"):
        solvent.jit(through_strided)(x)
    with pytest.raises(solvent.UnsupportedError, match="outside the 6 elements"):
        solvent.jit(outside)(x)
    with pytest.raises(solvent.UnsupportedError, match="not C-contiguous"):
        solvent.jit(of_a_transpose)(x.reshape(2, 3))
    with pytest.raises(solvent.UnsupportedError, match="as_strided's shape must be a static Python int"):
        solvent.jit(lambda x, k: as_strided(x, shape=(k[0],), strides=(8,)))(x, np.array([3]))
    with pytest.raises(solvent.UnsupportedError, match="strides of an array"):
        solvent.jit(lambda a: (a[:, ::2] * 2.0).strides)(np.ones((3, 4)).T)
