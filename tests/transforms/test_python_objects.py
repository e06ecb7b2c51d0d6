"""Python objects changed in a rolled loop or a traced branch: their numbers carried by a static loop,
the loop unrolled where they grow, a clear error where the change would depend on the data; never a
silent wrong result."""

import collections
import inspect
import warnings

import numpy as np
import pytest

import solvent
from differential import assert_same, check_like_numpy
from solvent.errors import EscapedValueError


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


def appended_in_a_branch(x):
    parts = []
    for i in range(20):
        if i % 2:
            parts.append(x[i] * 2.0)
    return np.stack(parts)


def appended_what_the_loop_changes_in_place(x):
    hist = []
    for i in range(20):
        x += 1.0
        hist.append(x)  # NumPy's list holds x twenty times, all of its last value
    return hist


def appended_then_written_in_the_next_step(x):
    hist = []
    for i in range(20):
        x *= 0.5  # changes the item the last step appended
        x = x + 1.0
        hist.append(x)
    return np.array(hist)


def appended_a_view(grid):
    rows = []
    for i in range(20):
        rows.append(grid[i])
    grid += 1.0  # the rows NumPy's list holds change with it
    return rows


def appended_while_an_alias_reads_it(x):
    losses = []
    alias = losses
    for i in range(20):
        x = x * 0.9
        losses.append(x.sum())
        x = x + len(alias)  # NumPy's alias grows with the list
    return x


class Log:
    def __init__(self):
        self.items = []


def appended_while_its_holder_reads_it(x):
    log = Log()
    losses = log.items
    for i in range(20):
        x = x * 0.9
        losses.append(np.abs(x).max())
        x = x + 0.1 * sum(log.items)
    return x


def appended_while_a_closure_reads_it(x):
    losses = []

    def total():
        return sum(losses)
    for i in range(20):
        losses.append(np.abs(x).max())
        x = x * 0.5 + 0.1 * total()
    return x


def appended_one_array_twice(x):
    pairs = []
    for i in range(20):
        y = x * i
        pairs.append((y, y))  # NumPy's tuple holds one array twice: a write through one shows in the other
    first, second = pairs[2]
    first += 100.0
    return second, pairs[3][0] is pairs[3][1]


@pytest.mark.parametrize("fn", [appended, appended_in_a_branch, appended_what_the_loop_changes_in_place,
                                appended_then_written_in_the_next_step, appended_while_an_alias_reads_it,
                                appended_while_its_holder_reads_it, appended_while_a_closure_reads_it,
                                appended_one_array_twice])
def test_a_static_loop_growing_python_objects_unrolls_and_follows_numpy(fn):
    """Rolled, a body that reads the list it grows, appends in a branch, or appends an array that may
    change afterwards would go wrong: the loop unrolls."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_like_numpy(fn, np.linspace(-1.0, 1.0, 20))
    assert any("unrolled" in str(w.message) for w in caught)


def test_a_static_loop_appending_views_unrolls_and_follows_numpy():
    with pytest.warns(UserWarning, match="unrolled"):
        check_like_numpy(appended_a_view, np.arange(60.0).reshape(20, 3))


def losses(w, X, y):
    history = []
    for step in range(300):  # past what could unroll
        r = X @ w - y
        w -= 0.05 * X.T @ r / len(y)
        history.append((r * r).mean())
    return w, np.array(history)


def path(x):
    states = [x.copy()]
    for t in range(99, 1, -2):
        x = 0.5 * (x + np.roll(x, 1))
        states.append(x.copy())
    return np.stack(states)


def trajectory(y, dt):
    out = []
    for _ in range(40):
        y = y + dt * np.array([y[1], -np.sin(y[0])])  # the loop goes on with the array it appends
        out.append(y)
    y[0] = 0.0  # NumPy's list holds this array last: it changes with it
    return np.array(out[:-1]), out[-1], len(out)


def counted(x):
    steps, times = [], []
    t = 0.0
    for k in range(30):
        t += 0.125
        steps.append(k)
        times.append(t)
    return x * times[-1], steps, sum(steps)


def draws(rng):
    samples = []
    for _ in range(40):
        samples.append(rng.random(2))  # (a view of the step's draw)
    return np.array(samples), rng.random()


def walk(x):
    a, b = 0.0, 1.0
    pairs, rows, log = [], [], []
    for i in range(40):
        a, b = b, a + 0.5 * b * x[i % 3]
        pairs.append((a, b))  # a trajectory of points
        rows.append((x * a, x - b))
        log.append((i, float(x.sum()) * a, x.sum(), x[:2] * b))  # (of several kinds: a buffer each)
    return pairs, np.array(pairs), np.array(rows), log, [[type(v) for v in items[-1][:3]] for items in (pairs, log)]


def summed_after(x):
    means = []
    for _ in range(300):
        x = np.cos(x)
        means.append(x.mean())
    return sum(m for m in means), any(m > 0.99 for m in means)  # (generator expressions after the loop)


def row_sums(m):
    sums = []
    for row in m:
        sums.append(row.sum())
    return sums


def rebound(x):
    means = []
    for _ in range(300):
        x = np.cos(x)
        means.append(x.mean())
    means = np.array(means)  # (the name rebound after the loop: it unrolled, 14 s at 200 steps)
    return means


@pytest.mark.parametrize("fn, args", [
    (losses, (np.zeros(3), np.linspace(0.0, 1.0, 60).reshape(20, 3), np.linspace(1.0, 2.0, 20))),
    (path, (np.linspace(0.0, 1.0, 8),)),
    (trajectory, (np.array([1.0, 0.0]), 0.05)),
    (counted, (np.ones(3, np.float32),)),
    (row_sums, (np.arange(120.0).reshape(40, 3),)),
    (rebound, (np.linspace(0.0, 1.0, 5),)),
    (summed_after, (np.linspace(0.0, 1.0, 5),)),
    (walk, (np.array([0.5, -0.25, 0.125]),)),
    (draws, (np.random.default_rng(1),))])
def test_a_static_loop_appending_one_item_a_step_rolls_and_collects_them(fn, args):
    """A list the body only appends to, one number or array it made each step (or a tuple of them), is
    carried as a buffer of one row a step: the loop rolls, and the list holds what NumPy's does, Python numbers
    still Python numbers."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_like_numpy(fn, *args)
        result = solvent.jit(fn)(*args)
    if fn is counted:
        assert [type(k) for k in result[1]] == [int] * 30 and type(result[2]) is int
    assert "stablehlo.while" in solvent.code_hlo(fn, *args, optimize="none")


def out_of_range(x):
    return [x[i] for i in range(x.shape[0] + 2)]


def accumulated(x):
    y = 0.0
    return [(y := y + x[i]) for i in range(20)], y


def bumped(x):
    x[0] += 1.0
    return x[0]


def bumped_in_a_comprehension(x):
    return [bumped(x) for _ in range(3)], [bumped(x[i:]) for i in range(20)]


def test_a_rolled_comprehension_keeps_pythons_index_error_and_walrus():
    """Rolled, x[i] past the end would be clamped: the last item is traced first, raising NumPy's
    IndexError; a `:=` in the element binds the function's name, so it stays Python's comprehension.
    That trace of the last item made its writes once more (`[step(x) for _ in range(3)]` stepped 4 times)."""
    with pytest.raises(IndexError, match="out of bounds"):
        solvent.jit(out_of_range)(np.arange(18.0))
    check_like_numpy(accumulated, np.arange(20.0))
    check_like_numpy(bumped_in_a_comprehension, np.zeros(20))


def moving_average(x):
    return np.array([x[i:i + 5].mean() for i in range(len(x) - 4)]), [i * 2 for i in range(40)]


def rolled_images(x):
    M = x[:64].reshape(8, 8)
    return [sum(np.roll(M, k + i, k % 2) for k in range(8)) for i in range(10)]  # 16 shifts a step: the rest rolls


@pytest.mark.parametrize("fn", [moving_average, rolled_images])
def test_a_list_comprehension_over_a_range_rolls_where_its_items_are_traced(fn):
    """`[f(i) for i in range(n)]` was unrolled (500 moving averages: a 13 s first call): it now runs as a
    loop appending one item a step, rolled by the loop's rules; static items stay Python's."""
    x = np.random.default_rng(6).random(300)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_like_numpy(fn, x)
    assert "stablehlo.while" in solvent.code_hlo(fn, x, optimize="none")
    if fn is moving_average:
        assert [type(v) for v in solvent.jit(fn)(x)[1]] == [int] * 40


def scaled_by_late_bound_lambdas(x):
    scales = [lambda v: v * k for k in range(3)]
    constants = [(lambda: k) for k in range(3)]
    return scales[0](x), x * constants[1](), [g(x) for g in [lambda v: v + k for k in range(3)]]


def test_lambdas_made_in_a_comprehension_see_its_last_item_as_pythons():
    """Python's comprehension has one `k`, which every lambda in it reads when called (2); rewritten as
    a function of each item, each lambda kept its own (scales[0](x) was x * 0)."""
    check_like_numpy(scaled_by_late_bound_lambdas, np.ones(2))


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


def queued_in_a_branch(x):
    queue = collections.deque([0])
    if x[0] > 0:
        queue.append(1)  # (a deque was not watched: NumPy's length 1 or 2, solvent's always 2)
    return x * len(queue)


def extended_in_a_branch(x):
    out = [7.0]
    if x[0] > 0:
        out += [1.0]  # (a list a name holds: the branch changes it in place, and it always ran)
    return x * len(out)


class Bumper:
    def __init__(self):
        self.n = 0

    def bump(self):
        self.n += 1
        return True


def bumped_by_and(x):
    c = Bumper()
    if x[0] > 0 and c.bump():  # (the right operand's change always happened)
        x = x + 1.0
    return x * c.n


def drawn_in_a_branch(x):
    items = iter([2.0, 3.0])
    s = 0.0
    if x[0] > 0:
        s = next(items)  # (an iterator was not watched: NumPy's 2 + 3 or 0 + 2, solvent's 0 + 3 for the second)
    return x * (s + next(items))


@pytest.mark.parametrize("fn, name, statement", [(logged_in_a_branch, "log", "log.append"),
                                                 (steps_of_a_while, "steps", "steps.append"),
                                                 (queued_in_a_branch, "queue", "queue.append"),
                                                 (extended_in_a_branch, "out", "out +="),
                                                 (bumped_by_and, "c", "def bump"),
                                                 (drawn_in_a_branch, "items", "next(items)")])
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


def drawn_in_a_rolled_loop(x):
    weights = iter(range(1, 100))
    s = 0.0
    for i in range(20):
        s += x[i % 3] * next(weights)  # (the trace of the rolled body drew one item for every step)
    return s


def generated_in_a_rolled_loop(x):
    weights = (k * k for k in range(100))
    s = 0.0
    for i in range(20):
        s += x[i % 3] * next(weights)
    return s


def test_an_iterator_advanced_by_a_rolled_loop_unrolls_or_is_an_error():
    """A list's or range's iterator is put back after the trace (the loop then unrolls, drawing as
    NumPy's run does); a generator cannot be, and is an error that says to make it a list."""
    x = np.array([1.0, -2.0, 0.5])
    with pytest.warns(UserWarning, match="unrolled.*changes the Python object `weights`"):
        check_like_numpy(drawn_in_a_rolled_loop, x)
    with pytest.raises(solvent.SolventError, match="advances the iterator `weights`.*list"):
        solvent.jit(generated_in_a_rolled_loop)(x)


def helper_drawing(x, items):
    return x * next(items)


def drawn_by_a_helper(x):
    items = (v for v in [1.0, 2.0, 3.0])
    return helper_drawing(x, items) + 10 * helper_drawing(x, items)


def merged_in_a_branch(x):
    d = {"a": x[0], "b": 1.0}
    if x[1] > 0:
        d |= {"a": x[1]}  # (in place: the name's dict was read back as the trace left it, put back)
    return d["a"] * d["b"]


def test_helpers_drawing_from_an_iterator_and_dicts_merged_in_place_follow_numpy():
    """A helper given an iterator was traced once and called again, its item a constant: 11x
    where NumPy gives 21x."""
    check_like_numpy(drawn_by_a_helper, np.array([1.0, 2.0]))
    for sign in (1.0, -1.0):
        check_like_numpy(merged_in_a_branch, sign * np.array([1.0, 2.0]))


class Ball:
    def __init__(self, x, v):
        self.x, self.v, self.bounces, self.log = x, v, 0, {"hits": 0}

    def step(self):
        self.x = self.x + self.v
        if self.x > 10 or self.x < 0:  # traced once self.x is
            self.v = -self.v
            self.bounces += 1
            self.log["hits"] = self.log["hits"] + 1


def bounced(ball, steps):
    for _ in range(steps):
        ball.step()
    return ball.x


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_a_traced_branch_chooses_the_attributes_and_items_it_sets(sign):
    """`c.n += 1` or `self.v = -self.v` in a traced `if` was refused as a change made once whatever
    the data: such entries are now chosen as names are, counters staying Python ints."""
    x = sign * np.arange(1.0, 11.0)
    check_like_numpy(counted_in_a_branch, x)

    def balls():
        return Ball(np.float64(3.0), np.float64(1.7)), Ball(np.float64(3.0), np.float64(1.7))
    for steps in (5, 50):  # unrolled, then rolled (its entries carried)
        ours, numpys = balls()
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert solvent.jit(bounced, static_argnames="steps")(ours, steps=steps) == bounced(numpys, steps)
        assert (ours.x, ours.v, ours.bounces, ours.log) == (numpys.x, numpys.v, numpys.bounces, numpys.log)
        assert type(ours.bounces) is int and ours.bounces > 0


class Pair:
    def __init__(self):
        self.n, self.m = 0, 0


def set_apart(s, x):
    if x.sum() > 0:
        s.n += 1
    else:
        s.m = 3  # another attribute than the other branch's
    return x


def appended_through_a_branch(y, c):
    out = []
    for i in range(20):
        if c[i] > 0:
            y = y * 2  # else the name stays on last step's array: NumPy's list holds it twice
        out.append(y)
    y += 1  # changes every item that is this array
    return out


def test_entries_each_branch_sets_and_items_a_branch_may_keep():
    for sign in (1.0, -1.0):
        ours, numpys = Pair(), Pair()
        solvent.jit(set_apart)(ours, sign * np.ones(3))
        set_apart(numpys, sign * np.ones(3))
        assert vars(ours) == vars(numpys)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (it unrolls)
        check_like_numpy(appended_through_a_branch, np.ones(2), np.array([1.0, -1.0] * 10))


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


LOG = []


def logs_its_sum(x):
    LOG.append(np.sum(x))
    return x * 2


class Recorder:
    def __init__(self):
        self.history, self.calls = [], 0

    def step(self, x):
        self.history.append(np.sum(x))
        self.calls += 1
        return x + 1


def test_a_traced_value_kept_in_a_global_or_an_attribute_is_an_error_and_undone():
    """Compiled, the object would keep one dead value of the trace whatever the calls (it did,
    silently); static values (a shape) may still be recorded while tracing."""
    with pytest.raises(EscapedValueError, match="`LOG`"):
        solvent.jit(logs_its_sum)(np.ones(2))
    assert LOG == []
    recorder = Recorder()
    with pytest.raises(EscapedValueError, match="`self`"):
        solvent.jit(recorder.step)(np.ones(2))
    assert recorder.history == [] and recorder.calls == 0
    shapes = []

    def records_its_shape(x):
        shapes.append(x.shape)
        return x + 1
    solvent.jit(records_its_shape)(np.ones(3))
    assert shapes == [(3,)]


class Tally:
    count = 0


COUNTER = Tally()


def counts_in_a_rolled_loop(x):
    for _ in range(40):
        COUNTER.count += 1  # a global object's attribute, carried as a traced int
        x[0] += 1
    return x


def test_a_global_objects_attribute_a_rolled_loop_carries_is_an_error_and_undone():
    """The names a rolled body (a function the rewrite defines inside) looks up are watched as the
    function's own: the global object kept a traced int, silently, and the count was lost."""
    COUNTER.count, x = 0, np.zeros(2)
    with pytest.raises(EscapedValueError, match="`COUNTER`"):
        solvent.jit(counts_in_a_rolled_loop)(x)
    assert COUNTER.count == 0
    np.testing.assert_array_equal(x, np.zeros(2))


LAST_SUM = None


def keeps_its_sum(x):
    global LAST_SUM
    LAST_SUM = x.sum()
    return x


def test_a_traced_value_given_to_a_global_name_is_an_error_and_undone():
    with pytest.raises(EscapedValueError, match="`LAST_SUM`"):
        solvent.jit(keeps_its_sum)(np.ones(3))
    assert LAST_SUM is None
