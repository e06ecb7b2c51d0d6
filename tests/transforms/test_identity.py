"""Identity under traced control flow: after a data-dependent `if` or a rolled loop, every name is
the array NumPy's would be, so later in-place updates reach the caller and returned arguments are
the caller's own objects. Each case runs the same function with NumPy and with solvent.jit."""

import copy

import numpy as np
import pytest

import solvent
from differential import assert_same


def run_both(fn, *args, static=(), device=False):
    """(NumPy's result, solvent's result, NumPy's args after, solvent's args after)."""
    numpy_args, solvent_args = copy.deepcopy(args), copy.deepcopy(args)
    if device:
        solvent_args = tuple(solvent.asarray(a) if isinstance(a, np.ndarray) else a for a in solvent_args)
    expected = fn(*numpy_args)
    actual = solvent.jit(fn, static_argnames=static)(*solvent_args)
    return expected, actual, numpy_args, solvent_args


def check(fn, *args, static=(), device=False):
    """Values, dtypes and argument effects as NumPy's, and a returned argument is that argument."""
    expected, actual, numpy_args, solvent_args = run_both(fn, *args, static=static, device=device)
    results = (expected, actual) if isinstance(expected, tuple) else ((expected,), (actual,))
    for e, a in zip(*results):
        which = [k for k, arg in enumerate(numpy_args) if e is arg]
        assert [k for k, arg in enumerate(solvent_args) if a is arg] == which, "identity of a returned argument"
        assert_same(np.asarray(a), e)
    for a, e in zip(solvent_args, numpy_args):
        if isinstance(e, np.ndarray):
            assert_same(np.asarray(a), e)


# -- the differential fuzz's findings (mutations after a data-dependent `if`) ------------------

def mutate_after_if(a):
    if np.all(a != 0):
        a -= np.invert(a)
    for i in range(3):
        a += i
    a += a


def masked_update_after_if(a):
    if np.sum(a) > 0:
        a -= -3
    a[a > 0] += 0.5
    return a


def two_arguments(a0, a1):
    if np.sum(a0) > 0:
        a1 -= 1
    for i in range(6):
        a1[i % 4] += i
    return a0, a1


@pytest.mark.parametrize("start", [4, 0, -3])
def test_updates_after_a_branch_that_mutated_reach_the_argument(start):
    check(mutate_after_if, np.array(start))


@pytest.mark.parametrize("sign", [1, -1])
def test_masked_update_after_a_branch_and_the_argument_returned_itself(sign):
    check(masked_update_after_if, sign * np.arange(4, dtype=np.float32))
    check(masked_update_after_if, sign * np.arange(4, dtype=np.float32), device=True)


@pytest.mark.parametrize("sign", [1, -1])
def test_later_updates_of_a_second_argument(sign):
    check(two_arguments, sign * np.ones(3), np.arange(4))


def mutate_one_or_the_other(a, b):
    if np.sum(b) > 0:
        a += 1
    else:
        b += 1
    return a, b


@pytest.mark.parametrize("b", [np.ones(3), -np.ones(3), np.ones(4), -np.ones(4)])
def test_branches_mutating_different_arrays(b):
    check(mutate_one_or_the_other, np.ones(3), b)


# -- a name rebound on one path only ----------------------------------------------------------

def rebind_then_update(x):
    if x.sum() > 0:
        x = x * 2
    x += 1
    return x


def choose_then_update(x, y):
    if x.sum() > 0:
        z = y
    else:
        z = x
    z[0] = 100.0
    return z


def nested_rebind(x, y):
    if x.sum() > 0:
        if y.sum() > 0:
            x = y
        else:
            x = x + 1
    x *= 3
    return x


@pytest.mark.parametrize("sign", [1.0, -1.0])
@pytest.mark.parametrize("device", [False, True])
def test_in_place_update_after_a_rebinding_branch(sign, device):
    check(rebind_then_update, sign * np.ones(3), device=device)
    check(choose_then_update, sign * np.ones(3), np.zeros(3), device=device)


@pytest.mark.parametrize("signs", [(1, 1), (1, -1), (-1, 1), (-1, -1)])
def test_nested_branches_keep_identity(signs):
    check(nested_rebind, signs[0] * np.ones(2), signs[1] * np.ones(2))


def test_cond_returning_an_operand_returns_it():
    def f(x, y):
        return solvent.cond(x.sum() > 0, lambda a, b: a, lambda a, b: b, x, y)

    for sign in (1.0, -1.0):
        x, y = sign * np.ones(2), np.zeros(2)
        assert solvent.jit(f)(x, y) is (x if sign > 0 else y)


# -- names around rolled loops ----------------------------------------------------------------

def double_buffer(u, v, steps):
    for _ in range(steps):
        v[1:-1] = 0.5 * (u[2:] + u[:-2])
        u, v = v, u
    return u, v


@pytest.mark.parametrize("steps", [3, 20, 21])
@pytest.mark.parametrize("device", [False, True])
def test_double_buffered_time_loop_updates_both_buffers(steps, device):
    check(double_buffer, np.arange(8.0), np.zeros(8), steps, static=("steps",), device=device)


def view_and_name_in_a_loop(a):
    head = a[:2]
    for _ in range(20):
        a += 1
        head *= 2
    return a


def in_place_then_rebound(a):
    for _ in range(20):
        a += 1
        a = a * 0.5
    return a


def alias_of_a_loop_counter(x, n):
    i, j = 0, 0
    while i < n:
        j = i
        i += 1
    return x * j


def while_that_may_not_run(x):
    while x.sum() < 0:
        x = x * 0.5 + 1
    x += 1
    return x


def python_number_becomes_float(x):
    total = 0
    for i in range(30):
        total = total + 0.5 * x[i % 3]
    return total


def test_a_view_and_its_base_updated_in_one_loop():
    check(view_and_name_in_a_loop, np.ones(3))


def test_updated_in_place_then_rebound_in_a_loop():
    check(in_place_then_rebound, np.ones(3))


def test_two_names_for_one_number_in_a_loop():
    x = np.ones(2)
    assert_same(solvent.jit(alias_of_a_loop_counter)(x, solvent.Scalar(np.int64(5))), alias_of_a_loop_counter(x, 5))


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_a_loop_that_may_run_zero_times_keeps_the_name_on_the_argument(sign):
    check(while_that_may_not_run, sign * np.ones(3))


def test_a_python_number_carried_takes_the_type_the_body_gives_it():
    check(python_number_becomes_float, np.arange(3.0))


def test_explicit_while_loop_mutating_its_carry_returns_it():
    def f(x):
        def body(c):
            i, y = c
            y[i] += 10
            return i + 1, y
        return solvent.while_loop(lambda c: c[0] < 3, body, (0, x))[1]

    x = np.arange(5.0)
    assert solvent.jit(f)(x) is x
    assert_same(x, np.array([10.0, 11.0, 12.0, 3.0, 4.0]))


def test_in_place_loop_carries_nothing_twice():
    """An array updated in place in a rolled loop is carried once, as itself."""
    def f(a):
        for _ in range(20):
            a += 1

    text = solvent.code_hlo(f, np.ones(3), optimize="none")
    assert text.count("stablehlo.while") == 1
    header = next(line for line in text.splitlines() if "stablehlo.while(" in line)
    assert header.count("tensor<3xf64>") == 1


def doubled_after_a_loop_that_may_make_it_a_scalar(a0, a1):
    k = 0
    while np.sum(a0) > 0 and k < 2:
        a1 = a0 + a0  # of 0-d arrays: a NumPy scalar, which `+=` rebinds
        k += 1
    a0 = a1
    a1 += a0
    return a0, a1


@pytest.mark.parametrize("start", [0.82, -0.5], ids=["loop runs", "loop does not run"])
def test_in_place_on_a_name_that_is_a_scalar_on_one_path(start):
    # found by make fuzz: after the loop `a1` is a NumPy scalar or the 0-d argument; `a1 += a0`
    # rebinds the scalar (a0 keeps the old value) and writes the argument in place
    numpy_args, solvent_args = (np.array(start), np.array(-1.38)), (np.array(start), np.array(-1.38))
    expected = doubled_after_a_loop_that_may_make_it_a_scalar(*numpy_args)
    actual = solvent.jit(doubled_after_a_loop_that_may_make_it_a_scalar)(*solvent_args)
    for got, want in zip(actual, expected):
        assert_same(got, want)
        assert (got is solvent_args[1]) == (want is numpy_args[1])
    assert_same(solvent_args[1], numpy_args[1])


def test_in_place_that_changes_a_scalar_dtype_on_one_path_is_refused():
    def widened(a0, a1):
        k = 0
        while np.sum(a0) > 0 and k < 2:
            a1 = a0 + a0
            k += 1
        a1 += 0.5  # float64 where a1 is the scalar, a TypeError where it is the int64 argument
        return a1

    with pytest.raises(solvent.ControlFlowError, match="NumPy scalar"):
        solvent.jit(widened)(np.array(1), np.array(2))


def scalar_through_a_second_loop(a0):
    k = 0
    while np.sum(a0) > 0 and k < 2:
        a0 = np.abs(a0)  # a NumPy scalar where the loop runs, the 0-d argument where it does not
        k += 1
    k = 0
    while np.sum(a0) > 0 and k < 2:
        a0 = a0
        k += 1
    a0 += 1
    return a0


@pytest.mark.parametrize("start", [3, -3], ids=["loop runs", "loop does not run"])
def test_a_second_loop_keeps_which_path_made_a_scalar(start):
    # found by make fuzz: the second loop forgot that the name was a scalar on one path, so
    # `a0 += ...` wrote in place where NumPy rebinds (a raw cast TypeError for a float operand)
    numpy_arg, solvent_arg = np.array(start), np.array(start)
    expected = scalar_through_a_second_loop(numpy_arg)
    assert_same(solvent.jit(scalar_through_a_second_loop)(solvent_arg), expected)
    assert_same(solvent_arg, numpy_arg)


def test_a_second_loop_keeps_the_refusal_of_a_dtype_change_on_one_path():
    def widened(a0):
        k = 0
        while np.sum(a0) > 0 and k < 2:
            a0 = np.abs(a0)
            k += 1
        k = 0
        while np.sum(a0) > 0 and k < 2:
            a0 = a0
            k += 1
        a0 += np.mean(a0)  # float64 where a0 is the scalar, NumPy's cast TypeError where it is the argument
        return a0

    with pytest.raises(solvent.ControlFlowError, match="NumPy scalar"):
        solvent.jit(widened)(np.array(3))


def swapped_with_a_scalar(a0, a1, steps):
    t1 = np.abs(a1)  # a NumPy scalar
    k = 0
    while np.sum(a0) > 0 and k < steps:
        a1, t1 = t1, a1  # t1 is the scalar after an even number of steps, the argument after an odd one
        k += 1
    t1 += np.sum(a0)  # float64 where t1 is the scalar; the float32 argument written in place otherwise
    return t1, a1


@pytest.mark.parametrize("steps", [1, 2])
def test_in_place_on_a_name_swapped_with_a_scalar_is_refused_where_its_dtype_depends_on_the_count(steps):
    # found by make fuzz: after two swaps t1 was taken for the array, `+=` kept float32 (NumPy: float64)
    a1 = np.array(-1.38, np.float32)
    with pytest.raises(solvent.ControlFlowError, match="NumPy scalar"):
        solvent.jit(swapped_with_a_scalar, static_argnames="steps")(np.array(0.82), a1, steps=steps)
    assert a1 == np.float32(-1.38)


@pytest.mark.parametrize("start", [0.82, -0.5], ids=["loop runs", "loop does not run"])
def test_a_name_swapped_with_a_scalar_keeps_numpys_values_where_the_dtype_does_not_change(start):
    numpy_args, solvent_args = (np.array(start), np.array(-1.38)), (np.array(start), np.array(-1.38))
    expected = swapped_with_a_scalar(*numpy_args, 1)
    actual = solvent.jit(swapped_with_a_scalar, static_argnames="steps")(*solvent_args, steps=1)
    for got, want in zip(actual, expected):
        np.testing.assert_array_equal(got, want)
        assert np.asarray(got).dtype == np.asarray(want).dtype
    assert_same(solvent_args[1], numpy_args[1])


def test_in_place_on_a_name_a_loop_leaves_a_scalar_or_a_new_array_is_refused():
    def shared(a0):
        s = np.sum(a0)  # a NumPy scalar where the loop does not run
        k = 0
        while np.sum(a0) > 0 and k < 2:
            s = np.full((), 2.0 * k)  # a 0-d array where it does
            k += 1
        t = s
        s += 1.0  # t sees it where s is the array, not where it is the scalar
        return s, t

    with pytest.raises(solvent.ControlFlowError, match="rebinds the scalar but writes the array"):
        solvent.jit(shared)(np.array([-1.0, -2.0]))  # (it gave t = s + 1 where NumPy's t is s)


def test_in_place_on_a_name_a_branch_leaves_a_scalar_or_a_new_array_is_refused():
    def shared(a0):
        s = np.sum(a0)
        if np.sum(a0) > 0:
            s = np.full((), 2.0)
        t = s
        s += 1.0
        return s, t

    with pytest.raises(solvent.ControlFlowError, match="rebinds the scalar but writes the array"):
        solvent.jit(shared)(np.array([-1.0, -2.0]))  # (it gave t = s + 1 where NumPy's t is s)


def test_a_name_that_is_an_argument_or_a_scalar_by_the_iteration_is_refused_in_place():
    def swapped_in_a_rolled_loop(a0):
        for i0 in range(20):
            t0 = a0 + a0  # a NumPy scalar
            k = 0
            while np.sum(a0) > 0 and k < 2:
                t0 += i0  # rebinds the scalar in the first iteration, writes the argument in the second
                a0, t0 = t0, a0
                k += 1
        a0[...] = 0
        return a0

    a0 = np.array(0.8)  # (found by make fuzz: a wrong result, then a raw TypeError)
    with pytest.warns(UserWarning, match="unrolled"), \
            pytest.raises(solvent.ControlFlowError, match="rebinds the scalar but writes the array"):
        solvent.jit(swapped_in_a_rolled_loop)(a0)  # (the rolled loop's body refused, the unrolled one too)
    assert a0 == 0.8


def test_a_view_of_a_swapped_name_written_in_a_nested_loop():
    # make fuzz: `v = a1[:-1]` views an array that is one of two after the swap; the while loop
    # carries what v writes, which is the arrays the swap may have chosen (a raw TypeError before)
    def f(a0, a1):
        if np.sum(a0) > 0:
            a0 += 1
        else:
            a0, a1 = a1, a0
        for i in range(3):
            v = a1[:-1]
            k = 0
            while np.any(a1 > 1) and k < 2:
                v += -1
                k += 1
        return a0, a1

    for x, y in ((np.array([-1.0, 2.0, 3.0]), np.array([4.0, 5.0, 0.5])), (np.ones(3), np.full(3, 3.0))):
        mine, theirs = (x.copy(), y.copy()), (x.copy(), y.copy())
        got, want = solvent.jit(f)(*mine), f(*theirs)
        for g, w in zip(got + mine, want + theirs):
            assert_same(g, w)
        assert [any(g is m for m in mine) for g in got] == [any(w is t for t in theirs) for w in want]


@pytest.mark.parametrize("shape", [(4,), ()])
def test_a_name_that_is_an_argument_on_every_path_of_a_branch_stays_one_through_a_loop(shape):
    # make fuzz: after `if ...: a0 += 1 else: a1 = a0`, a1 is one of the arguments on both paths; the
    # branch took it for a NumPy scalar (no path makes a new value), and the loop swapping it lost
    # which argument it is: NumPy returns argument 1 itself, solvent returned a new array
    def f(a0, a1):
        if np.sum(a0) > 0:
            a0 += 1
        else:
            a1 = a0
        k = 0
        while np.sum(a0) > 0 and k < 2:
            a0, a1 = a1, a0
            k += 1
        return a0, a1

    for x, y in ((1.5, -2.0), (-1.0, 3.0), (2.0, 3.0)):
        x, y = np.full(shape, x), np.full(shape, y)
        mine, theirs = (x.copy(), y.copy()), (x.copy(), y.copy())
        got, want = solvent.jit(f)(*mine), f(*theirs)
        for g, w in zip(got + mine, want + theirs):
            assert_same(g, w)
        assert [[g is m for m in mine] for g in got] == [[w is t for t in theirs] for w in want]


def doubles_or_keeps_a_0d_array(a0):
    if np.sum(a0) > 0:
        a0 = a0 + a0  # a NumPy scalar
    for _ in range(20):  # rolled: its stand-in for a0 is 0-d (found by `make fuzz`)
        a0, a0 = a0, a0
    return a0,


def test_a_0d_argument_kept_through_a_rolled_loop_is_the_callers_object():
    for value in (-1.5, 1.5):
        a = np.array(value)
        result = solvent.jit(doubles_or_keeps_a_0d_array)(a)
        assert (result[0] is a) == (value < 0)
        assert result[0] == doubles_or_keeps_a_0d_array(np.array(value))[0]
