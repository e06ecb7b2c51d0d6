"""Products against NumPy: matmul/`@` (1-d, 2-d, batched with broadcasting), dot, einsum
with one or two operands; dtypes including bool, small integers and complex."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import solvent
from numpy_samples import check, check_or_raises, sample

MATMUL_SHAPES = [
    ((3,), (3,)), ((3,), (3, 4)), ((2, 3), (3,)), ((2, 3), (3, 4)), ((5, 2, 3), (3, 4)), ((2, 3), (5, 3, 4)),
    ((5, 2, 3), (5, 3, 4)), ((2, 1, 2, 3), (4, 3, 2)), ((3,), (2, 3, 4)), ((2, 2, 3), (3,)), ((0, 3), (3, 2)),
    ((2, 0), (0, 3)), ((1, 3), (3, 1)), ((2, 3), (4, 3)), ((), (3,)), ((2, 3, 4), (2, 4, 5)),
]


@pytest.mark.parametrize("shapes", MATMUL_SHAPES, ids=str)
def test_matmul_shapes(shapes):
    a, b = sample(np.float64, shapes[0], seed=1), sample(np.float64, shapes[1], seed=2)
    check_or_raises(lambda a, b: (np.matmul(a, b), a @ b), a, b)


@pytest.mark.parametrize("dtypes", [(np.float32, np.float32), (np.float32, np.float64), (np.int8, np.int8),
                                    (np.int32, np.int64), (np.uint8, np.int8), (np.bool_, np.bool_),
                                    (np.bool_, np.float32), (np.complex128, np.float64), (np.uint32, np.uint32),
                                    (np.int16, np.float32)], ids=str)
def test_matmul_dtypes(dtypes):
    a, b = sample(dtypes[0], (2, 3, 4), -3, 3, seed=3), sample(dtypes[1], (4, 2), -3, 3, seed=4)
    check(lambda a, b: (a @ b, np.matmul(a[0, 0], b), np.dot(a[0], b)), a, b)


def test_matmul_with_constants_and_out():
    def f(a, out):
        np.matmul(a, np.eye(3), out=out)
        return a @ [1.0, 2.0, 3.0], np.matmul([[1, 2]], a[:2]), out
    check(f, sample(np.float64, (4, 3)), np.zeros((4, 3)))


def test_matmul_in_place_operator():
    def f(a, b):
        a @= b
        return a
    check_or_raises(f, sample(np.float64, (3, 3)), sample(np.float64, (3, 3), seed=5))


def test_matmul_with_zero_d_raises():
    check_or_raises(lambda a: np.matmul(a, a), np.array(2.0))


def test_integer_matmul_wraps_like_numpy():
    a = np.full((2, 8), 100, dtype=np.int8)
    check(lambda a: a @ a.T, a)


DOT_SHAPES = [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 2)), ((2, 3), (3, 4)), ((2, 3, 4), (4,)), ((2, 3, 4), (5, 4, 2)),
              ((4,), (2, 4, 3)), ((), (2, 3)), ((2, 3), ()), ((), ()), ((2, 3), (2, 3))]


@pytest.mark.parametrize("shapes", DOT_SHAPES, ids=str)
def test_dot(shapes):
    a, b = sample(np.float64, shapes[0], seed=6), sample(np.float64, shapes[1], seed=7)
    check_or_raises(lambda a, b: (np.dot(a, b), a.dot(b)), a, b)


def test_dot_dtypes_and_out():
    def f(a, b, out):
        np.dot(a, b, out=out)
        return np.dot(a > 0, b > 0), np.dot(a.astype(np.int32), b.astype(np.int8)), out
    check(f, sample(np.float64, (2, 3)), sample(np.float64, (3, 2), seed=8), np.zeros((2, 2)))


EINSUM = [
    ("ij,jk->ik", (2, 3), (3, 4)), ("ij,jk", (2, 3), (3, 4)), ("i,i->", (4,), (4,)), ("i,i", (4,), (4,)),
    ("i,j->ij", (3,), (2,)), ("i,j", (3,), (2,)), ("bij,bjk->bik", (2, 3, 4), (2, 4, 5)), ("ij,ij->i", (2, 3), (2, 3)),
    ("ij,ij->", (2, 3), (2, 3)), ("ij,kj->ik", (2, 3), (4, 3)), ("ij,jk->ki", (2, 3), (3, 4)),
    ("ijk,k->ij", (2, 3, 4), (4,)), ("ij,j->", (2, 3), (3,)), ("ab,cd->abcd", (2, 1), (3, 2)),
    ("ij,jk->", (2, 3), (3, 4)), ("i,i->i", (3,), (3,)), ("bi,bj->bij", (2, 3), (2, 4)), ("ij->ji", (2, 3), None),
    ("ij->", (2, 3), None), ("ij->j", (2, 3), None), ("i->", (4,), None), ("ijk->kij", (2, 3, 4), None),
    ("ij", (2, 3), None), ("ji", (2, 3), None), ("i->i", (3,), None), ("ij, jk -> ik", (2, 3), (3, 2)),
]


@pytest.mark.parametrize("case", EINSUM, ids=lambda c: c[0])
def test_einsum(case):
    subscripts, a_shape, b_shape = case
    operands = [sample(np.float64, a_shape, seed=9)] + ([] if b_shape is None else [sample(np.float64, b_shape, seed=10)])
    check(lambda *ops: np.einsum(subscripts, *ops), *operands)


@pytest.mark.parametrize("dtypes", [(np.int32, np.int32), (np.float32, np.float64), (np.int8, np.float32),
                                    (np.bool_, np.bool_), (np.complex128, np.float64)], ids=str)
def test_einsum_dtypes(dtypes):
    a, b = sample(dtypes[0], (2, 3), seed=11), sample(dtypes[1], (3, 4), seed=12)
    check(lambda a, b: (np.einsum("ij,jk->ik", a, b), np.einsum("ij->j", a)), a, b)


def test_einsum_dtype_argument_and_constants():
    a = sample(np.float32, (2, 3))
    check(lambda a: (np.einsum("ij,j->i", a, np.ones(3), dtype=np.float64), np.einsum("ij,jk", a, np.eye(3))), a)


def test_einsum_errors():
    check_or_raises(lambda a: np.einsum("ij,jk->ik", a), np.ones((2, 2)))
    check_or_raises(lambda a: np.einsum("ij,jk->ik", a, np.ones((3, 2))), np.ones((2, 2)))
    with pytest.raises(solvent.UnsupportedError):
        solvent.jit(lambda a: np.einsum("ii->i", a))(np.ones((2, 2)))


@settings(max_examples=25, deadline=None)
@given(batch=st.lists(st.integers(1, 3), max_size=2), n=st.integers(1, 3), k=st.integers(0, 3), m=st.integers(1, 3),
       drop=st.sampled_from(["none", "left", "right"]), broadcast=st.booleans())
def test_random_batched_matmul(batch, n, k, m, drop, broadcast):
    a_shape = tuple(batch) + (n, k) if drop != "left" else (k,)
    b_batch = tuple(1 for _ in batch) if broadcast else tuple(batch)
    b_shape = b_batch + (k, m) if drop != "right" else (k,)
    a, b = sample(np.float64, a_shape, seed=13), sample(np.float64, b_shape, seed=14)
    check(lambda a, b: a @ b, a, b)


@pytest.mark.parametrize("a_shape, b_shape", [((3,), (4,)), ((2, 2), (3,)), ((), (2,))])
def test_outer(a_shape, b_shape):
    rng = np.random.default_rng(3)
    check(np.outer, rng.random(a_shape), rng.random(b_shape))
