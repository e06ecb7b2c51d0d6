"""The benchmark kernels (benchmarks/polybench, benchmarks/classic.py) under solvent.jit against
NumPy at their smallest size: same outputs and in-place effects, each loop rolled (no fallback
to unrolling, which would warn)."""

from __future__ import annotations

import pathlib
import sys
import warnings

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
