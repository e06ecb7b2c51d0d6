"""Array creation inside traced functions against NumPy: zeros, ones, empty, full, eye,
identity, tri, indices, arange, linspace, logspace, geomspace with plain Python arguments (fresh
arrays that accept traced values), their `_like` forms, np.array/np.asarray of traced values,
triu/tril, diag/diagflat/diagonal and meshgrid."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import solvent
from differential import assert_same, check_like_numpy
from numpy_samples import ALL_DTYPES, check, check_or_raises, sample


@pytest.mark.parametrize("dtype", [None, float, int, bool, np.float32, np.int8, np.uint32, np.complex128, "int16"],
                         ids=str)
def test_filled_arrays(dtype):
    kwargs = {} if dtype is None else {"dtype": dtype}
    check(lambda x: (np.zeros(3, **kwargs), np.ones((2, 3), **kwargs), np.full((2, 2), 7, **kwargs),
                     np.zeros((), **kwargs), np.ones((0, 2), **kwargs), x), np.ones(1))


def test_full_infers_its_dtype_from_the_fill_value():
    check(lambda x: (np.full(3, 2), np.full(3, 2.5), np.full(3, True), np.full((1, 2), 1j), np.full(2, np.float32(1))),
          np.ones(1))


def test_a_float_fill_is_cast_unsafely_and_an_int_out_of_range_raises_as_numpys():
    """np.full(3, -1.0, dtype=np.uint8) is 255 in NumPy (NaN into int64 its minimum); solvent raised."""
    check(lambda x: (np.full(3, -1.0, dtype=np.uint8), np.full(2, np.nan, dtype=np.int64),
                     np.full_like(x.astype(np.int8), 200.0)), np.ones(2))
    check_or_raises(lambda x: np.full(2, 300, dtype=np.uint8), np.ones(2))
    check_or_raises(lambda x: np.full_like(x.astype(np.int8), 200), np.ones(2))


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


# -- registration of the fresh creation functions -------------------------------------------

def test_fresh_creation_functions_are_registered():
    """One registration each: solvent.supported() lists them, and tracing patches exactly those in."""
    from solvent.numpy.creation import FRESH
    expected = {"zeros", "ones", "empty", "full", "eye", "identity", "tri", "indices", "arange", "linspace",
                "logspace", "geomspace", "array", "asarray", "asanyarray", "ascontiguousarray", "asfortranarray",
                "require"}
    assert set(FRESH) == expected
    assert {f"np.{name}" for name in expected} <= set(solvent.supported())


def test_like_a_traced_array_makes_traced_arrays():
    def f(x):
        z = np.zeros(3, like=x)
        z[0] = x.sum()
        return z, np.ones((2,), dtype=np.int8, like=x), np.arange(4, like=x), np.full(2, 3.5, like=x), np.eye(2, like=x)
    check(f, np.arange(3.0))


# -- triangles, index grids, spaced values ------------------------------------------------------

@pytest.mark.parametrize("args", [(3,), (2, 4), (4, 2, 1), (3, 3, -1), (3, None, 5), (0,), (3, 4, -4)], ids=str)
@pytest.mark.parametrize("dtype", [float, int, bool, np.complex64], ids=str)
def test_tri(args, dtype):
    def f(x):
        t = np.tri(*args, dtype=dtype)
        if t.size:
            t[0, 0] = x[0]
        return t
    check(f, np.ones(1, dtype))


@pytest.mark.parametrize("k", [0, 1, -1, 3, -5], ids=str)
def test_triu_tril(k):
    x = sample(np.float32, (2, 3, 4))
    check(lambda x, v: (np.triu(x, k), np.tril(x, k), np.triu(x[0], k), np.tril(v, k), np.triu(v, k)),
          x, sample(np.int8, (3,)))


def test_triu_tril_errors_and_dtypes():
    check(lambda x: (np.triu(x), np.tril(x, 1)), sample(np.bool_, (3, 3)))
    check(lambda x: (np.triu(x), np.tril(x, 1)), sample(np.complex128, (3, 2)))
    check_or_raises(lambda x: np.triu(x[0, 0]), np.ones((2, 2)))
    with pytest.raises(solvent.UnsupportedError, match="static"):
        solvent.jit(lambda x, k: np.triu(x, k))(np.ones((2, 2)), solvent.Scalar(np.int64(1)))


@pytest.mark.parametrize("dtype", [int, np.int8, float, np.float32, np.uint16], ids=str)
def test_indices(dtype):
    def f(x):
        grid = np.indices((2, 3), dtype=dtype)
        grid[0, 0, 0] = x[0]
        return grid, np.indices((3, 1, 2), dtype=dtype, sparse=True), np.indices((), dtype=dtype), np.indices((0, 2))
    check(f, np.ones(1, dtype))


@pytest.mark.parametrize("args", [(0, 2, 5), (1, -1, 4), (0, 3, 1)], ids=str)
def test_logspace_and_geomspace(args):
    def f(x):
        g = np.geomspace(1, 1000, 4)
        g[1] = x[0]
        return (g, np.logspace(*args), np.logspace(*args, base=2.0, endpoint=False), np.geomspace(-1, -16, 5),
                np.logspace(0, 1, 3, dtype=np.float32), np.geomspace(1, 8, 4, dtype=int), np.logspace([0, 1], 2, 3))
    check(f, np.ones(1))


@pytest.mark.parametrize("kwargs", [{}, {"num": 1}, {"num": 0}, {"endpoint": False, "num": 4},
                                    {"dtype": int, "num": 7}, {"dtype": np.float32, "num": 4}], ids=str)
def test_linspace_and_logspace_with_traced_ends(kwargs):
    check(lambda x, y: (np.linspace(x[0], 3.0, **kwargs), np.linspace(x, y, **kwargs), np.linspace(-1, y, **kwargs),
                        np.linspace(x[0], y[1], retstep=True, **kwargs), np.logspace(x[0], y, **kwargs),
                        np.logspace(0, 2, base=np.abs(x) + 1, **kwargs)),
          sample(np.float64, (2,)), sample(np.float32, (2,), seed=1))


@pytest.mark.parametrize("axis", [0, 1, -1, -2], ids=str)
def test_linspace_and_logspace_of_traced_arrays_along_an_axis(axis):
    check(lambda x, y: (np.linspace(x, y, 4, axis=axis), np.logspace(x, 1.0, 3, axis=axis)),
          sample(np.float64, (2,)), sample(np.float64, (3, 1), seed=1))


def test_linspace_of_equal_traced_ends_and_integer_ends():
    check(lambda x: (np.linspace(x[0], x[0], 4), np.linspace(x, 2 * x, 3, retstep=True)), np.array([2, 2, 5]))


def test_geomspace_with_traced_ends_is_unsupported():
    with pytest.raises(solvent.UnsupportedError, match="geomspace"):
        solvent.jit(lambda x: np.geomspace(x[0], 2.0, 3))(np.ones(2))


# -- diagonals ---------------------------------------------------------------------------------

@pytest.mark.parametrize("k", [0, 1, 2, -1, -3, 5], ids=str)
def test_diag_and_diagflat(k):
    x = sample(np.float64, (3, 4))
    check(lambda x: (np.diag(x, k), np.diag(x[0], k), np.diagflat(x[:2, :2], k), np.diagflat(x[0, 0], k)), x)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_diag_dtypes(dtype):
    check(lambda x: (np.diag(x), np.diag(x[0], -1), np.diagonal(x, 1)), sample(dtype, (3, 3)))


@pytest.mark.parametrize("offset, axis1, axis2", [(0, 0, 1), (1, 0, 1), (-1, 1, 0), (0, 2, 0), (2, -1, 1),
                                                  (-2, 0, 2), (9, 0, 1)], ids=str)
def test_diagonal(offset, axis1, axis2):
    check(lambda x: np.diagonal(x, offset, axis1, axis2), sample(np.int32, (3, 4, 5)))


def test_diagonal_errors():
    check_or_raises(lambda x: np.diagonal(x), np.ones(3))
    check_or_raises(lambda x: np.diagonal(x, 0, 1, 1), np.ones((2, 2)))
    check_or_raises(lambda x: np.diagonal(x, 0, 0, 2), np.ones((2, 2)))
    check_or_raises(lambda x: np.diag(x), np.ones((2, 2, 2)))


@settings(max_examples=20, deadline=None)
@given(shape=hnp.array_shapes(min_dims=2, max_dims=3, min_side=0, max_side=4), offset=st.integers(-5, 5))
def test_random_diagonals_and_triangles(shape, offset):
    x = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    check(lambda x: (np.diagonal(x, offset), np.diagonal(x, offset, -1, -2), np.triu(x, offset), np.tril(x, offset)), x)


# -- meshgrid -------------------------------------------------------------------------------------

@pytest.mark.parametrize("indexing", ["xy", "ij"])
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
def test_meshgrid(indexing, sparse):
    x, y, z = sample(np.float32, (3,)), sample(np.int16, (2,), seed=1), sample(np.float64, (4,), seed=2)
    check(lambda x, y, z: (np.meshgrid(x, y, indexing=indexing, sparse=sparse),
                           np.meshgrid(x, y, z, indexing=indexing, sparse=sparse), np.meshgrid(x, indexing=indexing),
                           np.meshgrid(x, [1, 2], indexing=indexing, sparse=sparse)), x, y, z)


def test_meshgrid_copies_and_errors():
    def f(x, y):
        gx, gy = np.meshgrid(x, y)
        gx[0, 0] = -1.0  # a copy: x keeps its values
        return gx, x
    check(f, np.arange(3.0), np.arange(2.0))
    check_or_raises(lambda x: np.meshgrid(x, x, indexing="yx"), np.ones(2))
    check(lambda x: np.meshgrid(x, x[:2], copy=False, sparse=True), np.arange(3.0))


# -- np.array and friends of traced data -----------------------------------------------------------

def test_array_options_on_traced_values():
    def f(x):
        return (np.array(x, ndmin=3), np.array([x[0], 2], dtype=np.float32, ndmin=2), np.asarray(x, dtype=int),
                np.ascontiguousarray(x[0]), np.asanyarray([x[1], x[0]]), np.array(x, copy=None), np.array(x[0]),
                np.asfortranarray([x, x]), np.require(x, np.float32, ["C", "A"]), np.require([x[0], 1]))
    check(f, np.arange(3.0))


def test_array_copy_semantics():
    def f(x):
        a = np.array(x, copy=False)
        a[0] = 7.0             # no copy: writes x
        b = np.asarray(x, copy=True)
        b[1] = -1.0            # a copy
        np.array(x, ndmin=2)[0, 2] = 5.0  # a copy by default
        np.asarray(x)[None][0, 1] += 1.0  # a view
        return x, b
    check(f, np.arange(3.0))
    check_or_raises(lambda x: np.array(x, dtype=np.int32, copy=False), np.arange(3.0))


def test_empty_forms_are_zeros_shaped_like_numpy():
    def f(x):
        return np.empty((2, 2), np.int8).shape, np.empty_like(x, shape=(3,)).shape, np.empty_like(x, dtype=bool).dtype
    check(f, np.ones((2, 3)))


GENERATOR = np.random.default_rng(0)


@pytest.mark.parametrize("draw", [
    lambda x: x + np.random.RandomState(0).rand(3),  # NumPy's C code used to get a traced np.empty: a segfault
    lambda x: x + np.random.poisson(),             # a draw solvent does not reproduce yet
    lambda x: x + GENERATOR.random(3),             # a generator from outside, drawing into np.empty
    lambda x: x + np.random.default_rng().random(3),
])
def test_random_numbers_inside_jit_are_refused_never_a_crash(draw):
    def f(x):
        x += 1.0
        return draw(x)

    x = np.zeros(3)
    with pytest.raises(solvent.UnsupportedError, match="np.random.Generator argument"):
        solvent.jit(f)(x)
    assert_same(x, np.zeros(3))  # nothing written
    assert np.random.rand(2).shape == (2,) and type(np.empty(2)) is np.ndarray  # NumPy as it was



def as_batch(x):
    """Input normalizing as libraries write it: a traced array is an np.ndarray to user code."""
    if not isinstance(x, np.ndarray):
        x = np.stack([x, x])
    return x.sum(axis=0), isinstance(x.sum(), np.ndarray), isinstance(x[:1], np.ndarray)


def test_a_traced_array_is_an_ndarray_to_isinstance_in_user_code():
    check_like_numpy(as_batch, np.arange(3.0))


class Holder:
    """An object of the user's that gives NumPy its array (the array protocol)."""

    def __init__(self, a):
        self.a = a

    def __array__(self, dtype=None, copy=None):
        return self.a


def test_an_argument_with_the_array_protocol_converts_inside():
    f = lambda w: (np.asarray(w) * 2, np.array(w, dtype=np.float32))
    expected, actual = f(Holder(np.arange(3.0))), solvent.jit(f)(Holder(np.arange(3.0)))
    for a, e in zip(actual, expected):
        assert_same(a, e)


def computes_with_holders(w, v):
    return np.sin(w) + v, np.add(w, 1.0), w * np.sum(v), np.concatenate([w, v]), np.where(np.greater(w, 1), w, v)


def test_an_argument_with_the_array_protocol_in_ufuncs_and_functions():
    """NumPy converts such an object wherever an array is expected; its C code refused the traced
    array that `__array__` gives while tracing (a raw ValueError)."""
    expected = computes_with_holders(Holder(np.arange(3.0)), Holder(np.ones(3)))
    actual = solvent.jit(computes_with_holders)(Holder(np.arange(3.0)), Holder(np.ones(3)))
    for a, e in zip(actual, expected):
        assert_same(a, e)


def items_doubled(a):
    for i in range(3):
        yield a[i] * 2


def test_fromiter_of_traced_items():
    """NumPy's fromiter neither dispatches on an iterator nor can take traced items (a raw ValueError)."""
    check_like_numpy(lambda a: (np.fromiter(items_doubled(a), float),
                                np.fromiter((v + 1 for v in a), np.float32, count=2), np.fromiter(range(4), int)),
                     np.arange(3.0))


def normalized_in_place(x):
    a = np.zeros(2)
    b = np.asarray(a)  # NumPy's own array, not a copy: writes through b are a's
    b[0] = x[0]
    c = np.ones(3)
    d = np.ascontiguousarray(c)
    d /= d.sum()
    return a, c, np.asarray(a) is a


def test_asarray_of_an_array_made_in_the_function_is_that_array():
    """np.zeros(2) is known while tracing, and np.asarray of it was folded into a new constant: a
    helper's `v = np.asarray(v); v /= v.sum()` then changed nothing."""
    check(normalized_in_place, np.array([1.0, 2.0]))


def doubled_until_close(a):
    previous = 0.0
    for k in range(1, 12):  # (its break on data makes k traced)
        x = np.linspace(0.0, 1.0, 2 ** k + 1)
        estimate = np.mean(np.exp(a[0] * x))
        if abs(estimate - previous) < 1e-6:
            break
        previous = estimate
    return estimate


def test_linspace_of_a_traced_count_says_why_the_count_is_traced():
    """It said np.linspace was not supported."""
    with pytest.raises(solvent.UnsupportedError, match=r"np\.linspace's num .*a loop's index is traced"):
        solvent.jit(doubled_until_close)(np.array([1.0]))
