"""A long `for` over a Python list or iterator of numbers rolls, reading its items by a traced index
(solvent.transforms.source.static_items); other items unroll, with a warning when there are many."""

import itertools
import warnings

import numpy as np
import pytest

import solvent
from differential import check_like_numpy


def closest_pair(P):
    best, pair = np.inf, (0, 0)
    for i, j in itertools.combinations(range(P.shape[0]), 2):
        d = np.sum((P[i] - P[j]) ** 2)
        if d < best:
            best, pair = d, (i, j)
    return best, pair


def weighted(x, weights):
    total = 0.0
    for k, w in enumerate(weights):
        total += w * x[k % 3]
    return total, k, w


@pytest.mark.parametrize("fn, args", [
    (closest_pair, (np.random.default_rng(0).random((30, 2)),)),
    (weighted, (np.arange(3.0), [0.5 * k for k in range(200)])),
])
def test_a_long_loop_over_python_numbers_rolls_and_keeps_pythons_types(fn, args):
    """Closest pair over itertools.combinations of 30 points: 435 copies of the body, 8.8 s first
    call; the pair found (and the last item) are Python numbers, as in NumPy's loop."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_like_numpy(fn, *args)
    assert "stablehlo.while" in solvent.code_hlo(fn, *args, optimize="none")


def mixed(x, items):
    for v in items:
        x = x * v
    return x, v


def test_items_of_mixed_types_unroll_as_python_runs_them_and_warn_when_many():
    with pytest.warns(UserWarning, match="a `for` over 100 Python items ran unrolled"):
        check_like_numpy(mixed, np.ones(2), [1, 1.0] * 50)


def first_over(x):
    s = 0.0
    for v in [0, 1, 2, 3]:  # (a break on data: the loop runs traced, reading the list by its index)
        if x[v] > 1.0:
            break
        s = s + x[v]
    return s


def grown_while_read(x):
    items = [1, 2, 3]
    s = 0.0
    for v in items:  # (short: Python's loop, which sees the items appended)
        s = s + v * x[0]
        if len(items) < 6:
            items.append(10)
    return s


def typed(x):
    n = 0
    for v in range(20):
        if type(v) is int and type(x) is np.ndarray:
            n += 1
    return n, type(x[0]).__name__, type(x).__name__


def bits(x):
    t = 0.0
    for v in [1, 2, 3, 4, 5] * 20:  # (no bit_length on a traced int: unrolled, as Python runs it)
        if v.bit_length() > 2:
            t += v * x[0]
    return t


@pytest.mark.parametrize("fn", [first_over, grown_while_read, typed, bits])
@pytest.mark.filterwarnings("ignore:.*unrolled")
def test_items_read_by_a_traced_index_or_in_python_as_numpy_runs_them(fn):
    for x in (np.array([0.5, -1.0, 2.0, 3.0]), np.array([2.0, 0.0, 0.0, 0.0])):
        check_like_numpy(fn, x)


WEIGHTS = [3, 1, 4, 1, 5, 9, 2, 6]


def past_the_end(x):
    s = 0.0
    for i in range(20):
        s = s + x[i] * WEIGHTS[i + 1]  # (read by the rolled index: it was clamped)
    return s


@pytest.mark.filterwarnings("ignore:.*unrolled")
def test_a_list_read_past_its_end_by_a_loop_index_raises_pythons_index_error():
    with pytest.raises(IndexError):
        solvent.jit(past_the_end)(np.ones(20))


def cycled(x):
    s = 0.0
    for i in range(20):
        s = s + x[i] * WEIGHTS[i % 8] - WEIGHTS[(i // 3) % 4]  # (in range whatever i is: read by i, rolled)
    return s


def test_a_list_read_at_an_index_kept_in_range_by_arithmetic_rolls():
    """WEIGHTS[i % 8] unrolled the loop, warning that i was used as a Python index."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_like_numpy(cycled, np.arange(20.0))
    assert "stablehlo.while" in solvent.code_hlo(cycled, np.arange(20.0), optimize="none")


def count_until_negative(items):
    n = 0
    for v in items:
        if v.sum() < 0:
            break
        n += 1
    return n


def test_a_traced_break_over_a_list_of_arrays_says_what_to_loop_over():
    # (it raised "use as a Python index of a traced value" at `n += 1`)
    items = [np.ones(2), -np.ones(2), np.ones(2)]
    with pytest.raises(solvent.UnsupportedError, match="np.stack the items"):
        solvent.jit(count_until_negative)(items)
    assert solvent.jit(count_until_negative)(np.stack(items)) == count_until_negative(items) == 1
