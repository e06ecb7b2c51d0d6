"""Traced arrays as NumPy arrays: attributes that NumPy lets a program set."""

import numpy as np
import pytest

import solvent
from differential import assert_same, check_like_numpy


def reshapes_in_place(a):
    b = a * 2
    b.shape = (3, 2)
    c = np.arange(12)
    c.shape = (-1, 4)
    c[0] += 1
    return b, c, b.sum(axis=0), c.shape


def test_shape_assignment_reshapes_the_array_itself():
    check_like_numpy(reshapes_in_place, np.arange(6.0))


def reshapes_an_argument(a):
    a.shape = (3, -1)
    a[0] += 1
    return a.sum(axis=0), a


def only_reshapes_an_argument(a):
    a.shape = (2, 3)


@pytest.mark.parametrize("fn", [reshapes_an_argument, only_reshapes_an_argument])
def test_shape_assignment_reshapes_the_callers_array(fn):
    a = np.arange(6.0)
    result = check_like_numpy(fn, a)
    if result is not None:
        b = np.arange(6.0)
        assert solvent.jit(fn)(b)[1] is b and b.shape == (3, 2)


def flattens_an_argument(a):
    a.shape = (-1,)
    a[0] = 7.0


def test_an_argument_whose_memory_cannot_take_the_shape_is_refused_before_the_call():
    jitted = solvent.jit(flattens_an_argument)
    jitted(np.ones((2, 3)))  # compiled for a (2, 3) float64 array, and run on a transposed one:
    with pytest.raises(AttributeError, match="Incompatible shape"):
        flattens_an_argument(np.ones((3, 2)).T)  # NumPy's own refusal
    a = np.arange(6.0).reshape(3, 2).T
    before = a.copy()
    with pytest.raises(solvent.LayoutError, match=r"test_traced.py:\d+.*np.ascontiguousarray"):
        jitted(a)
    assert a.shape == (2, 3) and np.array_equal(a, before)


def reshapes_a_viewed_array(a):
    b = a * 2
    first = b[0:2]
    b.shape = (3, 2)
    return first


def test_shape_assignment_where_others_see_the_old_shape_is_refused():
    a = np.arange(6.0)
    with pytest.raises(solvent.UnsupportedError, match="x.reshape"):
        solvent.jit(reshapes_a_viewed_array)(a)
    with pytest.raises(solvent.UnsupportedError, match="solvent.Array argument"):
        solvent.jit(only_reshapes_an_argument)(solvent.asarray(a))
    assert a.shape == (6,)


def test_shape_assignment_errors_are_numpys():
    def wrong_size(a):
        b = a * 2
        b.shape = (4,)

    def of_a_scalar(a):
        s = a.sum()
        s.shape = (1,)

    with pytest.raises(ValueError, match="cannot reshape array of size 6"):
        solvent.jit(wrong_size)(np.arange(6.0))
    with pytest.raises(AttributeError, match="not writable"):
        solvent.jit(of_a_scalar)(np.arange(6.0))


@pytest.mark.parametrize("fn", [lambda x: len(set(x)), lambda x: {x[0]: "first"}, lambda x: x[1] in {1.0, 2.0},
                                lambda x, table={1.0: 5.0}: table[x[0]]])
def test_a_traced_scalar_cannot_be_hashed(fn):
    """NumPy's scalars hash by value, which a traced one has not: by identity, set(x) of [1, 1, 2] had
    three elements and a dict never found its key."""
    with pytest.raises(solvent.TracerConversionError, match="traced value") as error:
        solvent.jit(fn)(np.array([1.0, 1.0, 2.0]))
    assert "test_traced.py" in str(error.value)


def test_a_traced_array_is_unhashable_as_an_ndarray():
    with pytest.raises(TypeError, match="unhashable type: 'numpy.ndarray'"):
        solvent.jit(lambda x: hash(x))(np.ones(2))


@pytest.mark.parametrize("fn", [lambda x: f"best={x.argmax()}", lambda x: {"s": str(x[0])}, lambda x: [repr(x)],
                                lambda x: len(str(x)), lambda x: x * len(repr(x[0])), lambda x: {str(x[0]): 1},
                                lambda x: 1 if str(x[0]) == "1.0" else 0, lambda x: str([x[0], x[1]]).count(",")],
                         ids=["f-string", "str", "repr", "len", "len-repr", "key", "compared", "list"])
def test_text_of_a_traced_value_is_an_error_where_computed_with(fn):
    """Its value is unknown while tracing: the text said 'TracedScalar(int64)', baked into every call
    (len(str(x)) was the placeholder's length, a dict key the placeholder)."""
    with pytest.raises(solvent.TracerConversionError, match="text of a traced value"):
        solvent.jit(fn)(np.array([1.0, 3.0, 2.0]))


def test_text_a_library_makes_of_a_traced_value_is_not_a_result():
    import reprlib
    with pytest.raises(solvent.TracerConversionError, match="text made from a traced value"):
        solvent.jit(lambda x: reprlib.repr(x))(np.array([1.0, 3.0]))


def test_text_of_a_traced_value_says_what_it_is_where_printed(capsys, caplog):
    import logging
    import warnings

    def f(x):
        print(x, x[0], f"sum {x.sum()}", [x[1]])
        logging.getLogger("solvent-test").warning("x=%s %s", x, f"{x}")
        warnings.warn(f"first {x[0]}")
        if x.shape[0] > 5:
            raise ValueError(f"too long: {x}")
        return x + 1, str(np.arange(3)), f"{np.arange(3).sum()}"  # known while tracing: NumPy's text

    x = np.array([1.0, 3.0, 2.0])
    with pytest.warns(UserWarning, match=r"first TracedScalar\(float64\)"):
        result = solvent.jit(f)(x)
    assert_same(result, (x + 1, "[0 1 2]", "3"))
    assert "TracedArray(float64[3]) TracedScalar(float64) sum TracedScalar(float64) [TracedScalar(float64)]" in \
        capsys.readouterr().out
    assert "x=TracedArray(float64[3]) TracedArray(float64[3])" in caplog.text
    with pytest.raises(ValueError, match=r"too long: TracedArray\(float64\[6\]\)"), pytest.warns(UserWarning):
        solvent.jit(f)(np.ones(6))


def test_numbers_formatted_from_traced_values_are_errors():
    """`"%d" % x` raised Python's TypeError (its % replaces the error of __index__); float(x).hex() an
    AttributeError."""
    with pytest.raises(solvent.TracerConversionError, match="format"):
        solvent.jit(lambda x: "%d items" % x.sum())(np.arange(3))
    with pytest.raises(solvent.TracerConversionError, match="float.hex of a traced value"):
        solvent.jit(lambda x: float(x[0]).hex())(np.ones(2))
    assert solvent.jit(lambda x: "%d/%s" % (np.arange(4).sum(), x.shape))(np.ones(2)) == "6/(2,)"


def test_a_format_spec_formats_the_value_only_while_it_is_known():
    assert solvent.jit(lambda x: f"{np.arange(3).sum():d}" + str(x.shape))(np.ones(2)) == "3(2,)"
    with pytest.raises(solvent.TracerConversionError, match="format"):
        solvent.jit(lambda x: f"{x[0]:.3f}")(np.ones(2))


def test_copy_and_deepcopy_copy_as_numpy_does():
    """copy.deepcopy of a traced array (and dataclasses.asdict of an object holding one) raised an
    internal pickling error; both copy modules' functions give a.copy(), as NumPy's."""
    import copy
    import dataclasses

    @dataclasses.dataclass
    class State:
        x: np.ndarray
        n: int

    def copies(x):
        y = copy.deepcopy(x)
        y[0] = 5.0
        z = copy.copy(x[x > 1.0])
        d = dataclasses.asdict(State(x, 3))
        d["x"][2] = -1.0
        return y, z, x, d["x"], d["n"], dataclasses.astuple(State(x * 2, 4))

    check_like_numpy(copies, np.arange(4.0))


class OptsOut:
    """An operand that opts out of ufuncs and brings its own reflected operators."""
    __array_ufunc__ = None

    def __radd__(self, other):
        return ("radd", other.shape)

    def __lt__(self, other):  # (x > o reflected)
        return "lt"


def defers_to_an_operand(x, o):
    return (x + o)[1], x > o


def test_binary_operators_defer_to_an_operand_without_ufuncs():
    """ndarray's operators return NotImplemented for it, so that Python calls its reflected one; solvent
    called the ufunc, which raised a raw TypeError."""
    assert solvent.jit(defers_to_an_operand)(np.arange(3.0), OptsOut()) == defers_to_an_operand(np.arange(3.0),
                                                                                             OptsOut())
