"""NumPy's legacy random numbers inside solvent.jit against NumPy: a np.random.RandomState argument,
and np.random's global functions (whose RandomState the program takes and leaves as NumPy would).
The same bits, dtypes and shapes, and the generator in the same state after each call; draws in
rolled loops and branches continue the stream."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import solvent
from differential import assert_same


def _same_state(a: np.random.RandomState, b: np.random.RandomState) -> None:
    got, want = a.get_state(legacy=False), b.get_state(legacy=False)
    assert np.array_equal(got["state"]["key"], want["state"]["key"])
    assert (got["state"]["pos"], got["has_gauss"], got["gauss"]) == (want["state"]["pos"], want["has_gauss"],
                                                                      want["gauss"])


def _same(got, want) -> None:
    got, want = (got, want) if isinstance(want, tuple) else ((got,), (want,))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        if isinstance(w, (float, int)) and not isinstance(w, np.generic):  # NumPy's Python scalar
            assert g == w and np.asarray(g).dtype == np.asarray(w).dtype
        else:
            assert_same(g, w)


def _copies(args):
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


def check_draws(f, seed=0, *args, used=0, calls=2):
    """`solvent.jit(f)(state, *args)` against `f(state, *args)` for RandomStates seeded alike, with
    `used` words drawn before, `calls` times."""
    ours, numpys = np.random.RandomState(seed), np.random.RandomState(seed)
    for generator in (ours, numpys):
        generator.randint(0, 2 ** 32, size=used, dtype=np.uint32)
    jitted = solvent.jit(f)
    for _ in range(calls):
        mine, theirs = _copies(args), _copies(args)
        _same(jitted(ours, *mine), f(numpys, *theirs))
        for g, w in zip(mine, theirs):
            assert_same(g, w)
        _same_state(ours, numpys)


def check_global(f, seed=0, *args, calls=2):
    """`solvent.jit(f)(*args)` against `f(*args)`, each after np.random.seed(seed), `calls` times: the
    results and the global RandomState afterwards."""
    jitted = solvent.jit(f)
    mine, theirs = _copies(args), _copies(args)
    ours = np.random.RandomState()
    np.random.seed(seed)
    for _ in range(calls):
        state = np.random.get_state()
        got = jitted(*mine)
        ours.set_state(np.random.get_state())
        np.random.set_state(state)
        _same(got, f(*theirs))
        for g, w in zip(mine, theirs):
            assert_same(g, w)
        _same_state(ours, np.random.mtrand._rand)


SIZES = st.one_of(st.none(), st.integers(0, 70), st.tuples(st.integers(0, 6), st.integers(1, 5)))


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2 ** 32 - 1), st.integers(0, 700), SIZES)
def test_random_sample(seed, used, size):
    check_draws(lambda rs: (rs.random_sample(size), rs.rand(), rs.rand(2, 1)), seed, used=used)


BOUNDS = st.one_of(st.tuples(st.integers(-50, 50), st.integers(1, 300)),
                   st.tuples(st.integers(-2 ** 31, 0), st.integers(2 ** 31 - 3, 2 ** 31 + 3)),
                   st.tuples(st.integers(-2 ** 62, 2 ** 62), st.integers(2 ** 32 - 2, 2 ** 62)))


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2 ** 32 - 1), SIZES, BOUNDS, st.sampled_from([int, np.int64, np.uint64, np.int32, np.uint32,
                                                                   np.int16, np.uint16, np.int8, np.uint8, bool]))
def test_randint(seed, size, bounds, dtype):
    low, span = bounds
    info = np.iinfo(np.uint8 if dtype is bool else dtype)
    info = (0, 1) if dtype is bool else (int(info.min), int(info.max))
    span = min(span, info[1] - info[0] + 1)  # up to the whole range
    low = min(max(low, info[0]), info[1] + 1 - span)
    check_draws(lambda rs: rs.randint(low, low + span, size=size, dtype=dtype), seed)


@pytest.mark.parametrize("low, high, dtype", [(0, 2 ** 32, np.uint32), (0, 2 ** 64, np.uint64),
                                              (-2 ** 63, 2 ** 63, np.int64), (5, 6, int), (0, 2 ** 32, np.int64)])
def test_randint_full_and_single_ranges(low, high, dtype):
    check_draws(lambda rs: (rs.randint(low, high, size=9, dtype=dtype), rs.randint(low, high, dtype=dtype)), 3)


def test_no_draws_check_nothing():
    check_draws(lambda rs: (rs.randint(5, 0, size=0), rs.choice(0, 0), rs.randint(0, 3, size=(0, 2))), 2)


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2 ** 32 - 1), st.booleans(), SIZES)
def test_standard_normal(seed, cached, size):
    def f(rs):
        if cached:  # a draw of one leaves the pair's second cached in the state
            rs.standard_normal()
        return rs.standard_normal(size), rs.randn(), rs.randn(3, 2)
    check_draws(f, seed)


def test_many_normals_match_numpys_bits():
    """Enough normals that glibc's log is met near 1 and across its table, and rejections in every round."""
    check_draws(lambda rs: rs.standard_normal(20001), 17, calls=3)


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2 ** 32 - 1), st.lists(st.sampled_from([0.0, 0.5, 1.0, 3.0]), min_size=1, max_size=12)
       .filter(lambda w: sum(w) > 0), st.integers(0, 12))
def test_choice_without_replacement_with_probabilities(seed, weights, size):
    p = np.array(weights) / sum(weights)
    size = min(size, np.count_nonzero(p))
    check_draws(lambda rs: (rs.choice(len(p), size, replace=False, p=p), rs.choice(len(p), replace=False, p=p)), seed)


def test_choice_without_replacement_checks_nonzero_probabilities():
    with pytest.raises(ValueError, match="Fewer non-zero entries in p than size"):
        solvent.jit(lambda rs: rs.choice(3, 3, replace=False, p=[0.5, 0.5, 0.0]))(np.random.RandomState(0))


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2 ** 32 - 1), SIZES)
def test_normal(seed, size):
    loc, scale = np.array([0.0, -3.5, 1e10]), np.array([[1.0], [0.25]])
    check_draws(lambda rs: (rs.normal(2.0, 0.5, size), rs.normal(loc, scale), rs.normal()), seed)


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2 ** 32 - 1), SIZES)
def test_exponentials(seed, size):
    scale = np.array([[0.5], [2.0]])
    check_draws(lambda rs: (rs.standard_exponential(size), rs.exponential(3.0, size), rs.exponential(scale),
                            rs.standard_exponential()), seed)


def test_many_exponentials_match_numpys_bits():
    check_draws(lambda rs: rs.exponential(size=20000), 23, calls=2)


def test_normal_with_traced_parameters():
    def f(rs, loc, scale):
        return rs.normal(loc, scale, size=(2, 3))
    check_draws(f, 8, np.array([1.0, -2.0, 0.5]), np.array([0.5, 2.0, 0.0]))


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2 ** 32 - 1), SIZES, st.sampled_from([(0.0, 1.0), (-1.0, 2.0), (3.7, 1e6), (2.0, -3.0),
                                                            (-1e300, 1e300), (2.0, 2.0)]))
def test_uniform(seed, size, bounds):
    check_draws(lambda rs: rs.uniform(*bounds, size=size), seed)


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2 ** 32 - 1), SIZES, st.floats(-1e6, 1e6), st.floats(-1e300, 1e300))
def test_uniform_with_traced_bounds(seed, size, low, high):
    """Bounds given as arrays are traced (a reversed range too, which the legacy generator allows)."""
    check_draws(lambda rs, low, high: rs.uniform(low, high, size=size), seed, np.array(low), np.array(high))
    check_global(lambda low, high: np.random.uniform(low, high, size), seed, np.array(low), np.array(high))


def test_choice():
    a = np.array([1.5, -2.0, 7.0, 0.25, 9.0])
    p, even = np.array([0.1, 0.2, 0.3, 0.15, 0.25]), np.full(6, 1 / 6)

    def f(rs, a):
        return (rs.choice(5, 7), rs.choice(a, (2, 3)), rs.choice(a), rs.choice(6, 4, p=even),
                rs.choice(a, 3, p=p), rs.choice(5, p=p), rs.choice(a, 4, replace=False), rs.choice(8, replace=False))
    check_draws(f, 11, a)


@pytest.mark.parametrize("shape", [(0,), (1,), (2,), (7,), (40,), (5, 3), (3, 0), (0, 4)])
def test_shuffle_and_permutation(shape):
    x = np.arange(float(np.prod(shape))).reshape(shape)

    def f(rs, x):
        rs.shuffle(x)
        return rs.permutation(x), rs.permutation(shape[0]), rs.permutation([3, 1, 2])
    check_draws(f, sum(shape) * 1000 + 7, x)


def test_global_functions_after_seed():
    x = np.linspace(0.0, 1.0, 6)

    def f(x):
        x += np.random.random_sample(x.shape)
        return (np.random.rand(3), np.random.randint(10, size=4), np.random.randint(5), np.random.uniform(1.0, 2.0),
                np.random.choice(x, 2), np.random.permutation(5), np.random.random(), np.random.sample(2),
                np.random.ranf(), np.random.randn(5), np.random.normal(1.0, 2.0, size=3), np.random.standard_normal(),
                np.random.exponential(2.0, 4), np.random.standard_exponential())
    check_global(f, 1234, x)


def test_global_seed_inside_the_function():
    def f(n):
        np.random.seed(n)
        a = np.random.rand(4)
        np.random.seed([1, 2, 3])
        return a, np.random.randint(0, 100, size=3)
    check_global(f, 0, 7)


def test_global_shuffle_in_place():
    def f(x):
        np.random.shuffle(x)
        return x.sum()
    check_global(f, 5, np.arange(20.0))


def test_draws_in_a_rolled_loop_of_1000_steps():
    def walk(rs, n):
        position, path = 0.0, np.zeros(n)
        for i in range(n):
            position += rs.uniform(-1.0, 1.0)
            path[i] = position
        return path

    check_draws(walk, 2, 1000)

    def global_walk(n):
        total = np.zeros(3)
        for _ in range(n):
            total += np.random.randint(0, 7, size=3)
        return total
    check_global(global_walk, 9, 1000)


def test_draws_in_a_data_dependent_branch():
    def f(rs, x):
        if x.sum() > 0:
            y = rs.random_sample(3)
        else:
            y = -rs.random_sample(3) - rs.random_sample(3)
        return y, rs.randint(0, 9, size=2)
    check_draws(f, 4, np.ones(2))
    check_draws(f, 4, -np.ones(2))


def test_a_function_without_draws_takes_no_random_state():
    compiled = solvent.compile(lambda x: x * 2.0, np.ones(2))
    assert all(path[0][1] != 2 for path in compiled.lowered.signature.input_paths)
    compiled = solvent.compile(lambda x: x * np.random.rand(), np.ones(2))
    assert [path[0][1] for path in compiled.lowered.signature.input_paths] == [0, 2]


@pytest.mark.parametrize("draw, message", [
    (lambda x: np.random.poisson(size=2), "np.random.poisson inside solvent.jit"),
    (lambda x: np.random.seed(), r"np.random.seed\(\) inside solvent.jit"),
])
def test_unsupported_draws_are_refused_and_nothing_changes(draw, message):
    def f(x):
        x += np.random.rand(2)
        return draw(x)

    x = np.zeros(2)
    np.random.seed(3)
    with pytest.raises(solvent.UnsupportedError, match=message):
        solvent.jit(f)(x)
    assert_same(x, np.zeros(2))
    _same_state(np.random.mtrand._rand, np.random.RandomState(3))


def test_other_bit_generators_are_refused():
    with pytest.raises(solvent.UnsupportedError, match="RandomState over PCG64"):
        solvent.jit(lambda rs: rs.rand(2))(np.random.RandomState(np.random.PCG64(0)))


def test_numpy_is_untouched_outside_the_trace():
    solvent.jit(lambda x: x + np.random.rand(2))(np.zeros(2))
    np.random.seed(0)
    assert np.random.rand(2).tolist() == np.random.RandomState(0).rand(2).tolist()


@pytest.mark.parametrize("transform", [solvent.grad, solvent.vmap])
def test_draws_inside_a_transformed_function_are_refused(transform):
    def noisy(w):
        return np.sum(w * np.random.randn(3))

    np.random.seed(2)
    with pytest.raises(solvent.UnsupportedError, match="draws random numbers"):
        transform(noisy)(np.ones(3))
    _same_state(np.random.mtrand._rand, np.random.RandomState(2))


def test_an_export_takes_the_global_state_too(tmp_path):
    def f(x):
        return x + np.random.rand(3)

    solvent.export(solvent.compile(f, np.zeros(3)), tmp_path / "f.solvent")
    loaded = solvent.load(tmp_path / "f.solvent")
    np.random.seed(4)
    got = loaded(np.zeros(3))
    ours = np.random.RandomState()
    ours.set_state(np.random.get_state())
    np.random.seed(4)
    assert_same(got, f(np.zeros(3)))
    _same_state(ours, np.random.mtrand._rand)


def test_draws_from_an_argument_are_constants_for_derivatives():
    """A RandomState argument inside solvent.grad: the draws are constants (the gradient of sum(x * z)
    is z), and the generator moves on as in one call."""
    def f(x, rs):
        return np.sum(x * rs.randn(3))

    ours, numpys = np.random.RandomState(6), np.random.RandomState(6)
    assert_same(solvent.grad(f)(np.ones(3), ours), numpys.randn(3))
    _same_state(ours, numpys)
