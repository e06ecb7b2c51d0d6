"""np.matrix inside compiled code (`numpy.matrix_type`): NumPy's values and NumPy's result types
(matrix, ndarray or scalar) for products, powers, ufuncs, indexing, reductions and the
functions solvent lists for matrices; the rest refused by name."""

import numpy as np
import pytest

import solvent
from differential import check_like_numpy

pytestmark = pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")  # NumPy on its own matrix class


def _kinds(x):
    return [_kinds(v) for v in x] if isinstance(x, (tuple, list)) else type(x).__name__


def check(fn, *args):
    """Values as NumPy's, and each result of the same type (a matrix where NumPy's is one)."""
    check_like_numpy(fn, *args, rtol=1e-9, atol=1e-9)
    assert _kinds(solvent.jit(fn)(*[a.copy() for a in args])) == _kinds(fn(*[a.copy() for a in args]))


def products_and_shapes(a, b, v):
    m, n = np.asmatrix(a), np.matrix(b)
    return (m * n, (m * n) ** 2, m.T * m + 1.0, 2.0 * m, m * 2.0, m @ n, v * n, np.dot(m, n),
            m[0], m[:, 1], m[1, 2], m[1:, :2], m.ravel(), m.flatten(), m.reshape(3, 2), m.A, m.A1,
            np.asarray(m), np.asanyarray(m), np.array(m))


def reductions(a):
    m = np.asmatrix(a)
    return (m.sum(), m.sum(axis=0), m.mean(axis=1), m.max(), m.min(axis=0), m.argmax(axis=1), m.argmin(),
            m.std(axis=0), m.var(), m.prod(axis=1), m.any(axis=0), m.all(), np.sum(m, axis=1), np.mean(m),
            m.ptp(axis=0))


def in_place_and_inverse(a):
    m = np.asmatrix(a)  # a view: writes reach `a`
    m[0, 0] = 100.0
    m *= np.asmatrix(np.eye(3))
    m += 1.0
    return m, m.I * m, np.linalg.inv(m), np.linalg.det(m), m.H, np.trace(m), np.linalg.matrix_power(m, 3)


def test_matrix_semantics_are_numpys():
    a, b, v = np.arange(6.0).reshape(2, 3), np.arange(6.0).reshape(3, 2) - 2.0, np.arange(3.0)
    check(products_and_shapes, a, b, v)
    check(reductions, a)
    check(in_place_and_inverse, np.arange(9.0).reshape(3, 3) + 4.0 * np.eye(3))


def test_functions_solvent_does_not_list_for_matrices_are_refused_by_name():
    with pytest.raises(solvent.UnsupportedError, match="np.cumsum of an np.matrix"):
        solvent.jit(lambda a: np.cumsum(np.asmatrix(a)))(np.ones((2, 2)))
    constant = np.ones((2, 2))
    with pytest.raises(solvent.UnsupportedError, match="matrix product"):
        solvent.jit(lambda a: constant * np.asmatrix(a))(np.ones((2, 2)))
