"""Python's `math` functions on traced numbers (`transforms.source.math_functions`): the value
Python's gives, as the Python type it gives (float, int, bool), and Python's own function where
nothing is traced."""

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import solvent
from differential import assert_same, check_like_numpy
from solvent.transforms.source.math_functions import FLOAT, INTEGER, TEST

#: Where each function takes arguments from (0, 1): shifted into its domain.
_DOMAIN = {math.acosh: lambda v: 1.0 + 3.0 * v, math.log10: lambda v: 10.0 * v, math.degrees: lambda v: 7.0 * v - 3.0,
           math.floor: lambda v: 9.0 * v - 4.0, math.ceil: lambda v: 9.0 * v - 4.0, math.trunc: lambda v: 9.0 * v - 4.0}
FUNCTIONS = sorted({**FLOAT, **INTEGER, **TEST}, key=lambda fn: fn.__name__) + [math.log]
_TWO = {math.atan2, math.hypot, math.pow, math.copysign, math.fmod}


def _arguments(fn, values):
    shift = _DOMAIN.get(fn, lambda v: v)
    return [shift(v) for v in values[:2 if fn in _TWO else 1]]


@pytest.mark.parametrize("fn", FUNCTIONS, ids=lambda fn: fn.__name__)
@settings(max_examples=20, deadline=None)
@given(values=st.lists(st.floats(0.01, 0.99), min_size=2, max_size=2))
def test_math_functions_of_traced_numbers_are_pythons(fn, values):
    arguments = _arguments(fn, values)
    expected = fn(*arguments)
    actual = solvent.jit(lambda x: fn(*[x[k] for k in range(len(arguments))]))(np.array(arguments))
    assert type(actual) is type(expected)
    np.testing.assert_allclose(actual, expected, rtol=1e-13)


def test_python_numbers_from_math_keep_a_float32_array_float32():
    def f(x, dt):
        return x * math.sqrt(dt), math.log(dt, 2), math.floor(dt * 10), math.pi * dt

    x = np.ones(3, np.float32)
    expected, actual = f(x, 0.25), solvent.jit(f)(x, 0.25)
    assert actual[0].dtype == expected[0].dtype == np.float32
    assert [type(v) for v in actual[1:]] == [float, int, float] and actual[1:] == expected[1:]


def test_a_complex_or_array_argument_raises_as_python_does():
    with pytest.raises(TypeError, match="real numbers"):
        solvent.jit(lambda x: math.sqrt(x))(np.ones(3))


def test_an_array_of_one_element_converts_with_numpys_warning():
    a = np.array([[1.0, 3.0]])

    def f(a):
        return math.sqrt(a @ a.T), math.floor(a[:, :1] * 2.5)
    with pytest.warns(DeprecationWarning, match="ndim > 0 to a scalar"):
        actual = solvent.jit(f)(a)
    with pytest.warns(DeprecationWarning):
        assert actual == f(a)


def closeness(x):
    return ([math.isclose(x[i], 0.4) for i in range(5)], math.isclose(x[0], x[1], rel_tol=0.5),
            math.isclose(x[3], math.inf), math.isclose(x[2], 0.0, abs_tol=1e-12), math.isclose(x[4], x[4]))


def test_isclose_of_traced_numbers():
    check_like_numpy(closeness, np.array([0.4, 0.4 + 1e-12, 0.0, np.inf, np.nan]))


def parts(x):
    return math.ldexp(x[1], int(x[0])), math.frexp(x[1]), math.modf(x[1]), math.frexp(x[2]), math.modf(x[2])


def test_ldexp_frexp_and_modf_give_pythons_numbers():
    check_like_numpy(parts, np.array([5.0, -27.5, 0.0]))


def subnormal_parts(x):
    return [math.frexp(v) for v in x], np.frexp(x)


def test_frexp_of_subnormals_is_exact():
    """XLA's CPU flushed the subnormal scaled into range: math.frexp(1e-310) gave (0.5, -1075)."""
    check_like_numpy(subnormal_parts, np.array([1e-310, -2.5e-320, 5e-324, np.finfo(float).smallest_normal, 3.0]))


def lengths(x):
    return math.hypot(x[0]), math.hypot(x[0], x[1], x[2]), math.hypot(*x), math.hypot(x[1], 4.0)


def test_hypot_of_any_number_of_coordinates():
    """math.hypot(a, b, c) took c for NumPy's `out` and gave hypot(a, b)."""
    check_like_numpy(lengths, np.array([2.5, -3.7, 0.49, 1.0]))
    with pytest.raises(TypeError):
        solvent.jit(lambda x: math.sqrt(x[0], x[1]))(np.ones(2))


@settings(max_examples=20, deadline=None)
@given(st.lists(st.integers(0, 2 ** 62), min_size=3, max_size=3) | st.just([2 ** 53 + 1, 5, 2 ** 63 - 1]))
def test_integer_functions_of_traced_ints_are_pythons(values):
    """math.gcd, math.lcm and math.isqrt of int() of traced values raised, naming a Python index."""
    def f(a):
        return math.gcd(int(a[0]), int(a[1])), math.lcm(int(a[0]) % 1000, int(a[1]) % 1000, 4), \
            math.isqrt(int(a[2])), math.isqrt(a[2] % 10 ** 6)

    a = np.array(values)
    actual, expected = solvent.jit(f)(a), f(a)
    assert actual == expected and [type(v) for v in actual] == [int] * 4


@pytest.mark.parametrize("fn", [lambda x: math.erf(x[0]), lambda x: math.gamma(x[0]), lambda x: math.fsum(x),
                                lambda x: math.factorial(int(x[0]))])
def test_a_math_function_numpy_lacks_is_refused_naming_it(fn):
    """Of a traced number it raised float()'s error, which names no function; of a static one it runs."""
    with pytest.raises(solvent.UnsupportedError, match=r"math\.(erf|gamma|fsum|factorial) of a traced value"):
        solvent.jit(fn)(np.array([3.0, 0.5]))
    static = solvent.jit(lambda x: x * math.erf(0.5) + math.factorial(4))
    assert_same(static(np.ones(2)), np.ones(2) * math.erf(0.5) + 24)
