"""The generated call: nothing lost or torn when a call fails, is interrupted, or races another thread."""

import dataclasses
import os
import signal
import subprocess
import sys
import textwrap
import threading

import numpy as np
from numpy.lib.stride_tricks import as_strided
import pytest
from hypothesis import given, settings, strategies as st

import solvent
from differential import assert_same
from golden import assert_golden


def increment_both(a, b):
    a += 1
    b += 1


@pytest.mark.parametrize("read_only", ["broadcast_to", "flag"])
def test_a_read_only_argument_fails_the_call_before_anything_is_donated(read_only):
    a = solvent.asarray(np.zeros(3))
    if read_only == "flag":
        b = np.zeros(3)
        b.flags.writeable = False
    else:
        b = np.broadcast_to(np.zeros(1), (3,))
    with pytest.raises(solvent.SolventError, match="read-only") as raised:
        solvent.jit(increment_both)(a, b)
    assert isinstance(raised.value, ValueError)  # what NumPy raises for an in-place write there
    assert_same(np.asarray(a), np.zeros(3))  # the Array before it was not donated
    assert_same(np.asarray(b), np.zeros(3))


OUT_OF_MEMORY = """
    import resource
    resource.setrlimit(resource.RLIMIT_AS, (6 << 30, 6 << 30))  # a 6 GiB process on any machine
    import numpy as np, solvent

    def big_result(a, b):
        a += 1
        b += 1
        return np.zeros((2 ** 16, 2 ** 16)) + a[0]  # 32 GiB

    def big_temporary(a, b):
        a += 1
        b += 1
        return np.sort(np.outer(np.arange(2.0 ** 15) + a[0], np.arange(2.0 ** 15)).ravel())[:3]  # 8 GiB

    for f in (big_result, big_temporary):
        for kind in (solvent.asarray, np.asarray):
            a, b = kind(np.ones(3)), kind(np.ones(3))
            try:
                solvent.jit(f)(a, b)
            except solvent.SolventError as error:
                assert "RESOURCE_EXHAUSTED" in str(error) and "unchanged" in str(error), error
            else:
                raise AssertionError("no error")
            assert (np.asarray(a) == 1).all() and (np.asarray(b) == 1).all()
    print("intact")
"""


def run_python(source: str, timeout=300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(source)], capture_output=True, text=True,
                          timeout=timeout)


def test_out_of_memory_leaves_every_argument_intact():
    done = run_python(OUT_OF_MEMORY)
    assert done.stdout.strip() == "intact", done.stderr[-2000:]


def interrupted_inside(thunk, name):
    """Wrap the generated call's helper `name` so that SIGINT arrives just after it returns."""
    original = thunk.__globals__[name]

    def then_interrupt(*args, **kwargs):
        out = original(*args, **kwargs)
        signal.raise_signal(signal.SIGINT)  # Python's handler runs at the next bytecode
        return out
    thunk.__globals__[name] = then_interrupt


@pytest.mark.parametrize("kind, helper", [(solvent.asarray, "_execute"), (np.asarray, "_write")])
def test_ctrl_c_inside_a_mutating_call_waits_for_the_write_back(kind, helper):
    a, b = kind(np.zeros(3)), kind(np.zeros(3))
    compiled = solvent.compile(increment_both, a, b)
    interrupted_inside(compiled.thunk, helper)  # after the run, or between the two write-backs
    with pytest.raises(KeyboardInterrupt):
        compiled(a, b)
    assert_same(np.asarray(a), np.ones(3))  # both arguments written, neither lost
    assert_same(np.asarray(b), np.ones(3))


STORM = """
    import os, signal, sys
    import numpy as np, solvent

    def increment_both(a, b):
        a += 1
        b += 1

    f = solvent.jit(increment_both)
    pairs = [(solvent.asarray(np.zeros(64)), solvent.asarray(np.zeros(64))), (np.zeros(64), np.zeros(64))]
    for a, b in pairs:
        f(a, b)  # compiled before the storm; solvent's SIGINT handler is in place
    handler = signal.getsignal(signal.SIGINT)
    armed = False  # the storm may only land inside the calls

    def gate(signum, frame):
        if armed:
            handler(signum, frame)

    signal.signal(signal.SIGINT, gate)
    print("ready", flush=True)
    interrupts = 0
    while not os.path.exists(sys.argv[1]):
        try:
            armed = True
            for a, b in pairs:
                f(a, b)
            armed = False
        except KeyboardInterrupt:
            armed = False  # a store: CPython 3.11 runs no signal handler before it
            interrupts += 1
        for a, b in pairs:
            x, y = np.asarray(a), np.asarray(b)  # raises if a buffer was donated and lost
            assert (x == y).all() and (x == x[0]).all(), (x, y)  # never one written and not the other
    print("intact", interrupts, flush=True)
"""


def test_a_storm_of_interrupts_during_mutating_calls_loses_nothing(tmp_path):
    done = tmp_path / "done"
    child = subprocess.Popen([sys.executable, "-c", textwrap.dedent(STORM), str(done)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "ready", child.stderr.read()[-2000:]
        for _ in range(1000):
            os.kill(child.pid, signal.SIGINT)
            threading.Event().wait(0.001)
        done.touch()
        out, err = child.communicate(timeout=120)
    finally:
        child.kill()
    assert child.returncode == 0, err[-2000:]
    word, count = out.split()
    assert word == "intact" and int(count) > 100  # most of them arrived inside a call


def test_threads_mutating_one_array_serialize():
    a = solvent.asarray(np.zeros(16))
    step = solvent.jit(lambda x: x.__iadd__(1.0))
    step(a)
    errors, calls = [], 200

    def work():
        try:
            for _ in range(calls):
                step(a)
        except Exception as error:  # noqa: BLE001  (any error fails the test)
            errors.append(error)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert_same(np.asarray(a), np.full(16, 1.0 + 8 * calls))


def test_threads_reading_an_array_another_thread_mutates_see_whole_steps():
    a = solvent.asarray(np.zeros(16))
    step, read = solvent.jit(lambda x: x.__iadd__(1.0)), solvent.jit(lambda x: x * 2.0)
    step(a), read(a)  # compiled; `read` donates nothing and runs without the lock
    errors, seen, calls = [], [], 300

    def write():
        for _ in range(calls):
            step(a)

    def look():
        try:
            for _ in range(calls):
                seen.append(np.asarray(read(a)))
        except Exception as error:  # noqa: BLE001  (any error fails the test, a donated buffer's too)
            errors.append(error)

    threads = [threading.Thread(target=write), threading.Thread(target=look), threading.Thread(target=look)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    for values in seen:  # each read saw the array between two steps, never torn
        assert values[0] % 2 == 0 and (values == values[0]).all() and 2 <= values[0] <= 2 * (calls + 1)
    assert_same(np.asarray(a), np.full(16, 1.0 + calls))


def test_a_failed_run_is_a_solvent_error_naming_the_function():
    def oversized(a):
        return np.zeros((2 ** 40,)) + a[0]  # 8 TiB: XLA cannot allocate it

    with pytest.raises(solvent.SolventError, match="oversized") as raised:
        np.asarray(solvent.jit(oversized)(np.ones(2)))
    assert "RESOURCE_EXHAUSTED" in str(raised.value)


# -- arguments that share memory ------------------------------------------------------------------

def write_one_read_other(a, b):
    a[0] += 10
    b *= 2
    return a.sum() + b.sum(), b + a[:1]


@pytest.mark.parametrize("view", [lambda a: a[1:], lambda a: a[::2], lambda a: a[:3], lambda a: a[::-1],
                                  lambda a: a[2:4]])
@pytest.mark.parametrize("made_by", ["numpy", "solvent"])  # solvent's large results view XLA's buffer
def test_a_view_and_its_base_as_two_arguments(view, made_by):
    base = np.arange(6000.0) if made_by == "numpy" else solvent.jit(lambda n: np.arange(float(n)))(6000)
    expected_base = base.copy()
    expected = write_one_read_other(expected_base, view(expected_base))
    result = solvent.jit(write_one_read_other)(base, view(base))
    assert_same(result[0], expected[0])
    assert_same(result[1], expected[1])
    assert_same(base, expected_base)


def add_into(x, y):
    x += y
    return x


@pytest.mark.parametrize("pair", [lambda m: (m[0], m[1]), lambda m: (m, m.T), lambda m: (m[:2, :2], m[1:, 1:]),
                                  lambda m: (m[::-1, 0], m[:, 2])], ids=["rows", "transpose", "blocks", "columns"])
def test_two_views_of_one_array_that_is_not_an_argument(pair):
    m = np.arange(9.0).reshape(3, 3) ** 2
    expected_m = m.copy()
    add_into(*pair(expected_m))
    x, y = pair(m)
    assert solvent.jit(add_into)(x, y) is x
    assert_same(m, expected_m)


def weighted_sum(x, y):
    return x[:3] * 10.0 + 2.0 * y


@pytest.mark.parametrize("first", [lambda a: (a[:3], a[:3]), lambda a: (a, a[1:])], ids=["twice", "view"])
def test_a_program_compiled_for_one_array_twice_takes_separate_arrays_apart(first):
    """A program that writes no argument, first called with aliasing arguments, was compiled with one
    input for both: later calls with separate arrays passed its guard and read the first one twice."""
    compiled = solvent.jit(weighted_sum)
    a = np.arange(4.0)
    assert_same(compiled(*first(a)), weighted_sum(*first(a)))
    x, y = (np.arange(float(p.size)) + 10.0 * k for k, p in enumerate(first(a)))
    for _ in range(2):
        assert_same(compiled(x, y), weighted_sum(x, y))


def shifts_into_one(x):
    x[1] += 5.0
    return x.sum()


def test_a_view_whose_elements_overlap_is_refused_after_plain_calls():
    """Its writes show in every element that is one in memory: once the program had run for plain
    arrays, the view took the plain signature's program (and lost writes)."""
    compiled = solvent.jit(shifts_into_one)
    compiled(np.zeros(4))
    compiled(np.zeros(4))
    a = np.zeros(4)
    with pytest.raises(solvent.UnsupportedError, match="overlap"):
        compiled(as_strided(a, (4,), (0,)))
    assert_same(a, np.zeros(4))
    b = np.zeros(6)
    assert compiled(b[::2]) == 5.0 and b[2] == 5.0  # a view that does not overlap itself is fine


def _slices(draw, n):
    start, stop = draw(st.integers(-n, n)), draw(st.integers(-n, n))
    return slice(start, stop, draw(st.sampled_from([1, 2, -1, -2, 3])))


@settings(max_examples=40, deadline=None)
@given(st.data(), st.sampled_from([(7,), (3, 4)]), st.sampled_from(["write_first", "both", "swap"]))
def test_random_views_of_one_array_match_numpy(data, shape, kind):
    keys = [tuple(_slices(data.draw, n) for n in shape) for _ in range(2)]
    base = np.arange(float(np.prod(shape))).reshape(shape) + 1

    def f(x, y):
        if kind == "write_first":
            x[...] = x * 3 + 1
            return y.sum(), y * 1
        if kind == "both":
            x += 5
            y *= -1
            return x.sum() + y.sum()
        x[...], y[...] = y.sum(), x.sum()
        return x.mean() if x.size else 0.0

    expected_base = base.copy()
    expected = f(expected_base[keys[0]], expected_base[keys[1]])
    result = solvent.jit(f)(base[keys[0]], base[keys[1]])
    assert_same(base, expected_base)
    for r, e in zip(result if isinstance(result, tuple) else (result,), expected if isinstance(expected, tuple)
                    else (expected,)):
        assert_same(np.asarray(r), np.asarray(e))


def resident_kilobytes() -> int:
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))


def test_ndarray_calls_keep_memory_flat():
    pure, bump = solvent.jit(lambda x, y: x * y + 1.0), solvent.jit(lambda x: x.__iadd__(1.0))
    x, y = np.arange(256.0), np.ones(256)
    for _ in range(2000):
        pure(x, y), bump(x)
    before = resident_kilobytes()
    for _ in range(20_000):
        pure(x, y), bump(x)
    assert resident_kilobytes() < before * 1.05
    assert_same(x, np.arange(256.0) + 22_000)


@pytest.mark.parametrize("n", [4, 8192])  # a copy out of XLA's buffer, and (64 KiB) a view of it
def test_host_results_are_fresh_writable_arrays_untouched_by_later_calls(n):
    pure = solvent.jit(lambda x: x * 2.0)
    x = np.arange(float(n))
    first = pure(x)
    second = pure(x + 1)
    first[0] = 100.0  # writable, like NumPy's own results
    assert_same(second, (np.arange(float(n)) + 1) * 2)
    assert_same(pure(first), first * 2)  # given back: a new result, the argument left as it was
    assert first[0] == 100.0 and first[1] == 2.0
    assert_same(x, np.arange(float(n)))  # an argument the function does not mutate never changes


@dataclasses.dataclass
class Pair:
    first: object
    second: object


def pure(x, y):
    return x * y + 1.0


def bump(x):
    x += 1.0


def paired(x):
    return Pair(x + 1.0, x * 2.0)


@pytest.mark.parametrize("name, fn, make", [
    ("plain", pure, lambda: (np.ones(3), np.ones(3))),
    ("viewed_result", pure, lambda: (np.ones(8192), np.ones(8192))),
    ("mutated_ndarray", bump, lambda: (np.ones(3),)),
    ("mutated_array", bump, lambda: (solvent.asarray(np.ones(3)),)),
    ("dataclass_result", paired, lambda: (np.ones(3),)),
])
def test_generated_thunks_are_as_reviewed(name, fn, make):
    assert_golden(f"thunk_{name}.txt", solvent.compile(fn, *make()).thunk.source)


def _python_scalars(x, rng, rs):
    total = 0
    for i in range(x.shape[0]):
        total = i * 2  # a rolled loop's index: a Python int in NumPy's loop
    return (float(x.sum()), int(x[1]), round(x[2]), len(x[x > 0]), np.allclose(x, x), total, x.sum(),
            rng.random(), rng.normal(), rng.choice(1), rs.randint(0, 7), rs.standard_normal())


def test_python_scalars_come_back_as_pythons():
    """What NumPy gives as a Python float, int or bool (float(), len(), np.allclose, a loop index, a
    draw with no size) comes back as one, not as a NumPy scalar; a NumPy scalar stays one."""
    x = np.array([0.5, -1.0, 2.5])
    got = solvent.jit(_python_scalars)(x, np.random.default_rng(3), np.random.RandomState(3))
    want = _python_scalars(x, np.random.default_rng(3), np.random.RandomState(3))
    assert [type(g) for g in got] == [type(w) for w in want]
    assert got == want


def test_generated_code_runs_with_plain_dict_globals():
    """CPython caches global lookups only for an exact dict: a subclass as globals cost ~1.5 µs a call."""
    compiled = solvent.compile(bump, np.ones(3))
    assert type(compiled.thunk.__globals__) is dict
    assert type(compiled.thunk.fast.__globals__) is dict
