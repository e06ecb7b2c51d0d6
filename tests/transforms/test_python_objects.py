"""Python objects changed in a rolled loop or a traced branch: their numbers carried by a static loop,
the loop unrolled where they grow, a clear error where the change would depend on the data; never a
silent wrong result."""

import inspect
import warnings

import numpy as np
import pytest

import solvent
from differential import assert_same, check_like_numpy


class Counter:
    def __init__(self):
        self.n = 0


class State:
    def __init__(self, u):
        self.u = u


def appended(x):
    seen = []
    for i in range(20):  # longer than `unroll`: it would roll
        seen.append(i)
        x[i] += len(seen)
    return x


def counted_in_a_dict(x):
    count = {"n": 0}
    for i in range(20):
        count["n"] += 1
        x[i] *= count["n"]
    return x


def counted_in_an_attribute(x):
    c = Counter()
    for i in range(20):
        c.n = c.n + 1
        if x[i] > 0:  # and a traced branch beside it
            x[i] += c.n
    return x


def collected(x):
    parts = []
    for i in range(20):
        parts.append(x[i] * 2.0)
    return np.stack(parts)


@pytest.mark.parametrize("fn", [appended, collected])
def test_a_static_loop_growing_python_objects_unrolls_and_follows_numpy(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_like_numpy(fn, np.linspace(-1.0, 1.0, 20))
    assert any("unrolled" in str(w.message) for w in caught)


@pytest.mark.parametrize("fn", [counted_in_a_dict, counted_in_an_attribute])
def test_a_static_loop_giving_entries_new_numbers_carries_them(fn):
    """A dict item or an attribute the body rebinds to another number is carried as a name is."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_like_numpy(fn, np.linspace(-1.0, 1.0, 20))
    assert "stablehlo.while" in solvent.code_hlo(fn, np.linspace(-1.0, 1.0, 20), optimize="none")


def logged_in_a_branch(x):
    log = []
    if x[0] > 0:
        log.append("positive")
    return x * len(log)


def counted_in_a_branch(x):
    c = Counter()
    if x.sum() > 0:
        c.n += 1
    return x + c.n


def steps_of_a_while(x):
    steps = []
    i = 0
    while i < 9 and x[i] > 0:
        steps.append(i)
        i += 1
    return x + len(steps)


@pytest.mark.parametrize("fn, name, statement", [(logged_in_a_branch, "log", "log.append"),
                                                 (counted_in_a_branch, "c", "c.n += 1"),
                                                 (steps_of_a_while, "steps", "steps.append")])
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_a_traced_branch_or_loop_changing_a_python_object_is_an_error(fn, name, statement, sign):
    x = sign * np.arange(1.0, 11.0)
    before = x.copy()
    with pytest.raises(solvent.ControlFlowError, match=f"changes the Python object `{name}`") as error:
        solvent.jit(fn)(x)
    source, start = inspect.getsourcelines(fn)
    line = start + next(k for k, text in enumerate(source) if statement in text)
    assert f"test_python_objects.py:{line}" in str(error.value)  # the body's first line
    np.testing.assert_array_equal(x, before)


def read_from_objects(x, table):
    weights = [0.5, 2.0]
    state = State(np.zeros(20))
    arrays = [x]
    for i in range(20):
        if x[i] > table["cut"]:
            arrays[0][i] += weights[1]  # writes through a list: the array changes, the list does not
        state.u[i] = x[i] * weights[0]
    return x, state.u


def test_objects_only_read_or_holding_arrays_written_in_place_roll():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_like_numpy(read_from_objects, np.linspace(-1.0, 1.0, 20), {"cut": 0.25})
    text = solvent.code_hlo(read_from_objects, np.linspace(-1.0, 1.0, 20), {"cut": 0.25}, optimize="none")
    assert "stablehlo.while" in text


def test_the_probe_of_a_short_loop_leaves_python_objects_as_they_were():
    """A short loop holding an `if` is traced once apart to see whether it branches, and once rolled:
    a list it appends to gets each step's item once, as the loop unrolls."""
    def short(x):
        seen = []
        for i in range(3):
            seen.append(i)
            if x[i] > 0:
                x[i] += 1.0
        return x + len(seen)

    check_like_numpy(short, np.array([1.0, -1.0, 2.0]))


class Rod:
    """A simulation object as people write them: its state, its clock and a step method."""

    def __init__(self, u):
        self.u, self.t, self.steps = u, 0.0, 0

    def step(self):
        self.u[1:-1] += 0.1 * (self.u[2:] - 2 * self.u[1:-1] + self.u[:-2])
        self.t += 0.01
        self.steps += 1


def run_rod(u, steps):
    rod = Rod(u)
    for _ in range(steps):
        rod.step()
    return rod.u, rod.t, rod.steps


@pytest.mark.parametrize("steps", [40, 300])
def test_an_object_stepping_its_own_clock_in_a_long_loop_follows_numpy(steps):
    """The loop carries `rod.t` and `rod.steps` (with the body traced once and nothing carried, they
    would advance once); 300 steps are past what could unroll."""
    u = np.sin(np.linspace(0.0, 3.0, 30))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = solvent.jit(run_rod, static_argnames="steps")(u.copy(), steps=steps)
    expected = run_rod(u.copy(), steps)
    assert_same(result[0], expected[0])
    assert result[2] == expected[2] and abs(result[1] - expected[1]) <= 1e-12 * steps


class Solver:
    def __init__(self):
        self.iterations, self.error = 0, 1.0


def square_roots(a):
    """Newton's iteration until it settles, counting in an object's attributes the test reads."""
    solver = Solver()
    x = np.ones_like(a)
    while solver.error > 1e-10 and solver.iterations < 100:
        new = 0.5 * (x + a / x)
        solver.error = np.max(np.abs(new - x))
        x = new
        solver.iterations += 1
    return x, solver.iterations, solver.error


def test_a_data_dependent_while_carries_the_numbers_of_an_object_its_test_reads():
    check_like_numpy(square_roots, np.linspace(1.0, 50.0, 7))
    check_like_numpy(square_roots, np.full(3, 4.0))
