"""ndarray methods and attributes, and the ufunc methods reduce, accumulate, outer and at,
against NumPy."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import solvent
from numpy_samples import ALL_DTYPES, FLOAT, INTEGER, check, check_or_raises, elements, sample
from differential import check_types_like_numpy


def test_attributes():
    def f(x):
        return x.shape, x.ndim, x.size, x.dtype, x.itemsize, x.nbytes, len(x), x.T.shape, np.shape(x), np.ndim(x), \
            np.size(x), np.size(x, 1)
    check(f, sample(np.float32, (2, 3)))


def test_real_and_imag():
    def f(z, x):
        return z.real, z.imag, np.real(z), np.imag(x), x.real, np.conj(z), z.conj(), z.conjugate()
    check(f, sample(np.complex128, (3,)), sample(np.float32, (2,)))


def test_writing_real_and_imag_parts():
    def f(z, x):
        z.real[0] = 10.0
        z.imag[1:] *= -1.0
        x.real[0] = 5.0
        return z
    check(f, sample(np.complex128, (3,)), np.arange(3.0))


def test_assigning_real_and_imag_attributes():
    def f(z, x):
        z.real += 1.0
        z.imag = 3.0
        x.real = x * 2.0
        return z, x
    check(f, sample(np.complex128, (3,)), np.arange(3.0))
    check_or_raises(lambda x: setattr(x, "imag", 1.0), np.arange(3.0))


def test_shape_methods():
    def f(x):
        return (x.reshape(3, 2), x.reshape((2, 3)), x.reshape(-1), x.transpose(), x.transpose(1, 0),
                x.transpose((1, 0)), x.flatten(), x.ravel(), x.squeeze(), x.swapaxes(0, 1), x[None].squeeze(0))
    check(f, sample(np.int16, (2, 3)))


def test_flatten_copies_and_ravel_views():
    def f(x):
        x.flatten()[0] = 100
        x.ravel()[1] = -100
        return x
    check(f, np.arange(6).reshape(2, 3))


def test_astype_copy_fill_methods():
    def f(x):
        y = x.astype(np.int8)
        z = x.copy()
        z.fill(3.5)
        x[0] = 9.0
        return y, z, x.astype(np.complex128)
    check(f, sample(np.float64, (4,)))


def test_copyto():
    def f(dst, src, narrow, mask):
        np.copyto(dst, src)
        np.copyto(dst[1:], 7.5, where=mask[1:])
        np.copyto(dst.T, narrow)
        return dst
    check(f, np.zeros((2, 3)), sample(np.float64, (3,)), sample(np.float32, (2,)),
          np.array([[True, False, True], [False, True, True]]))


@pytest.mark.parametrize("dst_dtype, src", [(np.int32, 2.5), (np.float32, 2.5), (np.uint8, 300), (np.uint8, 3),
                                            (np.int32, np.ones(3)), (np.float64, np.ones(3, np.int8))], ids=str)
def test_copyto_casting(dst_dtype, src):
    def f(dst):
        np.copyto(dst, src)
        return dst
    check_or_raises(f, np.zeros(3, dst_dtype))


def test_copyto_of_a_python_float_with_unsafe_casting_wraps_as_numpys():
    def f(dst):
        np.copyto(dst, -1.0, casting="unsafe")
        return dst
    check(f, np.zeros(3, np.uint8))


def test_the_imaginary_part_of_a_real_array_is_read_only():
    """`a.imag[0] = 1.0` on a real array raises in NumPy; it was dropped silently."""
    def f(a):
        a.imag[0] = 1.0
        return a
    check_or_raises(f, np.arange(3.0))
    check(lambda a: (a.imag, np.imag(a) + 1, a.imag.sum()), np.arange(3.0))


def test_reduction_and_math_methods():
    x = sample(np.float64, (3, 4))
    check(lambda x: (x.sum(), x.mean(axis=0), x.std(ddof=1), x.var(keepdims=True), x.prod(axis=1), x.max(),
                     x.min(axis=-1), x.argmax(), x.argmin(axis=0), x.any(), x.all(), x.clip(-1, 1), x.cumsum(),
                     x.cumprod(axis=1), x.dot(x.T)), x)


def test_conversions_raise_tracer_conversion_error():
    for convert in (lambda x: x.tobytes(), lambda x: range(x)):  # int(), bool(), .item() & co.: Python numbers
        with pytest.raises(solvent.TracerConversionError):
            solvent.jit(lambda x: convert(x.sum()))(np.ones(3))


def test_unsupported_method_names_the_method():
    with pytest.raises(solvent.UnsupportedError, match="ndarray.dumps"):
        solvent.jit(lambda x: x.dumps())(np.ones(3))
    with pytest.raises(AttributeError):
        solvent.jit(lambda x: x.no_such_method())(np.ones(3))


# -- methods forwarding to functions that other modules implement ----------------------------------

def test_sort_method_sorts_the_callers_array_in_place():

    def f(x, y):
        x.sort()
        y[1:].sort(axis=0)
        y[0].sort(kind="stable")
        return x.sort(), y.T.sort()
    check(f, sample(np.float64, (6,), seed=20), sample(np.int32, (4, 3), seed=21))
    for bad in (lambda x: x.sort(axis=None), lambda x: x.sum().sort(), lambda x: x.sort(axis=2)):
        check_or_raises(bad, sample(np.float64, (2, 3), seed=20))


def test_partition_method_partitions_in_place():

    x = sample(np.float64, (9,), seed=22)
    result = x.copy()
    assert solvent.jit(lambda x: x.partition(3))(result) is None  # the caller's array is partitioned
    assert sorted(result.tolist()) == sorted(x.tolist())
    assert result[3] == np.sort(x)[3] and result[:3].max() <= result[3] <= result[4:].min()


def test_argpartition_method():
    x = sample(np.float64, (9,), seed=23)
    index = np.asarray(solvent.jit(lambda x: x.argpartition(4))(x))
    assert sorted(index.tolist()) == list(range(9)) and x[index[4]] == np.sort(x)[4]


def test_sorting_and_searching_methods():
    x = sample(np.float64, (3, 5), seed=24)
    check(lambda x, s: (x.argsort(), x.argsort(axis=0, kind="stable"), s.searchsorted(x), s.searchsorted(1.5, "right")),
          x, np.sort(sample(np.float64, (6,), seed=25)))


def test_put_method_writes_in_place():

    def f(x):
        x.put([0, 4], [-1.0, -2.0])
        x[1:].put(0, 9.0)
        return x
    check(f, sample(np.float64, (2, 3), seed=26))


SELECTION = [
    (np.take, lambda x: (x.take([0, 2]), x.take([1, -1], axis=1), x.take([[0], [5]]))),
    (np.diagonal, lambda x: (x.diagonal(), x.diagonal(1), x.diagonal(-1, 1, 0))),
    (np.trace, lambda x: (x.trace(), x.trace(offset=-1, dtype=np.float32), x.trace(1, 1, 0))),
    (np.repeat, lambda x: (x.repeat(2), x.repeat([1, 2, 0], axis=0))),
    (np.compress, lambda x: (x.compress([True, False, True]), x.compress([False, True], axis=1))),
    (np.choose, lambda x: ((x % 2).choose([x, -x]), (x % 3).choose([1, 2, 3]))),
]


@pytest.mark.parametrize("function, fn", SELECTION, ids=[f.__name__ for f, _ in SELECTION])
def test_selection_methods(function, fn):
    check(fn, sample(np.int16, (3, 4), seed=27))


def test_round_method():
    check(lambda x: (x.round(), x.round(1), x.round(decimals=-1)), sample(np.float64, (6,), -40, 40, seed=28))


AXIS_METHODS = ["sum", "prod", "mean", "max", "min", "argmax", "argmin", "any", "all", "std", "var", "cumsum",
                "cumprod"]


@settings(max_examples=30, deadline=None)
@given(data=st.data(), name=st.sampled_from(AXIS_METHODS), dtype=st.sampled_from(ALL_DTYPES),
       shape=hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4))
def test_methods_match_numpy_over_axes(data, name, dtype, shape):
    x = data.draw(hnp.arrays(dtype, shape, elements=elements(dtype, bound=3)))
    axis = data.draw(st.one_of(st.none(), st.integers(-len(shape), len(shape) - 1))) if shape else None
    check_or_raises(lambda x: getattr(x, name)(axis=axis), x, scale=100)


def test_clip_and_arithmetic_methods_with_keywords():
    x = sample(np.float32, (3, 4), seed=29)
    check(lambda x: (x.clip(min=-1), x.clip(max=1), x.sum(axis=0, keepdims=True, dtype=np.float64),
                     x.mean(axis=-1), x.max(initial=10.0), x.cumsum(axis=0), x.std(axis=1, ddof=1),
                     x.var(axis=1, keepdims=True), x.prod(axis=(0, 1))), x)


# -- methods with their own rules --------------------------------------------------------------------

def test_astype_without_copy_returns_the_array_itself():
    def f(x):
        x.astype(x.dtype, copy=False)[0] = 7.0
        x.astype(np.float32, copy=False)[1] = 7.0  # a conversion is a new array whatever copy= says
        return x
    check(f, sample(np.float64, (3,), seed=30))


def test_view_of_the_same_dtype_shares_data():
    def f(x):
        v = x.view()
        v[0] = 100
        x.view(np.ndarray)[1] = 200
        x.view(x.dtype)[2] = 300
        return x, v
    check(f, sample(np.int64, (4,), seed=31))


def test_view_as_a_dtype_of_the_same_size_reads_and_writes_the_bits():
    def f(x, y):
        bits = x.view(np.uint64)
        bits += np.uint64(1) << np.uint64(52)  # doubles each element through its exponent
        y.view(np.int32)[0] = -1
        return bits, x.view(np.int64) >> 60, y.view(np.float32).view(np.uint32)
    check(f, np.array([1.5, -3.0, 0.25]), np.array([1.0, 2.0], np.float32))
    for view in (lambda x: x.view(np.int32), lambda x: x.view(np.complex128), lambda x: x.view(bool)):
        with pytest.raises(solvent.UnsupportedError, match="view"):
            solvent.jit(view)(np.ones(3))


def test_resize_method():
    def f(x):
        x.resize((2, 3))
        x.resize(2, 3, refcheck=False)
        return x
    check(f, sample(np.float64, (2, 3), seed=32))
    with pytest.raises(solvent.UnsupportedError, match="resize"):
        solvent.jit(lambda x: x.resize((3, 2)))(np.ones((2, 3)))


@pytest.mark.parametrize("method", ["tobytes", "tofile"])
def test_host_only_methods_raise_tracer_conversion_error(method):
    with pytest.raises(solvent.TracerConversionError, match=method):
        solvent.jit(lambda x: getattr(x, method)())(np.ones(3))


@pytest.mark.parametrize("name", ["flags", "ctypes", "byteswap", "dumps"])
def test_unsupported_attributes_raise(name):
    with pytest.raises(solvent.UnsupportedError, match=name):
        solvent.jit(lambda x: getattr(x, name))(np.ones(3))


@pytest.mark.parametrize("name", ["ptp", "itemset", "newbyteorder"])
def test_methods_removed_in_numpy_2_raise(name):
    with pytest.raises(AttributeError):
        getattr(np.ones(3), name)
    with pytest.raises((AttributeError, solvent.UnsupportedError)):
        solvent.jit(lambda x: getattr(x, name)())(np.ones(3))


def test_base_attribute():
    def f(x):
        y = x.copy()
        return (x.base is None, x[1:].base is x, x[1:][1:].base is x, x.T.base is x, y.base is None,
                x.reshape(-1).base is x)
    x = sample(np.float64, (3, 2), seed=33)
    assert solvent.jit(f)(x) == f(x)


def test_matrix_transpose_and_flat():
    def f(x):
        x.flat[1] = -5.0
        total = 0.0
        for v in x[0].flat:
            total = total + v
        return x.mT, x.T, x.flat[3], total, len(x.flat)
    check(f, sample(np.float64, (2, 2, 3), seed=34))


def test_assigning_flat_repeats_the_values_as_numpy_does():
    def f(a, b, c):
        a.flat = [1.5, 2.5]  # (cast to a's ints, repeated)
        b.flat = 7.0
        a[1:].flat = [9]
        c.T.flat = np.arange(6.0)
        return a, b, c
    check(f, np.zeros(5, np.int64), np.zeros((2, 2)), np.zeros((2, 3)))


# -- ufunc.reduce ----------------------------------------------------------------------------

REDUCE = [np.add, np.multiply, np.maximum, np.minimum, np.fmax, np.fmin, np.logical_and, np.logical_or,
          np.logical_xor, np.bitwise_and, np.bitwise_or, np.bitwise_xor, np.logaddexp, np.hypot]


@pytest.mark.parametrize("dtype", [np.dtype(np.bool_), np.dtype(np.int8), np.dtype(np.uint8), np.dtype(np.int64),
                                   np.dtype(np.float32), np.dtype(np.float64)], ids=str)
@pytest.mark.parametrize("ufunc", REDUCE, ids=lambda u: u.__name__)
def test_ufunc_reduce(ufunc, dtype):
    x = sample(dtype, (3, 4), 0, 3, seed=1)
    check_or_raises(lambda x: (ufunc.reduce(x), ufunc.reduce(x, axis=1), ufunc.reduce(x, axis=None),
                               ufunc.reduce(x, axis=(0, 1), keepdims=True)), x)


def test_ufunc_reduce_options():
    x = sample(np.int8, (3, 4), seed=2)
    check(lambda x: (np.add.reduce(x, dtype=np.float32), np.multiply.reduce(x, axis=-1, initial=2),
                     np.maximum.reduce(x, axis=0, initial=1), np.add.reduce(x, axis=()), np.add.reduce(x[:0]),
                     np.minimum.reduce(x[:0], axis=0, initial=5)), x)
    check_or_raises(lambda x: np.maximum.reduce(x[:0]), x)


def test_ufunc_reduce_with_out():
    def f(x, out):
        np.add.reduce(x, axis=0, out=out)
        return out
    check(f, sample(np.float64, (3, 2)), np.zeros(2))


@pytest.mark.parametrize("ufunc", [np.subtract, np.true_divide, np.power], ids=lambda u: u.__name__)
def test_order_dependent_reduce_is_unsupported(ufunc):
    with pytest.raises(solvent.UnsupportedError, match=ufunc.__name__):
        solvent.jit(lambda x: ufunc.reduce(x))(np.arange(1.0, 4.0))


# -- ufunc.accumulate --------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.dtype(np.bool_), np.dtype(np.int8), np.dtype(np.uint32), *FLOAT], ids=str)
@pytest.mark.parametrize("ufunc", [np.add, np.multiply, np.maximum, np.minimum, np.logical_or, np.bitwise_xor],
                         ids=lambda u: u.__name__)
def test_ufunc_accumulate(ufunc, dtype):
    x = sample(dtype, (3, 4), 0, 3, seed=3)
    check_or_raises(lambda x: (ufunc.accumulate(x), ufunc.accumulate(x, axis=1), ufunc.accumulate(x, axis=-1)), x)


def test_ufunc_accumulate_dtype_out_and_empty():
    def f(x, out):
        np.add.accumulate(x, out=out)
        return np.add.accumulate(x, dtype=np.float64), np.multiply.accumulate(x[:, :0], axis=1), out
    check(f, sample(np.int8, (3, 2), seed=4), np.zeros((3, 2), np.int64))


# -- ufunc.outer -------------------------------------------------------------------------------

@pytest.mark.parametrize("ufunc", [np.add, np.subtract, np.multiply, np.maximum, np.less, np.power, np.arctan2,
                                   np.equal, np.divmod], ids=lambda u: u.__name__)
def test_ufunc_outer(ufunc):
    a, b = sample(np.float64, (3,), 0.5, 3, seed=5), sample(np.float64, (2, 2), 0.5, 3, seed=6)
    check(lambda a, b: (ufunc.outer(a, b), ufunc.outer(b, a)), a, b)


def test_ufunc_outer_dtypes_and_constants():
    a = sample(np.int8, (3,), seed=7)
    check(lambda a: (np.multiply.outer(a, a), np.add.outer(a, [1.5, 2.5]), np.subtract.outer([1, 2], a),
                     np.add.outer(a, 2)), a)


# -- ufunc.at ----------------------------------------------------------------------------------

@pytest.mark.parametrize("ufunc", [np.add, np.subtract, np.multiply, np.maximum, np.minimum, np.bitwise_or],
                         ids=lambda u: u.__name__)
@pytest.mark.parametrize("dtype", [np.dtype(np.int32), np.dtype(np.uint8), np.dtype(np.float64)], ids=str)
def test_ufunc_at_with_repeated_indices(ufunc, dtype):
    def f(a, b):
        ufunc.at(a, [0, 2, 2, 4, 0, 0], b)
        return a
    check_or_raises(f, sample(dtype, (5,), 1, 5, seed=8), sample(dtype, (6,), 1, 3, seed=9))


def test_ufunc_at_variants():
    def f(a, m, b):
        np.add.at(a, [-1, 0, -1], 1.0)             # negative indices, a scalar value
        np.multiply.at(m, [1, 1], b)               # whole rows, repeated
        np.add.at(m, np.array([0, 2, 0]), 10.0)
        np.add.at(a, 3, 5.0)                       # a single index
        return a, m
    check(f, np.arange(5.0), np.ones((3, 2)), np.array([2.0, 3.0]))


def test_ufunc_at_with_traced_indices_and_promotion():
    def f(a, i, b):
        np.add.at(a, i, b)
        return a
    check(f, np.zeros(4, np.float32), np.array([1, 1, 3]), np.array([0.5, 0.25, 2.0]))
    check_or_raises(f, np.zeros(4, np.int32), np.array([1, 1, 3]), np.array([0.5, 0.25, 2.0]))


def test_ufunc_at_on_a_view():
    def f(a):
        np.add.at(a[1:], [0, 0, 2], 1)
        return a
    check(f, np.zeros(5, np.int64))


def test_bitwise_and_reduce_of_unsigned():
    check(lambda x: np.bitwise_and.reduce(x), np.array([0xF0, 0xFF, 0xB4], dtype=np.uint8))
    check(lambda x: np.bitwise_and.reduce(x, axis=0), np.zeros((0, 2), dtype=np.uint32))


@pytest.mark.parametrize("dtype", INTEGER, ids=str)
def test_integer_reductions_of_extremes(dtype):
    info = np.iinfo(dtype)
    x = np.array([info.min, info.max, 0, 1], dtype=dtype)
    check(lambda x: (np.max(x), np.min(x), np.argmax(x), np.argmin(x), np.maximum.accumulate(x)), x)


def test_real_and_imag_of_a_scalar_are_scalars():
    check_types_like_numpy(lambda x: (np.real(x[0]), np.imag(x[0]), np.real(x[0] + 0j), np.imag(x[1] * 1j)),
                           np.array([0.1, 0.4]))


def items_as_python_numbers(x):
    losses = []
    for i in range(20):
        losses.append((x * i).sum().item())
    return (losses, x[1].item(), x.item(2), x.reshape(2, 2).item(1, 0), x.astype(np.float32)[0].item(),
            (x > 1).tolist(), x.astype(np.int8).reshape(2, 2).tolist(), np.float32(2) * x[0].item())


def test_item_and_tolist_give_python_numbers():
    """As float() and int() give theirs: weak traced scalars that come back as Python numbers and
    promote as they do (`losses.append(loss.item())` raised a TracerConversionError)."""
    check_types_like_numpy(items_as_python_numbers, np.arange(4.0))
    with pytest.raises(solvent.UnsupportedError, match="tolist"):
        solvent.jit(lambda x: x.tolist())(np.zeros(2000))
