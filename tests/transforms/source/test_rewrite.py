"""Unmodified functions with data-dependent if/while/for, against plain NumPy execution."""

import functools
import pathlib
import sys
import warnings

import numpy as np
import pytest

import solvent
from solvent.transforms import control_flow
from differential import assert_same, check_like_numpy, check_types_like_numpy

sys.path.insert(0, str(pathlib.Path(__file__).parents[3] / "benchmarks"))
from classic import life  # noqa: E402  Game of Life by cells, as people write it


def converge(a, tol, maxit):
    x = np.ones_like(a)
    err = 1.0
    it = 0
    while err > tol and it < maxit:
        new = 0.5 * (x + a / x)
        err = np.max(np.abs(new - x))
        x = new
        it += 1
    return x, it


def test_convergence_loop():
    a = np.array([2.0, 10.0, 1e3])
    x, it = solvent.jit(converge)(a, 1e-12, 100)
    ref_x, ref_it = converge(a, 1e-12, 100)
    assert_same(x, ref_x)
    assert int(it) == ref_it
    assert solvent.code_hlo(converge, a, 1e-12, 100, optimize="none").count("stablehlo.while") == 1


def halve_until_small(a):
    for k in range(50):
        s = a @ a
        a = a * 0.5
        if s < 1:
            break
    return s, k


def names_set_in_a_loop(a):
    for i in range(40):
        t, u, v, w = float(a[i % 3]), a[i % 3] * 2, i > 3, np.float32(a[0]) * 2
    return t, u, v, w, i


def test_names_first_set_in_a_rolled_loop_keep_their_python_types():
    """They started the loop as 0-d arrays: `s` came back a 0-d array, not NumPy's float64, and the
    loop index an int64, not Python's int."""
    check_types_like_numpy(halve_until_small, np.array([3.0, 4.0]))
    check_types_like_numpy(names_set_in_a_loop, np.arange(3.0))


def classify(x):
    total = x.sum()
    if total > 10:
        scale = 2.0
        label = 1
    elif total > 0:
        scale = 1.0
        label = 0
    else:
        scale = -1.0
        label = -1
    y = x * scale if label >= 0 else x - 1
    return y, label


@pytest.mark.parametrize("values", [[5.0, 6.0], [1.0, 2.0], [-1.0, -2.0]])
def test_data_dependent_branches(values):
    x = np.array(values)
    y, label = solvent.jit(classify)(x)
    ref_y, ref_label = classify(x)
    assert_same(y, ref_y)
    assert int(label) == ref_label


def early_return(x):
    if x.sum() > 0:
        return x * 2
    return -x


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_if_with_early_return(sign):
    check_like_numpy(early_return, sign * np.arange(1.0, 4.0))


def inplace_loop(u, n):
    i = 0
    while u.max() < n:
        u[i % 3] += 1.0
        i += 1
    return i


def test_loop_mutating_argument_in_place():
    check_like_numpy(inplace_loop, np.zeros(3), 5.0)


def nested(a):
    total = 0.0
    i = 0
    while i < a.shape[0]:
        j = 0
        while a[i, j] > 0 and j < a.shape[1] - 1:
            total += a[i, j]
            j += 1
        i += 1
    return total


def test_nested_loops_with_traced_conditions():
    a = np.array([[1.0, 2.0, -1.0, 4.0], [3.0, -1.0, 5.0, 6.0], [1.0, 1.0, 1.0, 1.0]])
    assert_same(solvent.jit(nested)(a), nested(a))


def break_and_continue(x):
    total = 0.0
    count = 0
    for i in range(x.shape[0]):
        if x[i] < 0:
            continue
        if x[i] > 100:
            break
        total = total + x[i]
        count += 1
    return total, count


@pytest.mark.parametrize("values", [[1.0, -2.0, 3.0, 200.0, 5.0], [1.0, 2.0, 3.0, 4.0, 5.0], [-1.0] * 5])
def test_break_and_continue(values):
    x = np.array(values)
    total, count = solvent.jit(break_and_continue)(x)
    ref_total, ref_count = break_and_continue(x)
    np.testing.assert_allclose(total, ref_total)
    assert int(count) == ref_count


def traced_bounds(x, n):
    acc = np.zeros_like(x)
    for k in range(1, n):
        acc = acc + x * k
    return acc


def test_for_over_range_with_traced_bound():
    x = np.arange(3.0)
    out = solvent.jit(traced_bounds)(solvent.asarray(x), solvent.Scalar(np.int64(5)))
    assert_same(np.asarray(out), traced_bounds(x, 5))


def stepped_sum(x, start, stop):
    s = 0.0
    for i in range(start, stop, int(x[0])):
        s += x[i] * (i + 1)
    return s


@pytest.mark.parametrize("step", [-2, -1, 1, 3])
def test_for_over_range_with_a_traced_step_of_either_sign(step):
    """The loop tested i < stop whatever the step's sign: a negative step ran no step (or never ended)."""
    x = np.array([float(step), 10.0, 20.0, 30.0, 40.0])
    for start, stop in ((4, -1), (0, 3), (1, 5), (2, 2)):
        assert_same(solvent.jit(stepped_sum)(x, start, stop), stepped_sum(x, start, stop))


def helper_with_branch(v):
    if v.mean() > 0:
        v = v + 1
    else:
        v = v - 1
    return v


def calls_helper(x):
    return helper_with_branch(x) * 2


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_functions_called_are_rewritten_too(sign):
    check_like_numpy(calls_helper, sign * np.ones(3))


def falling_factorial(x, depth):
    """Recursion on a Python int: the recursive call names this module's global."""
    if depth == 0:
        return np.ones_like(x)
    if x[0] > 100.0:  # (a traced branch, so that the function is rewritten)
        return x
    return x * falling_factorial(x - 1, depth - 1)


def test_recursive_functions_are_rewritten():
    check_like_numpy(lambda x: falling_factorial(x, 3), np.array([5.0, 6.0]))
    check_like_numpy(falling_factorial, np.array([5.0, 6.0]), 2)
    check_like_numpy(falling_factorial, np.array([500.0, 6.0]), 2)


def newton_sqrt(a):
    x = np.maximum(a, 1.0)
    for i in range(50):
        xn = 0.5 * (x + a / x)
        if np.max(np.abs(xn - x)) < 1e-12:
            return xn, i  # on a traced test: a flag and a break, the value taken after the loop
        x = xn
    return x, -1


def first_negative(m):
    k = 0
    while k < m.shape[0]:
        for j in range(m.shape[1]):
            if m[k, j] < 0:
                return k * 10 + j, m[k, j] * 2.0
        k += 1
    if m.sum() > 0:
        return -1, 0.0
    return -2, 1.0


@pytest.mark.parametrize("a", [np.array([2.0, 30.0, 70.0]), np.array([1e30, 2.0])])
def test_a_return_inside_a_loop_on_a_traced_test(a):
    check_like_numpy(newton_sqrt, a)


def _with_negative_at(k, j, shape=(20, 30)):
    m = np.ones(shape)
    if k is not None:
        m[k, j] = -3.0
    return m


@pytest.mark.parametrize("m", [_with_negative_at(1, 1, (2, 2)), _with_negative_at(7, 25), _with_negative_at(None, 0),
                               _with_negative_at(None, 0) - 1.0, np.zeros((20, 30))])
def test_returns_inside_nested_loops(m):
    check_like_numpy(first_negative, m)


def logic(x, y):
    a = x.sum()
    return (0 < a < 10), (a > 0 and y.sum() > 0), (not a > 0), (a > 5 or y.max() > 1)


@pytest.mark.parametrize("sx", [1.0, -1.0, 5.0])
def test_and_or_not_and_chained_comparisons(sx):
    x, y = sx * np.ones(2), np.array([0.5, 2.0])
    for actual, expected in zip(solvent.jit(logic)(x, y), logic(x, y)):
        assert bool(np.asarray(actual)) == bool(expected)


def negations_counted(a, b):
    return (not a[0]) + (not b[0]), (not a[0]) * 2.5, -(not b[0])


def test_the_bools_of_not_add_up_as_python_ints():
    """`(not a) + (not b)` is Python's int 2; it gave an np.int64."""
    check_types_like_numpy(negations_counted, np.zeros(2), np.zeros(2))
    check_types_like_numpy(negations_counted, np.ones(2), np.zeros(2))


def operands_kept(a):
    tol = a[0] or 1e-8
    total = 0.0
    for i in range(20):  # (rolled)
        total += a[i % 4] or 10.0
    return a[1] + tol, a[1] and a[3], float(a[0]) or 2.0, total


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_and_and_or_give_the_operand_python_gives(sign):
    """`a[0] or 1e-8` gave True: `and` and `or` of numbers that are not bools give an operand."""
    for a in (sign * np.array([0.0, 2.5, -1.0, 7.0]), sign * np.array([3.0, 0.0, 1.0, 0.0])):
        check_like_numpy(operands_kept, a)


def middle_evaluated_once(a):
    drawn = iter([1.0, 5.0, 2.0])
    return 0 < next(drawn) < 3, next(drawn), a[0] < a[1] <= a[2] < 10


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_a_chained_comparison_evaluates_each_operand_once(sign):
    """`0 < next(drawn) < 3` drew twice: its middle operand was evaluated for each comparison."""
    check_like_numpy(middle_evaluated_once, sign * np.array([0.0, 1.0, 2.0]))


def chosen_identity(a, c):
    b = a
    for i in range(20):  # (rolled: b is a or c, by the data)
        if a[i % 2] > 1.5:
            b = c
    return b is a, b is not c, a is None, b is c


@pytest.mark.parametrize("second", [2.0, 1.0])
def test_is_of_an_array_a_traced_branch_chose_is_traced(second):
    """`b is a` after a traced branch that may rebind b was decided while tracing: False either way."""
    a = np.array([1.0, second])
    check_like_numpy(chosen_identity, a, a + 1)


def static_control_flow(x, mode, n):
    if mode == "double":
        x = x * 2
    for _ in range(n):
        x = x + 1
    return x


def test_static_conditions_stay_python():
    check_like_numpy(static_control_flow, np.ones(2), "double", 3)
    text = solvent.code_hlo(static_control_flow, np.ones(2), "double", 3, optimize="none")
    assert "while" not in text and "stablehlo.case" not in text


def stepper(u, steps):
    for _ in range(steps):
        u[1:-1] = u[1:-1] + 0.1 * (u[2:] - 2 * u[1:-1] + u[:-2])
    return u.sum()


def test_long_static_loop_is_rolled_and_compiles_in_constant_time(monkeypatch):
    monkeypatch.setenv("SOLVENT_CACHE_DIR", "")  # real compiles every time, not the persistent cache's
    u = np.sin(np.linspace(0, 3, 32))
    ref = u.copy()
    out = solvent.jit(stepper)(u, 10_000)
    expected = stepper(ref, 10_000)
    np.testing.assert_allclose(out, expected, rtol=1e-10)
    np.testing.assert_allclose(u, ref, rtol=1e-10)

    # the module does not grow with the trip count (timed, this compared first calls, which the other
    # test worker's load made flaky; benchmarks/compile.py times first calls)
    short, long = (solvent.code_hlo(stepper, np.zeros(32), steps, optimize="none") for steps in (100, 10_000))
    assert long.count("stablehlo.while") == 1 and long.count("\n") == short.count("\n")


def test_short_static_loops_unroll_below_the_threshold():
    text = solvent.code_hlo(stepper, np.zeros(8), 3, optimize="none")
    assert "while" not in text
    rolled = solvent.code_hlo(stepper, np.zeros(8), 3, optimize="none", unroll=2)
    assert rolled.count("stablehlo.while") == 1


def uses_index_statically(x, n):
    parts = []
    for i in range(n):
        parts.append(x[i] * len(parts))  # a list the body reads as it grows
    return sum(parts)


def test_loop_that_cannot_roll_is_unrolled_with_a_warning():
    x = np.arange(5.0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = solvent.jit(uses_index_statically, unroll=2)(x, 5)
    assert_same(out, uses_index_statically(x, 5))
    assert any("unrolled" in str(w.message) for w in caught)


def with_nested_def(x):
    def clip_positive(v):
        if v.sum() > 0:
            return v
        return np.zeros_like(v)

    return clip_positive(x) + clip_positive(-x)


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_functions_defined_inside_are_rewritten_with_it(sign):
    check_like_numpy(with_nested_def, sign * np.arange(1.0, 4.0))


def test_nested_static_loops_unroll_only_within_the_budget():
    """Copies of a body multiply through nested static loops; past `unroll` the inner loops roll,
    so a pure-Python loop nest over a board compiles to a module the size of its source."""
    def count_neighbours(board):
        counts = np.zeros_like(board)
        for i in range(8):
            for j in range(8):
                for di in (-1, 0, 1):
                    for dj in (-1, 0, 1):
                        if di or dj:
                            counts[i, j] += board[(i + di) % 8, (j + dj) % 8]
        return counts

    board = (np.random.default_rng(0).random((8, 8)) < 0.4).astype(np.int64)
    np.testing.assert_array_equal(solvent.jit(count_neighbours)(board), count_neighbours(board))
    text = solvent.code_hlo(count_neighbours, board, optimize="none")
    assert text.count("stablehlo.while") >= 1
    assert text.count("stablehlo.add") < 8 * 8 * 8  # not 8 x 8 cells of 8 additions


def sweeps(x, steps):
    for _ in range(steps):
        for k in range(3):  # three steps of a few ops: unrolled
            x[k] += 1.0
    return x


COEFFICIENTS = tuple(np.linspace(-1.0, 1.0, 300))


def polynomial_steps(x, steps):
    for _ in range(steps):
        y = np.zeros_like(x)
        for c in COEFFICIENTS:  # items of a tuple: always unrolled
            y = y * x + c
        x = 0.5 * np.tanh(y)
    return x


@pytest.mark.filterwarnings("ignore:.*a `for` over 300 Python items ran unrolled")  # (NumPy scalars: unrolled)
def test_a_short_loop_whose_first_step_is_big_rolls_the_rest():
    """Copies of a big body only lengthen the module, and XLA's compile: the first step stays,
    the rest roll."""
    check_like_numpy(polynomial_steps, np.linspace(-0.5, 0.5, 8), 16)
    text = solvent.code_hlo(polynomial_steps, np.linspace(-0.5, 0.5, 8), 16, optimize="none")
    assert text.count("stablehlo.multiply") == 2 * (300 + 1)  # its first step, and the loop of the rest
    assert "while" not in solvent.code_hlo(sweeps, np.zeros(4), 3, optimize="none")
    check_like_numpy(sweeps, np.zeros(4), 3)


def hits_inside(rng, batches):
    inside = 0
    for _ in range(batches):
        xy = rng.random((100, 2))
        inside += np.count_nonzero((xy ** 2).sum(axis=1) < 1.0)
    return 4.0 * inside / (100 * batches)


def test_a_short_loop_whose_first_step_draws_rolls_the_rest():
    """XLA compiles a draw's bit operations slowly and gains nothing from copies of them: 16 batches of
    draws unrolled took 4 s to compile, rolled 0.6 s."""
    check_like_numpy(hits_inside, np.random.default_rng(5), 10)
    assert solvent.code_hlo(hits_inside, np.random.default_rng(5), 10, optimize="none").count("stablehlo.while") \
        >= 1


def life_by_rolls(grid, steps):
    for _ in range(steps):
        n = sum(np.roll(np.roll(grid, i, 0), j, 1) for i in (-1, 0, 1) for j in (-1, 0, 1) if (i, j) != (0, 0))
        grid = (n == 3) | (grid & (n == 2))
    return grid


@pytest.mark.parametrize("steps", [3, 5])
def test_a_short_loop_whose_step_shifts_its_data_many_ways_rolls_the_rest(steps):
    """Unrolled, XLA fused each generation into the next once per neighbour: 5 generations of 16x16
    took 1.2 s to compile and 230 us a call (rolled: 0.08 s and 35 us). Enzyme-HLO's own unrolling
    of loops up to 4 steps is left out, or it would undo the roll."""
    grid = np.random.default_rng(0).random((16, 16)) < 0.3
    check_like_numpy(life_by_rolls, grid, steps)
    assert solvent.code_hlo(life_by_rolls, grid, steps).count("stablehlo.while") == 1


def pendulum_rates(y):
    th1, w1, th2, w2 = y
    d = th2 - th1
    return np.array([w1, -np.sin(th1) + w2 * np.cos(d), w2, -np.sin(th2) - w1 * np.sin(d)])


def pendulum_rk4(y, dt, steps):
    for _ in range(steps):
        k1 = pendulum_rates(y)
        k2 = pendulum_rates(y + 0.5 * dt * k1)
        k3 = pendulum_rates(y + 0.5 * dt * k2)
        k4 = pendulum_rates(y + dt * k3)
        y = y + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return y


def test_the_ops_of_the_helpers_a_step_calls_count_toward_its_size():
    """A helper called several times a step is one func.call each in the module, but XLA inlines each:
    counted as one op, the step looked small and unrolled (16 RK4 steps: 2 s of XLA compile)."""
    y = np.array([2.0, 0.0, 1.0, 0.0])
    check_like_numpy(pendulum_rk4, y, 0.01, 8)
    assert solvent.code_hlo(pendulum_rk4, y, 0.01, 8, optimize="none").count("stablehlo.while") == 1


def advect_until(u, dt, t_end):
    t = 0.0
    while t < t_end:  # the test
        u[:] = u - 0.5 * (u - np.roll(u, 1))
        t += dt
    return u


def count_up(n):
    k = total = 0
    while k < n:
        total, k = total + k, k + 1
    return np.ones(2) * total


def test_a_while_with_a_static_test_that_copies_its_body_many_times_warns():
    """`while t < t_end` with a Python-float clock runs as Python while tracing, a copy of the body a
    step, silently (250 steps of upwind advection: a 37 s first call); plain Python steps do not warn."""
    u = np.random.default_rng(0).random(20)
    with pytest.warns(UserWarning, match="test_rewrite.py:[0-9]+: a `while` whose test is static"):
        check_like_numpy(advect_until, u, 0.01, 0.7)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_like_numpy(count_up, 200)


def test_a_short_loop_that_takes_a_traced_branch_rolls_whole():
    """Each copy of a traced `if` is one more of XLA's thunks to compile and run (they never fuse):
    Game of Life by cells rolls its loops, generations too, into one cell's branches."""
    board = (np.random.default_rng(1).random((16, 16)) < 0.4).astype(np.int64)
    check_like_numpy(life, board, 4)
    text = solvent.code_hlo(life, board, 4, optimize="none")
    assert text.count("stablehlo.case") == 2  # `if` and `elif` of one cell, not 16 x 16 x 4 of them
    assert text.count("stablehlo.while") == 3


def nested_sweeps(x):
    for _ in range(3):
        for i in range(4):
            for j in range(4):
                if x[i, j] > 0.5:
                    x[i, j] -= 0.25
    return x


def test_nested_short_loops_that_branch_are_each_traced_apart_once(monkeypatch):
    """Each short loop traces its body apart to see whether it takes a traced branch; an inner loop
    found to is not traced apart again inside its outer loops' traces (3 such traces, not 7: Game of
    Life by cells traced its cell 8 times)."""
    looks = []
    takes_branch = control_flow.takes_branch
    monkeypatch.setattr(control_flow, "takes_branch", lambda fn: looks.append(fn) or takes_branch(fn))
    x = np.random.default_rng(2).random((4, 4))
    expected = nested_sweeps(x.copy())
    solvent.jit(nested_sweeps)(x)
    np.testing.assert_array_equal(x, expected)
    assert len(looks) == 3


def relax_until(x):
    v, count = x.copy(), 0
    for _ in range(300):
        for j in range(10):
            if v[j] > 5.0:
                continue
            v[j] += 0.1
            for k in range(3):
                if v[k] > 2.0:
                    break
                v[k] += 0.01
                count += 1
    return v, count


def first_over(x):
    v = x.copy()
    for step in range(5):
        if v[0] > 100:
            break
        for j in range(10):
            if v[j] > 5.0:
                break
            v[j] += 1.0
    return v


def test_loops_with_break_or_continue_inside_other_loops_roll():
    """An inner loop's break flags, items and index are set before each use: the loops around it
    carried them, found them unset before the first step, and unrolled (past 256 steps, an error)."""
    x = np.arange(11.0) * 0.5
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_like_numpy(relax_until, x)
        check_like_numpy(first_over, x)


def test_a_short_branching_loop_whose_step_raises_gives_numpys_error():
    def out_of_bounds(x):
        for i in range(3):
            if x[i] > 0:
                x[i] = 1.0
            x[7] += 1.0
        return x

    with pytest.raises(IndexError, match="index 7 is out of bounds"):
        out_of_bounds(np.ones(4))
    with pytest.raises(IndexError, match="index 7 is out of bounds"):
        solvent.jit(out_of_bounds)(np.ones(4))


def test_a_loop_that_cannot_roll_and_is_too_big_to_unroll_is_an_error():
    def sorted_prefixes(x):
        total = 0.0
        for i in range(300):
            total = total + np.fft.fft(x[:i % 7 + 1])[0].real  # an FFT of traced length: cannot roll
        return total

    with pytest.raises(solvent.UnsupportedError, match="300 steps"):
        solvent.jit(sorted_prefixes)(np.arange(8.0))


def rank_update(C, A, alpha, beta):
    n, m = A.shape
    for i in range(n):
        C[i, :i + 1] *= beta
        for k in range(m):
            C[i, :i + 1] += alpha * A[i, k] * A[:i + 1, k]
    return C


def test_a_lambda_is_rewritten_so_the_loops_of_its_helpers_roll():
    C, A = np.random.default_rng(0).random((40, 40)), np.random.default_rng(1).random((40, 20))
    expected = rank_update(C.copy(), A, 1.5, 1.2)
    f = solvent.jit(lambda C, A: rank_update(C, A, 1.5, 1.2))
    np.testing.assert_allclose(f(C.copy(), A), expected, rtol=1e-12)
    text = solvent.code_hlo(lambda C, A: rank_update(C, A, 1.5, 1.2), C, A, optimize="none")
    assert text.count("stablehlo.while") == 2  # both loops rolled, not 40 x 20 copies


def scaled_by_sign(x, mode="plain"):
    if x.sum() > 0:  # a traced test
        return x * 2 if mode == "double" else x
    return -x


class SignedModel:
    def __init__(self, k):
        self.k = k

    def __call__(self, x):
        if x[0] > 0:
            return x * self.k
        return x


def uses_a_partial_and_a_model(x):
    return functools.partial(scaled_by_sign, mode="double")(x) + SignedModel(3.0)(x)


@pytest.mark.parametrize("make", [lambda: functools.partial(scaled_by_sign, mode="double"), lambda: SignedModel(3.0),
                                  lambda: uses_a_partial_and_a_model], ids=["partial", "callable object", "called"])
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_partials_and_callable_objects_are_rewritten(make, sign):
    """functools.partial of a user's function and an object with `__call__`, given to jit or called
    inside: their traced `if` raised TracerConversionError, their functions were not rewritten."""
    check_like_numpy(make(), sign * np.array([1.0, 2.0]))


def test_a_function_without_source_warns_that_its_loops_unroll():
    namespace = {}
    exec("def g(x):\n    for i in range(20):\n        x = x + i\n    return x\n", namespace)
    with pytest.warns(UserWarning, match="cannot read the source of 'g'"):
        np.testing.assert_array_equal(solvent.jit(namespace["g"])(np.zeros(2)), np.full(2, 190.0))


def checksum(data):
    c = 0
    for b in data:  # over a traced array, with a data-dependent `if`
        if b > 3:
            c = c + b
        else:
            c = c * 2 % 65521
    return c


def rows_written(a):
    out = np.zeros(a.shape[1])
    for row in a:
        if row.sum() > 0:
            out += row
        row[0] = -1.0  # rows are views: the write reaches `a`, as in NumPy
    return out


def test_iteration_over_a_traced_array_rolls():
    data = np.arange(1000) % 7
    check_like_numpy(checksum, data)
    assert solvent.code_hlo(checksum, data, optimize="none").count("stablehlo.while") == 1
    check_like_numpy(rows_written, np.random.default_rng(0).standard_normal((40, 3)))


def weighted_rows(x, w):
    out = np.zeros(x.shape[0])
    for i, row in enumerate(x, start=1):
        out[i - 1] = row @ w * i
    return out


def first_rows_until(x, w):
    hits = np.zeros(x.shape[0], dtype=np.int64)
    for i, row in enumerate(x):
        hits[i] = np.argmax(row)
        if row.max() > 2.0:
            break
    total = 0.0
    for a, b in zip(x[:, 0], w):
        if a > 1.5:
            break
        total += a * b
    return hits, total


def zip_with_a_list(x):
    return sum(a * b for a, b in zip(x, [1.0, 2.0, 3.0])), [a + b for a, b in zip(x, x[::-1], strict=True)]


def test_enumerate_and_zip_over_traced_arrays_roll_and_break():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((300, 3))
    check_like_numpy(weighted_rows, x, np.ones(3))
    assert solvent.code_hlo(weighted_rows, x, np.ones(3), optimize="none").count("stablehlo.while") == 1
    for scale in (0.5, 1.0, 3.0):
        check_like_numpy(first_rows_until, scale * rng.standard_normal((6, 3)), rng.standard_normal(6))
    check_like_numpy(zip_with_a_list, np.array([1.0, -2.0, 0.5]))


TABLE = np.arange(10.0) * 3  # a lookup table: a constant of the program


def looks_up(i, x):
    out = np.zeros(20)
    for k in range(20):  # rolled: k is traced
        out[k] = TABLE[k % 10] * x[k % 3]
    return out, TABLE[i] + x[0], TABLE[:3][x > 0].sum(), TABLE[1:i], np.mgrid[0:3, 0:2][0][i % 3]


def test_a_numpy_array_from_outside_takes_traced_indices():
    x = np.array([1.0, -1.0, 2.0])
    actual = solvent.jit(looks_up)(solvent.Scalar(np.int64(4)), x)
    expected = looks_up(np.int64(4), x)
    for a, e in zip(actual, expected):
        assert_same(np.asarray(a), np.asarray(e))


ALIKE = (lambda x: max(x[0], x[1]) * 2, lambda x: x[0] if x[1] > 0 else x[2])  # two lambdas alike on one line
NESTED = lambda x: (lambda y: y[0] if y[1] > 0 else y[2])(x) + (lambda z: max(z[0], z[2]))(x)  # noqa: E731


@pytest.mark.parametrize("fn", [*ALIKE, NESTED])
def test_lambdas_alike_on_one_line_are_told_apart_by_their_columns(fn):
    """Each lambda is found by where its code's instructions are (they were left unrewritten, and
    max() or `if` of traced values then said bool() of a traced value)."""
    check_like_numpy(fn, np.array([3.0, 1.0, 2.0]))


def first_large(x):
    for i in range(len(x)):
        if x[i] > 50:
            break
    else:
        return -1
    return i


def test_a_traced_break_in_a_loop_with_else_names_the_else():
    """The error blamed the `if` alone, and its advice did not apply."""
    with pytest.raises(solvent.UnsupportedError, match=r"loop with `else:` at line \d+ \(solvent does not capture"):
        solvent.jit(first_large)(np.arange(5.0))


def closure_reads(u, n):
    def get():
        return u
    for _ in range(n):
        u = u + 1
        get()[0] += 10  # the array the loop just made
    return u


def closure_writes(u, v, n):
    def step(t):
        v[:] = u + t
    for t in range(n):
        step(t)
        u, v = v, u
    return u, v


def lambda_in_a_branch(x, n):
    scale = 1.0
    loss = lambda p: np.sum((p - x) ** 2) * scale  # noqa: E731
    total = 0.0
    for _ in range(n):
        if loss(x * 0.5) > 1:
            scale = scale * 0.5
        x = x * 0.9
        total += loss(x)
    return total, scale


@pytest.mark.parametrize("n", [0, 1, 2, 17])
def test_nested_functions_see_the_names_a_loop_or_branch_rebinds(n):
    # a nested function read the name as it was before the loop (its cell): [1, 2, ...] for NumPy's [11, 2, ...]
    check_like_numpy(closure_reads, np.arange(6.0), n)
    check_like_numpy(closure_writes, np.arange(6.0), np.zeros(6), n)
    check_like_numpy(lambda_in_a_branch, np.arange(6.0), n)


def test_a_name_a_loop_of_no_steps_never_bound_is_not_returned():
    def last(a, n):
        for i in range(n):
            t = a[i]
        return t, a

    with pytest.raises(UnboundLocalError, match="'t'"):  # (a placeholder object was returned)
        solvent.jit(last)(np.arange(3.0), 0)
    check_like_numpy(last, np.arange(30.0), 20)
