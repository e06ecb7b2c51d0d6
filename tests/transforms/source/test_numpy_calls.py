"""NumPy functions given Python lists or tuples of traced numbers (`source.numpy_calls`): each such
list is one traced array, as NumPy's conversion would make it, so the call gives NumPy's result;
lists of arrays and lists without traced values are left as they are."""

import numpy as np
import pytest
from numpy import arange, array, asarray, empty_like, full, zeros, zeros_like

import solvent
from differential import check_like_numpy


def argmax_of_three(x):
    return np.argmax([x[0], x[1] * 2, x[2]])


def best_move(scores):
    """Dynamic programming as written in books: the best of a few candidates, per step."""
    total = 0.0
    for i in range(1, scores.shape[0] - 1):
        options = (scores[i - 1] + 1.0, scores[i], scores[i + 1] - 0.5)
        total += np.max(options) + np.argmax(options)
    return total


CALLS = [
    argmax_of_three,
    lambda x: np.max([x[0], x[1], 3.0]),
    lambda x: np.mean([x[0], x[1]]),
    lambda x: np.sum([[x[0], 1.0], [x[1], x[2]]], axis=0),
    lambda x: np.dot([x[0], x[1]], [1.0, 2.0]),
    lambda x: np.maximum([x[0], x[1]], 1.0),
    lambda x: np.add((x[0], 2.0, x[1]), x),
    lambda x: np.argsort([x[2], x[0], x[1]]),
    lambda x: np.linalg.norm([x[0], x[1]]),
    lambda x: np.clip([x[0], x[1] * 5], 0.5, 2.0),
    lambda x: np.where(x > 1.0, [x[0], x[1], x[2]], 0.0),
    lambda x: np.concatenate([x, [x[0], 2.0]]),          # a list of an array and a list
    lambda x: np.stack([x, x * 2]),                      # a list of arrays: dispatched as it is
    lambda x: np.where([True, False, True], x, 0.0),     # no traced value in the list
]


@pytest.mark.parametrize("fn", CALLS)
def test_lists_of_traced_numbers_match_numpy(fn):
    check_like_numpy(fn, np.array([0.3, 1.7, 0.9]))


def test_a_tuple_of_candidates_in_a_rolled_loop_matches_numpy():
    check_like_numpy(best_move, np.random.default_rng(0).random(40))


def test_an_unsupported_function_given_such_a_list_still_names_itself():
    with pytest.raises(solvent.UnsupportedError, match="np.polydiv"):
        solvent.jit(lambda x: np.polydiv([x[0], x[1]], [1.0]))(np.array([0.3, 1.7]))


def made_with_names_imported_from_numpy(x):
    out = zeros(3)
    out[:] = x * 2
    like = zeros_like(x)
    like[0] = x[1]
    filled = full(3, 2.0)
    filled[2] = x[2]
    return out + asarray(x), like, filled, array([x[0], x[1]]), arange(3) * x, empty_like(x).shape


def test_creation_functions_imported_from_numpy_before_the_trace_make_traced_arrays():
    """`from numpy import zeros` holds NumPy's host function: an array it made could not hold traced
    values (np.asarray() of a traced value)."""
    check_like_numpy(made_with_names_imported_from_numpy, np.arange(3.0))

