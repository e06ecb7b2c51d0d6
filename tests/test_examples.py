"""The programs in examples/ (what `make demo` runs) against NumPy at small sizes."""

from __future__ import annotations

import pathlib
import sys

import numpy as np

import solvent

from differential import check_like_numpy

sys.path.insert(0, str(pathlib.Path(__file__).parents[1] / "examples"))

import alignment  # noqa: E402
import fractal  # noqa: E402
import heat  # noqa: E402
import ising  # noqa: E402
import option  # noqa: E402
import regression  # noqa: E402
import spectral  # noqa: E402


def test_heat_step_and_simulation():
    check_like_numpy(heat.step, heat.initial_condition(16), heat.ALPHA, heat.DT)
    check_like_numpy(heat.simulate, heat.initial_condition(16), 20)


def test_cahn_hilliard_step_conserves_mass_like_numpy():
    u, k2 = spectral.initial_state(32)
    energy = check_like_numpy(spectral.step, u, k2, spectral.DT, rtol=1e-10)
    assert np.isfinite(energy)


def test_huber_regression_step_follows_numpy_and_finds_the_model():
    data = regression.make_data(400, 4)
    beta = np.zeros(4)
    for _ in range(8):
        beta, _ = check_like_numpy(regression.step, data.x, data.y, beta, rtol=1e-10)
    np.testing.assert_allclose(beta, data.beta, atol=0.05)


def test_escape_time_fractal_with_masks_counts_as_numpy():
    counts = check_like_numpy(fractal.escape_counts, fractal.grid(24), 20)
    assert 0 < counts.min() < counts.max() == 20


def test_escape_time_fractal_on_a_shrinking_set_times_as_numpy():
    times = check_like_numpy(fractal.escape_times, fractal.grid(24), 20)
    assert times.min() == 0 and 0 < times.max() <= 20
    assert np.array_equal(times > 0, fractal.escape_counts(fractal.grid(24), 20) < 20)


def test_alignment_by_dynamic_programming_scores_as_numpy():
    a, b = alignment.random_pair(40)
    best, _ = check_like_numpy(alignment.score, a, b)
    assert best > alignment.GAP * 80


def test_ising_by_metropolis_draws_as_numpy_and_leaves_the_generator_alike():
    ours, numpys = np.random.default_rng(7), np.random.default_rng(7)
    mine, theirs = ising.random_lattice(8, ours), ising.random_lattice(8, numpys)
    compiled = solvent.jit(ising.metropolis)
    for _ in range(2):
        assert compiled(mine, ours, 0.44, 500) == ising.metropolis(theirs, numpys, 0.44, 500)
        assert np.array_equal(mine, theirs) and mine.dtype == theirs.dtype
        assert ours.bit_generator.state == numpys.bit_generator.state


def test_asian_option_draws_from_the_global_generator_as_numpy():
    args = (100.0, 105.0, 0.03, 0.2, 1.0, 20, 500)
    compiled = solvent.jit(option.asian_call)
    np.random.seed(3)
    got = [compiled(*args), compiled(*args)]
    after = np.random.get_state(legacy=False)
    np.random.seed(3)
    want = [option.asian_call(*args), option.asian_call(*args)]
    assert np.allclose(got, want, rtol=1e-12, atol=0) and got[0] != got[1]
    state = np.random.get_state(legacy=False)
    assert np.array_equal(after["state"]["key"], state["state"]["key"])
    assert (after["state"]["pos"], after["has_gauss"], after["gauss"]) == (state["state"]["pos"], state["has_gauss"],
                                                                          state["gauss"])
