"""Large one-device results are writable NumPy arrays over XLA's CPU buffer; small ones are copies."""

import numpy as np
import pytest

import solvent
from solvent.core import structure
from solvent.core.aval import Aval
from solvent.runtime import devices, host_views

LARGE = host_views.VIEWED_FROM // 8  # float64 elements


@pytest.mark.parametrize("n, viewed", [(LARGE - 1, False), (LARGE, True)])
def test_results_from_the_threshold_on_are_views_of_xlas_buffer(n, viewed):
    x = np.arange(float(n))
    result = solvent.jit(lambda x: x * 2.0)(x)
    assert isinstance(result.base, structure.HostBuffer) is viewed
    assert result.flags.owndata is not viewed
    assert result.flags.writeable and result.flags.c_contiguous
    np.testing.assert_array_equal(result, x * 2.0)
    if viewed:
        assert result.ctypes.data % 64 == 0  # XLA's alignment: PJRT reads it in place when given back


def test_a_view_is_the_only_array_over_its_buffer():
    result = solvent.jit(lambda x: x + 1.0)(np.zeros(LARGE))
    assert not hasattr(result.base, "__array_interface__")  # np.asarray(result.base) makes no second view
    for array, path in [(result, ()), (result[1:][::2], ("base",))]:  # the array over the buffer owns its memory
        owner, steps = structure.memory_owner(array)
        assert owner is result and steps == path


def test_results_of_several_dtypes_and_shapes_are_numpys():
    def f(x):
        return x.reshape(64, -1).T * 3, x > 1, (x * 1j).reshape(8, 8, -1), x.astype(np.int16)

    x = np.linspace(0, 2, LARGE)
    for got, want in zip(solvent.jit(f)(x), f(x)):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("layout, viewed", [("{1,0}", True), ("{0,1}", False)])
def test_views_only_of_row_major_buffers(layout, viewed):
    aval = Aval((64, LARGE // 64), np.dtype(np.float64))
    assert (host_views.viewer(aval, layout, devices.default_device()) is not None) is viewed
