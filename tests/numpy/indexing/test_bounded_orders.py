"""NumPy functions on slices with traced bounds where order matters, against NumPy, in rolled loops:
scans, flips, rolls, differences, sorts, searches, integrals and order statistics."""

import numpy as np
from hypothesis import given, settings, strategies as st

from differential import rolled_like_numpy, with_nans


def test_scans_flips_rolls_and_sorts_of_loop_dependent_slices():
    """Elements read back from each kind of result (a[-1] counts from the traced length)."""
    def kernel(x, A, out):
        for i in range(x.shape[0]):
            v, w = x[:i + 1], x[i:]
            out[i, 0] = np.cumsum(v)[-1] + np.cumprod(w * 0.1 + 1.0)[-1] + np.nancumsum(v)[i // 2]
            out[i, 1] = np.maximum.accumulate(w)[-1] + np.cumsum(A[i:, :i + 1], axis=1)[0, -1]
            out[i, 2] = np.flip(v)[0] + np.roll(w, 2)[0] + np.roll(v, -3)[-1] + np.roll(v, i)[1 % (i + 1)]
            out[i, 3] = np.diff(v).sum() + np.diff(w, 2).sum() + np.flip(A[:i + 1, i:], 0)[0, -1]
            out[i, 4] = np.sort(w)[0] + np.sort(v)[i // 2] + np.argsort(v, kind="stable")[-1] + np.argsort(w)[0]

    rng = np.random.default_rng(6)
    x = rng.standard_normal(20)
    rolled_like_numpy(kernel, x, rng.standard_normal((20, 20)), np.zeros((20, 5)))
    rolled_like_numpy(kernel, with_nans(x), rng.standard_normal((20, 20)), np.zeros((20, 5)))


def test_searches_and_integrals_of_loop_dependent_slices():
    def kernel(x, t, out):
        for i in range(x.shape[0]):
            v, w = x[:i + 1], x[i:]
            out[i, 0] = np.searchsorted(np.sort(v), 0.1) + np.searchsorted(np.sort(w), x[:4], "right").sum()
            out[i, 1] = np.trapezoid(v) + np.trapezoid(w, dx=0.5) + np.trapezoid(v, t[:i + 1])

    rng = np.random.default_rng(10)
    rolled_like_numpy(kernel, rng.standard_normal(21), np.cumsum(rng.random(21)), np.zeros((21, 2)))


def test_order_statistics_of_loop_dependent_slices():
    """Running medians and quantiles over growing and shrinking windows, NaNs among them."""
    def kernel(x, out):
        for i in range(x.shape[0]):
            v, w = x[:i + 1], x[i:]
            out[i, 0] = np.median(v) + np.nanmedian(w)
            out[i, 1] = np.percentile(v, 30) + np.nanquantile(w, 0.8, method="lower")
            out[i, 2:] = np.quantile(w, [0.1, 0.5], method="weibull")

    x = np.random.default_rng(9).standard_normal(22)
    rolled_like_numpy(kernel, x, np.zeros((22, 4)))
    rolled_like_numpy(kernel, with_nans(x), np.zeros((22, 4)))


FORMS = {"none": lambda i, n: None, "i": lambda i, n: i, "i+1": lambda i, n: i + 1, "-i-1": lambda i, n: -i - 1,
         "n-i": lambda i, n: n - i, "two": lambda i, n: 2}


@settings(max_examples=12, deadline=None)
@given(lo=st.sampled_from(sorted(FORMS)), hi=st.sampled_from(sorted(FORMS)), step=st.sampled_from([1, -1]),
       shift=st.integers(-5, 5))
def test_reordering_rules_on_every_form_of_slice(lo, hi, step, shift):
    """Scans, flips, rolls, sorts, differences and joins of slices with traced starts, stops and
    steps (empty ones included), combined with each other on the valid part."""
    def kernel(x, out):
        n = x.shape[0]
        for i in range(n):
            s = slice(FORMS[lo](i, n), FORMS[hi](i, n), step)
            v = x[s]
            out[i, 0] = (np.cumsum(v) * np.flip(v)).sum() + np.maximum.accumulate(v).sum()
            out[i, 1] = (np.roll(v, shift) * np.sort(v)).sum() + np.argsort(v).sum()
            out[i, 2] = np.diff(v).sum() + np.concatenate([v, 2.0 * v]).sum() + np.clip(v, 0.2, 0.8).sum()

    rolled_like_numpy(kernel, np.random.default_rng(7).random(18), np.zeros((18, 3)))


def test_complex_sorts_of_loop_dependent_slices_put_the_padding_after_every_nan():
    """NumPy sorts nan+1j and nan+nanj last: the padding (nan+nanj) sorts after them too."""
    def kernel(x, a, b):
        for i in range(x.shape[0]):
            a[i, :i + 1] = np.sort(x[:i + 1])
            b[i, :i + 1] = np.argsort(x[:i + 1], kind="stable")

    x = np.arange(20, dtype=complex)
    x[[0, 5]] = [complex(np.nan, 1), complex(np.nan, np.nan)]
    rolled_like_numpy(kernel, x, np.zeros((20, 20), complex), np.zeros((20, 20), np.int64))
