"""Shape functions against NumPy: reshape, transpose/.T, expand_dims, squeeze, concatenate,
stack, broadcast_to, astype, copy, fill; and writes through reshape/transpose views."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import solvent

from numpy_samples import ALL_DTYPES, check, check_or_raises, sample


@pytest.mark.parametrize("new_shape", [(6,), (2, 3), (3, -1), (-1,), (1, 6, 1), (2, 1, 3), (6, 1)], ids=str)
def test_reshape(new_shape):
    x = sample(np.float64, (3, 2))
    check(lambda x: (np.reshape(x, new_shape), x.reshape(new_shape), x.reshape(*new_shape)), x)


@pytest.mark.parametrize("case", [((0, 3), (3, 0)), ((0, 3), (-1, 3)), ((), (1, 1)), ((1,), ()), ((2, 2), (5,)),
                                  ((2, 3), (-1, -1)), ((0, 2), (-1,))], ids=str)
def test_reshape_edge_cases(case):
    old, new = case
    check_or_raises(lambda x: x.reshape(new), np.ones(old, np.int32))


@pytest.mark.parametrize("axes", [None, (0, 1, 2), (2, 0, 1), (1, 0, 2), (-1, 0, 1)], ids=str)
def test_transpose(axes):
    x = sample(np.int32, (2, 3, 4))
    check(lambda x: (np.transpose(x, axes), x.transpose(axes) if axes else x.transpose(), x.T), x)


def test_transpose_methods_and_invalid_axes():
    x = sample(np.float32, (2, 3, 4))
    check(lambda x: (x.transpose(2, 0, 1), x.T.T, np.swapaxes(x, 0, 2), np.moveaxis(x, 0, -1), x.mT), x)
    check(lambda x: (x.T, np.transpose(x)), np.array(3.0))
    check_or_raises(lambda x: np.transpose(x, (0, 0, 1)), x)
    check_or_raises(lambda x: np.transpose(x, (0, 3, 1)), x)


@pytest.mark.parametrize("axis", [0, 1, 2, -1, -3, (0, 1), (0, -1), (1, 3), (0, 0), (1, -3)], ids=str)
def test_expand_dims(axis):
    check_or_raises(lambda x: np.expand_dims(x, axis), sample(np.int8, (2, 3)))


@pytest.mark.parametrize("axis", [None, 0, 2, -1, (0, 2), 1], ids=str)
def test_squeeze(axis):
    x = sample(np.float64, (1, 3, 1))
    check_or_raises(lambda x: (np.squeeze(x, axis), x.squeeze(axis)), x)


def test_squeeze_zero_d_and_all_ones():
    check(lambda x: np.squeeze(x), np.ones((1, 1)))
    check(lambda x: (np.squeeze(x), np.expand_dims(x, 0)), np.array(2.0))


@pytest.mark.parametrize("axis", [0, 1, -1, None], ids=str)
def test_concatenate(axis):
    x, y = sample(np.float64, (2, 3), seed=1), sample(np.float64, (2, 3), seed=2)
    check(lambda x, y: np.concatenate([x, y, x], axis=axis), x, y)
    check(lambda x, y: np.concatenate((x, y), axis), x, y)


def test_concatenate_promotes_and_takes_constants():
    x, y = sample(np.int8, (2, 2), seed=3), sample(np.float32, (3, 2), seed=4)
    check(lambda x, y: (np.concatenate([x, y]), np.concatenate([x, [[1, 2]]]), np.concatenate([y, np.ones((1, 2))])),
          x, y)
    check(lambda x: np.concatenate([x, x], dtype=np.float64), x)
    check(lambda x, y: np.concatenate([x, y.astype(np.uint8)]), sample(np.uint32, (1, 2)), np.abs(y))


@pytest.mark.parametrize("pieces", [lambda a: ([a[6:], a[:6]], a), lambda a: ([a[:6], a[6:]], a[::-1]),
                                    lambda a: ([a[1:6], a[:1]], a[:6]), lambda a: ([a[::2], a[1::2]], a)],
                         ids=["swap", "reversed", "rotate", "interleave"])
def test_concatenate_into_an_out_its_pieces_view_copies_them_in_turn(pieces):
    """NumPy copies each piece into out in turn, so a later piece reads what an earlier one wrote;
    solvent read them all first."""
    def f(a):
        arrays, out = pieces(a)
        np.concatenate(arrays, out=out)
        return a
    check(f, np.arange(12.0) + 1)
    check(lambda m: (np.stack([m[0], m[1]], out=m[1:3]), m)[1], np.arange(16.0).reshape(4, 4))


def test_concatenate_with_empty_and_errors():
    check(lambda x, e: np.concatenate([x, e, x]), np.ones((2, 3)), np.zeros((0, 3)))
    check_or_raises(lambda x: np.concatenate([x, x]), np.array(1.0))
    check_or_raises(lambda x, y: np.concatenate([x, y]), np.ones((2, 3)), np.ones((2, 2)))
    check_or_raises(lambda x: np.concatenate([x, x], axis=2), np.ones((2, 3)))


def test_concatenate_out():
    def f(x, out):
        np.concatenate([x, x], out=out)
        return out
    check(f, np.ones((2, 2)), np.zeros((4, 2), np.float32))


@pytest.mark.parametrize("axis", [0, 1, 2, -1, -3], ids=str)
def test_stack(axis):
    x, y = sample(np.float32, (2, 3), seed=5), sample(np.int16, (2, 3), seed=6)
    check(lambda x, y: (np.stack([x, y], axis=axis), np.stack((x, x, x), axis)), x, y)


def test_stack_zero_d_and_errors():
    check(lambda x, y: np.stack([x, y]), np.array(1.0), np.array(2.0))
    check_or_raises(lambda x, y: np.stack([x, y]), np.ones(3), np.ones(2))
    check_or_raises(lambda x: np.stack([x, x], axis=3), np.ones((2, 2)))


@pytest.mark.parametrize("case", [((3,), (2, 3)), ((1, 3), (4, 3)), ((), (2, 2)), ((2, 1), (2, 5)),
                                  ((3,), (3,)), ((3,), (0, 3)), ((2,), (3,)), ((2, 1), (1,))], ids=str)
def test_broadcast_to(case):
    old, new = case
    check_or_raises(lambda x: np.broadcast_to(x, new), sample(np.float64, old))


def test_broadcast_to_accepts_an_int_shape_and_constants():
    check(lambda x: (np.broadcast_to(x, 4), np.broadcast_to(2.5, (2, 2)) + x[0]), np.ones(1))
    with pytest.raises(solvent.UnsupportedError, match="broadcast_to's shape must be a static Python int"):
        solvent.jit(lambda x, k: np.broadcast_to(x[0], (k[0],)))(np.ones(1), np.array([3]))


@pytest.mark.parametrize("target", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("source", ALL_DTYPES, ids=str)
def test_astype(source, target):
    """Values that fit every dtype (no NaN, in range): NumPy's casts are then exact or truncate."""
    x = sample(source, (6,), 0, 100, seed=7)
    if source.kind in "fc":
        x = x + np.asarray(0.7, dtype=source)  # fractions truncate towards zero
    check(lambda x: x.astype(target), x)


def test_narrowing_round_trip_rounds():
    check(lambda x: x.astype(np.float32).astype(np.float64), np.array([0.1, 1 / 3]))


def test_astype_options():
    x = sample(np.float64, (3,))
    check(lambda x: (x.astype(np.float32, copy=False), x.astype("int32"), x.astype(float), x.astype(complex)), x)
    check_or_raises(lambda x: x.astype(np.int32, casting="safe"), x)
    check(lambda x: x.astype(np.float64, casting="safe"), x.astype(np.float32))


def test_astype_negative_floats_truncate_towards_zero():
    check(lambda x: (x.astype(np.int8), x.astype(np.int64)), np.array([-2.7, -0.5, 0.5, 2.7, -100.9]))


def test_astype_bool_is_nonzero():
    check(lambda x: x.astype(bool), np.array([0.0, -0.0, 0.1, np.nan, -3.0]))
    check(lambda x: x.astype(bool), np.array([0j, 1j, 2.0 + 0j]))


def test_copy_is_independent():
    def f(x):
        c = np.copy(x)
        d = x.copy()
        x[0] = 100.0
        c[1] = -1.0
        return c, d, x
    check(f, np.arange(4.0))


@pytest.mark.parametrize("value", [3, 2.5, True, -1], ids=str)
@pytest.mark.parametrize("dtype", [np.int32, np.uint8, np.float32, np.bool_, np.complex128], ids=str)
def test_fill(dtype, value):
    def f(x, v):
        x.fill(v)
        return x.sum()
    check_or_raises(f, sample(dtype, (2, 3), 0, 5), value)


def test_fill_with_a_traced_value_and_through_a_view():
    def f(x, y):
        x[1:].fill(y.max())
        y.T.fill(0.5)
        return x
    check(f, np.arange(4.0), np.ones((2, 3)))


# -- views ----------------------------------------------------------------------------------

def test_write_through_reshape_view():
    def f(x):
        r = x.reshape(3, 4)
        r[1, 2] = -5.0
        r[0] += 1.0
        flat = np.reshape(x, -1)
        flat[-1] = 42.0
        return r.sum()
    check(f, np.arange(12.0))


def test_write_through_transpose_view():
    def f(x):
        t = x.T
        t[0, 1] = 9
        t[:, 0] *= 2
        np.transpose(x)[2] = -1
        return x
    check(f, np.arange(6).reshape(2, 3))


def test_write_through_expand_dims_squeeze_and_ravel():
    def f(x):
        np.expand_dims(x, 0)[0, 1] = 7.0
        np.squeeze(x[None])[2] = 8.0
        np.ravel(x)[0] = -1.0
        x.swapaxes(0, 0)[3] = 5.0
        return x
    check(f, np.zeros(4))


def test_views_see_later_writes_to_the_base():
    def f(x):
        t = x.T
        r = x.reshape(-1)
        x[0, 0] = 100.0
        return t.copy(), r + 0.0
    check(f, np.arange(6.0).reshape(2, 3))


def test_view_of_a_view_of_a_view():
    def f(x):
        v = x.reshape(4, 3).T[1:]
        v[0, ::2] = -2.0
        v.T[-1] += 10.0
        return x
    check(f, np.arange(12.0))


# -- hypothesis ----------------------------------------------------------------------------

@settings(max_examples=30, deadline=None)
@given(data=st.data(), shape=hnp.array_shapes(min_dims=0, max_dims=4, min_side=1, max_side=3))
def test_random_reshape_transpose(data, shape):
    x = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)
    perm = data.draw(st.permutations(range(len(shape))))
    new = data.draw(st.sampled_from([(-1,), (x.size,), tuple(reversed(shape)), shape + (1,)]))
    check(lambda x: (np.transpose(x, perm), x.reshape(new), np.transpose(x, perm).reshape(-1)), x)


@settings(max_examples=25, deadline=None)
@given(shapes=hnp.mutually_broadcastable_shapes(num_shapes=1, min_dims=0, max_dims=3, max_side=3))
def test_random_broadcast_to(shapes):
    (source,), target = shapes.input_shapes, shapes.result_shape
    check(lambda x: np.broadcast_to(x, target), np.arange(int(np.prod(source)), dtype=np.float32).reshape(source))


# -- atleast, stacking, block, unstack, broadcast_arrays, aliases --------------------------------

def test_atleast_nd():
    def f(x):
        s, v, m = x[0, 0], x[0], x
        return (np.atleast_1d(s), np.atleast_1d(v, m), np.atleast_2d(s), np.atleast_2d(v), np.atleast_2d(s, v, m),
                np.atleast_3d(s), np.atleast_3d(v), np.atleast_3d(m), np.atleast_3d(m[None]), np.atleast_1d([1, 2]))
    check(f, sample(np.int16, (2, 3)))


def test_atleast_nd_are_views():
    def f(x):
        np.atleast_2d(x)[0, 1] = -1.0
        np.atleast_3d(x)[0, 2, 0] = -2.0
        return x
    check(f, np.arange(3.0))


@pytest.mark.parametrize("dtype", [None, np.float32], ids=str)
def test_hstack_vstack_dstack_column_stack(dtype):
    x, y = sample(np.float64, (2, 3), seed=1), sample(np.int8, (2, 3), seed=2)
    kw = {} if dtype is None else {"dtype": dtype, "casting": "unsafe"}
    check(lambda x, y: (np.hstack([x, y], **kw), np.vstack((x, y, x[0]), **kw), np.hstack([x[0], y[1], [5]], **kw),
                        np.vstack([x[0, 0], y[0, 0]], **kw), np.dstack([x, y]), np.dstack([x[0], y[0]]),
                        np.column_stack([x[0], y[0], x.T]), np.column_stack((x[0, :2], [1, 2]))), x, y)


def test_stacking_errors():
    x = np.ones((2, 3))
    check_or_raises(lambda x: np.hstack([x, x[0]]), x)
    check_or_raises(lambda x: np.vstack([x, np.ones(2)]), x)
    check_or_raises(lambda x: np.hstack(x for _ in range(2)), x)
    check_or_raises(lambda x: np.column_stack([x, np.ones(3)]), x)


def test_block():
    a, b = sample(np.float64, (2, 2), seed=3), sample(np.int32, (2, 3), seed=4)
    check(lambda a, b: (np.block([[a, b], [b[:, :2], np.zeros((2, 3))]]), np.block([a, b]), np.block([[a], [a]]),
                        np.block([[[a]]]), np.block(a), np.block([a[0], 1.0, b[0]]), np.block([[1, 2], [3, a[0, 0]]])),
          a, b)


def test_block_errors():
    a = np.ones((2, 2))
    for arrays in [lambda a: np.block([[a], a]), lambda a: np.block([]), lambda a: np.block([[a], []]),
                   lambda a: np.block((a, a)), lambda a: np.block([a, np.ones((3, 3))])]:
        check_or_raises(arrays, a)


def test_unstack():
    x = sample(np.float32, (2, 3, 4))
    check(lambda x: (np.unstack(x), np.unstack(x, axis=1), np.unstack(x, axis=-1)), x)
    check_or_raises(lambda x: np.unstack(x[0, 0, 0]), x)

    def f(x):
        np.unstack(x, axis=1)[1][0] = -5.0  # views, as NumPy's
        return x
    check(f, np.arange(6.0).reshape(2, 3))


def test_broadcast_arrays():
    x, y = sample(np.float64, (3, 1)), sample(np.int8, (4,))
    check(lambda x, y: (np.broadcast_arrays(x, y), np.broadcast_arrays(x),
                        np.broadcast_arrays(x, 2.0, [[1], [2], [3]])), x, y)
    check_or_raises(lambda x, y: np.broadcast_arrays(x, y), np.ones((3, 2)), np.ones(3))


def test_array_api_aliases():
    x = sample(np.float64, (2, 3, 4))
    assert np.concat is np.concatenate and np.permute_dims is np.transpose
    check(lambda x: (np.concat([x, x], axis=1), np.permute_dims(x, (2, 0, 1)), np.matrix_transpose(x),
                     np.matrix_transpose(x[0])), x)
    check_or_raises(lambda x: np.matrix_transpose(x[0, 0]), x)


@settings(max_examples=15, deadline=None)
@given(shape=hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=3))
def test_random_stacking(shape):
    x = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    check(lambda x: (np.hstack([x, x]), np.vstack([x, x]), np.dstack([x, x]), np.atleast_3d(x), np.block([[x, x]])), x)


@pytest.mark.parametrize("axis, start", [(0, 0), (0, 2), (2, 0), (1, 3), (-1, 1), (3, -2), (0, 4), (1, 1)], ids=str)
def test_rollaxis(axis, start):
    check_or_raises(lambda x: np.rollaxis(x, axis, start), sample(np.int16, (2, 3, 4, 5)))
    check_or_raises(lambda x: np.rollaxis(x, 0, 6), sample(np.int16, (2, 3, 4, 5)))
