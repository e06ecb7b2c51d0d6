"""Random index keys against NumPy, reads and writes: integers (some out of bounds), slices with
any step, None, `...` (sometimes twice), integer arrays, ranges and boolean masks (some of the wrong
length), floats and strings, mixed, some of them traced (arguments of the program). The same key either gives
NumPy's result and NumPy's writes, or NumPy's error; with traced masks beside other index arrays, solvent's
UnsupportedError (the selection's length is only known at run time), the arguments unchanged."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import solvent
from differential import assert_same
from solvent.numpy.indexing.key import ARRAY, INTEGER, MASK, NEW, SLICE, normalize

SHAPE = (3, 4, 5)


def test_normalize_expands_the_ellipsis_and_says_which_axes_each_entry_indexes():
    mask = np.ones((4, 5), bool)
    key = normalize((None, 1, mask), SHAPE)
    assert [(e.kind, e.dim) for e in key.entries] == [(NEW, 0), (INTEGER, 0), (MASK, 1)]
    key = normalize((Ellipsis, None, [0, 2]), SHAPE)
    assert [(e.kind, e.dim) for e in key.entries] == [(SLICE, 0), (SLICE, 1), (NEW, 2), (ARRAY, 2)]
    assert key.ellipsis and not normalize(0, SHAPE).ellipsis
    assert normalize(-1, SHAPE).entries[0].value == -1 and len(normalize(-1, SHAPE).entries) == 3


@pytest.mark.parametrize("key, message", [
    ((Ellipsis, 0, Ellipsis), "single ellipsis"),
    ((0, np.ones((4, 5), bool), 1), "too many indices"),
    ((0, 4), "index 4 is out of bounds for axis 1 with size 4"),
    ((0, np.ones(3, bool)), "boolean index did not match indexed array along axis 1"),
    (1.0, "only integers"),
    (("a",), "only integers"),
])
def test_normalize_raises_numpys_index_errors(key, message):
    with pytest.raises(IndexError, match=message):
        normalize(key, SHAPE)
    with pytest.raises(IndexError):
        np.zeros(SHAPE)[key]

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


class Traced:
    """A key entry passed to the program as an argument, so that it is traced."""

    def __init__(self, value):
        self.value = value

    def __repr__(self):
        return f"Traced({self.value!r})"


traced = st.one_of(st.integers(-3, 2).map(np.int64), st.lists(st.integers(-3, 2), min_size=1, max_size=3).map(np.array),
                   masks).map(Traced)  # (in bounds: a compiled program clamps where NumPy raises)
traced_keys = st.lists(entries | traced, max_size=4).map(tuple) | traced


def _program(key, op):
    """`fn(x, *traced entries)` reading or writing `x[key]` with the traced entries put back."""
    parts = key if isinstance(key, tuple) else (key,)

    def rebuilt(values):
        it = iter(values)
        out = tuple(next(it) if isinstance(p, Traced) else p for p in parts)
        return out if isinstance(key, tuple) else out[0]

    def fn(x, *values):
        if op == "read":
            return x[rebuilt(values)]
        if op == "=":
            x[rebuilt(values)] = -1.0
        else:
            x[rebuilt(values)] += 100.0
        return x.sum()
    return fn, [p.value for p in parts if isinstance(p, Traced)]


@settings(max_examples=80, deadline=None)
@given(traced_keys, st.sampled_from(["read", "=", "+="]))
def test_random_keys_with_traced_entries_as_numpy(key, op):
    fn, values = _program(key, op)
    host = np.arange(60.0).reshape(SHAPE)
    expected, after = _numpy(lambda x: fn(x, *values), host.copy())
    arg = host.copy()
    try:
        actual = solvent.jit(fn)(arg, *values)
    except solvent.UnsupportedError as error:
        assert "traced boolean mask together with" in str(error)
        assert_same(arg, host)
        return
    except (IndexError, ValueError, TypeError) as error:
        assert isinstance(expected, type) and isinstance(error, expected), f"NumPy gives {expected!r}"
        assert_same(arg, host)
        return
    assert not isinstance(expected, type), f"NumPy raises {expected.__name__}, solvent does not"
    assert_same(actual, expected)
    assert_same(arg, after)
