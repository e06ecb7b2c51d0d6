"""Bad input gets a clear solvent error naming the user's line, and nothing is lost."""

import dataclasses
import inspect

import numpy as np
import pytest

import solvent
from solvent.runtime import executable


def _line_of(fn, text):
    source, start = inspect.getsourcelines(fn)
    return start + next(i for i, line in enumerate(source) if text in line)


def uses_polydiv(x):
    y = x + 1
    return np.polydiv(y, x)


def test_unsupported_function_names_the_function_and_line():
    with pytest.raises(solvent.UnsupportedError) as info:
        solvent.jit(uses_polydiv)(np.ones(4))
    message = str(info.value)
    assert "np.polydiv" in message
    assert f"{__file__}:{_line_of(uses_polydiv, 'np.polydiv')}" in message
    assert "solvent.supported()" in message


@pytest.mark.parametrize("f, named", [
    (lambda c, x: np.polynomial.polynomial.polyval(x, c), "np.polyval (in numpy.polynomial.polynomial) is not"),
    (lambda c, x: np.polynomial.Polynomial(c)(x), "ABCPolyBase.__init__ (in numpy.polynomial._polybase)")])
def test_a_numpy_function_outside_np_is_named_by_its_module(f, named):
    """numpy.polynomial's polyval was taken for np.polyval (which solvent compiles): its error then
    said to make a list of traced values one array."""
    with pytest.raises(solvent.UnsupportedError) as info:
        solvent.jit(f)(np.ones(3), np.arange(3.0))
    assert named in str(info.value)


def branches_on_data(x):
    if x.sum() > 0:
        return x
    return -x


def compares_tuples(x):
    return (x.sum(), 0) < (1, 1)  # converts


def makes_a_range(x):
    return range(x.sum())  # converts


@pytest.mark.parametrize("f, advice", [(compares_tuples, "np.where"), (makes_a_range, "static Python scalar")])
def test_python_conversion_of_traced_value_names_the_line(f, advice):
    with pytest.raises(solvent.TracerConversionError) as info:
        solvent.jit(f)(np.ones(3))
    assert f"{__file__}:{_line_of(f, '# converts')}" in str(info.value)
    assert advice in str(info.value)


def formatted(x):
    return f"{x.sum():.2f}"


def test_formatting_a_traced_value_names_the_line():
    # (a raw TypeError from object.__format__ before)
    with pytest.raises(solvent.TracerConversionError, match="format") as info:
        solvent.jit(formatted)(np.ones(3))
    assert f"{__file__}:{_line_of(formatted, 'return f')}" in str(info.value)


def first_index_of(x, target):
    i = 0
    while i < x.shape[0]:
        if x[i] == target:
            return i
        i += 1
    return -1


def first_index_or_else(x, target):
    i = 0
    while i < x.shape[0]:
        if x[i] == target:
            break
        i += 1
    else:
        i = -1
    return i


def test_refused_construct_names_file_line_and_construct():
    assert solvent.jit(first_index_of)(np.arange(5.0), 3.0) == 3  # (a return inside the loop is captured)
    with pytest.raises(solvent.UnsupportedError) as info:
        solvent.jit(first_index_or_else)(np.arange(5.0), 3.0)
    message = str(info.value)
    assert f"{__file__}:{_line_of(first_index_or_else, 'if x[i] == target')}" in message
    assert "break" in message and "assign" in message  # (a loop with `else` keeps its own break)


def test_without_source_rewriting_if_on_traced_value_names_the_line():
    with pytest.raises(solvent.TracerConversionError) as info:
        solvent.jit(branches_on_data, control_flow=False)(np.ones(3))
    assert f":{_line_of(branches_on_data, 'if x.sum()')}" in str(info.value)


def test_compiled_with_other_signature_names_both():
    compiled = solvent.compile(lambda x, s: x * s, np.ones(3), 2.0)
    with pytest.raises(solvent.SignatureError) as info:
        compiled(np.ones((2, 2), np.float32), 2.0)
    message = str(info.value)
    assert "float64[3]" in message and "float32[2,2]" in message
    with pytest.raises(solvent.SignatureError):
        compiled(np.ones(3), 3.0)  # static values are part of the signature
    np.testing.assert_array_equal(compiled(np.ones(3), 2.0), np.full(3, 2.0))


@dataclasses.dataclass
class State:
    x: np.ndarray
    y: object


def fails_after_mutating(a, b, state):
    a += 1
    b[0] = 100.0
    state.x = state.x * 2
    state.y = "changed"
    return np.polydiv(a, a)


def test_nothing_lost_when_tracing_fails():
    a_host = np.arange(3.0)
    b_dev = solvent.asarray(np.arange(3.0))
    buffer = b_dev.buffer
    state = State(np.ones(2), "original")
    x_before = state.x
    with pytest.raises(solvent.UnsupportedError):
        solvent.jit(fails_after_mutating)(a_host, b_dev, state)
    np.testing.assert_array_equal(a_host, np.arange(3.0))
    assert b_dev.buffer is buffer and not buffer.is_deleted()
    np.testing.assert_array_equal(np.asarray(b_dev), np.arange(3.0))
    assert state.x is x_before and state.y == "original"


def test_nothing_lost_when_compiling_fails(monkeypatch):
    def refuse(*args, **kwargs):
        raise solvent.CompileError("refused for the test")

    monkeypatch.setattr(executable, "compile", refuse)

    def mutate(a, b):
        a += 1
        b *= 2

    a_host, b_dev = np.arange(3.0), solvent.asarray(np.arange(3.0))
    with pytest.raises(solvent.CompileError):
        solvent.jit(mutate)(a_host, b_dev)
    np.testing.assert_array_equal(a_host, np.arange(3.0))
    assert not b_dev.buffer.is_deleted()
    np.testing.assert_array_equal(np.asarray(b_dev), np.arange(3.0))


def test_numpy_errors_keep_numpy_types():
    with pytest.raises(ValueError):
        solvent.jit(lambda a, b: a + b)(np.ones(3), np.ones(4))
    with pytest.raises(IndexError):
        solvent.jit(lambda a: a[5])(np.ones(3))


def test_unknown_optimize_level_is_refused():
    with pytest.raises(ValueError, match="unknown optimize level"):
        solvent.jit(lambda x: x, optimize="fastest")


def test_unsupported_dtype_argument():
    with pytest.raises(solvent.UnsupportedError, match="dtype"):
        solvent.jit(lambda x: x)(np.array(["a", "b"]))


def test_array_of_unsupported_dtype_made_inside_names_the_line():
    def records(x):
        table = np.zeros(3, dtype=[("a", "f8"), ("b", "i4")])
        return x

    with pytest.raises(solvent.UnsupportedError, match=r"dtype \[\('a', '<f8'\), \('b', '<i4'\)\]") as info:
        solvent.jit(records)(np.ones(3))
    assert f"test_errors.py:{records.__code__.co_firstlineno + 1}" in str(info.value)


# -- odd inputs: NumPy's own behaviour, or a solvent error naming the line ---------------------------

@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")  # np.matrix's own
@pytest.mark.parametrize("make", [lambda: np.matrix(np.eye(2)), lambda: np.ma.masked_array([1.0, 2.0], mask=[0, 1])],
                         ids=["matrix", "masked"])
def test_array_subclasses_with_other_operators_are_refused(make):
    with pytest.raises(solvent.UnsupportedError, match="np.matrix|np.ma") as raised:
        solvent.jit(lambda m: m * m)(make())
    assert raised.value.location[0] == __file__


def test_big_endian_arrays_are_converted_at_the_boundary():
    x = np.arange(4.0).astype(">f8")
    expected = x.copy()
    expected += 1

    def f(a):
        a += 1
        return a * 2, a.sum()

    doubled, total = solvent.jit(f)(x)
    np.testing.assert_array_equal(x, expected)
    assert x.dtype == np.dtype(">f8")  # written back in its own byte order
    np.testing.assert_array_equal(doubled, expected * 2)
    assert total == expected.sum()


@pytest.mark.parametrize("fn", [lambda x: np.where(x > 0, x, None), lambda x: np.concatenate([x, None])],
                         ids=["where", "concatenate"])
def test_none_where_an_array_is_expected_names_the_line(fn):
    with pytest.raises(solvent.SolventError) as raised:
        solvent.jit(fn)(np.arange(3.0))
    assert raised.value.location[0] == __file__


class Model:
    def __init__(self, w):
        self.w = w

    def update(self, g):
        self.w -= 0.1 * g


def test_writing_into_an_array_that_is_not_an_argument_says_to_pass_it():
    model, before = Model(np.eye(2)), np.eye(2)
    with pytest.raises(solvent.UnsupportedError, match=r"pass the array \(or its object\) as an argument") as info:
        solvent.jit(model.update)(np.ones((2, 2)))
    assert f"{__file__}:{_line_of(Model.update, 'self.w -= 0.1 * g')}" in str(info.value)
    np.testing.assert_array_equal(model.w, before)
    solvent.jit(Model.update)(model, np.ones((2, 2)))  # the object as an argument: written
    np.testing.assert_allclose(model.w, before - 0.1)


def factorial(n):
    return 1.0 if n <= 1 else n * factorial(n - 1)


def test_a_recursion_on_a_traced_test_is_an_error_naming_its_line():
    """Both sides of a traced test are traced, so the recursion never ends (a raw RecursionError); on the
    way, the traced `if` nested 8 deep warns that each level doubles the program."""
    with pytest.raises(solvent.UnsupportedError, match="recursion") as error, \
            pytest.warns(UserWarning, match="nested 8 deep"):
        solvent.jit(factorial)(np.array(5.0))
    assert f"test_errors.py:{factorial.__code__.co_firstlineno + 1}" in str(error.value)
    np.testing.assert_allclose(solvent.jit(lambda x: x * factorial(5))(np.ones(2)), 120.0)  # a static one recurses


def doubled_items(x):
    for v in x:
        yield v * 2


def test_a_generator_function_is_refused_at_the_call():
    """Its body would run only when iterated, after the trace (it failed then, far from the call)."""
    with pytest.raises(solvent.UnsupportedError, match="doubled_items is a generator"):
        solvent.jit(doubled_items)(np.ones(3))
