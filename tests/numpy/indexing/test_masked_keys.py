"""Static keys of slices of traced length counted from that length, as NumPy counts them from the true
one: reads of slices (views from the valid part's start) and writes of negative indices and bounds."""

import numpy as np
from hypothesis import given, settings, strategies as st

from differential import check_like_numpy, rolled_like_numpy


STATIC = [None, 0, 1, 2, -1, -2, 5, -5, 30, -30]


@settings(max_examples=25, deadline=None)
@given(start=st.sampled_from(STATIC), stop=st.sampled_from(STATIC), backward=st.booleans())
def test_static_slices_of_loop_dependent_slices_count_from_their_traced_length(start, stop, backward):
    """v[1:], v[:-1], v[::-1], v[-5:] of v = x[:i + 1] or x[i:]: NumPy's bounds, negative ones from
    the traced length, each a view from the valid part's start."""
    key = slice(start, None, -1) if backward else slice(start, stop)

    def kernel(x, out):
        for i in range(x.shape[0]):
            for v in (x[:i + 1], x[i:]):
                w = v[key]
                out[i] += (w * w).sum() + np.sum(w[::-1][:2]) + len(w)

    rolled_like_numpy(kernel, np.random.default_rng(13).standard_normal(18), np.zeros(18))


@settings(max_examples=25, deadline=None)
@given(index=st.sampled_from([0, 1, -1, -2, -5]), start=st.sampled_from(STATIC), stop=st.sampled_from(STATIC))
def test_static_keys_written_into_slices_of_traced_length_count_from_that_length(index, start, stop):
    """v[-1] = a, v[-2:] = b into v = x[:i + 1], x[i:] or a selection: a negative index or bound counts
    back from the traced length as NumPy's does from the true one (from the full size, the write went
    into the padding and was lost: s[-1] = 0 left s as it was)."""
    def kernel(x, out):
        for i in range(1, x.shape[0]):
            for v in (x[:i + 1], x[i:]):
                if -len(v) <= index < len(v):
                    v[index] = out[i - 1]
                v[start:stop] = 0.5 * i
                out[i] += v.sum()

    def selected(x):
        s = x[x > 0]
        if -len(s) <= index < len(s):
            s[index] = -1.0
        s[start:stop] = 2.0
        return s, s.sum()

    rng = np.random.default_rng(19)
    rolled_like_numpy(kernel, rng.standard_normal(18), np.zeros(18))
    check_like_numpy(selected, rng.standard_normal(12))


def test_traced_indices_written_into_a_selection_count_as_numpys():
    """A traced index written into a selection: a non-negative one as it is, a negative one from the
    selection's length."""
    def written(x):
        s = x[x > 0]
        s[x.argmax() % 2 + 1] = 9.0
        s[-(x.argmin() % 3) - 1] = 7.0
        return s, s.sum()

    check_like_numpy(written, np.array([3.0, -1.0, 2.5, -3.0, 4.0, -2.0]))


def new_axes(x, A, ms):
    out = np.zeros((len(ms), 3))
    for k in range(len(ms)):
        f, B = x[:ms[k]], A[:ms[k], 1:]
        out[k] = (f[:, None] * np.ones(3)).sum(axis=0)
        out[k, 0] += np.sum(np.abs(f[:, None] - f[None, :])) + np.sum(f[..., None]) + np.sum(f[None, :, None])
        out[k, 1] += np.sum(B[:, None, :] * 2) + np.sum(B[None]) + np.sum(B[..., None] + 1)
    return out


def test_new_axes_of_slices_of_traced_length_are_numpys():
    """`f[:, None]` of a loop's slice was refused as an index other than a mask."""
    rolled_like_numpy(new_axes, np.arange(10.0) ** 1.5, np.arange(40.0).reshape(10, 4), np.array([0, 1, 3, 10]))
