"""Scatters at indices that enumerate their operand (`passes.enumerated_scatters`): a reshape
(and select) in the program XLA compiles, the values NumPy's; any other scatter stays."""

import pathlib
import sys

import numpy as np
import pytest

import solvent
from differential import check_like_numpy

sys.path.insert(0, str(pathlib.Path(__file__).parents[2] / "examples"))

from fractal import escape_times, grid  # noqa: E402  (the shrinking working set of Rougier's Mandelbrot)


def _scatters(fn, *args) -> int:
    return solvent.compile(fn, *args).lowered.xla_text.count("stablehlo.scatter")


def test_a_write_through_a_shrinking_set_of_positions_is_a_select():
    check_like_numpy(escape_times, grid(48), 30)
    assert _scatters(escape_times, grid(48), 30) == 0


def test_a_write_at_every_position_in_order_is_a_reshape():
    def write(a, v):
        rows, columns = np.mgrid[0:a.shape[0], 0:a.shape[1]]
        a[rows.ravel(), columns.ravel()] = v
        return a

    args = (np.zeros((40, 30)), np.arange(1200.0))
    check_like_numpy(write, *args)
    assert _scatters(write, *args) == 0


@pytest.mark.parametrize("order", ["reversed", "repeated", "transposed"])
def test_other_positions_stay_a_scatter(order):
    def write(a, v):
        rows, columns = np.mgrid[0:a.shape[0], 0:a.shape[1]]
        rows, columns = rows.ravel(), columns.ravel()
        if order == "reversed":
            rows, columns = rows[::-1], columns[::-1]
        elif order == "repeated":
            rows = np.minimum(rows, 38)
        else:
            rows, columns = rows.reshape(40, 30).T.ravel() % 40, columns.reshape(40, 30).T.ravel()
        a[rows, columns] = v
        return a

    args = (np.zeros((40, 30)), np.arange(1200.0))
    check_like_numpy(write, *args)
    assert _scatters(write, *args) >= 1
