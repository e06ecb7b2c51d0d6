"""Reads taken after a loop's in-place write (`passes.reads_after_writes`): values stay NumPy's,
the copies XLA made of the written array go, and a read the write may touch stays before it."""

import re

import numpy as np
import pytest
from hypothesis import given, strategies as st

import solvent
from differential import check_like_numpy
from solvent.passes.reads_after_writes import _apart


def sweep(p, q, u):
    """adi's column sweep: each update reads the column before it of p."""
    for j in range(1, p.shape[1] - 1):
        p[1:-1, j] = -0.5 / (0.3 * p[1:-1, j - 1] + 2.0)
        q[1:-1, j] = (u[j, 1:-1] - 0.3 * q[1:-1, j - 1]) / (0.3 * p[1:-1, j - 1] + 2.0)


def sweep_back(p, q, u):
    """The same by rows, counting down, q's update first."""
    for j in range(p.shape[0] - 2, 0, -1):
        q[j, 1:-1] = q[j + 1, 1:-1] * 0.5 + p[j + 1, 1:-1] + u[j, 1:-1]
        p[j, 1:-1] = p[j + 1, 1:-1] * 0.25 + 1.0


def old_columns(p, q, u):
    """q takes p's columns j - 1 and j as they were before p's write to column j: that read must
    stay before the write."""
    for j in range(1, p.shape[1] - 1):
        before = p[:, j - 1:j + 1].sum(axis=1)
        p[:, j] = p[:, j - 1] * 0.5 + u[:, j]
        q[:, j] = before - q[:, j - 1]


def near_columns(p, q, u):
    """Reads one and two columns back, and of the column just written."""
    for j in range(2, p.shape[1]):
        p[1:, j] = p[1:, j - 2] + 0.5 * p[:-1, j - 1]
        q[:, j] = p[:, j - 1] + p[:, j - 2] - p[:, j] + u[:, j]


def back_then_reset(p, v, q):
    """adi's time loop: a loop reads p's columns 1 to n - 2, then p's column 0 is written: the
    loop can read p after that write."""
    n = p.shape[0]
    for _ in range(20):
        for j in range(n - 2, 0, -1):
            v[j, 1:-1] = p[1:-1, j] * v[j + 1, 1:-1] + q[j, 1:-1]
        p[1:-1, 0] = 0.0
        for j in range(1, n - 1):
            p[1:-1, j] = -0.5 / (0.3 * p[1:-1, j - 1] + 2.0)


def back_through_the_reset(p, v, q):
    """The same, the loop reading column 0 too: it must read p before the write."""
    n = p.shape[0]
    for _ in range(20):
        for j in range(n - 2, -1, -1):
            v[j, 1:-1] = p[1:-1, j] * v[j + 1, 1:-1] + q[j, 1:-1]
        p[1:-1, 0] = 0.0
        for j in range(1, n - 1):
            p[1:-1, j] = -0.5 / (0.3 * p[1:-1, j - 1] + 2.0)


def _copies_in_loops(fn, *args) -> list:
    """The copies of whole arrays in XLA's loop bodies."""
    xla = solvent.code_xla(fn, *args)
    bodies = set(re.findall(r"body=%?([\w.\-]+)", xla))
    found = []
    for computation in re.split(r"\n(?=\S)", xla):
        name = re.match(r"(?:ENTRY )?%?([\w.\-]+)", computation)
        if name and name.group(1) in bodies:
            found += re.findall(rf"f64\[{args[0].shape[0]},{args[0].shape[1]}\][^ ]* copy\(", computation)
    return found


@pytest.mark.parametrize("kernel", [sweep, sweep_back, old_columns, near_columns, back_then_reset,
                                    back_through_the_reset])
def test_values_stay_numpys(kernel):
    rng = np.random.default_rng(1)
    args = [rng.random((40, 40)) for _ in range(3)]
    check_like_numpy(kernel, *args)
    assert "stablehlo.while" in solvent.code_hlo(kernel, *args)  # (a short loop unrolls)


def running_extremes(x):
    """Each write reads the one before it, and a second loop carry sums what the write took from."""
    d = np.zeros(20)
    low = 0.0
    for t in range(1, 20):
        s = d[t - 1] + x
        low = low + s.min()
        d[t] = s.max()
    return d, low


def visited_until(x):
    """A loop that breaks on data, reading an array it writes (a visited set)."""
    done = np.zeros(3, bool)
    for _ in range(3):
        c = np.where(done, 0.0, x)
        if c[0] > 5:
            break
        done[0] = True
    return c


def test_loops_whose_other_carries_feed_the_reads():
    check_like_numpy(running_extremes, np.array([0.1, 0.5, 0.3]))
    check_like_numpy(visited_until, np.ones(3))
    check_like_numpy(visited_until, np.full(3, 6.0))


@pytest.mark.parametrize("kernel", [sweep, sweep_back])
def test_no_copy_of_the_written_array_per_iteration(kernel):
    args = [np.random.default_rng(2).random((40, 40)) for _ in range(3)]
    assert _copies_in_loops(kernel, *args) == []
    # q's update reads p after p's write in the module XLA gets: a slice of a write's result
    loop = solvent.code_mhlo(kernel, *args).split("stablehlo.while", 1)[1]
    written = re.findall(r"(%\d+) = stablehlo.dynamic_update_slice", loop)
    assert any(re.search(rf"dynamic_slice {name},", loop) for name in written)


def test_a_loop_reading_apart_from_a_later_write_reads_the_written_array():
    args = [np.random.default_rng(3).random((40, 40)) for _ in range(3)]
    assert _copies_in_loops(back_then_reset, *args) == []
    assert len(_copies_in_loops(back_through_the_reset, *args)) == 2  # (the loop reads column 0)
    # in the module XLA gets, the column write comes first and the sweep slices what it made
    text = solvent.code_mhlo(back_then_reset, *args)
    written = re.findall(r"(%\d+) = stablehlo.dynamic_update_slice (%[\w#]+), %cst", text)
    assert any(re.search(rf"stablehlo.while.*\n(.*\n)*?.*dynamic_slice {name},", text) for name, _ in written)


@st.composite
def _blocks(draw):
    """Two blocks of one dimension, starts affine in one counter (or constant), over a counter range."""
    n = draw(st.integers(1, 12))
    first, count = draw(st.integers(-4, 12)), draw(st.integers(1, 8))
    step = draw(st.sampled_from([1, -1]))
    last = first + step * (count - 1)
    forms = [(draw(st.sampled_from([None, 0])), draw(st.integers(-2, 2)), draw(st.integers(-12, 12))) for _ in "ab"]
    forms = [(None, 0, offset) if counter is None else (counter, rate, offset) for counter, rate, offset in forms]
    sizes = [draw(st.integers(1, n)) for _ in "ab"]
    return n, (min(first, last), max(first, last)), forms, sizes


@given(_blocks())
def test_blocks_taken_apart_never_overlap(blocks):
    n, counter, (f, g), (a, b) = blocks
    if _apart([f], [a], [g], [b], [n], {0: counter}):
        for x in range(counter[0], counter[1] + 1):
            s, t = (min(max(r * x + o, 0), n - size) for (_, r, o), size in ((f, a), (g, b)))
            assert s + a <= t or t + b <= s, (x, s, t)


def test_blocks_apart_along_one_dimension_are_apart():
    assert _apart([(0, 1, -1), (None, 0, 1)], [1, 8], [(0, 1, 0), (None, 0, 0)], [1, 10], [20, 10], {0: (1, 18)})
    assert not _apart([(0, 1, -1)], [1], [(0, 1, 0)], [1], [20], {0: (0, 18)})  # j - 1 clamps to j at j = 0
    assert not _apart([(0, 1, -1)], [1], [(0, 1, 0)], [1], [20], {})  # the counter's range unknown
