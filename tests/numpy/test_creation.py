"""Array creation inside traced functions against NumPy: zeros, ones, empty, full, eye,
identity, arange, linspace with plain Python arguments (fresh arrays that accept traced
values), their `_like` forms, and np.array/np.asarray of traced values."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import solvent
from numpy_samples import check, check_or_raises, sample


@pytest.mark.parametrize("dtype", [None, float, int, bool, np.float32, np.int8, np.uint32, np.complex128, "int16"],
                         ids=str)
def test_filled_arrays(dtype):
    kwargs = {} if dtype is None else {"dtype": dtype}
    check(lambda x: (np.zeros(3, **kwargs), np.ones((2, 3), **kwargs), np.full((2, 2), 7, **kwargs),
                     np.zeros((), **kwargs), np.ones((0, 2), **kwargs), x), np.ones(1))


def test_full_infers_its_dtype_from_the_fill_value():
    check(lambda x: (np.full(3, 2), np.full(3, 2.5), np.full(3, True), np.full((1, 2), 1j), np.full(2, np.float32(1))),
          np.ones(1))


def test_full_with_a_traced_fill_value():
    check(lambda x: (np.full((2, 3), x.sum()), np.full(4, x[0], dtype=np.int32), np.full(2, x)), np.arange(1.0, 3.0))


def test_empty_has_the_right_shape_and_dtype():
    def f(x):
        e = np.empty((2, 3), dtype=np.int32)
        e[...] = 5
        f = np.empty(x.shape)
        f[:] = x
        return e, f
    check(f, np.arange(4.0))


def test_fresh_arrays_accept_traced_values():
    """The pattern from the issue: out = np.zeros(n); out[i] = x.sum()."""
    def f(x):
        out = np.zeros(3)
        for i in range(3):
            out[i] = x[i].sum()
        out[1:] += x[:2, 0]
        return out
    check(f, sample(np.float64, (3, 4)))


def test_fresh_array_in_a_helper_function():
    def helper(n):
        return np.ones(n, dtype=np.float32)

    def f(x):
        y = helper(4)
        y *= x
        return y
    check(f, sample(np.float32, (4,)))


@pytest.mark.parametrize("args", [(5,), (2, 7), (7, 2, -1), (0, 1, 0.25), (1.5, 4), (-3, 3, 2), (5, 0), (0,),
                                  (10, 0, -3), (0.0, 1.0, 0.1)], ids=str)
def test_arange(args):
    check(lambda x: (np.arange(*args), x), np.ones(1))


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.float32, np.float64, np.int64], ids=str)
def test_arange_dtype(dtype):
    check(lambda x: (np.arange(6, dtype=dtype), np.arange(1, 7, 2, dtype=dtype), np.arange(3, dtype=dtype) * x),
          np.ones(3, dtype))


def test_arange_holds_traced_values():
    def f(x):
        r = np.arange(4.0)
        r[0] = x.max()
        return r
    check(f, sample(np.float64, (3,)))


@pytest.mark.parametrize("kwargs", [{}, {"num": 5}, {"num": 1}, {"num": 0}, {"endpoint": False, "num": 4},
                                    {"dtype": np.float32, "num": 6}, {"dtype": int, "num": 6}], ids=str)
def test_linspace(kwargs):
    check(lambda x: (np.linspace(-1.0, 2.0, **kwargs), x), np.ones(1))


def test_linspace_retstep_arrays_and_traced_fill():
    def f(x):
        grid, step = np.linspace(0, 1, 5, retstep=True)
        grid[2] = x.sum()
        return grid, step, np.linspace([0, 1], [2, 5], 3), np.linspace(0, [1, 2], 3, axis=1)
    check(f, np.ones(2))


@pytest.mark.parametrize("args", [(3,), (2, 4), (4, 2), (3, 3, 1), (3, 4, -2), (3, None, 5), (0,)], ids=str)
@pytest.mark.parametrize("dtype", [float, int, bool, np.float32, np.complex128], ids=str)
def test_eye(args, dtype):
    check(lambda x: (np.eye(*args, dtype=dtype), x), np.ones(1))


def test_eye_keyword_forms_and_identity():
    def f(x):
        e = np.eye(3, k=1)
        e[0, 0] = x[0]
        return e, np.eye(N=2, M=3, k=-1), np.identity(3), np.identity(2, dtype=np.int8)
    check(f, np.arange(2.0))


@pytest.mark.parametrize("dtype", [None, np.float32, np.int8, bool], ids=str)
@pytest.mark.parametrize("source", [np.int32, np.float64, np.complex128], ids=str)
def test_like_forms(source, dtype):
    x = sample(source, (2, 3))
    check(lambda x: (np.zeros_like(x, dtype=dtype), np.ones_like(x, dtype=dtype), np.full_like(x, 3, dtype=dtype),
                     np.empty_like(x, dtype=dtype).shape), x)


def test_like_forms_with_shape_and_traced_fill():
    def f(x):
        e = np.empty_like(x)
        e[...] = 2
        return (np.zeros_like(x, shape=(4,)), np.ones_like(x, shape=3), np.full_like(x, x.max()),
                np.full_like(x, 2.7), e)
    check(f, sample(np.int16, (2, 2)))


def test_like_forms_of_constants_and_fresh_arrays():
    def f(x):
        z = np.zeros_like(np.zeros((2, 2)))
        z[0, 0] = x.sum()
        o = np.ones_like([1, 2, 3])
        return z, o, np.full_like(z, 4.0)
    check(f, np.arange(3.0))


def test_array_and_asarray_of_traced_values():
    def f(x, y):
        a = np.array([x.sum(), y[0], 1.0])
        b = np.asarray(x)
        b[0] = 99.0               # asarray of an array is the array itself
        c = np.array(y)
        c[0] = -1.0               # np.array copies
        return a, np.array([[x[0], x[1]], [y[1], y[0]]]), np.asarray(x, dtype=np.float32), c
    check(f, np.arange(3.0), np.arange(2.0))


def test_creation_outside_tracing_is_plain_numpy():
    assert type(np.zeros(3)) is np.ndarray
    solvent.jit(lambda x: np.zeros(3) + x)(np.ones(3))
    assert type(np.zeros(3)) is np.ndarray and np.zeros is not None


def test_other_threads_see_plain_numpy_while_a_trace_runs():
    seen = []

    def other():
        seen.append(type(np.zeros(2)))

    def f(x):
        thread = threading.Thread(target=other)
        thread.start()
        thread.join()
        return x + np.ones(2)
    check(f, np.ones(2))
    assert seen and all(kind is np.ndarray for kind in seen)


def test_invalid_shapes_raise_like_numpy():
    check_or_raises(lambda x: np.zeros(-1) + x, np.ones(1))
    check_or_raises(lambda x: np.arange(0, 1, 0) + x, np.ones(1))
