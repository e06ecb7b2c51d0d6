"""Order statistics by selection (`numpy.order_statistics`): NumPy's sorted values at static
positions, on NumPy arrays (the array code itself) and traced (through np.median and np.quantile
of long axes, against NumPy)."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import solvent
from differential import check_like_numpy
from solvent.numpy import order_statistics

DTYPES = [np.float64, np.float32, np.float16, np.int64, np.int32, np.int8, np.uint64, np.uint16, np.bool_]
SPECIAL = [np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1.5, -1.5, 1e300, -1e-300]


@st.composite
def columns(draw):
    dtype = np.dtype(draw(st.sampled_from(DTYPES)))
    n, width = draw(st.integers(1, 40)), draw(st.integers(1, 3))
    if dtype.kind == "f":
        pool = st.sampled_from(SPECIAL) | st.floats(-6e4, 6e4, width=dtype.itemsize * 8)
        data = [draw(pool) for _ in range(n * width)]
    elif dtype.kind == "b":
        data = draw(st.lists(st.booleans(), min_size=n * width, max_size=n * width))
    else:
        info = np.iinfo(dtype)
        data = draw(st.lists(st.integers(int(info.min), int(info.max)), min_size=n * width, max_size=n * width))
    with np.errstate(over="ignore"):  # (1e300 is inf in float32 and float16)
        rows = np.array(data, np.float64 if dtype.kind == "f" else dtype).astype(dtype).reshape(n, width)
    positions = np.array(draw(st.lists(st.integers(-n, n - 1), min_size=1, max_size=4)))
    return rows, positions


@settings(max_examples=200, deadline=None)
@given(columns())
def test_selection_gives_the_sorted_values_at_the_positions(case):
    rows, positions = case
    expected = np.sort(rows, axis=0)[positions]
    actual = order_statistics.at(rows, positions)
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    np.testing.assert_array_equal(actual, expected)  # (NaN equal to NaN; -0.0 equal to 0.0)


@pytest.mark.parametrize("n", [65, 200, 201])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.uint8])
def test_medians_and_quantiles_of_long_axes_are_numpys(n, dtype):
    rng = np.random.default_rng(n)
    x = (rng.standard_normal((n, 3)) * 50).astype(dtype)
    if dtype == np.float64:
        x[::7] = x[1]  # repeats
        x[5, 2] = np.nan
    check_like_numpy(lambda a: (np.median(a), np.median(a, axis=0), np.percentile(a, [25, 50, 75], axis=0),
                                np.quantile(a, 0.3, method="nearest")), x)


def test_the_bit_by_bit_search_is_one_loop_not_64_passes():
    """The search loops over the bits of keys it reads from outside the loop (the unrolled 64
    passes took a second of XLA compile for one median)."""
    module = solvent.code_hlo(lambda a: np.median(a), np.zeros(200))
    assert module.count("stablehlo.while") == 1 and module.count("stablehlo.reduce") < 8


def test_many_positions_and_short_axes_sort():
    assert not order_statistics.selectable(np.dtype(np.float64), 64, np.array([31, 32]))
    assert not order_statistics.selectable(np.dtype(np.complex128), 1000, np.array([499]))
    assert not order_statistics.selectable(np.dtype(np.float64), 1000, np.arange(9))
    assert order_statistics.selectable(np.dtype(np.float64), 1000, np.array([499, 500, -1]))
