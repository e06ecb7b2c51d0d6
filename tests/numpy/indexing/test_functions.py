"""Index functions against NumPy: take, take_along_axis, put, put_along_axis, place, ix_,
unravel_index, ravel_multi_index, the *_indices helpers, ufunc.at, and the errors of the
functions whose result shape depends on the data."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import solvent
from differential import assert_same
from numpy_samples import ALL_DTYPES, check, check_or_raises, sample

X = np.arange(12.0).reshape(3, 4)
MASK = np.arange(12).reshape(3, 4) % 5 == 0  # a closure constant: static


# -- take and put ------------------------------------------------------------------------------

def test_take():
    def f(x, i):
        return (np.take(x, i), np.take(x, i, axis=1), np.take(x, i[:3], axis=0), np.take(x, 5),
                np.take(x, [[1], [2]], axis=-1), np.take(x, i + 10, axis=1, mode="wrap"),
                np.take(x, i * 3, mode="clip"), np.take(x, 7, mode="wrap", axis=1))
    check(f, X, np.array([2, 0, -1, 2]))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_take_every_dtype(dtype):
    check(lambda x: (np.take(x, [3, 0, 3]), np.take(x, [[1, 0]], axis=0)), sample(dtype, (2, 3), 0, 9))


def test_take_out_of_bounds_raises_like_numpy():
    check_or_raises(lambda x: np.take(x, [12]), X)
    check_or_raises(lambda x: np.take(x, [-5], axis=1), X)
    check_or_raises(lambda x: np.take(x, [0], axis=0, mode="wrap"), np.zeros((0, 2)))


def test_take_traced_indices_out_of_bounds_are_clamped():
    result = solvent.jit(lambda x, i: np.take(x, i))(np.arange(4.0), np.array([9, -9, 1]))
    assert_same(result, np.array([3.0, 0.0, 1.0]))


def test_take_with_out():
    def f(x, out):
        np.take(x, [2, 0], axis=0, out=out)
        return out
    check(f, X, np.zeros((2, 4)))
    check(f, X + 0.5, np.zeros((2, 4), np.int64))  # NumPy casts into out unsafely


def test_take_along_axis():
    def f(x, i, j):
        return np.take_along_axis(x, i, axis=1), np.take_along_axis(x, j, axis=0), np.take_along_axis(x, i[0], None)
    check(f, X, np.array([[0, 3], [1, 1], [-1, 2]]), np.array([[2, 0, 1, 1]]))


def test_take_along_axis_of_argsort_like_indices():
    def f(x, i):
        return np.take_along_axis(x, i, axis=-1)
    x = sample(np.float64, (3, 5), seed=3)
    check(f, x, np.argsort(x, axis=-1))


def test_put_along_axis():
    def f(x, i):
        np.put_along_axis(x, i, -5.0, axis=0)
        np.put_along_axis(x, np.array([[0], [3], [-1]]), np.array([[1.0], [2.0], [3.0]]), axis=1)
        return x
    check(f, X, np.array([[0, 2, 1, 1]]))


def test_put():
    def f(x, i):
        np.put(x, i, [10.0, 20.0, 30.0])
        np.put(x, [100, -100], 7.0, mode="clip")
        np.put(x, [13, 0, 13], np.array([1.0, 2.0, 3.0]), mode="wrap")
        np.put(x, [], 5.0)
        return x
    check(f, X, np.array([2, 0, -1, 2]))


def test_put_raises_like_numpy():
    def f(x):
        np.put(x, [12], 1.0)
        return x
    check_or_raises(f, X)


def test_place():
    def f(x, y):
        np.place(x, x > 6, 3.0)
        np.place(x, MASK, [1.0, 2.0])
        np.place(y, y < 0, [9])
        return x, y
    check(f, X, np.array([-1, 2, -3]))


def test_place_with_a_traced_mask_and_several_values_is_unsupported():
    def f(x):
        np.place(x, x > 2, [1.0, 2.0])
        return x
    with pytest.raises(solvent.UnsupportedError, match="np.place with a traced mask"):
        solvent.jit(f)(np.arange(5.0))


# -- index arrays ------------------------------------------------------------------------------

def test_ix():
    def f(x, i):
        rows, cols = np.ix_(i, [0, 3])
        return rows, cols, x[np.ix_(i, [True, False, True, False])], x[np.ix_([2], i)]
    check(f, X, np.array([0, 2]))


@pytest.mark.parametrize("order", ["C", "F"])
def test_unravel_and_ravel_multi_index(order):
    def f(i, r, c):
        return (np.unravel_index(i, (3, 4), order=order), np.unravel_index(i, 12, order=order),
                np.ravel_multi_index((r, c), (3, 4), order=order),
                np.ravel_multi_index((r + 5, c - 5), (3, 4), mode="wrap", order=order),
                np.ravel_multi_index((r, c + 10), (3, 4), mode=("raise", "clip"), order=order))
    check(f, np.array([0, 5, 11]), np.array([0, 2, 1]), np.array([1, 3, 0]))


def test_ravel_multi_index_checks_coordinates_made_inside():
    """Coordinates known while tracing (an array made in the function) raise as NumPy's do."""
    check_or_raises(lambda c: np.ravel_multi_index((np.array([1, 5]), c), (3, 4)), np.array([2, 2]))


def test_triangle_and_diagonal_indices():
    def f(x, y):
        x[np.triu_indices(3, 1, 4)] = 0.0
        y[np.diag_indices_from(y)] += 1.0
        return x[np.tril_indices_from(x)], np.triu_indices_from(x, k=-1), y, np.diag_indices(2, 3)
    check(f, X, np.zeros((3, 3)))


# -- data-dependent shapes ------------------------------------------------------------------------

@pytest.mark.parametrize("fn", [np.nonzero, np.argwhere, np.flatnonzero, np.unique,
                                lambda a: np.extract(a > 1, a), lambda a: np.compress(a[0] > 1, a)],
                         ids=["nonzero", "argwhere", "flatnonzero", "unique", "extract", "compress"])
def test_data_dependent_shapes_come_back_with_numpys_shape(fn):
    # packed inside the program (tests/numpy/indexing/test_packed.py), cut to length by the thunk
    check(fn, X)


def test_extract_and_compress_with_static_conditions():
    def f(x):
        return (np.extract(MASK, x), np.compress([True, False, True], x, axis=0), np.compress([False, True], x),
                np.compress(MASK[0], x, axis=1))
    check(f, X)


# -- ufunc.at -------------------------------------------------------------------------------------

def test_add_at_accumulates_repeated_indices():
    def f(x, i):
        np.add.at(x, i, 1.0)
        np.add.at(x, [0, 0, 0], np.array([[1.0], [2.0], [3.0]]))
        return x
    check(f, X, np.array([2, 0, -1, 2]))


def test_ufunc_at_with_every_index_form():
    def f(x, i):
        np.subtract.at(x, (i, 1), np.array([1.0, 2.0, 3.0, 4.0]))
        np.maximum.at(x, [0, 0], np.array([[100.0], [200.0]]))
        np.minimum.at(x, (slice(None), [3, 3]), -1.0)
        np.negative.at(x, [1, 1, 2])
        np.multiply.at(x, x > 5, 2)
        np.add.at(x, (Ellipsis, 0), 0.5)
        np.divide.at(x, ([1, 1], [2, 2]), 4.0)
        return x
    check(f, X, np.array([2, 0, -1, 2]))


def test_ufunc_at_casts_each_step_not_the_values_first():
    def f(x, y):
        np.add.at(x, [0, 0, 1], 1.6)
        np.add.at(x, [2, 2], np.array([-0.5, -0.5]))
        np.add.at(y, [0, 0], np.array([100, 100], dtype=np.int64))
        return x, y
    check(f, np.array([-5, 3, -7, 1], dtype=np.int8), np.full(2, 100, dtype=np.int8))


def test_ufunc_at_takes_a_python_number_as_an_array():
    """NumPy's ufunc.at makes its values an array: int64 300 wraps into int8 (it raised OverflowError)."""
    def f(x, u, y):
        np.add.at(x, [0, 0, 2], 300)
        np.subtract.at(u, [0, 0, 2], -1)
        np.multiply.at(x, [1, 1], int(y[0]))
        return x, u
    check(f, np.zeros(3, np.int8) + 1, np.zeros(3, np.uint8), np.array([300.0]))


def _has_loop(ufunc, dtype) -> bool:
    try:
        ufunc.at(np.zeros(1, dtype), [0], np.zeros(1, dtype))
    except TypeError:
        return False
    return True


@pytest.mark.parametrize("ufunc, dtype", [
    (ufunc, dtype) for ufunc in (np.add, np.multiply, np.maximum, np.bitwise_or, np.subtract)
    for dtype in (np.int32, np.uint8, np.float32, np.complex128, np.bool_) if _has_loop(ufunc, dtype)],
    ids=lambda v: getattr(v, "__name__", str(v)))
def test_ufunc_at_dtypes(ufunc, dtype):
    def f(x, v):
        ufunc.at(x, [1, 3, 1, 0], v)
        return x
    check(f, sample(dtype, (5,), 0, 5, seed=1), sample(dtype, (4,), 0, 5, seed=2))


# -- hypothesis: take over shapes and axes -----------------------------------------------------------

@settings(max_examples=25, deadline=None)
@given(data=st.data(), shape=st.lists(st.integers(1, 4), min_size=1, max_size=3).map(tuple))
def test_random_take_and_add_at(data, shape):
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    n = shape[axis]
    index_shape = data.draw(st.lists(st.integers(0, 3), max_size=2).map(tuple))
    indices = np.array(data.draw(st.lists(st.integers(-n, n - 1), min_size=int(np.prod(index_shape)),
                                          max_size=int(np.prod(index_shape))))).reshape(index_shape).astype(np.int64)
    mode = data.draw(st.sampled_from(["raise", "wrap", "clip"]))
    x = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)

    def f(x, i):
        r = np.take(x, i, axis=axis, mode=mode)
        np.add.at(x, (slice(None),) * (axis % len(shape)) + (i,), 1.0)
        return r, x
    check(f, x, indices)


def test_index_dtypes():
    def f(x, i, b):
        return np.take(x, i), np.take(x, b), np.unravel_index(i, (3, 4)), np.ravel_multi_index((i, i), (20, 20))
    check(f, X, np.array([3, 1], dtype=np.int32), np.array([True, False]))


def test_scalar_indices_give_scalars():
    def f(x, i):
        return np.take(x, i), np.unravel_index(i, (3, 4)), np.ravel_multi_index((i, 1), (9, 4))
    check(f, X, np.array(7))


@pytest.mark.parametrize("shape, wrap", [((3, 3), False), ((5, 3), False), ((5, 3), True), ((3, 5), False),
                                         ((2, 2, 2), False), ((1, 4), False)], ids=str)
def test_fill_diagonal(shape, wrap):
    def f(a, v):
        np.fill_diagonal(a, v[0], wrap=wrap)
        b = np.zeros(shape, np.int8)
        np.fill_diagonal(b, [7, -2], wrap=wrap)  # values repeat along the diagonal
        return b
    check(f, sample(np.float64, shape), sample(np.float32, (2,)))
    check_or_raises(lambda a: np.fill_diagonal(a, 1.0), sample(np.float64, (3,)))
    check_or_raises(lambda a: np.fill_diagonal(a, 1.0), sample(np.float64, (2, 3, 2)))


@pytest.mark.parametrize("values", [5, [1, 2], [1, 2, 3, 4, 5, 6, 7]], ids=str)
def test_putmask(values):
    def f(a, m):
        np.putmask(a, m, values)
        np.putmask(a, a > 3, a * 0.5)  # values the same size as a: position for position
        return a
    check(f, sample(np.float64, (3, 4)), sample(np.bool_, (3, 4)))
    check(lambda a: np.putmask(a, [True, False, True], -1), sample(np.int32, (3,)))


@pytest.mark.parametrize("fn", [np.putmask, np.place])
def test_putmask_and_place_cast_array_values_safely_as_numpys(fn):
    """An array of values that does not cast safely raises NumPy's TypeError (it was cast); lists,
    numbers and NumPy scalars cast as assignment does; no values write nothing."""
    for values in (np.array([1, 2]), np.array([0.5]), [1, 2], 1.5, np.float64(2.5), np.array([1], np.int8)):
        for dtype in (np.int32, np.float32):
            check_or_raises(lambda a: (fn(a, np.array([0, 1, 1, 0], bool), values), a)[1], np.arange(4, dtype=dtype))
    check_or_raises(lambda a: (np.putmask(a, a > 1, a[::-1] * 1.5), a)[1], np.arange(4))
    for values in ([300], 300, [-1], [np.nan], np.int64(300)):  # Python ints in range only, as np.array's
        check_or_raises(lambda a: (fn(a, np.array([0, 1, 1, 0], bool), values), a)[1], np.arange(4, dtype=np.uint8))
        check_or_raises(lambda a: (np.put(a, [2, 3], values), a)[1], np.arange(4, dtype=np.uint8))
    check(lambda a: (np.putmask(a, a > 1, []), a)[1], np.arange(4.0))


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 4), st.integers(1, 3), st.sampled_from([None, 0, 1, (1, 0), (0, 0)]))
def test_sliding_window_view_gives_numpys_windows(w0, w1, axis):
    from numpy.lib.stride_tricks import sliding_window_view
    shape = {None: (w0, w1), 0: w0, 1: w1, (1, 0): (w1, w0), (0, 0): (w0 // 2 + 1, w1 // 2 + 1)}[axis]
    check(lambda m: sliding_window_view(m, shape, axis=axis).sum(axis=-1), np.arange(20.0).reshape(4, 5))
