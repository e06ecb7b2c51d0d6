"""Products against NumPy: matmul/`@` (1-d, 2-d, batched with broadcasting), dot, inner, vdot,
tensordot, kron, cross, trace, einsum (any number of operands, ellipses, diagonals, both calling
forms, the contraction path) and the np.linalg spellings; dtypes including bool, small integers
and complex."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import solvent
from differential import check_like_numpy
from numpy_samples import EVERY_DTYPE, check, check_or_raises, sample
from differential import check_types_like_numpy

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


@pytest.mark.parametrize("out", [np.zeros((3, 3), np.float32), np.zeros((1, 3, 3)), np.zeros(3)],
                         ids=["float32", "3-d", "1-d"])
def test_dot_and_multi_dot_take_only_an_out_of_the_results_dtype_and_shape(out):
    """NumPy's dot writes no cast or broadcast into out=; solvent stored into a float32 one."""
    check_or_raises(lambda a, o: np.dot(a, a, out=o), np.eye(3), out)
    check_or_raises(lambda a, o: np.linalg.multi_dot([a, a, a], out=o), np.eye(3), out)


def test_products_with_a_python_number_take_it_as_an_array():
    """NumPy's dot, inner, tensordot and vdot make a Python number an array of its own dtype: int8 times 3
    is int64 (300, where a weak 3 wrapped it to 44), float32 times 0.1 float64; so do traced numbers."""
    def f(x, f32, y):
        k, r = int(y[0]), float(y[1])
        return (np.dot(x, 3), x.dot(k), np.inner(f32, 0.1), np.tensordot(x, 3, axes=0), np.vdot(x[2:], k),
                np.dot(f32, r), f32.dot(0.1), np.inner(x, True))
    check(f, np.array([1, -2, 100], np.int8), np.array([0.1, 3.25], np.float32), np.array([3.0, 0.1]))

EINSUM = [
    ("ij,jk->ik", (2, 3), (3, 4)), ("ij,jk", (2, 3), (3, 4)), ("i,i->", (4,), (4,)), ("i,i", (4,), (4,)),
    ("i,j->ij", (3,), (2,)), ("i,j", (3,), (2,)), ("bij,bjk->bik", (2, 3, 4), (2, 4, 5)), ("ij,ij->i", (2, 3), (2, 3)),
    ("ij,ij->", (2, 3), (2, 3)), ("ij,kj->ik", (2, 3), (4, 3)), ("ij,jk->ki", (2, 3), (3, 4)),
    ("ijk,k->ij", (2, 3, 4), (4,)), ("ij,j->", (2, 3), (3,)), ("ab,cd->abcd", (2, 1), (3, 2)),
    ("ij,jk->", (2, 3), (3, 4)), ("i,i->i", (3,), (3,)), ("bi,bj->bij", (2, 3), (2, 4)), ("ij->ji", (2, 3), None),
    ("ij->", (2, 3), None), ("ij->j", (2, 3), None), ("i->", (4,), None), ("ijk->kij", (2, 3, 4), None),
    ("ij", (2, 3), None), ("ji", (2, 3), None), ("i->i", (3,), None), ("ij, jk -> ik", (2, 3), (3, 2)),
    ("i->", (0,), None), ("ij,jk->ik", (2, 0), (0, 3)), ("ij,jk->ik", (2, 1), (0, 3)), ("ij,j->i", (2, 0), (1,)),
    ("i,j->ij", (0,), (3,)),  # (empty axes: a length of 0 is no length of 1)
]


@pytest.mark.parametrize("case", EINSUM, ids=lambda c: c[0])
def test_einsum(case):
    subscripts, a_shape, b_shape = case
    shapes = [a_shape] + ([] if b_shape is None else [b_shape])
    operands = [sample(np.float64, s, seed=9 + i) for i, s in enumerate(shapes)]
    check(lambda *ops: np.einsum(subscripts, *ops), *operands)


@pytest.mark.parametrize("dtypes", [(np.int32, np.int32), (np.float32, np.float64), (np.int8, np.float32),
                                    (np.bool_, np.bool_), (np.complex128, np.float64)], ids=str)
def test_einsum_dtypes(dtypes):
    a, b = sample(dtypes[0], (2, 3), seed=11), sample(dtypes[1], (3, 4), seed=12)
    check(lambda a, b: (np.einsum("ij,jk->ik", a, b), np.einsum("ij->j", a)), a, b)


def test_einsum_dtype_argument_and_constants():
    a = sample(np.float32, (2, 3))
    check(lambda a: (np.einsum("ij,j->i", a, np.ones(3), dtype=np.float64), np.einsum("ij,jk", a, np.eye(3))), a)


@pytest.mark.parametrize("subscripts", ["ij,jk->ik", "ij,jk", "ij->ik", "ij,jk->iq", "ij,jk->ii", "ijk,jk", "i,jk->ij",
                                        "ij,ij->i", "i1->i", "ij->i_"])
def test_einsum_errors(subscripts):
    check_or_raises(lambda a: np.einsum(subscripts, a), np.ones((2, 2)))
    check_or_raises(lambda a: np.einsum(subscripts, a, np.ones((3, 2))), np.ones((2, 2)))


def test_einsum_casting():
    check_or_raises(lambda a: np.einsum("ij->i", a, dtype=np.float32), np.ones((2, 2)))
    check(lambda a: np.einsum("ij->i", a, dtype=np.float32, casting="same_kind"), np.ones((2, 2)))


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


MANY_OPERANDS = [
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]), ("ij,jk,kl", [(10, 2), (2, 10), (10, 3)]),
    ("i,ij,j->", [(3,), (3, 4), (4,)]), ("ab,bc,cd,de->ae", [(2, 8), (8, 1), (1, 8), (8, 3)]),
    ("ij,ik,il->jkl", [(2, 3), (2, 4), (2, 2)]), ("bij,bjk,bkl->bil", [(2, 2, 3), (2, 3, 4), (2, 4, 2)]),
    ("ii->i", [(3, 3)]), ("ii", [(3, 3)]), ("iij->j", [(2, 2, 3)]), ("ijji->ij", [(2, 3, 3, 2)]),
    ("ii,ij->j", [(3, 3), (3, 2)]), ("...ij,...jk->...ik", [(2, 2, 3), (3, 4)]), ("i...->...", [(3, 2, 4)]),
    ("...i,...i", [(2, 3), (4, 1, 3)]), ("ij...,jk...->ik...", [(2, 3), (3, 4)]), ("...", [(2, 3)]),
    ("a...a->...", [(3, 2, 3)]), ("ij,jk,kl,lm,mn->in", [(2, 3), (3, 2), (2, 4), (4, 2), (2, 3)]),
    ("i,i,i->i", [(4,), (4,), (4,)]), ("ij,kl->", [(2, 3), (4, 1)]), ("Ab,bA->A", [(2, 3), (3, 2)]),
    ("i,j,k->ijk", [(2,), (3,), (1,)]), ("ij,ij,ij->ij", [(2, 1), (2, 3), (1, 3)]),
]


@pytest.mark.parametrize("case", MANY_OPERANDS, ids=lambda c: c[0])
def test_einsum_many_operands_ellipses_diagonals(case):
    subscripts, shapes = case
    operands = [sample(np.float64, s, seed=20 + i) for i, s in enumerate(shapes)]
    check_or_raises(lambda *ops: (np.einsum(subscripts, *ops), np.einsum(subscripts, *ops, optimize=True)),
                    *operands)


def test_einsum_interleaved_form_and_explicit_path():
    a, b, c = sample(np.float64, (2, 3)), sample(np.float64, (3, 4), seed=1), sample(np.float64, (4, 2), seed=2)
    path = ["einsum_path", (1, 2), (0, 1)]
    check(lambda a, b, c: (np.einsum(a, [0, 1], b, [1, 2], [0, 2]), np.einsum(a, [0, 1], b, [1, 2]),
                           np.einsum(a, [Ellipsis, 1], [1, Ellipsis]),
                           np.einsum("ij,jk,kl->il", a, b, c, optimize=path),
                           np.einsum("ij,jk,kl->il", a, b, c, optimize="greedy")), a, b, c)


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint32, np.float32, np.complex128])
def test_einsum_many_dtypes(dtype):
    ops = [sample(dtype, s, seed=i) for i, s in enumerate([(2, 3), (3, 3), (3, 2)])]
    check(lambda a, b, c: (np.einsum("ij,jk,kl->il", a, b, c), np.einsum("ii->i", b), np.einsum("ii", b),
                           np.einsum("ij,jj->", a, b)), *ops)


def test_einsum_path_matches_numpy():
    a, b, c = sample(np.float64, (2, 30)), sample(np.float64, (30, 4), seed=1), sample(np.float64, (4, 50), seed=2)

    def f(a, b, c):
        path, text = np.einsum_path("ij,jk,kl->il", a, b, c, optimize="greedy")
        assert path == np.einsum_path("ij,jk,kl->il", np.ones(a.shape), np.ones(b.shape), np.ones(c.shape),
                                      optimize="greedy")[0]
        assert "Optimized FLOP count" in text
        return np.einsum("ij,jk,kl->il", a, b, c, optimize=path)
    check(f, a, b, c)


def test_einsum_contracts_in_a_cheap_order():
    a, b, c = sample(np.float64, (2, 30)), sample(np.float64, (30, 4), seed=1), sample(np.float64, (4, 50), seed=2)
    text = str(solvent.code_hlo(lambda a, b, c: np.einsum("ij,jk,kl->il", a, b, c), a, b, c, optimize="none"))
    results = re.findall(r"dot_general.*-> tensor<([0-9x]+)x\w+>", text)
    assert sorted(results) == ["2x4", "50x2"]  # never the 30 x 50 product of b and c
    check(lambda a, b, c: np.einsum("ij,jk,kl->il", a, b, c), a, b, c)


@settings(max_examples=15, deadline=None)
@given(sizes=st.lists(st.integers(1, 3), min_size=4, max_size=4), count=st.integers(2, 4), seed=st.integers(0, 50),
       data=st.data())
def test_random_einsum_chains(sizes, count, seed, data):
    letters = "abcd"
    terms = [data.draw(st.text(alphabet=letters, min_size=1, max_size=3)) for _ in range(count)]
    used = sorted(set("".join(terms)))
    output = "".join(data.draw(st.permutations(used))[:data.draw(st.integers(0, len(used)))])
    operands = [sample(np.float64, [sizes[letters.index(c)] for c in t], seed=seed + i) for i, t in enumerate(terms)]
    subscripts = ",".join(terms) + "->" + output
    check(lambda *ops: np.einsum(subscripts, *ops), *operands)


INNER_SHAPES = [((3,), (3,)), ((2, 3), (3,)), ((2, 3), (4, 3)), ((2, 1, 3), (2, 3)), ((), (2, 3)), ((2,), ()),
                ((2, 3), (2, 4)), ((0,), (0,))]


@pytest.mark.parametrize("shapes", INNER_SHAPES, ids=str)
def test_inner_vdot(shapes):
    a, b = sample(np.complex128, shapes[0], seed=30), sample(np.complex128, shapes[1], seed=31)
    check_or_raises(np.inner, a, b)
    check_or_raises(np.vdot, a, b)


@pytest.mark.parametrize("dtypes", [(np.bool_, np.bool_), (np.int8, np.int8), (np.float32, np.int64),
                                    (np.complex64, np.float64), (np.uint8, np.int8)], ids=str)
def test_inner_vdot_tensordot_dtypes(dtypes):
    a, b = sample(dtypes[0], (2, 3), seed=32), sample(dtypes[1], (2, 3), seed=33)
    check(lambda a, b: (np.inner(a, b), np.vdot(a, b), np.tensordot(a, b), np.tensordot(a, b, axes=(0, 0))), a, b)


TENSORDOT = [((3, 4, 5), (4, 5, 2), 2), ((3, 4), (4, 5), 1), ((2, 3), (4,), 0), ((3, 4, 5), (5, 3), ([0, 2], [1, 0])),
             ((3, 4), (3, 4), ((0, 1), (0, 1))), ((2, 3), (3, 2), (1, 0)), ((3,), (3,), 1), ((), (2,), 0),
             ((3, 4), (4, 3), 2), ((3, 4), (3, 4), ([-1], [-1])), ((2, 3), (2, 3), 1)]


@pytest.mark.parametrize("case", TENSORDOT, ids=str)
def test_tensordot(case):
    a_shape, b_shape, axes = case
    a, b = sample(np.float64, a_shape, seed=34), sample(np.float64, b_shape, seed=35)
    check_or_raises(lambda a, b: (np.tensordot(a, b, axes), np.linalg.tensordot(a, b, axes=axes)), a, b)


@pytest.mark.parametrize("shapes", [((2,), (3,)), ((2, 2), (2, 3)), ((2, 1, 3), (4, 2)), ((3,), ()), ((), ()),
                                    ((2, 3), (2, 1, 2)), ((0, 2), (2,))], ids=str)
@pytest.mark.parametrize("dtypes", [(np.float64, np.float64), (np.bool_, np.int8), (np.complex64, np.float32)],
                         ids=str)
def test_kron(shapes, dtypes):
    a, b = sample(dtypes[0], shapes[0], seed=36), sample(dtypes[1], shapes[1], seed=37)
    check(np.kron, a, b)


CROSS = [((3,), (3,), {}), ((2, 3), (3,), {}), ((4, 3), (4, 3), {}), ((2,), (2,), {}), ((2,), (3,), {}),
         ((3,), (2,), {}), ((3, 4), (3, 4), {"axis": 0}), ((3, 2), (2, 3), {"axisa": 0, "axisb": 1}),
         ((4, 3), (4, 3), {"axisc": 0}), ((2, 3), (2, 3), {"axisa": -1, "axisb": -1, "axisc": -1}),
         ((4,), (3,), {}), ((), (3,), {}), ((2, 3), (3, 2), {"axisc": 1})]


@pytest.mark.parametrize("case", CROSS, ids=str)
def test_cross(case):
    a_shape, b_shape, kwargs = case
    a, b = sample(np.float64, a_shape, seed=38), sample(np.float64, b_shape, seed=39)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        check_or_raises(lambda a, b: np.cross(a, b, **kwargs), a, b)


@pytest.mark.parametrize("dtypes", [(np.int8, np.int8), (np.int32, np.float32), (np.complex128, np.float64),
                                    (np.bool_, np.bool_)], ids=str)
def test_cross_dtypes(dtypes):
    a, b = sample(dtypes[0], (4, 3), seed=40), sample(dtypes[1], (4, 3), seed=41)
    check_or_raises(lambda a, b: (np.cross(a, b), np.linalg.cross(a, b)), a, b)


TRACE = [((3, 3), {}), ((3, 4), {"offset": 1}), ((3, 4), {"offset": -2}), ((2, 3, 4), {"axis1": 1, "axis2": 2}),
         ((2, 3, 4), {"axis1": 2, "axis2": 0, "offset": 1}), ((3, 3), {"offset": 5}), ((3,), {}),
         ((3, 3), {"axis1": 1, "axis2": -1}), ((0, 2), {})]


@pytest.mark.parametrize("case", TRACE, ids=str)
def test_trace(case):
    shape_, kwargs = case
    check_or_raises(lambda a: np.trace(a, **kwargs), sample(np.float64, shape_, seed=42))


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint16, np.float32, np.complex128])
def test_trace_dtypes_and_out(dtype):
    def f(a, out):
        np.trace(a, out=out)
        return np.trace(a), np.trace(a, dtype=np.float64), np.linalg.trace(a, offset=1), out
    check(f, sample(dtype, (2, 3, 3), seed=43), np.zeros(3))


def test_linalg_spellings():
    a, b = sample(np.complex128, (2, 3, 3), seed=44), sample(np.float64, (3, 3), seed=45)
    check(lambda a, b: (np.linalg.outer(b[0], a[0, 0]), np.linalg.cross(a, b), np.linalg.cross(a, b, axis=1),
                        np.linalg.trace(a), np.linalg.diagonal(a), np.linalg.diagonal(a, offset=-1),
                        np.linalg.matmul(a, b), np.linalg.matrix_transpose(a), np.linalg.vecdot(a, b),
                        np.linalg.vecdot(a, b[:, :1], axis=-2), np.linalg.vecdot(b > 0, b < 1)), a, b)


@pytest.mark.parametrize("fn", [lambda a: np.linalg.outer(a, a), lambda a: np.linalg.cross(a, a),
                                lambda a: np.linalg.diagonal(a[0]), lambda a: np.linalg.matrix_transpose(a[0]),
                                lambda a: np.linalg.vecdot(a, a[:2])])
def test_linalg_spellings_errors(fn):
    check_or_raises(fn, np.ones((3, 2)))


@pytest.mark.parametrize("dtype", EVERY_DTYPE, ids=str)
def test_vector_gufuncs(dtype):
    a, v = (sample(dtype, shape, -40, 40, seed=seed, halves=True) for shape, seed in (((2, 3, 4), 9), ((3, 4), 10)))
    check_or_raises(lambda a, v: (np.vecdot(a, v), np.vecdot(v, a[0], axis=0), np.matvec(a, v[0]),
                                  np.vecmat(v[:, 0], a), np.vecdot(a, v, dtype=np.complex128)), a, v)


@pytest.mark.parametrize("subscripts", ["ii->i", "ij->ji", "ij", "...ii->...i", "iji->ij"])
def test_einsum_of_one_operand_summing_nothing_is_a_view_as_in_numpy(subscripts):
    def program(a):
        square = a[..., :3] if subscripts != "iji->ij" else a.reshape(2, 3, 2)[:, :2, :]
        seen = np.einsum(subscripts, square if subscripts != "...ii->...i" else np.stack([square, square + 1]))
        seen[(0,) * seen.ndim] = -1.0  # through the view, into `a` (not for the stacked copy)
        a[1, 1] += 10.0  # and back through the view
        return seen * 1.0

    check_like_numpy(program, np.arange(12.0).reshape(3, 4))


def test_einsum_along_an_optimized_path_gives_arrays_as_numpy():
    check_types_like_numpy(lambda x: (np.einsum("i,i", x, x), np.einsum("i,i", x, x, optimize=True),
                                      np.einsum("i->", x, optimize="greedy")), np.array([0.1, 0.4, 0.6]))
