"""The benchmark kernels (benchmarks/polybench, benchmarks/classic.py) under solvent.jit against
NumPy at their smallest size: same outputs and in-place effects, each loop rolled (no fallback
to unrolling, which would warn), and the same NaNs, infinities and values with NaN, infinities
and -0.0 among their inputs (which loop-dependent products and the optimizer must keep)."""

from __future__ import annotations

import copy
import pathlib
import sys
import warnings

import numpy as np
import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parents[1] / "benchmarks"))

import classic  # noqa: E402
import polybench  # noqa: E402
from polybench.engines import ENGINES, fresh, matches  # noqa: E402

KERNELS = polybench.KERNELS + classic.KERNELS


def test_the_suite_holds_the_thirty_polybench_kernels():
    assert len({k.name for k in polybench.KERNELS}) == len(polybench.KERNELS) == 30


@pytest.mark.parametrize("kernel", KERNELS, ids=[k.name for k in KERNELS])
def test_kernel_matches_numpy(kernel):
    expected = ENGINES["numpy"](kernel)(fresh(kernel, "mini"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = ENGINES["solvent"](kernel)(fresh(kernel, "mini"))
    assert matches(kernel, got, expected)


def _with_non_finite(args, rng):
    """The arguments with NaN, inf, -inf or -0.0 at one to three places of each float array."""
    args = copy.deepcopy(args)
    for a in args:
        if isinstance(a, np.ndarray) and a.dtype.kind == "f" and a.size:
            for _ in range(rng.integers(1, 4)):
                a.flat[rng.integers(a.size)] = rng.choice([np.nan, np.inf, -np.inf, -0.0])
    return args


def _same_non_finite(kernel, got, expected) -> bool:
    """Same shapes, dtypes, NaNs and infinities, and the finite values within the kernel's tolerance."""
    for g, e in zip(got, expected):
        finite = np.isfinite(e)
        scale = np.max(np.abs(e[finite]), initial=0)
        if g.shape != e.shape or g.dtype != e.dtype or not np.array_equal(np.isnan(g), np.isnan(e)):
            return False
        if not np.array_equal(g[np.isinf(e)], e[np.isinf(e)]) or not np.array_equal(np.isfinite(g), finite):
            return False
        if not np.allclose(g[finite], e[finite], rtol=kernel.rtol, atol=kernel.rtol * scale):
            return False
    return len(got) == len(expected)


@pytest.mark.parametrize("kernel", KERNELS, ids=[k.name for k in KERNELS])
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_kernel_with_non_finite_inputs_matches_numpy(kernel):
    run_numpy, run_solvent = ENGINES["numpy"](kernel), ENGINES["solvent"](kernel)
    for seed in range(4):
        args = _with_non_finite(fresh(kernel, "mini"), np.random.default_rng(seed))
        expected = run_numpy(copy.deepcopy(args))
        assert _same_non_finite(kernel, run_solvent(args), expected), f"seed {seed}"
