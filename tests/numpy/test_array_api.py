"""The Array API namespace `solvent.numpy`: eagerly on solvent.Array, inside jit, and the array object."""

import numpy as np
import pytest

import solvent
import solvent.array_api as xp
from differential import assert_same
from solvent import eager

HOST = np.arange(-3.0, 3.0).reshape(2, 3)
INTS = np.array([[3, -1, 2], [0, 5, -4]], dtype=np.int16)
SQUARE = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]])

# (name, call on the namespace, call on NumPy)
CASES = [
    ("add", lambda m, x: m.add(x, 2.5), lambda x: np.add(x, 2.5)),
    ("acos", lambda m, x: m.acos(x / 4), lambda x: np.arccos(x / 4)),
    ("pow", lambda m, x: m.pow(x, 2), lambda x: np.power(x, 2)),
    ("round", lambda m, x: m.round(x * 0.5), lambda x: np.round(x * 0.5)),
    ("clip", lambda m, x: m.clip(x, min=-1, max=1.5), lambda x: np.clip(x, -1, 1.5)),
    ("sum", lambda m, x: m.sum(x, axis=0, keepdims=True), lambda x: np.sum(x, axis=0, keepdims=True)),
    ("std", lambda m, x: m.std(x, correction=1), lambda x: np.std(x, ddof=1)),
    ("cumulative_sum", lambda m, x: m.cumulative_sum(x, axis=1, include_initial=True),
     lambda x: np.concatenate([np.zeros((2, 1)), np.cumsum(x, axis=1)], axis=1)),
    ("concat", lambda m, x: m.concat([x, x], axis=None), lambda x: np.concatenate([x, x], axis=None)),
    ("permute_dims", lambda m, x: m.permute_dims(x, (1, 0)), lambda x: np.transpose(x)),
    ("unstack", lambda m, x: m.unstack(x, axis=1), lambda x: tuple(x.T)),
    ("broadcast_arrays", lambda m, x: m.broadcast_arrays(x, x[0]), lambda x: list(np.broadcast_arrays(x, x[0]))),
    ("expand_dims", lambda m, x: m.expand_dims(x, axis=-1), lambda x: x[..., None]),
    ("matrix_transpose", lambda m, x: m.matrix_transpose(x), lambda x: x.T),
    ("vecdot", lambda m, x: m.vecdot(x, x + 1), lambda x: np.sum(x * (x + 1), axis=-1)),
    ("where", lambda m, x: m.where(x > 0, x, -x), lambda x: np.where(x > 0, x, -x)),
    ("argmax", lambda m, x: m.argmax(x, axis=1, keepdims=True), lambda x: np.argmax(x, axis=1, keepdims=True)),
    ("astype", lambda m, x: m.astype(x, m.int32), lambda x: x.astype(np.int32)),
    ("sort", lambda m, x: m.sort(x, descending=True), lambda x: -np.sort(-x)),
    ("argsort", lambda m, x: m.argsort(m.round(x / 2), descending=True),
     lambda x: np.argsort(-np.round(x / 2), kind="stable")),
    ("vector_norm", lambda m, x: m.linalg.vector_norm(x, ord=3, axis=1),
     lambda x: np.linalg.vector_norm(x, ord=3, axis=1)),
    ("fftshift", lambda m, x: m.fft.fftshift(x, axes=(1,)), lambda x: np.fft.fftshift(x, axes=(1,))),
]


@pytest.mark.parametrize("name, call, reference", CASES, ids=[c[0] for c in CASES])
def test_namespace_eagerly_on_solvent_arrays(name, call, reference):
    actual = call(xp, solvent.asarray(HOST))
    for result in actual if isinstance(actual, (tuple, list)) else [actual]:
        assert isinstance(result, solvent.Array)
    assert_same(actual, reference(HOST.copy()))


@pytest.mark.parametrize("name, call, reference", CASES, ids=[c[0] for c in CASES])
def test_namespace_inside_jit(name, call, reference):
    actual = solvent.jit(lambda x: call(x.__array_namespace__(), x))(HOST.copy())
    assert_same(actual, reference(HOST.copy()))


def test_one_program_per_function_and_signature():
    xp.linalg.matrix_rank(solvent.asarray(SQUARE))
    (program,) = eager.programs_of(xp.linalg.matrix_rank.__wrapped__).values()
    before = len(program.cache)
    xp.linalg.matrix_rank(solvent.asarray(SQUARE))
    xp.linalg.matrix_rank(solvent.asarray(SQUARE + 1))
    assert len(program.cache) == before
    xp.linalg.matrix_rank(solvent.asarray(SQUARE + 1))
    assert len(program.cache) == before
    xp.linalg.matrix_rank(solvent.asarray(HOST))
    assert len(program.cache) == before + 1


def test_integer_rounding_and_clip_keep_the_dtype():
    a = solvent.asarray(INTS)
    for result in (xp.ceil(a), xp.floor(a), xp.trunc(a), xp.round(a), xp.clip(a, min=0, max=3)):
        assert result.dtype == np.int16
    assert_same(xp.clip(a, min=0, max=3), np.clip(INTS, 0, 3))
    assert_same(xp.ceil(a), INTS)


def test_creation_functions_return_solvent_arrays_with_default_dtypes():
    cases = [(xp.zeros((2, 3)), np.zeros((2, 3))), (xp.ones(4, dtype=xp.int8), np.ones(4, np.int8)),
             (xp.full((2,), 7), np.full((2,), 7)), (xp.arange(1, 7, 2), np.arange(1, 7, 2)),
             (xp.linspace(0, 1, 5), np.linspace(0, 1, 5)), (xp.eye(3, 4, k=1), np.eye(3, 4, k=1)),
             (xp.asarray([[1, 2], [3, 4]]), np.array([[1, 2], [3, 4]])), (xp.asarray(True), np.asarray(True)),
             (xp.zeros_like(solvent.asarray(INTS)), np.zeros_like(INTS)),
             (xp.full_like(solvent.asarray(HOST), 2), np.full_like(HOST, 2)),
             (xp.fft.fftfreq(5, d=0.5), np.fft.fftfreq(5, 0.5)),
             (xp.from_dlpack(np.arange(3.0)), np.arange(3.0))]
    for actual, expected in cases:
        assert isinstance(actual, solvent.Array)
        assert_same(actual, expected)
    grid = xp.meshgrid(solvent.asarray(np.arange(3)), solvent.asarray(np.arange(2.0)))
    assert_same(grid, list(np.meshgrid(np.arange(3), np.arange(2.0))))


def test_asarray_copy_semantics():
    a = solvent.asarray(HOST)
    assert xp.asarray(a) is a
    copied = xp.asarray(a, copy=True)
    assert copied is not a and isinstance(copied, solvent.Array)
    assert xp.astype(a, xp.float64, copy=False) is a
    with pytest.raises(ValueError):
        xp.asarray(a, dtype=xp.float32, copy=False)
    with pytest.raises(ValueError):
        xp.asarray([1.0, 2.0], copy=False)


def test_data_type_functions():
    info = xp.finfo(xp.float32)
    assert isinstance(info.eps, float) and info.eps == float(np.finfo(np.float32).eps)
    assert xp.finfo(xp.complex128).dtype == np.float64
    assert xp.iinfo(xp.uint8).max == 255
    assert xp.isdtype(xp.int8, ("real floating", "signed integer"))
    assert not xp.isdtype(xp.uint8, "signed integer")
    assert xp.result_type(solvent.asarray(INTS), xp.float32) is np.float32
    assert xp.can_cast(xp.int8, xp.int16) and not xp.can_cast(xp.float64, xp.int64)


def test_data_dependent_functions_eagerly_match_numpy():
    host = np.array([[3.0, np.nan, 1.0], [1.0, 3.0, np.nan], [0.0, -0.0, 2.0]])
    a = solvent.asarray(host)
    assert_same(xp.nonzero(a), np.nonzero(host))
    assert_same(tuple(xp.unique_all(a)), tuple(np.unique_all(host)))
    assert_same(tuple(xp.unique_counts(solvent.asarray(INTS))), tuple(np.unique_counts(INTS)))
    assert_same(xp.unique_values(solvent.asarray(np.zeros((0, 2)))), np.zeros(0))
    mask = host > 0.5
    assert_same(a[solvent.asarray(mask)], host[mask])
    assert_same(a[1, solvent.asarray(mask[0])], host[1, mask[0]])


def test_data_dependent_functions_are_refused_inside_jit():
    for function in (xp.nonzero, xp.unique_values, xp.unique_all):
        with pytest.raises(solvent.UnsupportedError, match="depends on the array's values"):
            solvent.jit(function)(HOST.copy())


def test_array_object():
    a = solvent.asarray(np.arange(24.0).reshape(2, 3, 4))
    assert a.__array_namespace__() is xp
    assert_same(a.mT, np.swapaxes(np.arange(24.0).reshape(2, 3, 4), -1, -2))
    assert a.to_device(a.device) is a
    scalar = solvent.asarray(np.array(3, dtype=np.int64))
    assert (int(scalar), float(scalar), complex(scalar), bool(scalar)) == (3, 3.0, 3 + 0j, True)
    assert [10, 11, 12, 13][scalar] == 13
    with pytest.raises(TypeError):
        [1, 2][solvent.asarray(np.array(1.0))]
    assert_same(np.from_dlpack(a), np.arange(24.0).reshape(2, 3, 4))
    info = xp.__array_namespace_info__()
    assert info.capabilities() == {"boolean indexing": False, "data-dependent shapes": False}
    assert info.default_dtypes()["real floating"] is np.float64
    assert info.default_device() in info.devices()
    assert set(info.dtypes(kind="complex floating")) == {"complex64", "complex128"}


def test_creation_functions_inside_jit_make_traced_arrays():
    def build(x):
        m = x.__array_namespace__()
        grid = m.zeros((2, 3)) + m.arange(3) + m.full((2, 1), 0.5) + m.ones_like(x)
        return grid, m.eye(2, dtype=m.int32), m.asarray([1, 2]) * x[0, :2], m.linspace(0, 1, 4), m.fft.fftfreq(4)

    expected = (np.zeros((2, 3)) + np.arange(3) + np.full((2, 1), 0.5) + 1, np.eye(2, dtype=np.int32),
                np.array([1, 2]) * HOST[0, :2], np.linspace(0, 1, 4), np.fft.fftfreq(4))
    assert_same(solvent.jit(build)(solvent.asarray(HOST)), expected)
