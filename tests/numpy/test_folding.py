"""Values known at trace time stay NumPy's own (solvent.numpy.folding)."""

import numpy as np
import pytest

import solvent
from differential import check_like_numpy


def host_values_of_static_creations(x):
    idx = np.arange(4)
    n = int(np.sum(idx > 1))
    nz = np.nonzero(np.array([0, 3, 0, 5]))[0]
    groups = np.add.reduceat(x, np.arange(0, 6, 2))
    z = np.zeros(n)  # a shape computed from known values
    if idx[2] == 2:  # a known condition is a static one
        z = z + 1
    return idx.tolist(), z, x[nz], groups, len(nz), np.linspace(0, 1, 5).tolist(), idx * 2.5, nz.shape


def test_creation_from_static_arguments_stays_numpys_value():
    check_like_numpy(host_values_of_static_creations, np.arange(6.0))


def test_a_known_condition_traces_one_branch():
    def f(x):
        if np.arange(3).sum() == 3:
            return x + 1
        return x - 1

    assert "case" not in solvent.code_hlo(f, np.zeros(2), optimize="none")


def writes_forget_the_known_value(x):
    out = np.zeros(3)
    before = out.sum()
    out[1] = x.sum()
    counts = np.zeros(3, dtype=np.int64)
    for i in range(x.shape[0]):  # rolled: the sum read before the write is traced
        x[i] = counts.sum()
        counts[0] += 1
    return before, out, out.sum(), counts


def test_a_write_forgets_the_known_value():
    check_like_numpy(writes_forget_the_known_value, np.arange(40.0))


def test_views_of_known_arrays_see_later_writes():
    def f(x):
        base = np.zeros(4)
        view = base[1:3]
        base[1] = x[0]
        return view * 1, base[::2] * 1

    check_like_numpy(f, np.array([7.0]))


def test_tolist_of_a_known_value_and_of_a_traced_one():
    def f(x):
        return np.arange(3).tolist(), x.tolist()

    check_like_numpy(f, np.zeros(2))


def test_large_results_are_not_folded_into_constants():
    def f(x):
        return np.ones((200, 200)) * 2 + x

    text = solvent.code_hlo(f, np.zeros((200, 200)), optimize="none")
    assert len(text) < 20_000, "a 40,000-element constant was folded into the module"
    check_like_numpy(f, np.zeros((200, 200)))


def test_known_values_fold_through_functions_solvent_does_not_trace():
    def f(x):
        common = np.intersect1d(np.arange(6), np.arange(3, 9))  # NumPy computes it: all known
        return x[common], len(common)

    check_like_numpy(f, np.arange(8.0))
