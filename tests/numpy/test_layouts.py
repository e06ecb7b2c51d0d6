"""NumPy's memory layout where it decides what a program does (`numpy.layout`): reshape and ravel
give a view or a copy as NumPy's would, for views, op results and arguments of any strides, and
a function whose program depends on an argument's strides compiles once per layout."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import solvent
from differential import check_like_numpy
from solvent.numpy import layout


def _divisor_shapes(size):
    """Shapes whose product is `size` (NumPy's reshape targets)."""
    divisors = [d for d in range(1, size + 1) if size % d == 0]
    return st.sampled_from(divisors).flatmap(
        lambda d: st.sampled_from([(size,), (d, size // d), (size // d, 1, d), (1, d, size // d, 1)]))


@st.composite
def views_and_shapes(draw):
    base = np.zeros(draw(st.sampled_from([(4, 6), (2, 3, 4), (6, 4, 1), (8,)])))
    x = base.transpose(draw(st.permutations(range(base.ndim))))
    x = x[tuple(slice(None, None, draw(st.sampled_from([1, 2, -1]))) for _ in range(x.ndim))]
    return x, draw(_divisor_shapes(x.size))


@settings(max_examples=150, deadline=None)
@given(views_and_shapes())
def test_reshaped_strides_are_numpys(case):
    x, new = case
    expected = x.reshape(new)
    strides = layout.reshaped(x.shape, x.strides, new, x.itemsize)
    assert (strides is not None) == np.shares_memory(expected, x)
    if strides is not None:
        kept = [n != 1 for n in new]  # (the strides of axes of length 1 are NumPy's choice)
        assert [s for s, k in zip(strides, kept) if k] == [s for s, k in zip(expected.strides, kept) if k]


WRITES = {
    "transpose then reshape": lambda a: a.T.reshape(-1).__setitem__(1, 5.0),
    "column block then reshape": lambda a: a[:, :2].reshape(-1).__setitem__(1, 5.0),
    "row then reshape": lambda a: a[1].reshape(3, 1).__setitem__((1, 0), 5.0),
    "column then reshape": lambda a: a[:, 1].reshape(2, 1).__setitem__((1, 0), 5.0),
    "transpose then ravel": lambda a: a.T.ravel().__setitem__(1, 5.0),
    "steps then ravel": lambda a: a[:, ::2].ravel().__setitem__(1, 5.0),
    "1-d steps then ravel": lambda a: a.ravel()[::2].ravel().__setitem__(1, 5.0),
    "ravel": lambda a: np.ravel(a).__setitem__(1, 5.0),
    "flat of a transpose": lambda a: a.T.flat.__setitem__(1, 5.0),
    "F-ordered result reshaped": lambda a: np.sin(a.T).reshape(-1).__setitem__(0, 5.0),
    "contiguous copy of a transpose": lambda a: np.ascontiguousarray(a.T).__setitem__((0, 1), 5.0),
    "contiguous array itself": lambda a: np.ascontiguousarray(a).__setitem__((0, 1), 5.0),
    "Fortran copy": lambda a: np.asfortranarray(a).__setitem__((0, 1), 5.0),
    "Fortran transpose itself": lambda a: np.asfortranarray(a.T).__setitem__((0, 1), 5.0),
    "asarray in C order": lambda a: np.asarray(a.T, order="C").__setitem__((0, 1), 5.0),
}


@pytest.mark.parametrize("name", WRITES)
def test_writes_through_reshapes_reach_the_array_only_where_numpy_gives_a_view(name):
    def program(a):
        WRITES[name](a)
        return a * 1.0
    check_like_numpy(program, np.arange(6.0).reshape(2, 3))


def writes_through_ravel(a):
    a.ravel()[0] = 5.0
    return a.sum()


def test_an_argument_layout_the_program_depends_on_compiles_per_layout():
    jitted = solvent.jit(writes_through_ravel)
    base, wide = np.arange(12.0).reshape(3, 4), np.arange(24.0).reshape(3, 8)
    for make in (lambda: base.copy(), lambda: np.asfortranarray(base), lambda: wide.copy()[:, ::2], lambda: base.copy()):
        check_like_numpy(writes_through_ravel, make())
        mine, theirs = make(), make()
        assert jitted(mine) == writes_through_ravel(theirs)
        np.testing.assert_array_equal(mine, theirs)
    assert len(jitted.cache) == 3  # C-contiguous, F-contiguous, strided: one shape


def test_a_program_that_reads_no_layout_compiles_once_for_any():
    jitted = solvent.jit(lambda a: a[:, 1:].T * 2.0)  # views, but no view-or-copy decision
    base = np.arange(12.0).reshape(3, 4)
    for a in (base, np.asfortranarray(base), base[:, ::-1]):
        np.testing.assert_array_equal(jitted(a), a[:, 1:].T * 2.0)
    assert len(jitted.cache) == 1


def test_a_program_compiled_ahead_for_one_layout_refuses_another():
    compiled = solvent.compile(writes_through_ravel, np.zeros((3, 4)))
    with pytest.raises(solvent.SignatureError, match="strides"):
        compiled(np.zeros((4, 3)).T)


def test_where_numpy_could_view_or_copy_unknown_to_solvent_a_telling_use_raises():
    def reads(a):
        b = a[:, ::2] * 2.0  # NumPy lays this out after a's strides (K order): solvent does not know how
        return b.reshape(-1).sum()

    def writes(a):
        b = a[:, ::2] * 2.0
        b.reshape(-1)[0] = 1.0
        return b

    def reads_after_a_write(a):
        b = a[:, ::2] * 2.0
        flat = b.reshape(-1)
        b[0, 0] = 7.0
        return flat

    a = np.arange(12.0).reshape(3, 4).T
    check_like_numpy(reads, a)
    for fn in (writes, reads_after_a_write):
        with pytest.raises(solvent.UnsupportedError, match="memory layout.*x.copy()"):
            solvent.jit(fn)(a.copy().T.copy().T)


def writes_through_a_reshaped_result(a):
    b = np.sin(a)  # F-ordered in NumPy when `a` is: a copy then, a view for a C-ordered `a`
    b.reshape(-1)[0] = 5.0
    return b


def test_a_result_laid_out_after_an_argument_compiles_per_layout_of_that_argument():
    jitted = solvent.jit(writes_through_a_reshaped_result)
    base = np.arange(6.0).reshape(2, 3)
    for make in (base.copy, lambda: np.asfortranarray(base), base.copy):
        expected = writes_through_a_reshaped_result(make())
        np.testing.assert_array_equal(jitted(make()), expected)
    assert expected[0, 0] == 5.0 and writes_through_a_reshaped_result(np.asfortranarray(base))[0, 0] == 0.0
    assert len(jitted.cache) == 2


READ_ONLY_VIEWS = {
    "diagonal": lambda a: np.diagonal(a),
    "diagonal method, offset": lambda a: a.diagonal(1),
    "diag of a matrix": lambda a: np.diag(a, -1),
    "broadcast_to": lambda a: np.broadcast_to(a[0], (2, 3)),
}


@pytest.mark.parametrize("name", READ_ONLY_VIEWS)
def test_read_only_views_see_later_writes_and_refuse_their_own(name):
    def later(a):
        seen = READ_ONLY_VIEWS[name](a)
        a[0, 0], a[1, 1], a[0, 1] = 50.0, 60.0, 70.0
        return seen * 1.0

    def through(a):
        READ_ONLY_VIEWS[name](a)[0] = 1.0

    check_like_numpy(later, np.arange(6.0).reshape(2, 3))
    with pytest.raises(ValueError, match="read-only"):
        solvent.jit(through)(np.arange(6.0).reshape(2, 3))


def ravels_the_second(a, b):
    b.ravel()[0] = 100.0  # b = a.T: a copy in NumPy, so `a` keeps its values
    a.reshape(-1)[1] = 50.0  # a view: `a` and `b` see it
    return b * 1.0


def test_arguments_sharing_memory_have_the_callers_layouts():
    a, ref = np.arange(6.0).reshape(2, 3), np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(solvent.jit(ravels_the_second)(a, a.T), ravels_the_second(ref, ref.T))
    np.testing.assert_array_equal(a, ref)
