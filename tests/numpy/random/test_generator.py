"""A np.random.Generator argument inside solvent.jit against NumPy: the same bits, dtypes and
shapes, and the generator left in the same state, after one call and after the next; draws in
rolled loops, in branches and in data-dependent while loops continue the stream."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import solvent
from differential import assert_same


def _twins(seed: int, buffered: bool = False):
    a, b = np.random.default_rng(seed), np.random.default_rng(seed)
    if buffered:  # a 32-bit draw leaves the word's other half buffered
        a.integers(0, 2 ** 32, dtype=np.uint32)
        b.integers(0, 2 ** 32, dtype=np.uint32)
    return a, b


def check_draws(f, seed=0, *args, buffered=False, calls=2):
    """`solvent.jit(f)(rng, *args)` against `f(rng, *args)` for generators in one state, `calls` times."""
    ours, numpys = _twins(seed, buffered)
    jitted = solvent.jit(f)
    for _ in range(calls):
        mine = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        theirs = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        got, want = jitted(ours, *mine), f(numpys, *theirs)
        got, want = (got, want) if isinstance(want, tuple) else ((got,), (want,))
        assert len(got) == len(want)
        for g, w in zip(got, want):
            if isinstance(w, float) and not isinstance(w, np.generic):  # NumPy's Python float: a float64 here
                assert isinstance(g, float) and g == w
            else:
                assert_same(g, w)
        for g, w in zip(mine, theirs):
            assert_same(g, w)
        assert ours.bit_generator.state == numpys.bit_generator.state


SIZES = st.one_of(st.none(), st.integers(0, 70), st.tuples(st.integers(0, 6), st.integers(1, 5)))


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2 ** 32), st.booleans(), SIZES, st.sampled_from([np.float64, np.float32]))
def test_random(seed, buffered, size, dtype):
    check_draws(lambda rng: rng.random(size, dtype=dtype), seed, buffered=buffered)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2 ** 32), SIZES, st.sampled_from([(0.0, 1.0), (-1.0, 2.0), (3.7, 1e6), (-1e300, 1e300),
                                                        (0.1, 0.3), (2.0, 2.0), (-5.5, -5.25)]))
def test_uniform_rounds_as_numpy_does(seed, size, bounds):
    check_draws(lambda rng: rng.uniform(*bounds, size=size), seed)


def test_uniform_over_array_bounds():
    low, high = np.array([0.0, -1.0, 0.5]), np.array([[1.0], [3.0]])
    check_draws(lambda rng: (rng.uniform(low, high), rng.uniform(low, 20.0, size=(4, 3))), 5)


BOUNDS = st.one_of(st.tuples(st.integers(-50, 50), st.integers(1, 300)),
                   st.tuples(st.integers(-2 ** 31, 0), st.integers(2 ** 31 - 3, 2 ** 31 + 3)),
                   st.tuples(st.integers(-2 ** 62, 2 ** 62), st.integers(2 ** 32 - 2, 2 ** 62)))


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2 ** 32), st.booleans(), SIZES, BOUNDS,
       st.sampled_from([np.int64, np.uint64, np.int32, np.uint32, np.int16, np.uint16, np.int8, np.uint8]), st.booleans())
def test_integers(seed, buffered, size, bounds, dtype, endpoint):
    low, span = bounds
    info = np.iinfo(dtype)
    span = min(span, int(info.max) - int(info.min) - 1)
    low = int(np.clip(low, int(info.min), int(info.max) - span - 1))
    high = min(low + span, info.max if endpoint else info.max + 1)
    if high <= low:
        return
    check_draws(lambda rng: rng.integers(low, high, size=size, dtype=dtype, endpoint=endpoint), seed, buffered=buffered)


def test_small_integers_with_many_rejections_then_other_draws():
    """int8 over 103 values rejects a fifth of its parts: rounds run, and the stream goes on after
    the parts of the last word are dropped."""
    check_draws(lambda rng: (rng.integers(-3, 100, size=5000, dtype=np.int8),
                             rng.integers(0, 2 ** 16, size=7, dtype=np.uint16), rng.integers(9, dtype=np.uint8),
                             rng.random()), 11, buffered=True)


def test_integers_from_one_bound_and_of_one_value():
    check_draws(lambda rng: (rng.integers(10), rng.integers(7, size=3), rng.integers(4, 5, size=2), rng.random()), 1)


def test_no_draws_check_nothing_and_whole_float_bounds_are_ints():
    """NumPy returns an empty array for size 0 before it checks the bounds (low >= high, out of the
    dtype), and takes a whole float bound as the int."""
    check_draws(lambda rng: (rng.integers(5, 0, size=0), rng.integers(-1, 0, size=(2, 0), dtype=np.uint8),
                             rng.choice(0, 0), rng.choice(np.zeros(0), 0), rng.integers(0.0, 10.0, size=3)), 3)


def test_bounds_of_integers_it_does_not_draw_are_clear_errors():
    with pytest.raises(solvent.UnsupportedError, match="an array high"):
        solvent.jit(lambda rng: rng.integers(0, [3, 5], size=(4, 2)))(np.random.default_rng(0))
    with pytest.raises(solvent.UnsupportedError, match="high=10.5"):
        solvent.jit(lambda rng: rng.integers(0, 10.5, size=3))(np.random.default_rng(0))


OPTIONS = np.array([10.0, 20.0, 30.0, 40.0])


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2 ** 32), SIZES, st.integers(1, 300))
def test_choice_with_replacement(seed, size, population):
    p = np.random.default_rng(seed).random(population)
    p /= p.sum()
    check_draws(lambda rng: (rng.choice(population, size), rng.choice(population, size, p=p),
                             rng.choice(OPTIONS, size), rng.choice(OPTIONS, size, p=[0.1, 0.2, 0.3, 0.4])), seed)


@settings(max_examples=8, deadline=None)
@given(st.integers(0, 2 ** 32), st.booleans(), st.integers(0, 300), st.integers(0, 300), st.booleans())
def test_choice_without_replacement(seed, buffered, population, size, shuffle):
    """Floyd's sample (and its shuffle) of range(population), and of an array's rows."""
    size = min(size, population)
    check_draws(lambda rng: (rng.choice(population, size, replace=False, shuffle=shuffle),
                             rng.choice(OPTIONS, min(size, 4), replace=False, shuffle=shuffle),
                             rng.choice(population + 1, replace=False)), seed, buffered=buffered)


WEIGHTS = st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0, 7.0]), min_size=1, max_size=12).filter(lambda w: sum(w) > 0)


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2 ** 32), WEIGHTS, st.integers(0, 12), st.booleans())
def test_choice_without_replacement_with_probabilities(seed, weights, size, shuffle):
    """Rounds of doubles searched in the cumulative sums of what is not taken yet, first draws kept."""
    p = np.array(weights) / sum(weights)
    size = min(size, np.count_nonzero(p))
    check_draws(lambda rng: (rng.choice(len(p), size, replace=False, p=p, shuffle=shuffle),
                             rng.choice(np.arange(10.0, 10.0 + len(p)), (1, size), replace=False, p=p)), seed)


def test_choice_without_replacement_of_much_of_a_large_population():
    """The tail of a shuffle of the whole range: NumPy's path beyond 10000 elements."""
    check_draws(lambda rng: (rng.choice(20000, 1000, replace=False), rng.choice(20000, 401, replace=False,
                                                                              shuffle=False)), 4, calls=1)


def test_choice_without_replacement_checks_the_size():
    with pytest.raises(ValueError, match="larger sample"):
        solvent.jit(lambda g: g.choice(3, 4, replace=False))(np.random.default_rng(0))


SHAPES = st.sampled_from([(0,), (1,), (2,), (7,), (40,), (3, 4), (5, 1, 2), (3, 0), (0, 4)])


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 2 ** 32), st.booleans(), SHAPES, st.integers(-3, 2))
def test_shuffle_permutation_and_permuted(seed, buffered, shape, axis):
    """Fisher-Yates as NumPy's shuffle, permutation and permuted run it: in place, copied, and per
    slice along an axis; empty arrays draw nothing (shuffle) or by their axis's length (permutation)."""
    x = np.arange(float(np.prod(shape))).reshape(shape)
    axis = axis % len(shape)

    def f(rng, x):
        y = x + 1.0
        rng.shuffle(y, axis=axis)
        along = rng.permuted(x, axis=axis)
        flat = rng.permuted(x.ravel())
        return y, rng.permutation(x, axis=axis), along, flat, rng.permutation(len(shape) * 3)
    check_draws(f, seed, x, buffered=buffered)


def test_shuffle_in_place_and_into_out():
    def f(rng, x, out):
        rng.shuffle(x)
        return rng.permuted(x[:, 0], out=out) is out
    check_draws(f, 8, np.arange(60.0).reshape(20, 3), np.zeros(20))


def test_shuffles_in_a_rolled_loop_of_1000_steps():
    def f(rng, x):
        for i in range(1000):
            rng.shuffle(x)
            x[0] += i
        return x
    check_draws(f, 9, np.arange(8.0), calls=1)


@settings(max_examples=8, deadline=None)
@given(st.integers(0, 2 ** 32), st.booleans(), SIZES, st.sampled_from([(0, 2), (0, 1), (1, 2), (2, None)]))
def test_boolean_integers(seed, buffered, size, bounds):
    """One bit of a 32-bit word per draw, the low bit first; the rest of the word dropped after."""
    check_draws(lambda rng: (rng.integers(*bounds, size=size, dtype=np.bool_), rng.integers(7, size=3),
                             rng.integers(0, 1, dtype=bool, endpoint=True)), seed, buffered=buffered)


def test_choice_of_traced_arrays_and_along_an_axis():
    def f(rng, x, table):
        return rng.choice(x), rng.choice(x, size=()), rng.choice(table, size=2, axis=1), rng.choice(table)
    check_draws(f, 6, np.array([1.5, 2.5, 3.5]), np.arange(12.0).reshape(3, 4))


def test_choice_checks_its_probabilities_as_numpy_does():
    for p in ([0.5, 0.6], [0.5], [[0.5, 0.5]], [-0.5, 1.5]):
        with pytest.raises(ValueError):
            np.random.default_rng(0).choice(2, p=p)
        with pytest.raises(ValueError):
            solvent.jit(lambda g: g.choice(2, p=p))(np.random.default_rng(0))


@settings(max_examples=6, deadline=None)
@given(st.integers(0, 2 ** 32), st.booleans(), SIZES, st.sampled_from(["standard_normal", "zig", "inv"]),
       st.sampled_from([np.float64, np.float32]))
def test_standard_normals_and_exponentials(seed, buffered, size, method, dtype):
    """The ziggurats of float64 and of float32 (and the inversion) bit for bit, with enough draws for
    their slow paths: 20000 standard normals take about 170 layer-edge tests and 5 tail draws (of
    float32, from 32-bit words buffered in the generator's state: `buffered` starts with one)."""
    if method == "standard_normal":
        check_draws(lambda rng: (rng.standard_normal(size, dtype), rng.standard_normal(20000, dtype)), seed,
                    buffered=buffered)
    else:
        check_draws(lambda rng: (rng.standard_exponential(size, dtype, method), rng.standard_exponential(20000, dtype)),
                    seed, buffered=buffered)


@settings(max_examples=6, deadline=None)
@given(st.integers(0, 2 ** 32), st.sampled_from([None, 5, (2, 3)]),
       st.sampled_from([(0.0, 1.0), (-3.5, 1e-3), (np.array([1.0, -2.0, 0.5]), np.array([[2.0], [0.0]])), (7.0, 0.0)]))
def test_normal_and_exponential_over_broadcast_parameters(seed, size, parameters):
    loc, scale = parameters
    if np.broadcast(np.asarray(loc), np.asarray(scale)).shape not in ((), (size,), size):
        size = None  # parameters that do not broadcast to the size: NumPy's error, tested below
    check_draws(lambda rng: (rng.normal(loc, scale, size), rng.exponential(scale, size)), seed)


THREE = np.zeros(3)


def test_normal_and_exponential_errors_as_numpys():
    rng = np.random.default_rng(0)
    for draw, error in ((lambda g: g.normal(0.0, -1.0), "scale < 0"), (lambda g: g.exponential(-0.0), "scale < 0"),
                        (lambda g: g.normal(THREE, 1.0, size=2), "shape mismatch"),
                        (lambda g: g.standard_normal(dtype=np.int32), "Unsupported dtype")):
        with pytest.raises((ValueError, TypeError), match=error):
            draw(np.random.default_rng(0))
        with pytest.raises((ValueError, TypeError), match=error):
            solvent.jit(draw)(rng)
    assert rng.bit_generator.state == np.random.default_rng(0).bit_generator.state


def test_normals_into_out_and_in_a_rolled_loop_of_1000_steps():
    def walk(rng, x, out):
        for i in range(1, x.shape[0]):
            x[i] = x[i - 1] + 0.1 * rng.standard_normal() + rng.normal(0.0, 2.0, size=2).sum()
        rng.standard_exponential(out=out)
        return x
    check_draws(walk, 5, np.zeros(1000), np.zeros((3, 4)))


def test_traced_parameters_of_normal_and_exponential():
    def f(rng, loc, scale):
        return rng.normal(loc, scale, size=(2, 3)), rng.exponential(scale), rng.normal(scale=scale[0])
    check_draws(f, 6, np.array([[1.0], [-2.0]]), np.array([0.5, 1.5, 0.0]))
    nan = solvent.jit(lambda rng, scale: rng.normal(0.0, scale))(np.random.default_rng(0), np.array([1.0, -1.0]))
    assert np.isfinite(nan[0]) and np.isnan(nan[1])  # NumPy refuses a scale below 0; traced, it cannot


def test_random_into_out():
    def f(rng, out):
        rng.random(out=out)
        return out
    check_draws(f, 2, np.zeros((3, 2)))


def test_draws_in_a_rolled_loop_of_1000_steps():
    def walk(rng, x):
        for i in range(x.shape[0]):
            x[i] = x[i - 1] + rng.random() - 0.5
        return x
    check_draws(walk, 3, np.zeros(1000))


def test_draws_in_branches_and_while_loops():
    def f(rng, x):
        if x.sum() > 0:
            x += rng.integers(0, 5, size=x.shape)
        else:
            x -= rng.random(x.shape, dtype=np.float32)
        total = 0.0
        while total < 20.0:
            total += rng.random()
        return x, total
    check_draws(f, 4, np.ones(4))
    check_draws(f, 4, -np.ones(4))


def test_a_generator_returned_is_the_callers_own():
    rng = np.random.default_rng(0)
    assert solvent.jit(lambda g: (g.random(), g)[1])(rng) is rng


def test_a_function_that_does_not_draw_leaves_the_generator_alone():
    rng = np.random.default_rng(0)
    before = rng.bit_generator.state
    assert_same(solvent.jit(lambda g, x: x + 1)(rng, np.zeros(2)), np.ones(2))
    assert rng.bit_generator.state == before


@pytest.mark.parametrize("draw, match", [
    (lambda g: g.gamma(2.0), "Generator.gamma"),
    (lambda g: g.integers(0, 5, dtype=np.float64), "dtype=float64"),
    (lambda g: g.uniform(0.0, 1e-300), "narrower than"),
    (lambda g: g.permuted(np.zeros((2, 3))), "memory order"),
    (lambda g: g.shuffle(OPTIONS), "made outside the function"),
])
def test_methods_not_reproduced_are_refused(draw, match):
    rng = np.random.default_rng(0)
    before = rng.bit_generator.state
    with pytest.raises(solvent.UnsupportedError, match=match):
        solvent.jit(draw)(rng)
    assert rng.bit_generator.state == before


def test_other_bit_generators_are_refused():
    with pytest.raises(solvent.UnsupportedError, match="Generator over MT19937"):
        solvent.jit(lambda g: g.random())(np.random.Generator(np.random.MT19937(0)))


def test_calls_after_the_first_take_the_fast_path_and_keep_the_stream():
    ours, numpys = _twins(3)
    draw = solvent.jit(lambda rng, x: rng.random(2) + x)
    for k in range(3):
        np.testing.assert_array_equal(draw(ours, np.ones(2)), numpys.random(2) + 1)
    type(draw).miss = lambda self, args, kwargs: pytest.fail("the call did not take its signature's fast path")
    np.testing.assert_array_equal(draw(ours, np.ones(2)), numpys.random(2) + 1)
    del type(draw).miss  # (each jitted function has a class of its own)
    with pytest.raises(solvent.UnsupportedError, match="Generator over MT19937"):  # as on the first call
        draw(np.random.Generator(np.random.MT19937(0)), np.ones(2))
    both = solvent.jit(lambda a, b: (a.random(), b.random()))
    got, want = both(ours, ours), (numpys.random(), numpys.random())  # one generator twice: one stream
    assert got == want and both(ours, ours) == (numpys.random(), numpys.random())
    assert ours.bit_generator.state == numpys.bit_generator.state


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2 ** 32), st.booleans(), SIZES, BOUNDS,
       st.sampled_from([np.int64, np.uint64, np.int32, np.uint32]), st.booleans())
def test_integers_between_traced_bounds(seed, buffered, size, bounds, dtype, endpoint):
    """Bounds known only when the program runs: 32- or 64-bit words as the span needs, taken at run
    time; a span of 0 takes no word."""
    low, span = bounds
    info = np.iinfo(dtype)
    span = min(span - 1, int(info.max) - int(info.min) - 1)  # (from 0: one value, no word drawn)
    low = int(np.clip(low, int(info.min), int(info.max) - span - 1))
    high = low + span + (0 if endpoint else 1)
    check_draws(lambda rng, lo, hi: rng.integers(lo, hi, size=size, dtype=dtype, endpoint=endpoint), seed,
                np.array(low, dtype), np.array(high, dtype), buffered=buffered)


def test_a_fisher_yates_shuffle_by_hand_rolls():
    """`rng.integers(i + 1)` refused a traced bound, so the loop unrolled (and past the size bound raised)."""
    def shuffled(rng, x):
        for i in range(x.shape[0] - 1, 0, -1):
            j = rng.integers(i + 1)
            x[i], x[j] = x[j], x[i]
        return x
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "loop ... unrolled" warning
        check_draws(shuffled, 3, np.arange(40.0))


def test_integers_between_bounds_of_a_loop_index_spanning_more_than_half_the_words():
    """A span of 2^63 or more from the loop's index: an Enzyme pattern bounded it as a negative int64
    and folded `span > 2^32 - 1` to False, so 32-bit words were drawn (pipelines.NARROW_COUNTERS)."""
    def wide(rng):
        out = np.zeros((8, 2), np.int64)
        for i in range(8):
            out[i, 0] = rng.integers(-2 ** 62 - i, 2 ** 62 + 1)
            out[i, 1] = rng.integers(-2 ** 63 + i, 2 ** 63 - 1, endpoint=True)
        return out
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_draws(wide, 5)


def test_choice_from_a_number_known_at_run_time():
    def picks(rng, counts):
        out = np.zeros((counts.shape[0], 3), np.int64)
        for k in range(counts.shape[0]):
            out[k, 0] = rng.choice(counts[k])
            out[k, 1:] = rng.choice(counts[k], size=2)
        return out
    check_draws(picks, 4, np.array([1, 2, 7, 2 ** 40, 3]))
    with pytest.raises(solvent.UnsupportedError, match="without replacement or with p="):
        solvent.jit(lambda g, k: g.choice(k, 2, replace=False))(np.random.default_rng(0), np.array(5))


def test_traced_integer_bounds_of_narrow_dtypes_are_refused():
    with pytest.raises(solvent.UnsupportedError, match="traced bound and dtype=int8"):
        solvent.jit(lambda g, x: g.integers(0, x, dtype=np.int8))(np.random.default_rng(0), np.array(2))


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2 ** 32), SIZES, st.floats(-1e6, 1e6), st.one_of(st.just(0.0), st.floats(1e-6, 1e300)),
       st.sampled_from([1.0, 2.0 ** -900, 3e-280]))
def test_uniform_with_traced_bounds(seed, size, low, width, scale):
    """Bounds given as arrays are traced: the product with the span is still rounded once, as NumPy's
    (down to ranges of 1e-277, whose draws are no subnormals: XLA's CPU runtime flushes those)."""
    check_draws(lambda rng, low, high: (rng.uniform(low, high, size), rng.uniform(low, high + np.arange(3.0))), seed,
                np.array(low * scale), np.array(low * scale + width * scale))


def test_traced_bounds_numpy_refuses_give_nan():
    """A reversed or infinite traced range, which NumPy refuses, gives NaN draws (the check cannot see it)."""
    draw = solvent.jit(lambda g, low, high: g.uniform(low, high, 2))
    for low, high in ((1.0, 0.5), (0.0, np.inf)):
        assert np.isnan(draw(np.random.default_rng(0), np.array(low), np.array(high))).all()


def test_numpys_errors_for_bad_bounds():
    rng = np.random.default_rng(0)
    for draw, error in ((lambda g: g.integers(5, 5), ValueError), (lambda g: g.uniform(2.0, 1.0), ValueError),
                        (lambda g: g.integers(0, 300, dtype=np.int32, size=2) + g.integers(-1, 2 ** 31 + 1, dtype=np.int32),
                         ValueError), (lambda g: g.random(dtype=np.int64), TypeError)):
        with pytest.raises(error):
            draw(np.random.default_rng(0))
        with pytest.raises(error):
            solvent.jit(draw)(rng)


def test_a_generator_seeded_inside_the_function():
    """np.random.default_rng(seed) inside: the program's own generator, NumPy's stream from that seed on
    every call, drawn in a rolled loop too."""
    def f(x, n):
        rng = np.random.default_rng([7, 11])
        out = np.zeros(n)
        for i in range(n):
            out[i] = rng.random()
        x += rng.standard_normal(x.shape)
        return out, rng.integers(0, 10, 5), np.random.default_rng(rng) is rng

    mine, theirs = np.zeros(4), np.zeros(4)
    compiled = solvent.jit(f)
    for _ in range(2):
        got, want = compiled(mine, 40), f(theirs, 40)
        for g, w in zip(got, want):
            assert_same(g, w)
        assert_same(mine, theirs)


@pytest.mark.parametrize("seed", [None, np.random.default_rng(0)])
def test_a_generator_made_inside_needs_a_seed(seed):
    with pytest.raises(solvent.UnsupportedError, match="default_rng with (no seed|a generator from outside)"):
        solvent.jit(lambda x: x + np.random.default_rng(seed).random())(np.zeros(2))


_HELD = {"generator": np.random.default_rng(0), "legacy": np.random.RandomState(0), "bits": np.random.PCG64(0)}


@pytest.mark.parametrize("draw", [lambda x: x + _HELD["generator"].random(), lambda x: x + _HELD["legacy"].randn(),
                                  lambda x: x + _HELD["generator"].normal(), lambda x: x + _HELD["bits"].random_raw()],
                         ids=["Generator.random", "RandomState.randn", "Generator.normal", "PCG64.random_raw"])
def test_a_draw_from_a_generator_held_from_outside_is_refused(draw):
    """A scalar draw allocates nothing on the host, so it would have run once while tracing and been a
    constant of the program (the same number at every call); the generator stays where it was."""
    def states():
        return repr([_HELD["generator"].bit_generator.state, _HELD["legacy"].get_state(), _HELD["bits"].state])

    before = states()
    with pytest.raises(solvent.UnsupportedError, match="of a generator that is not an argument"):
        solvent.jit(draw)(np.zeros(2))
    assert states() == before


def test_draws_are_constants_for_derivatives():
    """solvent.grad of a function drawing from a Generator argument: the gradient of sum(x * z) is
    the draws z, and the generator moves on as it does in one call of the function."""
    def f(x, rng):
        return np.sum(x * rng.standard_normal(3)) + rng.random()

    ours, numpys = np.random.default_rng(4), np.random.default_rng(4)
    gradient = solvent.grad(f)(np.ones(3), ours)
    assert_same(gradient, numpys.standard_normal(3))
    numpys.random()
    assert ours.bit_generator.state == numpys.bit_generator.state
