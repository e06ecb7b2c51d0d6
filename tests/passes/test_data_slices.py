"""Loops that slice where data says keep their fixed offsets (solvent.passes.data_slices)."""

import numpy as np
import pytest

import solvent
from differential import check_like_numpy
from solvent.ir.module import parse
from solvent.passes import data_slices


def column_by_index(m, idx, c):
    out = np.zeros(24)
    for i in range(24):  # (rolled)
        out[i] = m[idx[i], 2] + m[idx[i], c[0]]
    return out


def columns_by_index(m, idx):
    out = np.zeros((24, 2))
    for i in range(24):
        out[i] = m[idx[i], 1:3]
    return out


def wrapped_column(m):
    out = np.zeros(24)
    for i in range(24):
        out[i] = m[i - 1, 2]  # (i - 1 wraps at i = 0)
    return out


def column_made_in_the_loop(m, idx):
    out = np.zeros((24, 4))
    for i in range(4):
        for j in range(24):  # (the column from the outer index, the row from data)
            out[j, i] = m[idx[j], i % 4] + m[idx[j], idx[0] % 5]
    return out


def rows_by_affine_index(m):
    out = np.zeros((23, 5))
    for i in range(23):
        out[i] = m[i + 1] * m[i, 2]
    return out


@pytest.mark.parametrize("fn", [column_by_index, columns_by_index, wrapped_column, column_made_in_the_loop])
def test_slices_where_data_says_keep_their_other_offsets(fn):
    """greedy_while_loop_batch_fission gathered every iteration's slice from column 0: m[idx[i], 2]
    read m[idx[i], 0]."""
    rng = np.random.default_rng(0)
    m, idx, c = rng.standard_normal((24, 5)), rng.integers(0, 24, 24), np.array([3])
    args = {column_by_index: (m, idx, c), columns_by_index: (m, idx), wrapped_column: (m,),
            column_made_in_the_loop: (m, idx)}[fn]
    check_like_numpy(fn, *args)


def test_only_loops_that_slice_where_data_says_are_found():
    m, idx, c = np.zeros((24, 5)), np.zeros(24, np.int64), np.array([3])
    assert data_slices.sliced_by_data(parse(solvent.code_hlo(column_by_index, m, idx, c, optimize="none")))
    assert data_slices.sliced_by_data(parse(solvent.code_hlo(wrapped_column, m, optimize="none")))
    assert not data_slices.sliced_by_data(parse(solvent.code_hlo(rows_by_affine_index, m, optimize="none")))


def interpolated_rows(xq, xp, fp):
    out = np.zeros((fp.shape[0], xq.shape[0]))
    for t in range(fp.shape[0]):  # (rolled: the same points into each row)
        out[t] = np.interp(xq, xp, fp[t])
    return out


def test_a_gather_at_fixed_indices_from_each_iterations_row_leaves_batch_fission_out():
    """Batch fission rewrote such a loop without end: the pass pipeline grew to 23 GB and was killed
    (np.interp of fixed points into each row of a table, 17 rows)."""
    rng = np.random.default_rng(0)
    xq, xp, fp = rng.random(50), np.linspace(0, 1, 20), rng.random((17, 20))
    assert data_slices.sliced_by_data(parse(solvent.code_hlo(interpolated_rows, xq, xp, fp, optimize="none")))
    check_like_numpy(interpolated_rows, xq, xp, fp)
