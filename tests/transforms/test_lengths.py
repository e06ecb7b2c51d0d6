"""Loops whose carried arrays have a data-dependent length (solvent.transforms.lengths): a working
set that shrinks every iteration (`z = z[~done]`), with its length or mask carried beside it."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import solvent
from jaxlib.mlir import ir
from solvent.ir.module import in_loop, parse
from differential import assert_same

pytestmark = pytest.mark.filterwarnings("error::UserWarning")  # a loop that falls back to unrolling fails

VALUES = hnp.arrays(np.float64, 40, elements=st.floats(-3, 3, allow_subnormal=False))  # one shape: one compile


def escape_times(x, y):
    """Rougier's escape-time form: each step drops the points that left, and records when they did."""
    out = np.zeros(x.shape)
    index = np.arange(x.size)
    for i in range(20):
        x = x * 1.5 - y
        done = np.abs(x) > 4
        out[index[done]] = i
        x, y, index = x[~done], y[~done], index[~done]
    return out, len(x), x.sum(), np.max(x, initial=-1.0), x


_escape_times = solvent.jit(escape_times)


@settings(max_examples=40, deadline=None)
@given(VALUES, st.floats(-2, 2))
def test_a_working_set_that_shrinks_every_iteration_matches_numpy(x, shift):
    y = np.roll(x, 1) + shift
    assert_same(_escape_times(x, y), escape_times(x, y))


def until_empty(x, t):
    steps, total = 0, 0.0
    while len(x) > 0:
        total += x.sum()
        x = x[x > t] * 0.5
        steps += 1
    return steps, total


@settings(max_examples=25, deadline=None)
@given(hnp.arrays(np.float64, 30, elements=st.floats(0, 100)), st.floats(0.1, 5))
def test_a_while_loop_until_the_set_is_empty_counts_its_steps(x, t):
    steps, total = solvent.jit(until_empty)(x, t)
    expected_steps, expected_total = until_empty(x, t)
    assert int(steps) == expected_steps
    assert_same(np.asarray(total), np.asarray(expected_total))


def test_the_loop_rolls_and_keeps_the_set_in_place():
    # One while loop (no unrolling), and the selections never packed inside it: no sort, no
    # scatter but the one that records `out`.
    x = np.linspace(-1, 1, 30)
    text = solvent.code_hlo(escape_times, x, x[::-1].copy())
    assert text.count("stablehlo.while") == 1
    inside = []

    def visit(op):
        if in_loop(op):
            inside.append(op.name)
        return ir.WalkResult.ADVANCE
    parse(text).operation.walk(visit)
    assert inside.count("stablehlo.scatter") == 1 and "stablehlo.sort" not in inside


def prefix_carried(x, k):
    y = x[:k]
    for _ in range(20):
        y = y * 0.5 + 1.0
    return y.sum(), y


@pytest.mark.parametrize("k", [0, 3, 7])
def test_a_slice_of_traced_length_carried_by_a_rolled_loop(k):
    x = np.arange(7.0)
    actual = solvent.jit(prefix_carried)(x, solvent.Scalar(np.int64(k)))
    assert_same([np.asarray(a) for a in actual], list(prefix_carried(x, k)))
