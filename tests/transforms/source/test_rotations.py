"""Rolled loops whose bodies take turns with buffers (`u, v = v, u`): NumPy's values, in-place effects
and identities, and each buffer written in place (no whole-array select or copy an iteration)."""

import ast
import copy
import re
import textwrap

import numpy as np
import pytest

import solvent
from differential import assert_same
from solvent.transforms.source.bindings import rotates


def check(fn, *args):
    """Results, argument effects and which results are arguments, as NumPy's; every loop rolled."""
    numpy_args, solvent_args = copy.deepcopy(args), copy.deepcopy(args)
    expected, actual = fn(*numpy_args), solvent.jit(fn, unroll=0)(*solvent_args)
    assert_same(actual, expected)
    assert_same(solvent_args, numpy_args)
    for a, e in zip(actual, expected):
        assert [k for k, x in enumerate(solvent_args) if a is x] == [k for k, x in enumerate(numpy_args) if e is x]


def swap(u, v, steps):
    for t in range(steps):
        v[1:-1] = 0.5 * (u[2:] + u[:-2]) + t
        u, v = v, u
    return u, v


def rotate_three(a, b, c, steps):
    for t in range(steps):
        c[t % 4] = a[(t + 1) % 4] + 2 * b[t % 4]
        a, b, c = b, c, a
    return a, b, c


def one_array_two_names(u, steps):
    v = u
    for _ in range(steps):
        v[1:] = u[:-1] + 1
        u, v = v, u
    return u, v


def views_of_one_array(a, steps):
    u, v = a[:6], a[6:]
    for t in range(steps):
        v[t % 6:t % 6 + 1] = u[:1] * 0.5 + t
        u, v = v, u
    return a, u


def rebound_in_a_branch(u, v, steps):
    for _ in range(steps):
        v[:] = u + 1
        u, v = v, u
        if u.sum() > 100:
            v = u
    return u, v


@pytest.mark.parametrize("steps", [40, 41])
def test_a_swap_of_two_buffers(steps):
    check(swap, np.arange(8.0), np.zeros(8), steps)


@pytest.mark.parametrize("steps", [30, 31, 32])
def test_a_rotation_of_three_buffers(steps):
    check(rotate_three, np.arange(4.0), np.ones(4), np.zeros(4), steps)


@pytest.mark.parametrize("fn, args", [
    (one_array_two_names, (np.arange(6.0),)),  # the names share one array: no rotation among arrays
    (views_of_one_array, (np.arange(12.0),)),  # views of one array: each written where NumPy writes
    (rebound_in_a_branch, (np.arange(5.0), np.zeros(5))),  # a traced branch decides what v is
])
@pytest.mark.parametrize("steps", [20, 21])
def test_names_that_share_or_may_share_arrays(fn, args, steps):
    check(fn, *args, steps)


def jacobi(u, v, steps):
    for _ in range(steps):
        v[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
        u, v = v, u
    return u


def test_each_buffer_is_written_in_place():
    # one step an iteration, u and v were each one of the two buffers by a carried index: a select
    # between the whole buffers for every read and write, and XLA copied them (2x slower than NumPy)
    u, v = np.random.default_rng(0).random((64, 64)), np.zeros((64, 64))
    hlo = solvent.code_xla(jacobi, u, v, 50)
    assert not re.findall(r"f64\[64,64\]\{1,0\} (?:copy|select)\(", hlo)
    check(lambda u, v, steps: (jacobi(u, v, steps),), u, v, 50)


@pytest.mark.parametrize("source, expected", [
    ("u, v = v, u", True),
    ("a, b, c = b, c, a", True),
    ("u_prev, u = u, u_next", False),  # a new array each step
    ("u, v = u, v", False),
    ("u, v = v, u + 1", False),
    ("if c:\n    u, v = v, u", False),  # only on one path
])
def test_rotates_reads_the_loop_body(source, expected):
    assert rotates(ast.parse(textwrap.dedent(source)).body) is expected
