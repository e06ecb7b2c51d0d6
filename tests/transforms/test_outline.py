"""Call outlining: user functions called many times are traced once, and NumPy semantics hold."""

import dataclasses

import numpy as np

import solvent
from differential import assert_same, check_like_numpy


def layer(x, w):
    return np.tanh(x @ w) + x


def network(x, w):
    for _ in range(20):
        x = layer(x, w)
    return x


def test_layer_called_many_times_is_one_function():
    rng = np.random.default_rng(0)
    x, w = rng.random((4, 3)), rng.random((3, 3)) * 0.1
    check_like_numpy(network, x, w)
    text = solvent.code_hlo(network, x, w, optimize="none", unroll=64)  # 20 calls, not a loop
    assert text.count("func.func private @layer") == 1
    assert text.count("call @layer") == 20


def scale_in_place(a, factor):
    a *= factor


def interior(u):
    return u[1:-1]


def uses_impure_helpers(u, v):
    scale_in_place(u, 2.0)       # mutates its argument: outlined, the mutation comes back
    scale_in_place(u, 2.0)
    interior(v)[:] = -1.0        # returns a view of its argument: inlined
    interior(v)[0] = 5.0
    return u.sum()


def test_mutation_and_views_through_helpers():
    check_like_numpy(uses_impure_helpers, np.arange(4.0), np.zeros(5))


@dataclasses.dataclass
class Counter:
    n: int
    total: np.ndarray


def bump(counter, x):
    counter.n = counter.n + 1
    counter.total = counter.total + x


def uses_object_helper(counter, x):
    bump(counter, x)
    bump(counter, x)
    return counter.total


def test_helpers_changing_python_objects_are_inlined():
    counter, ref = Counter(0, np.zeros(2)), Counter(0, np.zeros(2))
    out = solvent.jit(uses_object_helper)(counter, np.ones(2))
    expected = uses_object_helper(ref, np.ones(2))
    assert_same(out, expected)
    assert counter.n == 2
    assert_same(counter.total, ref.total)


CALLS = {"n": 0}
LAST = None


def scaled_by_calls(v):
    CALLS["n"] += 1
    return v * CALLS["n"]


def keeps_last(v):
    global LAST
    LAST = (LAST or 0) + v.shape[0]
    return v


def test_helpers_changing_closures_and_globals_run_their_changes_at_every_call():
    """Outlined, a helper was traced once and its later calls reused the trace: an item of a global
    or closure object, a `nonlocal` or `global` name changed once whatever the calls (and a
    traced value stored in a closure cell was used outside its function: a raw MLIR error)."""
    def f(x):
        seen, total = [], 0.0

        def emit(v):
            nonlocal total
            seen.append(v.shape[0])
            total = total + v[0]
            return v

        y = scaled_by_calls(x) + scaled_by_calls(x) + emit(x) + emit(x[::-1])
        return y + keeps_last(x) + keeps_last(-x), len(seen), total, LAST

    global LAST
    for run in (f, solvent.jit(f)):
        CALLS["n"], LAST = 0, None
        result = run(np.arange(3.0))
        assert CALLS["n"] == 2 and LAST == 6
        expected = result if run is f else expected
    assert_same(result, expected)
    LAST = None


def test_closure_over_traced_values_is_inlined():
    def f(x):
        shift = x.sum()

        def add_shift(y):
            return y + shift

        return add_shift(x) + add_shift(x * 2)

    check_like_numpy(f, np.arange(3.0))


def _shifter(x):
    shift = x.sum()
    return (lambda y: y + shift), np.min(x)


def test_a_returned_closure_over_a_value_traced_inside_is_inlined():
    """A helper returning a closure over a value it traced: outlined, the caller's call of it used a
    value of the helper's function (invalid IR, a raw MLIR error)."""
    def f(x):
        add, low = _shifter(x)
        other, _ = _shifter(x * 2)
        return add(low) + other(x)

    check_like_numpy(f, np.arange(3.0))


def test_a_returned_partial_is_a_python_object():
    import functools

    def scaled(x):
        return functools.partial(np.add, x * 2)

    def f(x):
        return scaled(x)(x) + scaled(x + 1)(x)

    check_like_numpy(f, np.arange(3.0))


def _rows(i, n):
    return slice(None, i), slice(i, n)


def test_a_helper_returning_slices_of_its_traced_arguments_is_inlined():
    """Slices whose bounds the helper traced: outlined, the caller's index used a value of the
    helper's function (invalid IR, a raw MLIR error)."""
    def f(A, out):
        for i in range(A.shape[0]):
            before, after = _rows(i, A.shape[0])
            out[i] = A[i, before] @ A[before, i] + np.sum(A[i, after])

    check_like_numpy(f, np.random.default_rng(3).standard_normal((70, 70)), np.zeros(70))


def _spread(v):
    return (np.sort(v) * v).sum() - np.median(v)


def test_a_helper_given_a_slice_of_traced_length_is_inlined_and_keeps_its_mask():
    """A slice of a rolled loop's traced length (or a mask selection) has no parameter type: the
    helper runs inline, where the rules for such slices apply (it was refused: the loop unrolled,
    or raised past 256 steps)."""
    def running(x, out):
        for i in range(x.shape[0]):
            out[i] = _spread(x[:i + 1]) + _spread(x[x >= x[i]])

    x = np.random.default_rng(12).standard_normal(300)
    out = np.zeros(300)
    solvent.jit(running)(x, out)
    expected = np.zeros(300)
    running(x, expected)
    assert_same(out, expected, 1e-9, 1e-9)


def doubled(x):
    return (v * 2 for v in x)


def consumes_a_generator(x):
    return list(doubled(x)), sum(doubled(x))


def test_a_helper_returning_a_generator_is_inlined():
    # the generator ran in the caller, on the outlined function's arguments: a raw MLIRError
    check_like_numpy(consumes_a_generator, np.arange(3.0))


def raises_after_work(x, v):
    v = v + 1.0
    raise ValueError("boom")


def raises_after_a_write(x, v):
    v += 1.0  # NumPy's caller sees this write: the exception comes after it
    raise ValueError("boom")


def caught(x, v):
    for helper in (raises_after_work, raises_after_a_write):
        try:
            helper(x, v)
        except ValueError:
            pass
    return v * x


def test_a_helper_that_raises_inside_the_callers_try_is_caught_as_in_numpy():
    """Outlined, the helper's half-built function stayed in the module (an MLIR verification error:
    block with no terminator); the call now goes inline, where it raises again after its writes."""
    check_like_numpy(caught, np.ones(3), np.zeros(3))


def doubled(a):
    return a * 2


def scaled_by_helpers(x):
    return x * doubled(float(x[0])), doubled(float(x[1])), doubled(int(x[2])), doubled(x[0])


def test_a_python_number_given_to_a_helper_stays_one():
    """float(x[0]) given to an outlined helper came back np.float64, so float32 code got float64."""
    x = np.array([1.5, 2.0, 3.0], np.float32)
    check_like_numpy(scaled_by_helpers, x)
    assert [type(v) for v in solvent.jit(scaled_by_helpers)(x)[1:]] == [float, int, np.float32]
