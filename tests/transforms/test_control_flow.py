"""Explicit control flow against the same computation written as plain Python loops and ifs."""

import dataclasses
import warnings

import numpy as np
import pytest

import solvent
from differential import assert_same, check_like_numpy


def newton_sqrt(a):
    def keep_going(c):
        return np.logical_and(np.abs(c["x"] * c["x"] - a).max() > 1e-12, c["it"] < 50)

    def step(c):
        return {"x": 0.5 * (c["x"] + a / c["x"]), "it": c["it"] + 1}

    return solvent.while_loop(keep_going, step, {"x": np.ones_like(a), "it": 0})


def test_while_loop_converges_like_python():
    a = np.array([2.0, 9.0, 1e4])
    out = solvent.jit(newton_sqrt)(a)
    x, it = np.ones_like(a), 0
    while np.abs(x * x - a).max() > 1e-12 and it < 50:
        x, it = 0.5 * (x + a / x), it + 1
    assert_same(out["x"], x)
    assert int(out["it"]) == it
    text = solvent.code_hlo(newton_sqrt, a)
    assert text.count("stablehlo.while") == 1


def test_while_loop_body_may_mutate_its_carry():
    def f(x):
        def body(c):
            i, y = c
            y[i] = y[i] * 10
            return i + 1, y
        return solvent.while_loop(lambda c: c[0] < 3, body, (0, x))[1]

    expected = np.arange(5.0)
    expected[:3] *= 10
    assert_same(solvent.jit(f)(np.arange(5.0)), expected)


@dataclasses.dataclass
class Particle:
    pos: np.ndarray
    vel: np.ndarray


def test_fori_loop_with_dataclass_carry_and_traced_bound():
    def simulate(p, n, dt):
        def step(i, p):
            return Particle(p.pos + dt * p.vel, p.vel - dt * p.pos)
        return solvent.fori_loop(0, n, step, p)

    p = Particle(np.array([1.0, 0.0]), np.array([0.0, 1.0]))
    ref = Particle(p.pos.copy(), p.vel.copy())
    for _ in range(7):
        ref = Particle(ref.pos + 0.1 * ref.vel, ref.vel - 0.1 * ref.pos)
    for n in (7, solvent.Scalar(np.int64(7))):
        out = solvent.jit(simulate)(p, n, 0.1)
        assert type(out) is Particle
        np.testing.assert_allclose(np.asarray(out.pos), ref.pos, rtol=1e-14)
        np.testing.assert_allclose(np.asarray(out.vel), ref.vel, rtol=1e-14)


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_cond_takes_the_branch_numpy_would(sign):
    def f(x):
        return solvent.cond(x.sum() > 0, lambda a: (a * 2, a.sum()), lambda a: (a - 100.0, a.max()), x)

    x = sign * np.arange(1.0, 4.0)
    expected = (x * 2, x.sum()) if x.sum() > 0 else (x - 100.0, x.max())
    out = solvent.jit(f)(x)
    assert_same(out[0], expected[0])
    np.testing.assert_allclose(out[1], expected[1])


def test_cond_with_static_predicate_just_calls():
    assert_same(solvent.jit(lambda x: solvent.cond(True, lambda a: a + 1, lambda a: a, x))(np.ones(2)),
                np.full(2, 2.0))


@pytest.mark.parametrize("k", [-2, 0, 1, 2, 7, 2 ** 32, -2 ** 31 - 1, 2 ** 63 - 1])
def test_switch_clamps_its_index(k):
    """(2 ** 32 was converted to an int32 first, 0: the first branch, not the last)"""
    branches = [lambda a: a + 1, lambda a: a * 10, lambda a: -a]
    f = solvent.jit(lambda k, x: solvent.switch(k, branches, x))
    expected = branches[min(max(k, 0), 2)](np.ones(2))
    assert_same(np.asarray(f(solvent.Scalar(np.int64(k)), np.ones(2))), expected)


def test_branches_must_agree():
    f = solvent.jit(lambda x: solvent.cond(x.sum() > 0, lambda a: a, lambda a: a[:1], x))
    with pytest.raises(solvent.SolventError, match="branch 1"):
        f(np.ones(2))


def test_loop_body_must_keep_shapes():
    f = solvent.jit(lambda x: solvent.while_loop(lambda a: a.sum() < 10, lambda a: a[:1], x))
    with pytest.raises(solvent.SolventError, match="loop body"):
        f(np.ones(2))


def test_forms_work_outside_jit():
    out = solvent.while_loop(lambda c: c < 10, lambda c: c * 2, np.int64(1))
    assert int(np.asarray(out)) == 16


def test_loop_body_writing_into_outside_arrays_mutates_them():
    def f(a, out):
        view = out[1:]

        def body(i):
            a[i] = a[i] * 2          # an argument, not carried explicitly
            view[i] = a[i] + 1        # a view of another argument
            return i + 1

        n = solvent.while_loop(lambda i: i < 3, body, 0)
        return n

    def reference(a, out):
        view = out[1:]
        i = 0
        while i < 3:
            a[i] = a[i] * 2
            view[i] = a[i] + 1
            i += 1
        return i

    a, out = np.arange(5.0), np.zeros(5)
    ra, rout = a.copy(), out.copy()
    n = solvent.jit(f)(a, out)
    assert int(n) == reference(ra, rout)
    assert_same(a, ra)
    assert_same(out, rout)
    assert solvent.code_hlo(f, a, out, optimize="none").count("stablehlo.while") == 1


def test_branch_writing_into_outside_array_mutates_it():
    def f(a):
        def grow():
            a[0] = 100.0
            return 1

        def shrink():
            a[-1] = -100.0
            return 0

        return solvent.cond(a.sum() > 0, grow, shrink)

    for sign in (1.0, -1.0):
        a = sign * np.arange(1.0, 4.0)
        ref = a.copy()
        flag = solvent.jit(f)(a)
        if ref.sum() > 0:
            ref[0] = 100.0
        else:
            ref[-1] = -100.0
        assert_same(a, ref)
        assert int(flag) == (1 if sign > 0 else 0)


def test_carried_array_mutated_in_place_keeps_its_identity_for_views():
    def f(x):
        head = x[:2]

        def body(c):
            i, y = c
            y += 1.0
            return i + 1, y

        solvent.while_loop(lambda c: c[0] < 4, body, (0, x))
        return head * 1

    x = np.zeros(3)
    out = solvent.jit(f)(x)
    assert_same(x, np.full(3, 4.0))
    assert_same(out, np.full(2, 4.0))


def test_scan_matches_a_python_loop():
    def f(values, weights):
        def step(carry, x):
            total = carry["total"] + x["v"] * x["w"]
            return {"total": total, "count": carry["count"] + 1}, (total, x["v"] > 0)

        return solvent.scan(step, {"total": np.zeros(2), "count": 0}, {"v": values, "w": weights})

    values, weights = np.arange(-3.0, 9.0).reshape(6, 2), np.linspace(0.5, 1.0, 6)[:, None] * np.ones((6, 2))
    carry, (totals, positive) = solvent.jit(f)(values, weights)
    total, expected_totals, expected_positive = np.zeros(2), [], []
    for v, w in zip(values, weights):
        total = total + v * w
        expected_totals.append(total)
        expected_positive.append(v > 0)
    assert_same(carry["total"], total)
    assert int(carry["count"]) == 6
    assert_same(totals, np.array(expected_totals))
    assert_same(positive, np.array(expected_positive))
    assert solvent.code_hlo(f, values, weights, optimize="none").count("stablehlo.while") == 1


def test_scan_with_length_and_no_xs():
    out = solvent.jit(lambda x: solvent.scan(lambda c, _: (c * 2, c), x, length=4))(np.ones(2))
    assert_same(out[0], np.full(2, 16.0))
    assert_same(out[1], np.array([[1.0, 1.0], [2.0, 2.0], [4.0, 4.0], [8.0, 8.0]]))


def doubles_with_a_name_bound_in_each_branch(a):
    if np.sum(a) > 0:
        first = a
        a += a
    else:
        second = a  # noqa: F841  (bound on one path only: traced once more without it)
    return a


def bumps_with_a_name_bound_in_one_branch(a):
    if np.sum(a) > 0:
        first = a  # noqa: F841
        a += 1
    return a


@pytest.mark.parametrize("fn", [doubles_with_a_name_bound_in_each_branch, bumps_with_a_name_bound_in_one_branch])
@pytest.mark.parametrize("host", [np.array(0.5), np.array([0.5, 1.0]), np.array([-0.5, -1.0])], ids=str)
def test_a_branch_traced_again_writes_its_arrays_once(fn, host):
    # found by make fuzz: the retrace that drops names bound on one path ran the first trace's
    # writes as well, so `a += a` doubled twice
    expected, actual = host.copy(), host.copy()
    assert_same(solvent.jit(fn)(actual), fn(expected))
    assert_same(actual, expected)


def promotes_with_the_loop_index(x, n):
    total = np.zeros_like(x)
    for i in range(20):  # rolled: the index is traced, and a Python int in NumPy's loop
        total = total + (x + i) * 0.5 - (i + 1)
        n = n + i * 2
    return total, n


def test_a_rolled_loop_index_promotes_as_a_python_int():
    # found by make fuzz: a float32 array plus the traced index was float64 (an int64 operand)
    for x, n in [(np.arange(4, dtype=np.float32) / 3, np.array([1, 2], np.int32)),
                 (np.arange(3, dtype=np.float64), np.array(7, np.int16))]:
        expected = promotes_with_the_loop_index(x.copy(), n.copy())
        assert_same(solvent.jit(promotes_with_the_loop_index)(x.copy(), n.copy()), expected, rtol=0, atol=0)


def python_numbers_through_loops_and_branches(x, n):
    it, t = 0, 0.0
    while x[0] > 1.0:  # a counter, a Python int in NumPy's loop
        x = x / 2
        it += 1
    for _ in range(n):  # rolled: n is traced
        t = t + 0.5
    k = 3 if x[1] > 0 else 5
    r = round(float(x.sum()), 3)
    ones = np.ones(2, np.float32)
    return ones * it, ones * t, ones * k, ones * r, it, t, k, r


def test_python_numbers_stay_python_numbers_through_loops_and_branches():
    # found by a survey of user programs: after a traced loop or `if` (or round(float(...), 3)) they
    # were NumPy scalars, so a float32 array times one was float64 where NumPy keeps float32
    for x in (np.array([37.0, 2.0]), np.array([0.5, -2.0])):
        expected = python_numbers_through_loops_and_branches(x, 7)
        actual = solvent.jit(python_numbers_through_loops_and_branches)(x, np.int64(7))
        assert_same(actual, expected, rtol=0, atol=0)
        assert [type(v) for v in actual[4:]] == [int, float, int, float]


def wide_or_narrow(b):
    t = b[1] or 300  # int8 where the other path gives the array's element
    return t


def test_a_python_int_meeting_a_narrower_integer_in_a_traced_branch_is_refused():
    """`b[1] or 300` of an int8 array gave np.int8(44): the number wrapped to the other path's type."""
    with pytest.raises(solvent.ControlFlowError, match="300 out of bounds for int8"):
        solvent.jit(wide_or_narrow)(np.array([1, 0], np.int8))
    assert solvent.jit(wide_or_narrow)(np.array([1, 0], np.int16)) == 300  # (an int16, the types promoted)


def refuses_positive_values(x):
    if x[0] > 0:
        raise KeyError("only for positive values")  # the raise
    return x


def test_any_exception_a_traced_branch_raises_is_a_clear_error():
    """Both branches are traced whatever the data: a KeyError (or a RuntimeError, ...) escaped raw."""
    with pytest.raises(solvent.ControlFlowError, match="raises KeyError.*a compiled program cannot raise on its "
                       "data: test the condition before the call") as info:
        solvent.jit(refuses_positive_values)(-np.ones(2))
    assert info.value.location[1] == refuses_positive_values.__code__.co_firstlineno + 2


# -- Python objects (functions, strings, None) rebound in a traced branch or loop -------------

def _function_by_branch(x):
    fn = np.negative
    if x.sum() > 0:
        fn = np.positive
    return fn(x)


def _string_by_branch(x):
    mode = "a"
    if x.sum() > 0:
        mode = "b"
    return x * (2.0 if mode == "b" else 3.0)


def _function_by_while(x):
    fn = np.negative
    while np.abs(x).sum() < 100:
        x = x * 2
        fn = np.positive
    return fn(x)


def _string_by_while(x):
    mode = "a"
    while np.abs(x).sum() < 100:
        x = x * 2
        mode = "b"
    return x * (2.0 if mode == "b" else 3.0)


@pytest.mark.parametrize("sign", [1.0, -1.0])
@pytest.mark.parametrize("fn, objects", [(_function_by_branch, "np.positive, then np.negative"),
                                         (_string_by_branch, "'b', then 'a'"),
                                         (_function_by_while, "np.negative, then np.positive"),
                                         (_string_by_while, "'a', then 'b'")])
def test_a_python_object_chosen_at_run_time_is_refused_naming_both(fn, objects, sign):
    """A traced `if` or `while` that rebinds a function or a string: which one NumPy's name holds
    after it is decided by the data (solvent kept the one from before, or branch 0's, and gave
    another result on the other path)."""
    with pytest.raises(solvent.ControlFlowError, match=f"another Python object.*\\({objects}\\)") as raised:
        solvent.jit(fn)(sign * np.arange(1.0, 5.0))
    assert raised.value.location is not None and raised.value.location[0] == __file__


def test_a_python_object_the_same_on_every_path_passes_through():
    def f(x):
        mode, fn = "a", np.sin
        if x.sum() > 0:
            x = x + 1
            mode, fn = "a", np.sin
        while np.abs(x).sum() < 100:
            x = x * 2
            mode = "a"
        return fn(x) * (2.0 if mode == "a" else 3.0)

    for sign in (1.0, -1.0):
        assert_same(solvent.jit(f)(sign * np.arange(1.0, 5.0)), f(sign * np.arange(1.0, 5.0)))


def test_a_short_static_loop_that_rebinds_a_python_object_unrolls_as_python_runs_it():
    def f(x):
        fn = np.negative
        for i in range(20):
            x = x + i
            fn = np.positive
        return fn(x)

    with pytest.warns(UserWarning, match="unrolled.*another Python object"):
        assert_same(solvent.jit(f)(np.arange(3.0)), f(np.arange(3.0)))


def view_chosen_then_written(x, k):
    v = x[:3] if k > 0 else x[2:]
    v[0] += 1.0


def view_chosen_then_read_after_a_write(x, k):
    v = x[:3] if k > 0 else x[2:]
    x[2] = 50.0
    return v.sum()


def view_of_the_last_iteration_written(x):
    for i in range(x.shape[0] - 1):
        v = x[i:i + 2]
    v[0] = 100.0


def previous_iterations_view_written(x):
    v = x[:2]
    for i in range(1, x.shape[0] - 1):
        v[0] += 1.0
        v = x[i:i + 2]


def view_chosen_in_a_loop_then_written(x):
    best = x[:2]
    for i in range(x.shape[0] - 1):  # (the `if` in the body: an Either the loop carries)
        if x[i:i + 2].sum() > best.sum():
            best = x[i:i + 2]
    best[0] = 77.0


def view_chosen_in_a_loop_then_read_after_a_write(x):
    v = x[:2]
    for i in range(3):
        if x[i] > 0:
            v = x[2:4]
    x += 1.0
    return v


@pytest.mark.parametrize("fn, args", [
    (view_chosen_then_written, (np.arange(5.0), 1)), (view_chosen_then_read_after_a_write, (np.arange(5.0), -1)),
    (view_of_the_last_iteration_written, (np.arange(300.0),)), (previous_iterations_view_written, (np.arange(300.0),)),
    (view_chosen_in_a_loop_then_written, (np.array([1.0, 5.0, 2.0, 7.0, 3.0, 4.0]),)),
    (view_chosen_in_a_loop_then_read_after_a_write, (np.array([1.0, 0.0, 0.0, 0.0]),)),
])
def test_a_view_made_in_a_traced_if_or_loop_is_refused_where_its_sharing_would_matter(fn, args):
    """After a traced `if` or loop, a name it bound to a view it made holds a copy: NumPy's view
    shares its array's memory, so a write through it, or a read after the array changed, raises
    (each silently used the copy: x kept its values, v its old ones)."""
    traced = [a if isinstance(a, np.ndarray) else solvent.Scalar(np.int64(a)) for a in args]
    with pytest.raises((solvent.ControlFlowError, solvent.UnsupportedError), match="a view made in a traced `if`"):
        solvent.jit(fn)(*traced)  # (in a loop too long to unroll instead)
    assert np.array_equal(traced[0], args[0])


def test_views_made_in_a_traced_if_or_loop_read_before_their_array_changes_are_numpys():
    """The copy is exact until the array changes: a recursive filter reading the rows it kept as
    views (PolyBench deriche's form) stays rolled, and so does a chosen view read at once."""
    def smooth(x, k, out):
        previous = np.zeros(x.shape[1])
        for i in range(x.shape[0]):
            out[i, :] = 0.5 * x[i, :] + 0.5 * previous
            previous = out[i, :]
        v = x[:3, 0] if k > 0 else x[2:5, 1]
        return v.sum() + previous.sum()

    x = np.random.default_rng(14).random((40, 6))
    for k in (1, -1):
        expected_out, out = np.zeros((40, 6)), np.zeros((40, 6))
        expected = smooth(x, k, expected_out)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            got = solvent.jit(smooth)(x, solvent.Scalar(np.int64(k)), out)
        np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-12)
        np.testing.assert_allclose(out, expected_out, rtol=1e-12)


def test_a_slice_of_traced_length_chosen_by_a_traced_if_is_not_indexed_past_its_length():
    """After the `if`, the name holds the slice padded, without its length: v[-1] and v[:] would
    read the padding (they did), so indexing it raises; a short loop unrolls instead."""
    def ends(x, out):
        for i in range(x.shape[0]):
            v = x[:i + 1] if i % 3 else x[i:]
            out[i] = v[-1] + v[:].sum()

    x = np.arange(1.0, 301.0)
    with pytest.raises(solvent.UnsupportedError, match="indexed after the traced `if` or loop that made it"):
        solvent.jit(ends)(x, np.zeros(300))
    with pytest.warns(UserWarning, match="loop of 18 steps unrolled"):
        check_like_numpy(ends, x[:18].copy(), np.zeros(18))


def view_of_a_chosen_view_read_before_and_after_a_write(x, k):
    if k > 2:
        v = x[:3]
    else:
        v = x[2:5]
    w = v[1]
    first = w.sum()
    x[3, 0] = 99.0
    return first + w.sum()


def previous_row_read_after_its_write(x):
    s = np.zeros(x.shape[0])
    v = x[0]
    for i in range(x.shape[0] - 1):
        x[i] += 1.0
        s[i] = v.sum()
        v = x[i + 1]
    return s


@pytest.mark.parametrize("fn, args", [(view_of_a_chosen_view_read_before_and_after_a_write, (np.ones((6, 3)), 1)),
                                      (previous_row_read_after_its_write, (np.ones((300, 3)),))])
def test_reads_through_views_of_such_copies_and_of_the_last_iterations_view_are_checked_too(fn, args):
    traced = [a if isinstance(a, np.ndarray) else solvent.Scalar(np.int64(a)) for a in args]
    with pytest.raises((solvent.ControlFlowError, solvent.UnsupportedError), match="a view made in a traced `if`"):
        solvent.jit(fn)(*traced)


def draws_until_large(rng):
    n = 0
    while rng.random() < 0.9:
        n += 1
    return n, rng.random()  # (the generator's state after the loop too)


def halved(x):
    x *= 0.5
    return np.abs(x).max()


def halves_until_small(x):
    n = 0
    while halved(x) > 1e-3:
        n += 1
    return n


@pytest.mark.parametrize("seed", [8, 0, 3])
def test_a_while_test_that_draws_draws_at_every_step(seed):
    """The test's draw was made once, before the loop: a wrong count, or a loop that never ended."""
    expected = draws_until_large(np.random.default_rng(seed))
    assert solvent.jit(draws_until_large)(np.random.default_rng(seed)) == expected


def test_a_while_test_that_updates_an_array_in_place_does_so_at_every_step():
    check_like_numpy(halves_until_small, np.array([1.0, -2.0]))


def assigns_in_its_tests(x):
    n, h = 0, x.copy()
    while (h := h * 0.5).max() > 0.01:
        n += 1
    k = 0
    while (m := x[k]) < 5:
        k += 1
        if m < 2:
            continue
        x[k - 1] = -m
    return n, h, k


def test_a_while_test_with_an_assignment_expression():
    """`h := ...` in the test assigns a name of the loop (a raw UnboundLocalError from the rewrite)."""
    check_like_numpy(assigns_in_its_tests, np.arange(9.0))


def metropolis(x, rng):
    accepted = 0
    for i in range(30):
        change = x[i] - x[i - 1]
        if change <= 0 or rng.random() < np.exp(-change):  # (draws only for an uphill change)
            accepted += 1
    return accepted, rng.random()


def bumped(x):
    x[1] += 1
    return True


def bumps_if_negative(x):
    x[0] < 0 and bumped(x)
    return x


@pytest.mark.parametrize("seed", [0, 1])
def test_the_right_operand_of_or_and_and_runs_only_where_python_runs_it(seed):
    """A draw or a write on the right ran whatever the left gave: every later draw shifted."""
    x = np.random.default_rng(seed).standard_normal(30)
    assert solvent.jit(metropolis)(x, np.random.default_rng(seed)) == metropolis(x, np.random.default_rng(seed))
    check_like_numpy(bumps_if_negative, np.array([1.0, 0.0]))
    check_like_numpy(bumps_if_negative, np.array([-1.0, 0.0]))


def sums_positive_doubles(x):
    s = 0.0
    for i in range(len(x)):
        if x[i] <= 0:
            continue  # a guard clause before the loop's temporaries
        t = x[i] * 2
        s += t
    return s


def test_a_long_loop_with_a_traced_continue_rolls_and_keeps_its_temporaries():
    """The loop made a `while` kept its temporaries private (`t` was refused as set in one branch),
    and starts with a traced index when it is too long to unroll (its test stayed static: 400
    copies of the body, 9-11 s)."""
    x = np.random.default_rng(0).standard_normal(400)
    check_like_numpy(sums_positive_doubles, x)
    assert solvent.code_hlo(sums_positive_doubles, x, optimize="none").count("stablehlo.while") == 1


def eliminate_then_substitute(A, b):
    """Gaussian elimination with an early return, then back substitution (`for i` binds i again)."""
    n = A.shape[0]
    for k in range(n):
        if abs(A[k, k]) < 1e-12:
            return np.full(n, np.nan)
        for i in range(k + 1, n):
            f = A[i, k] / A[k, k]
            A[i, k:] -= f * A[k, k:]
            b[i] -= f * b[k]
    x = np.zeros(n)
    for i in range(n - 1, -1, -1):
        x[i] = (b[i] - A[i, i + 1:] @ x[i + 1:]) / A[i, i]
    return x


def last_before_a_negative(x):
    for k in range(x.shape[0]):
        if x[k] < 0:
            break
        i = k
    i = 1
    return x * i


def last_before_a_negative_read(x):
    for k in range(x.shape[0]):
        if x[k] < 0:
            break
        i = k
    return x * i


def test_a_name_a_loop_leaves_unbound_on_some_paths_can_be_bound_again_after_it():
    """A traced `if` (the break or return) left `i` unbound on one path, and the loop carrying it, or
    the next loop binding it, refused it as used."""
    rng = np.random.default_rng(3)
    for n in (4, 30):
        check_like_numpy(eliminate_then_substitute, rng.normal(size=(n, n)) + n * np.eye(n), rng.normal(size=n))
    check_like_numpy(last_before_a_negative, np.array([1.0, -2.0, 3.0]))
    with pytest.raises(solvent.UnsupportedError, match="'i' is set in only one branch"):  # read after: unbound
        solvent.jit(last_before_a_negative_read)(np.ones(3))


def walk_with_positions(rng, n):
    x, y = 0, 0
    path = []
    for i in range(n):
        d = rng.integers(4)
        if d == 0:
            x += 1
        elif d == 1:
            x -= 1
        else:
            y += 1
        path.append((x, y))
    return np.array(path)


def walk_with_two_items(rng, n):
    x = 0
    path = []
    for i in range(n):
        d = rng.integers(4)
        if d == 0:
            x += 1
        path.append(x)
        path.append(d)  # (two items a step: the list cannot be carried)
    return path


def test_a_loop_that_cannot_roll_unrolls_only_while_its_copies_stay_small():
    """Its copies were bounded in number only: 100 steps of draws and branches took 11 minutes."""
    with pytest.raises(solvent.UnsupportedError, match="cannot run with a traced loop index.*operations"), \
            pytest.warns(UserWarning, match="loop of 100 steps unrolled"):
        solvent.jit(walk_with_two_items, static_argnames=("n",))(np.random.default_rng(0), n=100)
    check_like_numpy(walk_with_positions, np.random.default_rng(0), 100)  # (rolled: a pair a step carried)
