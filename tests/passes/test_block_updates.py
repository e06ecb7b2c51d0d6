"""Block updates as pad + select (`passes.block_updates`): inside a loop only where the update
reads its own array around the block, or not at all on a large array of wide elements, and the
values stay NumPy's."""

import re

import numpy as np
import pytest

import solvent
from differential import check_like_numpy
from solvent.passes import block_updates


def heat(u, steps):
    for _ in range(steps):
        u[1:-1, 1:-1] += 0.2 * (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2] - 4 * u[1:-1, 1:-1])


def relax(u, v, steps):
    for _ in range(steps):
        v[1:-1] = 0.5 * (u[2:] + u[:-2])  # reads u around v's block, but not v's own array
        u[1:-1] = v[1:-1] * 1.5           # reads v, which XLA writes first: u's update is in place
        u[0] += 1.0                       # a small block: never a pass over the whole array


def spread(a, b, steps):
    """Jacobi's form in any dtype (no product with a float and cast back, which selects)."""
    for _ in range(steps):
        b[1:-1, 1:-1] = a[2:, 1:-1] + a[:-2, 1:-1] - a[1:-1, 2:]
        a[1:-1, 1:-1] = b[2:, 1:-1] - b[:-2, 1:-1] + b[1:-1, 2:]


def damp(u, v, steps):
    for _ in range(steps):
        u[1:-1] = u[1:-1] * 0.5 + v[1:-1]  # reads u exactly at its block


def _in_loop(text: str, op: str) -> bool:
    """Whether `op` appears inside the module's stablehlo.while (main's first one, up to its `}`)."""
    loop = text[text.index("stablehlo.while"):]
    return op in loop[:re.search(r"\n    \}(?! do)", loop).start()]


def test_an_update_reading_its_own_array_around_the_block_is_a_select_in_the_loop():
    u = np.random.default_rng(0).random((16, 16))
    check_like_numpy(heat, u, 20)
    text = solvent.code_mhlo(heat, u, 20)
    assert _in_loop(text, "stablehlo.select") and not _in_loop(text, "stablehlo.dynamic_update_slice")
    xla = solvent.code_xla(heat, u, 20).split("\nENTRY")[0]
    # one pass over the array and its copy into the carry; no shifted read copied out first
    assert not [line for line in xla.splitlines() if "f64[14,14]" in line.split("=")[0] and "fusion(" in line]


@pytest.mark.parametrize("n", [8, 33])
def test_updates_reading_other_arrays_or_small_blocks_stay_in_place(n):
    rng = np.random.default_rng(n)
    u, v = rng.random(n), rng.random(n)
    check_like_numpy(relax, u, v, 20)
    text = solvent.code_mhlo(relax, u, v, 20)
    assert _in_loop(text, "stablehlo.dynamic_update_slice") and not _in_loop(text, "stablehlo.select")
    # and the loop carries both arrays whole (while_induction_reduction carried u[:-1] and rebuilt u)
    xla = solvent.code_xla(relax, u, v, 20).split("\nENTRY")[0]
    assert not [line for line in xla.splitlines() if " copy(" in line and f"f64[{n}]" in line.split("copy(")[0]]


@pytest.mark.parametrize("n, dtype, select", [(100, np.float64, False), (200, np.float64, True),
                                              (200, np.float32, False), (200, np.int8, False)])
def test_updates_reading_only_other_arrays_are_a_select_on_large_arrays_of_wide_elements(n, dtype, select):
    rng = np.random.default_rng(n)
    a, b = (rng.random((n, n)) * 4).astype(dtype), (rng.random((n, n)) * 4).astype(dtype)
    wide = np.dtype(dtype).itemsize >= block_updates.PARALLEL_ITEMSIZE
    assert (n * n >= block_updates.PARALLEL_FROM and wide) == select
    check_like_numpy(spread, a, b, 20)
    text = solvent.code_mhlo(spread, a, b, 20)
    assert _in_loop(text, "stablehlo.select") == select
    assert _in_loop(text, "stablehlo.dynamic_update_slice") != select


def test_a_large_update_reading_its_own_array_at_the_block_stays_in_place():
    rng = np.random.default_rng(1)
    u, v = rng.random(1 << 16), rng.random(1 << 16)
    check_like_numpy(damp, u, v, 20)
    text = solvent.code_mhlo(damp, u, v, 20)
    assert _in_loop(text, "stablehlo.dynamic_update_slice") and not _in_loop(text, "stablehlo.select")


def life(grid, steps):
    """Game of Life by rolls, written in place: its concatenates are only slices of the grid."""
    for _ in range(steps):
        n = sum(np.roll(np.roll(grid, i, 0), j, 1) for i in (-1, 0, 1) for j in (-1, 0, 1) if (i, j) != (0, 0))
        grid[:] = (n == 3) | ((grid == 1) & (n == 2))
    return grid.sum()


def test_rolls_stay_concatenates_of_slices():
    grid = (np.random.default_rng(2).random((12, 12)) < 0.3).astype(np.int64)
    check_like_numpy(life, grid, 3)
    text = solvent.code_mhlo(life, grid, 3)
    # one concatenate per roll along each axis that moves (8 a step: the first, and the loop of the
    # rest), no pad + select of them, and none made per slice of another (Enzyme's slice_concat: 16 a step)
    assert text.count("stablehlo.concatenate") == 2 * 8 and "stablehlo.pad" not in text
