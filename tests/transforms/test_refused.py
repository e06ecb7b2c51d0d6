"""Constructs that cannot be captured raise an error naming the file, line and construct."""

import collections
import inspect
import warnings

import numpy as np
import pytest

import solvent
from differential import check_like_numpy


def _line(fn, text):
    source, start = inspect.getsourcelines(fn)
    return start + next(i for i, line in enumerate(source) if text in line)


def return_in_for_over_traced_range(x, n):
    for i in range(n):
        if i > 2:
            return x
    return -x


def while_else(x):
    while x.sum() > 0:
        x = x - 1
    else:
        x = x + 1
    return x


def defined_in_one_branch(x):
    if x.sum() > 0:
        y = x * 2
    return y


def escapes_through(x, kind):
    kept = kind()  # a list is watched for changes; a library's UserList is not, so its value escapes
    i = 0
    while x[i] < 3:
        kept.append(x * i)
        i += 1
    return kept[0]


def filtered(x):
    positive = [v for v in x
                if v > 0]  # (bool() of the traced test raised, its advice about `if` statements)
    return positive


CASES = [
    (return_in_for_over_traced_range, (np.ones(2), solvent.Scalar(np.int64(4))), "for i in range(n)", "for"),
    (while_else, (np.ones(2),), "while x.sum() > 0", "else"),
    (filtered, (np.ones(2),), "if v > 0", "a comprehension's `if`"),
]


@pytest.mark.parametrize("fn, args, line_text, construct", CASES, ids=[c[0].__name__ for c in CASES])
def test_refused_construct_message(fn, args, line_text, construct):
    with pytest.raises(solvent.UnsupportedError) as info:
        solvent.jit(fn)(*args)
    message = str(info.value)
    assert f"{__file__}:{_line(fn, line_text)}" in message
    assert construct in message and "traced" in message


def test_variable_set_in_only_one_traced_branch():
    with pytest.raises(solvent.UnsupportedError) as info:
        solvent.jit(defined_in_one_branch)(np.ones(2))
    message = str(info.value)
    assert "'y'" in message and "only one branch" in message
    assert f"{__file__}:{_line(defined_in_one_branch, 'if x.sum() > 0')}" in message


def temporary_of_an_elif(x):
    if x[0] > 1:
        x[0] = 0.0
    elif x[0] < 0:
        t = x * 2
        x[1] = t[1]
    return x


def test_a_temporary_of_an_elif_unused_after_it_is_not_refused():
    """Unbound after the inner `if`, it was merged as a value by the outer one (and refused as used)."""
    for first in (-1.0, 0.5, 3.0):
        check_like_numpy(temporary_of_an_elif, np.array([first, 2.0]))


def checks_its_input(x):
    assert x.ndim == 1, "one axis"
    assert np.all(np.isfinite(x)), "finite"
    return x.sum()


def test_an_assert_on_a_traced_value_is_refused_naming_it_and_a_static_one_checks():
    with pytest.raises(solvent.UnsupportedError, match="`assert` at .* tests a traced value") as info:
        solvent.jit(checks_its_input)(np.ones(2))
    assert f"{__file__}:{_line(checks_its_input, 'np.isfinite')}" in str(info.value)
    with pytest.raises(AssertionError, match="one axis"):
        solvent.jit(checks_its_input)(np.ones((2, 2)))


def factor_or_jitter(A):
    try:
        return np.linalg.cholesky(A)  # the call
    except np.linalg.LinAlgError:
        return np.linalg.cholesky(A + 10 * np.eye(len(A)))


def solve_or_zero(A, b):
    try:
        return np.linalg.solve(A, b)
    except ValueError:  # LinAlgError is a ValueError
        return np.zeros_like(b)


def sums_or_zero(A):
    try:
        total = A.sum()
    except ValueError:
        total = 0.0
    return np.linalg.inv(A) * total


def test_linear_algebra_in_a_try_catching_linalg_error_is_refused_naming_the_call():
    """Compiled, cholesky of a matrix that is not positive definite gives nan: the handler silently
    never ran (nan where NumPy gives its fallback). Other handlers are as before."""
    x = -np.eye(2)
    with pytest.raises(solvent.UnsupportedError, match="catches LinAlgError: compiled") as info:
        solvent.jit(factor_or_jitter)(x)
    assert f"{__file__}:{_line(factor_or_jitter, '# the call')}" in str(info.value)
    np.testing.assert_array_equal(x, -np.eye(2))
    with pytest.raises(solvent.UnsupportedError, match="catches LinAlgError"):
        solvent.jit(solve_or_zero)(np.ones((2, 2)), np.ones(2))
    check_like_numpy(sums_or_zero, 2.0 * np.eye(2))


def reciprocal_or_zeros(x):
    with np.errstate(divide="raise"):
        try:
            return 1.0 / x  # the call
        except FloatingPointError:
            return np.zeros_like(x)


def shifted_or_not(x):
    try:
        return x + 1.0
    except ArithmeticError:
        return x


def test_arithmetic_in_a_try_catching_floating_point_errors_that_numpy_would_raise_is_refused():
    """Compiled, 1 / 0 is inf: under np.errstate(divide="raise") NumPy ran the handler and solvent
    silently did not. Without a raising error state, or for comparisons, nothing changes."""
    x = np.array([0.0, 2.0])
    with pytest.raises(solvent.UnsupportedError, match="catches FloatingPointError, with NumPy's error state "
                       "raising \\(divide\\)") as info:
        solvent.jit(reciprocal_or_zeros)(x)
    assert f"{__file__}:{_line(reciprocal_or_zeros, '# the call')}" in str(info.value)
    check_like_numpy(shifted_or_not, x)
    with np.errstate(all="raise"):
        with pytest.raises(solvent.UnsupportedError, match="error state raising"):
            solvent.jit(shifted_or_not)(x)


def element_or_default(x):
    i = int(x[0])
    try:
        return x[i]  # the index
    except IndexError:
        return -1.0


def sum_past_the_end(x):
    total = 0.0
    for i in range(25):
        try:
            total += x[i] * x[-1 - i]
        except IndexError:
            total -= 1.0
    return total


def products_within_bounds(x):
    total = 0.0
    for i in range(20):
        try:
            total += x[i] * x[19 - i]
        except Exception:
            total -= 1.0
    return total


def test_a_traced_index_in_a_try_catching_index_errors_is_refused_unless_known_within_bounds():
    """Compiled, x[7] of 3 elements is clamped to x[2]: the handler silently never ran. A loop's index
    past the end makes the loop unroll (each index then static, NumPy's IndexError taken by the handler);
    one within bounds keeps it rolled."""
    with pytest.raises(solvent.UnsupportedError, match="traced index inside the `try`.*catches IndexError") as info:
        solvent.jit(element_or_default)(np.array([7.0, 1.0, 2.0]))
    assert f"{__file__}:{_line(element_or_default, '# the index')}" in str(info.value)
    with pytest.warns(UserWarning, match="loop of 25 steps unrolled"):
        check_like_numpy(sum_past_the_end, np.arange(20.0))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_like_numpy(products_within_bounds, np.arange(20.0))


def loops_over_a_selection(x):
    total = 0.0
    for v in np.unique(x):  # the loop
        total += v
    return total


def test_a_loop_over_a_selection_is_refused_naming_it():
    """It was refused from inside len(), saying solvent did not read the source."""
    with pytest.raises(solvent.UnsupportedError, match="`for` loop over an array whose length") as info:
        solvent.jit(loops_over_a_selection)(np.array([1.0, -2.0, 3.0, 3.0]))
    assert f"{__file__}:{_line(loops_over_a_selection, '# the loop')}" in str(info.value)


@pytest.mark.parametrize("kind, error, words", [
    (list, solvent.ControlFlowError, ["changes the Python object `kept`"]),
    (collections.deque, solvent.ControlFlowError, ["changes the Python object `kept`"]),
    (collections.UserList, solvent.UnsupportedError, ["escaped", "return it from the loop"])])
def test_value_escaping_a_loop_through_a_python_object(kind, error, words):
    with pytest.raises(error) as info:
        solvent.jit(escapes_through, static_argnames="kind")(np.arange(5.0), kind)
    message = str(info.value)
    assert all(word in message for word in words)
    assert f"{__file__}:{_line(escapes_through, 'kept.append')}" in message

def business_days_or_zeros(x):
    try:
        return np.busday_count(x, x)  # the call
    except Exception:
        return x * 0


def formatted_or_not(x):
    try:
        text = "%.2f" % x[0]
    except TypeError:
        text = "n/a"
    return text


def business_days_or_not(x):
    try:
        return np.busday_count(x, x)
    except solvent.UnsupportedError:  # caught on purpose
        return x * 0


def test_solvents_own_errors_pass_through_the_users_handlers():
    """`except Exception:` around a call solvent refuses would compile the fallback where NumPy runs
    the call: solvent's error raises instead. NumPy's own errors still reach the handler."""
    with pytest.raises(solvent.UnsupportedError, match="busday_count") as info:
        solvent.jit(business_days_or_zeros)(np.array([1.0, 3.0, 1.0]))
    assert f"{__file__}:{_line(business_days_or_zeros, '# the call')}" in str(info.value)
    with pytest.raises(solvent.TracerConversionError):
        solvent.jit(formatted_or_not)(np.array([3.0]))
    check_like_numpy(sums_or_zero, 2.0 * np.eye(2))
    np.testing.assert_array_equal(solvent.jit(business_days_or_not)(np.ones(2)), np.zeros(2))
