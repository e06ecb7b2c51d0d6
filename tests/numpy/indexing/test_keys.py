"""Random index keys against NumPy, reads and writes: integers (some out of bounds), slices with
any step, None, `...` (sometimes twice), integer arrays, ranges and boolean masks (some of the wrong
length), floats and strings, mixed. The same key either gives NumPy's result and NumPy's writes, or NumPy's error."""

from __future__ import annotations

import copy

import numpy as np
from hypothesis import given, settings, strategies as st

import solvent
from differential import assert_same

SHAPE = (3, 4, 5)

integers = st.integers(-6, 6)
slices = st.builds(slice, st.none() | integers, st.none() | integers,
                   st.none() | st.integers(-3, 3).filter(lambda s: s != 0))
integer_arrays = st.lists(st.integers(-5, 4), min_size=1, max_size=3).map(lambda v: np.array(v))
masks = st.integers(3, 5).flatmap(lambda n: st.lists(st.booleans(), min_size=n, max_size=n)).map(np.array)
ranges = st.builds(range, st.integers(-4, 2), st.integers(-2, 4))
other = st.sampled_from([1.0, np.float64(2.0), "a", np.int64(-1), np.uint8(2)])  # not indices, or NumPy's ints
entries = st.one_of(integers, slices, st.none(), st.just(Ellipsis), integer_arrays, masks, ranges, other)
keys = st.lists(entries, max_size=4).map(tuple) | entries


def _numpy(fn, x):
    """NumPy's result and array afterwards, or the class of the error it raises."""
    try:
        result = fn(x)
    except (IndexError, ValueError, TypeError) as error:
        return type(error), None
    return result, x


def _agree(fn, host):
    expected, after = _numpy(fn, copy.deepcopy(host))
    actual_arg = copy.deepcopy(host)
    if isinstance(expected, type):
        try:
            solvent.jit(fn)(actual_arg)
        except expected:
            assert_same(actual_arg, host)  # nothing written when the key is refused
            return
        raise AssertionError(f"NumPy raises {expected.__name__}, solvent does not")
    assert_same(solvent.jit(fn)(actual_arg), expected)
    assert_same(actual_arg, after)


@settings(max_examples=80, deadline=None)
@given(keys)
def test_random_keys_read_as_numpy(key):
    _agree(lambda x: x[key], np.arange(60.0).reshape(SHAPE))


@settings(max_examples=80, deadline=None)
@given(keys, st.sampled_from(["=", "+="]))
def test_random_keys_write_as_numpy(key, op):
    def write(x):
        if op == "=":
            x[key] = -1.0
        else:
            x[key] += 100.0
        return x.sum()
    _agree(write, np.arange(60.0).reshape(SHAPE))
