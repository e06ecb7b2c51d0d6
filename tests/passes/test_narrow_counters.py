"""Integers a loop computes from its counter in narrow or unsigned types wrap as NumPy's do: the
Enzyme patterns that take them for int64s are left out of such modules (solvent.passes.narrow_counters)."""

import warnings

import numpy as np
import pytest

import solvent
from differential import check_like_numpy
from solvent.ir.module import parse
from solvent.passes import narrow_counters

STEPS = {
    "uint8": lambda i: np.uint8(250) + i, "uint16": lambda i: np.uint16(65530) + i,
    "uint32": lambda i: np.uint32(2 ** 32 - 3) + i, "int8": lambda i: np.int8(122) + i,
    "int32": lambda i: np.int32(2 ** 31 - 3) + i, "int16 product": lambda i: np.int16(32767) * i,
    "int8 difference": lambda i: np.int8(-128) - i, "negated": lambda i: -(np.int8(-128) + i),
}


@pytest.mark.parametrize("step", STEPS.values(), ids=STEPS)
def test_narrow_integers_from_the_loop_index_wrap_as_numpys(step):
    """Batched by greedy_while_loop_batch_fission, np.uint8(250) + i was -6 and np.int8(122) + 6 was 128."""
    def counted(x):
        out = np.zeros((20, 2), np.int64)
        for i in range(20):
            out[i, 0] = step(i)
            out[i, 1] = 1
        return out
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # (NumPy's overflow warnings)
        check_like_numpy(counted, np.zeros(1))


def wrapped_windows(x):
    out = np.zeros(8)
    for i in range(8):
        k = np.int8(124) + i
        out[i] = x[k:k + 2].sum()  # (k + 2 wraps to -128 at i = 2: x[126:-128])
    return out


def test_slice_bounds_that_wrap_in_a_narrow_type_are_numpys():
    """remove_no_ops_from_while_loop bounded k + 2 as if it never wrapped: the sums came out 0."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        np.testing.assert_array_equal(solvent.jit(wrapped_windows, unroll=1)(np.arange(300.0)),
                                      wrapped_windows(np.arange(300.0)))


def test_only_loops_narrowing_their_counter_are_found():
    """Narrow data a loop reads (Nussinov's int32 table) keep the patterns: without them it ran 25% slower."""
    def narrowed(x):
        for i in range(20):
            x[i] = np.uint8(250) + i
        return x

    def narrow_data(table):
        for i in range(1, 20):
            table[i] = table[i - 1] + 1
        return table
    found = [narrow_counters.found(parse(solvent.code_hlo(f, x, optimize="none")))
             for f, x in ((narrowed, np.zeros(20, np.uint8)), (narrow_data, np.zeros(20, np.int32)))]
    assert found == [True, False]
