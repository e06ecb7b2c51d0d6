"""Indexing reads and writes against NumPy: integers, slices with any step, None, `...`,
traced integer indices (solvent.Scalar), augmented assignment, writes through views,
integer-array (fancy) indexing and boolean masks."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import solvent
from differential import assert_same
from numpy_samples import ALL_DTYPES, check, check_or_raises, sample

READS = [
    (0,), (-1,), (2, 1), (-3, -4), (slice(None),), (slice(1, 3),), (slice(None, None, 2),),
    (slice(None, None, -1),), (slice(3, 0, -2),), (slice(-2, None),), (slice(10, 20),), (slice(-10, 2),),
    (slice(1, 1),), (slice(None, None, -3), slice(1, None, 2)), (Ellipsis,), (Ellipsis, 0), (0, Ellipsis),
    (None,), (None, 0), (1, None, slice(None, None, -1)), (Ellipsis, None), (slice(0, 1), Ellipsis, None, 2),
    (0, 1, 2), (1, slice(None), -1), (slice(2, None, -1), 1, slice(None, 2)), (slice(None, None, 5),), (),
]


def _key_id(key):
    return repr(key).replace("slice", "s").replace("Ellipsis", "...")


@pytest.mark.parametrize("key", READS, ids=_key_id)
def test_reads(key):
    x = np.arange(60.0).reshape(3, 4, 5)
    check(lambda x: x[key], x)


@pytest.mark.parametrize("key", READS, ids=_key_id)
def test_writes(key):
    x = np.arange(60).reshape(3, 4, 5)

    def f(x):
        x[key] = -7
        return x
    check(f, x)


@pytest.mark.parametrize("key", READS, ids=_key_id)
def test_writes_of_arrays_with_broadcasting(key):
    def f(x):
        target = x[key]
        x[key] = np.arange(target.shape[-1] if np.ndim(target) else 1) * 10.0 if np.ndim(target) else 5.0
        return x
    check(f, np.arange(60.0).reshape(3, 4, 5))


@pytest.mark.parametrize("key", [(5,), (-6,), (0, 0, 0, 0), (Ellipsis, Ellipsis), (0, 9)], ids=_key_id)
def test_bad_indices_raise_like_numpy(key):
    check_or_raises(lambda x: x[key], np.zeros((5, 3)))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_reads_and_writes_of_every_dtype(dtype):
    def f(x, y):
        r = (x[1], x[::-2, 1:], x[..., None, 0])
        x[0] = y[1, 2]
        x[1:, ::2] = y[:2, :2]
        x[-1, ::-1] = y[0]
        return r, x
    check(f, sample(dtype, (3, 4), 0, 9, seed=1), sample(dtype, (3, 4), 0, 9, seed=2))


def test_zero_d_indexing():
    def f(x):
        a = x[()]
        b = x[...]
        c = x[None]
        x[...] = 4.0
        return a, b, c, x
    check(f, np.array(2.5))


def test_empty_slices():
    def f(x):
        x[2:2] = 5.0
        x[3:1] += 1.0
        return x[1:1], x[::-1][:0], x
    check(f, np.arange(4.0))


def test_write_casts_to_the_array_dtype():
    def f(x):
        x[0] = 2.9
        x[1:3] = np.array([-1.7, 3.2])
        x[3] = True
        return x
    check(f, np.zeros(5, dtype=np.int32))


def test_write_of_an_out_of_range_python_integer_raises():
    def f(x):
        x[0] = 300
        return x
    check_or_raises(f, np.zeros(3, dtype=np.uint8))


def test_element_reads_are_scalars_not_views():
    def f(x):
        s = x[1]
        x[1] = 50.0
        return s, x[1]
    check(f, np.arange(3.0))


# -- augmented assignment --------------------------------------------------------------------

@pytest.mark.parametrize("key", [slice(1, -1), slice(None, None, 2), slice(None, None, -1), slice(5, 0, -2), 3, -1,
                                 (Ellipsis, 0), (slice(None), None)], ids=_key_id)
@pytest.mark.parametrize("op", ["+=", "-=", "*=", "/="])
def test_augmented_assignment(op, key):
    namespace = {"key": key}
    exec(f"def f(x, y):\n    x[key] {op} y\n    return x\n", namespace)
    check(namespace["f"], np.arange(1.0, 9.0), np.array(2.5))


def test_augmented_assignment_2d_slices_and_int_dtype():
    def f(x, y):
        x[1:, ::2] += y
        x[:, -1] //= 2
        x[0, :] <<= 1
        x[::-1, 1] %= 3
        return x
    check(f, np.arange(12).reshape(3, 4), np.arange(2))


def test_aliasing_update_reads_before_it_writes():
    def f(x):
        x[1:] += x[:-1]
        x[::-1] = x
        return x
    check(f, np.arange(6.0))


# -- views ------------------------------------------------------------------------------------

def test_write_through_a_slice_view():
    def f(a):
        b = a[1:]
        b[0] = 5.0
        b[2:] *= 2.0
        return b
    check(f, np.arange(5.0))


def test_views_of_views():
    def f(a):
        b = a[1:, ::-1]
        c = b[::2]
        c[0, 1] = -1.0
        d = c[:, 1:][None]
        d[...] += 100.0
        return a, b.copy(), c.copy()
    check(f, np.arange(20.0).reshape(4, 5))


def test_views_through_transpose_and_reshape():
    def f(a):
        a.T[1, ::2] = 3.0
        a.reshape(-1)[::5] = -1.0
        a[1].reshape(2, 2)[1, 1] = 77.0
        a[:, 1:3].T[0] += 0.5
        return a
    check(f, np.arange(12.0).reshape(3, 4))


def test_view_sees_writes_to_its_base_and_siblings():
    def f(a):
        v = a[::2]
        w = a[1:3]
        w[:] = 10.0
        a[0] = -5.0
        return v.copy(), v.sum()
    check(f, np.arange(6.0))


def test_view_of_an_argument_returned():
    def f(a):
        v = a[1:3]
        v += 1.0
        return v
    check(f, np.arange(5.0))


def test_view_of_a_fresh_array():
    def f(x):
        out = np.zeros((3, 3))
        row = out[1]
        row[:] = x
        out.T[0] = -x
        return out
    check(f, np.arange(3.0))


# -- traced integer indices -------------------------------------------------------------------

def check_traced_index(fn, array, *indices):
    """fn(array, *indices) with Python ints under NumPy, with solvent.Scalar indices under jit."""
    expected_array = copy.deepcopy(array)
    expected = fn(expected_array, *indices)
    actual_array = copy.deepcopy(array)
    actual = solvent.jit(fn)(actual_array, *[solvent.Scalar(np.int64(i)) for i in indices])
    assert_same(actual, expected)
    assert_same(actual_array, expected_array)


@pytest.mark.parametrize("i", [0, 2, -1, -3])
def test_traced_index_read(i):
    check_traced_index(lambda x, i: (x[i], x[i, 1], x[1, i], x[..., i], x[i, ::-1]), np.arange(12.0).reshape(3, 4), i)


@pytest.mark.parametrize("i", [0, 1, -1])
def test_traced_index_write(i):
    def f(x, i):
        x[i] = -1.0
        x[i, 0] += 10.0
        x[:, i] *= 2.0
        x[i, 1:3] = np.array([7.0, 8.0])
        return x
    check_traced_index(f, np.arange(12.0).reshape(3, 4), i)


def test_two_traced_indices_and_scalar_dtypes():
    def f(x, i, j):
        x[i, j] = x[j, i] + 1.0
        return x[i], x[-1, j]
    check_traced_index(f, np.arange(9.0).reshape(3, 3), 2, 0)
    x = np.arange(5)
    result = solvent.jit(lambda x, i: x[i])(x, solvent.Scalar(np.int32(3)))
    assert_same(result, x[3])


def test_traced_index_in_a_view():
    def f(x, i):
        row = x[1:]
        row[i] = 0.0
        return x
    check_traced_index(f, np.arange(12.0).reshape(4, 3), 1)


def test_float_indices_are_errors():
    with pytest.raises((IndexError, TypeError)):
        solvent.jit(lambda x, i: x[i])(np.arange(3.0), solvent.Scalar(1.0))
    with pytest.raises(IndexError):
        solvent.jit(lambda x: x[np.array([0.0, 1.0])])(np.arange(3.0))


# -- hypothesis: random basic indices on random shapes ------------------------------------------

@st.composite
def basic_index(draw, shape):
    key = []
    for n in shape[: draw(st.integers(0, len(shape)))]:
        kind = draw(st.sampled_from(["int", "slice", "none"]))
        if kind == "int":
            key.append(draw(st.integers(-n, n - 1)))
        elif kind == "slice":
            key.append(slice(draw(st.none() | st.integers(-n - 2, n + 2)), draw(st.none() | st.integers(-n - 2, n + 2)),
                             draw(st.none() | st.sampled_from([1, 2, 3, -1, -2]))))
        else:
            key.extend([None, slice(None)])
    if draw(st.booleans()):
        key.insert(draw(st.integers(0, len(key))), Ellipsis)
    return tuple(key)


@settings(max_examples=40, deadline=None)
@given(data=st.data(), shape=st.lists(st.integers(1, 4), min_size=1, max_size=3).map(tuple))
def test_random_read_and_augmented_write(data, shape):
    key = data.draw(basic_index(shape))
    x = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)

    def f(x):
        r = x[key] * 1.0
        x[key] += 100.0
        return r, x
    check_or_raises(f, x)  # an ellipsis moves the integers onto other axes: some keys are out of bounds


# -- integer arrays (fancy indexing) ----------------------------------------------------------

FANCY = [
    ([0, 2],), ([[1], [0]],), ([-1, 0, -1],), ([],), (slice(None), [3, 0]), (Ellipsis, [1, -1]),
    (0, slice(None), [0, 1]), ([0, 2], slice(None), [1, 3]), ([[0], [2]], [1, 3]), ([0, 2], [1, 3], 4),
    ([0, 1], None, [0, 1]), (None, slice(None), [0, 2], [1]), ([2, 0], slice(None, None, -1), 2),
    (slice(1, None), [[0, 1], [2, 2]], slice(None, None, 2)), (1, [0, 3], None), ([1, 0, 1], Ellipsis),
    (np.array([True, False, True]),), (slice(None), np.array([True, False, True, True])),
    (np.arange(12).reshape(3, 4) % 3 == 0,), (np.array([False, True, False]), slice(1, 3), [0, 4]),
]


@pytest.mark.parametrize("key", FANCY, ids=_key_id)
def test_fancy_reads_and_writes(key):
    def f(x):
        r = x[key]
        x[key] = -1.0
        return r, x
    check(f, np.arange(60.0).reshape(3, 4, 5))


@pytest.mark.parametrize("key", FANCY[:12], ids=_key_id)
def test_fancy_augmented_assignment(key):
    def f(x, y):
        x[key] += 10.0
        x[key] *= y[key]
        return x
    check(f, np.arange(60.0).reshape(3, 4, 5), np.full((3, 4, 5), 3.0))


def test_repeated_indices_augmented_assignment_applies_once():
    def f(x):
        x[[1, 1, 3]] += 1
        x[[0, 0]] -= np.array([5, 7])
        return x
    check(f, np.arange(5))


def test_repeated_indices_the_last_write_wins():
    def f(x, i):
        x[[1, 1, 3, 1]] = np.array([[5.0], [6.0], [7.0], [8.0]])
        x[i, 0] = np.array([-1.0, -2.0, -3.0, -4.0])
        x[i] += 100.0
        return x
    check(f, np.zeros((5, 2)), np.array([2, -3, 4, 2]))


def test_traced_index_arrays_read_and_write():
    def f(x, i, j):
        r = (x[i], x[:, j], x[i, j], x[i[:, None], j], x[j[1:], ::-1], x[1, j])
        x[i, j] = np.array([1.0, 2.0, 3.0])
        x[:, j] *= -1.0
        return r, x
    check(f, np.arange(20.0).reshape(4, 5), np.array([3, -1, 0]), np.array([4, 0, -2]))


def test_index_array_of_traced_integers_and_traced_scalar():
    def f(x, i):
        r = x[[i, 0, i]]
        x[[i, 1]] = 9
        return r, x
    check_traced_index(f, np.arange(6), 4)


def test_write_value_broadcasting_and_casting():
    def f(x):
        x[[0, 2]] = np.array([1.7, -2.2, 3.9])
        x[:, [1, 0]] = np.array([[5], [6], [7]])
        x[[1]] = True
        return x
    check(f, np.zeros((3, 3), dtype=np.int32))


@pytest.mark.filterwarnings("ignore:Conversion of an array with ndim:DeprecationWarning")  # NumPy's own run
def test_assigned_values_drop_leading_length_one_dimensions():
    """NumPy broadcasts an assigned value after dropping its extra leading 1s: a[0] = b, b (1, 1)."""
    def f(a, b, c):
        a[0] += a[0] + a
        b[::-1] = np.expand_dims(c, 0)
        b[0] = c[:1].reshape(1, 1)
        b[[1, 2]] = c[None, :2]
        return a, b
    check(f, np.ones(1), np.arange(3.0), np.arange(3.0) + 1)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_fancy_every_dtype(dtype):
    def f(x, y):
        r = x[[2, 0, 2], 1:]
        x[[1, 0], [0, 3]] = y[0, :2]
        x[[2, 2]] = y[1]
        return r, x
    check(f, sample(dtype, (3, 4), 0, 9, seed=1), sample(dtype, (3, 4), 0, 9, seed=2))


@pytest.mark.parametrize("key", [([3],), ([-4],), ([0, 1], [0, 1, 2]), (np.array([True, False]),),
                                 ([0], [0], [0]), (Ellipsis, Ellipsis, [0])], ids=_key_id)
def test_bad_fancy_indices_raise_like_numpy(key):
    check_or_raises(lambda x: x[key], np.zeros((3, 2)))


def test_empty_fancy_index_on_an_empty_dimension():
    check(lambda x: (x[[]], x[:, []], x[np.zeros(0, dtype=np.int64)]), np.zeros((0, 3)))


def test_an_index_array_known_while_tracing_is_checked_as_numpys():
    """np.array([1, 7]) made in the function was taken as traced and clamped: 4.0 where NumPy raises."""
    for f in (lambda a: a[np.array([1, 7])], lambda a: a[np.arange(5) + 1], lambda a: a[np.array([1, -2])],
              lambda a: np.take_along_axis(a.reshape(5, 1), np.array([[3]] * 5), axis=1),
              lambda a: np.put_along_axis(a.reshape(5, 1), np.array([[1]] * 5), 0.0, axis=1)):
        check_or_raises(f, np.arange(5.0))


def zero_axis_ellipsis(a, i):
    r = a[:, i, ..., 0]
    a[:, i, ..., 0] = np.arange(8.0).reshape(2, 4)
    return r, a[i, ..., 0], a[..., i, 0], a


def test_a_ellipsis_of_no_axes_parts_the_advanced_indices_around_it():
    """`a[:, i, ..., 0]`: NumPy puts the index dimensions first (4x2 came back transposed)."""
    check(zero_axis_ellipsis, np.arange(60.0).reshape(4, 5, 3), np.array([0, 2]))


@pytest.mark.parametrize("key", ["a[:, i]", "b[:, i]", "b[i]", "b[:, :, i]", "b[i, :, i]", "F[i]", "F[:, i]",
                                 "b[i2]", "b[:, i2]", "a[None, :, i]", "b[:, i, 1]", "b[1, :, i]", "b[::2, i]",
                                 "a[:, [True, False, True, False]]", "b.transpose(2, 0, 1)[i]", "b[:, ::-1, i]",
                                 "b[i, None, 1:3]", "F[i, :, ::2]"])
def test_index_array_reads_have_numpys_strides(key):
    """The result of a[:, idx] is laid out index dimensions outermost (it was taken as C-contiguous,
    so its ravel was a view where NumPy copies)."""
    def strides(a, b, F, i, i2):
        return eval(key).strides
    check(strides, np.arange(12.0).reshape(3, 4), np.arange(60.0).reshape(3, 4, 5),
          np.asfortranarray(np.arange(60.0).reshape(3, 4, 5)), np.array([0, 2]),
          np.asfortranarray(np.array([[0, 1], [2, 0]])))


def known_masks(a):
    b = a[:, np.array([True, False, True, True])]  # (a mask known while tracing: NumPy's layout, F here)
    np.asfortranarray(b)[0, 0] = -5.0
    return b, np.asfortranarray(a[np.array([True, False, True])]).strides


def test_a_mask_known_while_tracing_selects_as_numpys():
    """It was taken as a traced mask: its selection was padded and laid out as C."""
    check(known_masks, np.arange(12.0).reshape(3, 4))


def written_through_ravels(a, idx):
    b = a[:, idx]
    b.T.ravel()[0] = 99.0  # a view of b (b.T is C-contiguous)
    b.ravel()[1] = -5.0  # a copy
    return b


def test_writes_through_ravels_of_index_array_reads_land_where_numpys_do():
    check(written_through_ravels, np.arange(12.0).reshape(3, 4), np.array([0, 2]))


def test_traced_out_of_bounds_index_is_clamped():
    result = solvent.jit(lambda x, i: x[i])(np.arange(4.0), np.array([7, -9]))
    assert_same(result, np.array([3.0, 0.0]))


def test_fancy_write_through_a_view():
    def f(a):
        b = a[1:]
        b[[0, 2], 1] = -1.0
        a.T[[0], 1:] += 5.0
        return a
    check(f, np.arange(12.0).reshape(4, 3))


def test_fancy_read_is_a_copy():
    def f(a):
        b = a[[0, 1]]
        b[0] = 100.0
        return a, b
    check(f, np.arange(4.0))


# -- boolean masks ------------------------------------------------------------------------------

def test_mask_assignment():
    def f(x, y):
        x[x > 8] = 0.0
        x[y[:, 0] < 3] = np.array([-1.0, -2.0, -3.0, -4.0])
        x[(x > 1) & (x < 5)] += 10.0
        x[x > 12] *= 3.0
        return x
    check(f, np.arange(12.0).reshape(3, 4), np.arange(12.0).reshape(3, 4) % 5)


def test_mask_over_leading_dimensions():
    def f(x, m):
        x[m] = np.arange(4.0)
        x[m] -= 1.0
        x[~m, 1:] = 7.0
        x[1, :, x[0, 0] > 0] += np.array([1.0, 2.0, 3.0])
        return x
    check(f, np.arange(24.0).reshape(2, 3, 4), np.array([[True, False, True], [False, False, True]]))


def test_mask_with_slices_and_integers():
    def f(x, m):
        x[1:, m] = 5.0
        x[0, m] += 1
        x[::-1][m[:4]] //= 2
        return x
    check(f, np.arange(20).reshape(4, 5), np.array([True, False, False, True, True]))


def test_mask_of_every_element_and_of_none():
    def f(x):
        x[x > -1] += 1
        x[x > 100] = 0
        return x
    check(f, np.arange(6))


def test_mask_assignment_with_a_traced_scalar_value():
    def f(x, v):
        x[x > 2] = v
        return x
    check(f, np.arange(6.0), np.array(-1.5))


def test_mask_read_selects_as_many_elements_as_the_mask_holds():
    check(lambda x: (x[x > 1], np.sum(x[x > 1])), np.arange(3.0))  # tests/numpy/indexing/test_packed.py: the rest


def test_mask_assignment_of_a_count_long_array_is_unsupported():
    def f(x):
        x[x > 1] = np.array([7.0, 8.0])
        return x
    with pytest.raises(solvent.UnsupportedError, match="number of True elements"):
        solvent.jit(f)(np.arange(4.0))

    def g(x, y):
        x[x > 1] += y
        return x
    with pytest.raises(solvent.UnsupportedError, match="number of True elements"):
        solvent.jit(g)(np.arange(4.0), np.arange(2.0))


def test_mask_augmented_assignment_by_a_selection_with_the_same_mask():
    """z[m] /= np.abs(z[m]) as z[m] = z[m] / np.abs(z[m]) (refused, naming a shape the user never wrote);
    a selection by another mask is refused as such, where NumPy would compare their lengths."""
    def normalize(z):
        m = np.abs(z) > 2
        z[m] /= np.abs(z[m])
        z[z.real < 0] *= z[z.real < 0]
        return z
    check(normalize, np.array([1 + 1j, 3 + 4j, 0.5j, -5 - 1j, -1 + 0j]))

    def other_mask(z):
        z[z > 2] += z[z > 0]
    with pytest.raises(solvent.UnsupportedError, match="selection made with another mask"):
        solvent.jit(other_mask)(np.array([1.0, 3.0, 5.0]))


def test_mask_mixed_with_index_arrays_is_unsupported():
    def f(x):
        x[x[:, 0] > 1, [0, 1]] = 0.0
        return x
    with pytest.raises(solvent.UnsupportedError, match="integer arrays"):
        solvent.jit(f)(np.arange(6.0).reshape(3, 2))


def test_static_mask_reads_and_writes():
    mask = np.array([True, False, True, True])

    def f(x):
        r = x[mask] * 2.0
        x[mask] = np.array([1.0, 2.0, 3.0])
        x[mask] += 1.0
        return r, x
    check(f, np.arange(4.0))


def test_mask_shape_mismatch_raises_like_numpy():
    def f(x, m):
        x[m] = 0.0
        return x
    check_or_raises(f, np.arange(4.0), np.array([True, False]))


# -- hypothesis: random mixed indices -----------------------------------------------------------

@st.composite
def fancy_index(draw, shape):
    key = []
    for n in shape[: draw(st.integers(1, len(shape)))]:
        kind = draw(st.sampled_from(["array", "array", "int", "slice", "none"]))
        if kind == "array":
            size = draw(st.integers(1, 3))
            key.append(draw(st.lists(st.integers(-n, n - 1), min_size=size, max_size=size)))
        elif kind == "int":
            key.append(draw(st.integers(-n, n - 1)))
        elif kind == "slice":
            key.append(slice(draw(st.none() | st.integers(-n, n)), None, draw(st.sampled_from([None, 2, -1]))))
        else:
            key.extend([None, slice(None)])
    if draw(st.booleans()):
        key.insert(draw(st.integers(0, len(key))), Ellipsis)
    return tuple(key)


@settings(max_examples=30, deadline=None)
@given(data=st.data(), shape=st.lists(st.integers(1, 4), min_size=1, max_size=3).map(tuple))
def test_random_fancy_read_and_write(data, shape):
    key = data.draw(fancy_index(shape))
    x = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)

    def f(x):
        r = x[key] * 1.0
        x[key] = -r
        x[key] += 0.5
        return r, x
    check_or_raises(f, x)  # lists of different lengths do not broadcast: NumPy's IndexError


def test_zero_d_integer_arrays_index_like_integers():
    def f(x):
        r = (x[np.array(1)], x[np.array(1), np.array([0, 2])], x[:, np.array(-1)], x[np.array(1), -1],
             x[np.array(0), np.array(1), ...])
        x[np.array(0)] = 5.0
        return r, x
    check(f, np.arange(6.0).reshape(2, 3))


def test_boolean_scalar_index_is_unsupported():
    with pytest.raises(solvent.UnsupportedError, match="boolean scalar"):
        solvent.jit(lambda x: x[True])(np.arange(3.0))


def test_gradients_through_gather_scatter_and_masks():
    def loss(x, i):
        y = np.zeros(4)
        y[[1, 3]] = x[:2] * 3.0    # 9 x0^2 + 9 x1^2
        np.add.at(y, [0, 0], x[2])  # (2 x2)^2
        z = x.copy()
        z[z > 2.5] *= 2.0           # 2 x3
        return np.sum(y * y) + np.sum(x[i] ** 2) + np.sum(z)
    x, i = np.array([1.0, 2.0, 3.0, 4.0]), np.array([0, 0, 3])
    expected = np.array([18 * 1.0 + 4 * 1.0 + 1, 18 * 2.0 + 1, 8 * 3.0 + 2, 2 * 4.0 + 2])
    assert_same(solvent.grad(loss)(x, i), expected)
