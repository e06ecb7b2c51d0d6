"""Writes through slices whose step is not 1 or -1 and whose bounds or step are traced
(solvent.numpy.indexing.stepped): the sieve of Eratosthenes and its kin, against NumPy."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import solvent
from differential import check_like_numpy, rolled_like_numpy

pytestmark = pytest.mark.filterwarnings("ignore::solvent.RecompileWarning")


def sieve(is_prime):
    n = is_prime.shape[0]
    is_prime[:2] = False
    for i in range(2, int(n ** 0.5) + 1):
        if is_prime[i]:
            is_prime[i * i::i] = False
    return np.nonzero(is_prime)[0]


def sieve_by_else(is_prime):
    for i in range(2, is_prime.shape[0]):  # (past the square root: empty slices)
        if not is_prime[i]:
            pass
        else:
            is_prime[i * i::i] = False
    return is_prime


@pytest.mark.parametrize("n", [2, 20, 101, 1000])
def test_the_sieve_of_eratosthenes_rolls_and_matches_numpy(n):
    """`is_prime[i * i::i] = False` was refused: a traced start and step."""
    rolled_like_numpy(sieve, np.ones(n, bool))
    rolled_like_numpy(sieve_by_else, np.ones(n, bool))


def written(x, k):
    s, t = int(k[0]), int(k[1])
    x[s::t] = -1.0
    x[-s::-t] = -2.0
    x[:s:t] = -3.0
    return x


BOUNDS = st.integers(-14, 14)


@settings(max_examples=60, deadline=None)
@given(BOUNDS, st.integers(-5, 5).filter(bool))
def test_any_traced_start_and_step_writes_numpys_elements(start, step):
    check_like_numpy(written, np.arange(12.0), np.array([start, step]))


def slabs(a, k):
    s, t = int(k[0]), int(k[1])
    a[s::t, :] = np.arange(a.shape[1]) * 1.0  # a row at every position
    a[:, ::t] = 5.0
    a[1, s::-t] = 7.0
    a[s::t, 2] = np.array([[9.0]])  # (length 1 along the stepped axis: broadcast)
    return a


@pytest.mark.parametrize("k", [[2, 3], [-3, 2], [7, 1], [1, -2], [30, 2], [-30, 5]])
def test_slabs_of_a_matrix_at_traced_strides(k):
    check_like_numpy(slabs, np.zeros((6, 5)), np.array(k))


def in_a_loop(x, a):
    for i in range(1, 6):
        x[i::i + 1] = i
        a[i % 3::2, i % 4] = -i
        x[-i::-(i + 1)] = 10 * i
    return x, a


def test_strided_writes_by_a_rolled_loops_index():
    rolled_like_numpy(in_a_loop, np.arange(10.0), np.zeros((6, 5)))


def raw_bounds(x, s, t):
    x[s::t] = -1.0
    x[:s:t] = -3.0
    return x


@pytest.mark.parametrize("start, step", [(3, 2 ** 63 - 1), (3, -(2 ** 63 - 1)), (3, -2 ** 63), (-2 ** 63, 2),
                                         (np.uint64(2 ** 63), np.uint64(2)), (np.uint64(1), np.uint64(2 ** 63 + 1)),
                                         (np.int8(5), np.int8(-3)), (np.int8(-100), np.int8(127))])
def test_extreme_starts_and_steps_take_numpys_positions(start, step):
    """A step near 2**63 overflowed counting the positions (nothing written, or one too many), and a
    uint64 past 2**63 wrapped to a negative bound."""
    check_like_numpy(raw_bounds, np.arange(12.0), np.asarray(start), np.asarray(step))


def rows_and_columns(a, s, t):
    a[s::t, :] = 1.0
    a[:, s::t] = 2.0
    return a


def test_an_empty_axis_takes_no_write_and_a_bound_that_is_no_integer_raises():
    """An axis of length 0 raised a raw IndexError; a float bound was taken as an integer."""
    check_like_numpy(written, np.zeros(0), np.array([0, 2]))
    for shape in ((0, 3), (3, 0)):
        check_like_numpy(rows_and_columns, np.zeros(shape), np.array(0), np.array(2))
    with pytest.raises(TypeError, match="slice indices"):
        solvent.jit(lambda x, s: x.__setitem__(slice(s, None, 2), 1.0))(np.arange(4.0), np.array(1.0))


def test_a_traced_step_of_zero_writes_nothing_and_a_static_one_raises():
    """NumPy raises for a zero step; a compiled program cannot, so a traced one writes nothing."""
    out = solvent.jit(written)(np.arange(12.0), np.array([2, 0]))
    np.testing.assert_array_equal(out, np.arange(12.0))
    with pytest.raises(ValueError, match="zero"):
        solvent.jit(lambda x, k: x.__setitem__(slice(int(k[0]), None, 0), 1.0))(np.arange(4.0), np.array([1]))


def array_written(x, k):
    x[int(k[0])::int(k[1])] = np.arange(3.0)
    return x


def added(x, k):
    x[int(k[0])::int(k[1])] += 1.0
    return x


@pytest.mark.parametrize("fn, match", [(array_written, "known only when the program runs"),
                                       (added, "step other than 1")])
def test_what_needs_the_length_is_refused(fn, match):
    with pytest.raises(solvent.UnsupportedError, match=match):
        solvent.jit(fn)(np.arange(6.0), np.array([1, 2]))


@pytest.mark.parametrize("fn", [sieve, sieve_by_else], ids=["if", "else"])
def test_a_traced_if_writing_a_loops_array_does_not_copy_it(fn):
    """XLA copied the array twice per step where the writing branch was the case's first."""
    text = solvent.code_xla(fn, np.ones(1000, bool))
    assert "pred[1000]{0} copy(" not in text
