"""Rearranging functions against NumPy: flip, roll, rot90, pad, tile, repeat, the split family,
select, choose, append, insert, delete, resize and trim_zeros; writes through flip/split views."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import solvent
from numpy_samples import ALL_DTYPES, check, check_or_raises, sample

shapes = hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=4)


def ramp(shape, dtype=np.float64):
    return np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape).astype(dtype)


# -- flips, rotations, rolls -----------------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_flips_rolls_and_rotations_keep_every_dtype(dtype):
    x = sample(dtype, (3, 4))
    check(lambda x: (np.flip(x), np.fliplr(x), np.flipud(x), np.roll(x, 1), np.rot90(x), np.roll(x, -2, 1)), x)


def test_flip_axes_and_errors():
    x = ramp((2, 3, 4))
    check(lambda x: (np.flip(x, 0), np.flip(x, (0, 2)), np.flip(x, -1), np.flip(x[0, 0, 0])), x)
    check_or_raises(lambda x: np.flip(x, 3), x)
    check_or_raises(lambda x: np.flip(x, (0, 0)), x)
    check_or_raises(lambda x: np.fliplr(x), np.ones(3))
    check_or_raises(lambda x: np.flipud(x[0, 0, 0]), x)


def test_flip_and_rot90_are_views():
    def f(x):
        np.flip(x, 1)[0, 0] = -1.0
        np.rot90(x)[0, 1] = -2.0
        np.fliplr(x)[1] += 10.0
        return x
    check(f, ramp((3, 4)))


@pytest.mark.parametrize("k", [0, 1, 2, 3, -1, 5], ids=str)
@pytest.mark.parametrize("axes", [(0, 1), (1, 0), (2, 0), (-1, 1)], ids=str)
def test_rot90(k, axes):
    check(lambda x: np.rot90(x, k, axes), ramp((2, 3, 4)))


def test_rot90_errors():
    x = ramp((2, 3))
    for axes in [(0, 0), (0,), (0, 2), (0, -2)]:
        check_or_raises(lambda x: np.rot90(x, 1, axes), x)


@pytest.mark.parametrize("shift, axis", [(2, None), (-7, None), ((1, 2), (0, 1)), (3, (0, 0)), ((1, -1), 1),
                                         (0, 0), (100, -1)], ids=str)
def test_roll(shift, axis):
    check(lambda x: np.roll(x, shift, axis), ramp((3, 4)))


def test_roll_of_empty_and_zero_d_and_errors():
    check(lambda x, e: (np.roll(x, 3), np.roll(e, 2, 0), np.roll(e, 1)), np.array(5.0), np.ones((0, 3)))
    check_or_raises(lambda x: np.roll(x, [[1]], 0), ramp((3,)))
    check_or_raises(lambda x: np.roll(x, 1, 2), ramp((3,)))


def test_roll_by_a_traced_shift():
    check(lambda x, s: (np.roll(x, s, 0), np.roll(x, -s, 1)), ramp((3, 4)), solvent.Scalar(np.int64(5)))
    with pytest.raises(solvent.UnsupportedError):
        solvent.jit(lambda x, s: np.roll(x, s))(ramp((3, 4)), np.array([1, 2]))


@settings(max_examples=15, deadline=None)
@given(shape=shapes, data=st.data())
def test_random_flip_and_roll(shape, data):
    x = ramp(shape, np.int32)
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    shift = data.draw(st.integers(-9, 9))
    check(lambda x: (np.flip(x, axis), np.roll(x, shift, axis), np.roll(x, shift)), x)


# -- tile and repeat --------------------------------------------------------------------------

@pytest.mark.parametrize("reps", [2, (2, 1), (1, 3), (2, 1, 2), 0, (0, 2), (1, 1)], ids=str)
def test_tile(reps):
    check(lambda x, z: (np.tile(x, reps), np.tile(z, reps)), ramp((2, 3), np.int16), np.array(7.5))


@pytest.mark.parametrize("repeats, axis", [(2, None), (3, 0), (2, 1), ([1, 0, 2], 0), ([2], 1), (0, None),
                                           ([1, 2, 3, 0, 1, 1], None), (np.array([2, 1, 1]), 0)], ids=str)
def test_repeat(repeats, axis):
    check(lambda x: np.repeat(x, repeats, axis), ramp((3, 2), np.complex128))


def test_repeat_and_tile_errors():
    x = ramp((3, 2))
    for repeats, axis in [(-1, None), ([1, 2], 0), (2.5, None), (2, 2)]:
        check_or_raises(lambda x: np.repeat(x, repeats, axis), x)
    check_or_raises(lambda x: np.tile(x, -1), x)
    with pytest.raises(solvent.UnsupportedError, match="np.repeat"):
        solvent.jit(lambda x, r: np.repeat(x, r))(x, np.array(2))


@settings(max_examples=12, deadline=None)
@given(shape=shapes, data=st.data())
def test_random_tile_and_repeat(shape, data):
    x = ramp(shape, np.float32)
    reps = data.draw(st.lists(st.integers(0, 3), min_size=1, max_size=4))
    count = data.draw(st.integers(0, 3))
    axis = data.draw(st.integers(0, len(shape) - 1))
    counts = data.draw(st.lists(st.integers(0, 3), min_size=shape[axis], max_size=shape[axis]))
    check(lambda x: (np.tile(x, reps), np.repeat(x, count, axis), np.repeat(x, counts, axis)), x)


# -- splitting ---------------------------------------------------------------------------------

@pytest.mark.parametrize("sections, axis", [(2, 0), (3, 1), ([1, 3], 1), ([], 0), ([5, 2, -1], 1), ([0, 0], 0)],
                         ids=str)
def test_split_and_array_split(sections, axis):
    x = ramp((4, 6))
    check(lambda x: (np.split(x, sections, axis), np.array_split(x, sections, axis)), x)


def test_array_split_unequal_and_the_axis_forms():
    x = ramp((2, 4, 6))
    check(lambda x: (np.array_split(x, 4, 2), np.array_split(x, 3, 1), np.hsplit(x, 2), np.vsplit(x, [1]),
                     np.dsplit(x, 3), np.hsplit(x[0, 0], 3)), x)


def test_split_errors():
    x = ramp((4, 6))
    check_or_raises(lambda x: np.split(x, 4, 1), x)
    check_or_raises(lambda x: np.array_split(x, 0), x)
    check_or_raises(lambda x: np.dsplit(x, 2), x)
    check_or_raises(lambda x: np.vsplit(x[0], 2), x)
    check_or_raises(lambda x: np.hsplit(x[0, 0], 2), x)


def test_split_pieces_are_views():
    def f(x):
        a, b = np.split(x, 2, axis=1)
        a[0, 0] = -1.0
        b[1] *= 10.0
        return x
    check(f, ramp((2, 4)))


# -- choosing -----------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_select(dtype):
    x = sample(dtype, (2, 3))
    check(lambda x, c: (np.select([c, ~c], [x, x[::-1]]), np.select([c], [x], 1), np.select([c, c], [x, 2.5])),
          x, sample(np.bool_, (2, 3), seed=1))


def test_select_broadcasts_and_errors():
    check(lambda x: np.select([x > 0, x < -1], [x, np.int8(3)], default=np.ones((2, 1))), sample(np.float32, (3,)))
    check_or_raises(lambda x: np.select([x > 0], [x, x]), np.ones(2))
    check_or_raises(lambda x: np.select([], []), np.ones(2))
    check_or_raises(lambda x: np.select([x], [x]), np.ones(2))


@pytest.mark.parametrize("mode", ["raise", "wrap", "clip"])
def test_choose(mode):
    choices = [sample(np.float64, (2, 3), seed=s) for s in range(3)]
    check(lambda a, c0, c1, c2: (np.choose(a, [c0, c1, c2], mode=mode), np.choose(a, (c0, 5), mode="clip")),
          np.array([[0, 1, 2], [2, 0, 1]]), *choices)
    check(lambda a, c: np.choose(a, c, mode=mode), np.array([0, 1, 1]), sample(np.int8, (2, 3)))
    if mode != "raise":
        check(lambda a, c: np.choose(a, [c, -c], mode=mode), np.array([0, 3, -1]), np.arange(3.0))
    # a Python number is cast into the arrays' dtype unsafely, as NumPy's (300 into int8 is 44)
    check(lambda a, c: (np.choose(a, [c, 300], mode=mode), np.choose(a, [c.astype(np.uint8), -1], mode=mode)),
          np.array([0, 1, 1, 0]), np.arange(4, dtype=np.int8))


def test_choose_raise_mode_checks_constant_indices_and_clips_traced_ones():
    """A compiled program cannot raise, so traced out-of-range indices clip (documented gap)."""
    with pytest.raises(ValueError):
        solvent.jit(lambda c: np.choose(np.array([0, 2]), [c, c]))(np.ones(2))
    out = solvent.jit(lambda a, c: np.choose(a, [c, -c]))(np.array([0, 3, -1]), np.arange(3.0))
    np.testing.assert_array_equal(out, np.choose(np.array([0, 3, -1]), [np.arange(3.0), -np.arange(3.0)], mode="clip"))


def test_choose_of_scalars_gives_numpys_scalar():
    """np.choose(1, [a[0], a[1]]) is an np.float64; it gave a 0-d array."""
    from differential import check_types_like_numpy
    check_types_like_numpy(lambda a, k: (np.choose(1, [a[0], a[1]]), np.choose(k, [a[0], a[1]]),
                                         np.choose(1, [a, a])), np.arange(3.0), np.array(1))


def test_choose_out_and_errors():
    def f(a, c, out):
        np.choose(a, [c, -c], out=out)
        return out
    check(f, np.array([1, 0, 1]), np.arange(3.0), np.zeros(3))
    check_or_raises(lambda a, c: np.choose(a, [c, c]), np.array([0.0, 1.0]), np.ones(2))
    check_or_raises(lambda a, c: np.choose(a, [c, c], mode="bad"), np.array([0, 1]), np.ones(2))


# -- append, insert, delete, resize ---------------------------------------------------------------

def test_append():
    x = ramp((2, 3), np.int32)
    check(lambda x: (np.append(x, [1, 2]), np.append(x, x, 0), np.append(x, [[9], [8]], axis=1), np.append(x, 2.5),
                     np.append(x[0, 0], x)), x)
    check_or_raises(lambda x: np.append(x, [1, 2], axis=0), x)


@pytest.mark.parametrize("obj, values, axis", [
    (1, 5, None), (0, [7, 8], 1), (2, [[7], [8]], 1), ([0, 2, 2], [7, 8, 9], 1), ([1], [[1, 2, 3]], 0),
    (slice(None, None, 2), 0, 1), (-1, 3.7, 0), ([3, 0], 9, None), ([], 1, 0), (3, [1, 2], 1), ([True, False], 1, 0),
    (4, 1, 1), (5, 1, 1), (-4, 1, 1), ([[0]], 1, 1), (0, [1, 2, 3], 0), ([False, True], [[1, 2, 3]], 0),
    ([[True]], 1, 0)], ids=str)
def test_insert(obj, values, axis):
    check_or_raises(lambda x: np.insert(x, obj, values, axis), ramp((2, 3), np.int64))


def test_insert_traced_values_and_dtypes():
    check(lambda x, v: (np.insert(x, 1, v, axis=0), np.insert(x, [0, 3], v[0, 0], axis=1), np.insert(x, 2, v[0])),
          ramp((2, 3), np.float32), sample(np.float64, (1, 3)))
    with pytest.raises(solvent.UnsupportedError, match="np.insert"):
        solvent.jit(lambda x, i: np.insert(x, i, 0))(np.ones(3), np.array(1))


@pytest.mark.parametrize("obj, axis", [(1, None), (0, 1), ([0, 2], 1), (slice(1, None), 0), ([True, False], 0),
                                       ([], 0), (-1, 1), (3, 1), ([0, 0, 1], 1), ([[0]], 1), ([0, 4], 1)], ids=str)
def test_delete(obj, axis):
    check_or_raises(lambda x: np.delete(x, obj, axis), ramp((2, 3), np.uint8))


@settings(max_examples=12, deadline=None)
@given(shape=shapes, data=st.data())
def test_random_insert_and_delete(shape, data):
    x = ramp(shape, np.int16)
    axis = data.draw(st.integers(0, len(shape) - 1))
    positions = data.draw(st.lists(st.integers(-shape[axis], max(shape[axis] - 1, 0)), max_size=4))
    if shape[axis] == 0:
        positions = []
    check(lambda x: (np.insert(x, positions, -1, axis), np.delete(x, positions, axis)), x)


def test_positions_counts_and_widths_made_inside_are_static():
    """An index array made in the function (np.array([1, 2])) is known while tracing: it was refused
    as traced positions."""
    check(lambda x: (np.delete(x, np.array([1, 2])), np.insert(x, np.array([1, 2]), 9.0),
                     np.repeat(x, np.array([1, 2, 0, 1, 1, 1])), np.split(x, np.array([2, 4])),
                     np.tile(x, np.array([2])), np.pad(x, np.array([1, 2]), constant_values=np.array([1.0, 2.0]))),
          ramp((6,)))
    check_or_raises(lambda x: np.delete(x, np.array([7])), ramp((6,)))


@pytest.mark.parametrize("new_shape", [(2, 3), 7, (3, 4), (0,), (1,), (2, 0), ()], ids=str)
def test_resize(new_shape):
    check(lambda x, e: (np.resize(x, new_shape), np.resize(e, new_shape)), ramp((5,), np.float32), np.ones((0, 2)))
    check_or_raises(lambda x: np.resize(x, (-1, 2)), ramp((5,)))


def test_a_traced_0d_value_is_not_iterable_and_a_traced_size_is_a_clear_error():
    """iter() of a 0-d traced value succeeded (its items came lazily), so np.iterable was True and
    np.resize and sliding_window_view took a traced size for a shape: a raw TypeError."""
    x, k = np.arange(5.0), np.array([3])
    check(lambda x, k: (np.iterable(k[0]), np.iterable(k), np.iterable(x[1:])), x, k)
    for f in (lambda x, k: np.resize(x, int(k[0])),
              lambda x, k: np.lib.stride_tricks.sliding_window_view(x, int(k[0]))):
        with pytest.raises(solvent.UnsupportedError, match="must be a static Python int"):
            solvent.jit(f)(x, k)


def test_trim_zeros_is_unsupported():
    with pytest.raises(solvent.UnsupportedError, match="np.trim_zeros"):
        solvent.jit(lambda x: np.trim_zeros(x))(np.array([0.0, 1.0, 0.0]))


# -- pad ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("mode", ["constant", "edge", "reflect", "symmetric", "wrap"])
def test_pad_modes_keep_every_dtype(mode, dtype):
    x = sample(dtype, (3, 4), 0, 9)
    check(lambda x: (np.pad(x, 2, mode), np.pad(x, ((1, 0), (0, 3)), mode)), x)


@pytest.mark.parametrize("kwargs", [{}, {"constant_values": 7}, {"constant_values": (1, 2)},
                                    {"constant_values": ((1, 2), (3.5, -4))}, {"constant_values": [[5]]}], ids=str)
def test_pad_constant_values(kwargs):
    check_or_raises(lambda x: np.pad(x, ((2, 1), (1, 3)), **kwargs), ramp((2, 3), np.int32))
    check_or_raises(lambda x: np.pad(x, 3, **kwargs), ramp((2,), np.float32))


def test_pad_with_a_traced_constant_and_empty_arrays():
    check(lambda x: (np.pad(x, 1, constant_values=x.max()), np.pad(x, 2, "empty").shape), ramp((2, 2)))
    check(lambda e: (np.pad(e, 1), np.pad(e, ((0, 0), (2, 1)), "edge")), np.ones((0, 2)))
    check_or_raises(lambda e: np.pad(e, 1, "edge"), np.ones((0, 2)))


@pytest.mark.parametrize("mode", ["maximum", "minimum", "mean"])
@pytest.mark.parametrize("dtype", [np.int32, np.uint8, np.float32, np.float64, np.complex128], ids=str)
def test_pad_statistics(mode, dtype):
    x = sample(dtype, (3, 5), 0, 20, seed=4)
    if mode != "mean" and dtype == np.complex128:
        return  # NumPy orders complex numbers lexicographically; not compared here
    check(lambda x: (np.pad(x, 2, mode), np.pad(x, ((1, 2), (3, 0)), mode, stat_length=((1, 2), (3, 9)))), x)
    if mode == "mean" and np.dtype(dtype).kind in "fc":
        check(lambda x: np.pad(x, 1, mode, stat_length=0), x)  # the mean of nothing: NaN


@pytest.mark.parametrize("dtype", [np.int32, np.uint8, np.float32, np.float64, np.complex128, np.bool_], ids=str)
def test_pad_linear_ramp(dtype):
    x = sample(dtype, (3, 4), 0, 20, seed=5)
    check(lambda x: (np.pad(x, 2, "linear_ramp"), np.pad(x, ((1, 3), (4, 0)), "linear_ramp", end_values=(5, 2)),
                     np.pad(x, 1, "linear_ramp", end_values=((1, 2), (3, 4))), np.pad(x[0], (0, 3), "linear_ramp")), x)


def test_pad_median():
    check(lambda x: np.pad(x, 2, "median", stat_length=2), ramp((3, 5), np.int32))


def test_pad_errors():
    x = ramp((2, 3))
    for width, mode, kwargs in [(-1, "constant", {}), (1.5, "edge", {}), (((1, 2), (3, 4), (5, 6)), "edge", {}),
                                (1, "nope", {}), (1, "edge", {"constant_values": 1}),
                                (1, "maximum", {"stat_length": 0}), (1, "mean", {"stat_length": -1})]:
        check_or_raises(lambda x: np.pad(x, width, mode, **kwargs), x)
    for values in (300, (1, 300), np.int64(-129), 1.7):  # NumPy's OverflowError where int8 cannot hold one
        check_or_raises(lambda x: np.pad(x, 1, constant_values=values), x.astype(np.int8))
    for kwargs in [{"mode": "reflect", "reflect_type": "odd"}, {"mode": lambda vector, width, axis, kw: None}]:
        with pytest.raises(solvent.UnsupportedError, match="np.pad"):
            solvent.jit(lambda x: np.pad(x, 1, **kwargs))(x)


@settings(max_examples=25, deadline=None)
@given(shape=hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4), data=st.data())
def test_random_pad(shape, data):
    widths = data.draw(st.lists(st.tuples(st.integers(0, 9), st.integers(0, 9)), min_size=len(shape),
                                max_size=len(shape)))
    mode = data.draw(st.sampled_from(["constant", "edge", "reflect", "symmetric", "wrap", "maximum", "mean",
                                      "linear_ramp"]))
    check(lambda x: np.pad(x, widths, mode), ramp(shape, np.int64) * 3 % 7)


def test_outside_jit_on_solvent_arrays():
    a = solvent.asarray(ramp((2, 3)))
    flipped, padded, pieces = np.flip(a), np.pad(a, 1, "edge"), np.split(a, 3, axis=1)
    assert isinstance(flipped, solvent.Array) and isinstance(padded, solvent.Array)
    np.testing.assert_array_equal(np.asarray(padded), np.pad(ramp((2, 3)), 1, "edge"))
    np.testing.assert_array_equal(np.asarray(pieces[2]), ramp((2, 3))[:, 2:])


def test_select_wraps_a_python_int_default_out_of_the_dtypes_range():
    check(lambda x: np.select([x > 1], [x.astype(np.int8)], default=300), np.array([-1, 0, 2, 3]))
