"""Inclusive scans on long axes (`solvent.ops.scan`): the pairwise recursion gives NumPy's
cumulative results for every ufunc that accumulates, axis, length and dtype, and its module stays
linear in the number of levels."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import solvent
from solvent.ops import scan
from tests.differential import check_like_numpy

#: (ufunc, dtypes, values): values kept where a different order of combining changes nothing
#: (integers, extrema, booleans) or little (positive sums, products near 1).
ACCUMULATING = [
    (np.add, [np.float64, np.int64, np.int32, np.float32], lambda rng, shape: rng.integers(0, 9, shape)),
    (np.add, [np.float64], lambda rng, shape: rng.random(shape)),
    (np.multiply, [np.float64], lambda rng, shape: 1.0 + 1e-3 * rng.standard_normal(shape)),
    (np.maximum, [np.float64, np.int64, np.uint8], lambda rng, shape: rng.integers(0, 200, shape)),
    (np.minimum, [np.float64, np.int16], lambda rng, shape: rng.integers(-99, 99, shape)),
    (np.fmax, [np.float64], lambda rng, shape: np.where(rng.random(shape) < 0.2, np.nan, rng.random(shape))),
    (np.logical_or, [np.bool_], lambda rng, shape: rng.random(shape) < 0.01),
    (np.logical_and, [np.bool_], lambda rng, shape: rng.random(shape) < 0.99),
    (np.bitwise_xor, [np.int64, np.uint32], lambda rng, shape: rng.integers(0, 1 << 20, shape)),
    (np.logaddexp, [np.float64], lambda rng, shape: rng.standard_normal(shape)),
]


@settings(max_examples=60, deadline=None)
@given(data=st.data(), case=st.sampled_from(ACCUMULATING), threshold=st.sampled_from([2, 3, 8]),
       length=st.integers(1, 70), across=st.sampled_from([None, 0, 1]))
def test_pairwise_scans_accumulate_as_numpy_does(data, case, threshold, length, across):
    """Thresholds far below the default make small arrays take many levels, of odd and even lengths;
    `across` puts the scanned axis first or second of a 2-d array."""
    ufunc, dtypes, draw = case
    dtype = data.draw(st.sampled_from(dtypes))
    rng = np.random.default_rng(data.draw(st.integers(0, 2 ** 16)))
    shape = (length,) if across is None else ((length, 3) if across == 0 else (3, length))
    x = draw(rng, shape).astype(dtype)
    axis = 0 if across is None else across
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(scan, "PAIRWISE_FROM", threshold)
        check_like_numpy(lambda x: ufunc.accumulate(x, axis=axis), x, rtol=1e-10)


@pytest.mark.parametrize("n", [scan.PAIRWISE_FROM - 1, scan.PAIRWISE_FROM, 3 * scan.PAIRWISE_FROM + 1])
def test_long_cumulative_functions_match_numpy(n):
    """At the default threshold, through the NumPy functions users call."""
    rng = np.random.default_rng(n)
    x, counts = rng.random(n), rng.integers(0, 5, (2, n))
    check_like_numpy(lambda x, c: (np.cumsum(x), np.cumprod(1.0 + x / n), np.maximum.accumulate(x),
                                   np.cumsum(c, axis=1), c.cumsum()), x, counts)


def test_the_module_grows_linearly_with_the_levels():
    """Each level's pairs and scan are made once: slices of them pushed down into the level below
    double its ops with each level (a scan of 10^5 elements in 9 levels had 800 slices, and took
    seconds to optimize)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(scan, "PAIRWISE_FROM", 8)
        module = solvent.code_hlo(np.cumsum, np.ones(1 << 10))
    levels = 8  # lengths 2^10, 2^9, ..., 2^3; the last array, of 4, by reduce_window
    assert module.count("stablehlo.add") <= 2 * levels + 1
    assert module.count("stablehlo.slice") <= 5 * levels
