"""One-element ops that repeat scalar ones (`passes.one_element_ops`): values stay NumPy's, and the
module XLA gets computes a loop body's scalar once, not also as a 1x1 array."""

import pathlib
import re
import sys

import numpy as np
import pytest

import solvent
from differential import check_like_numpy
from solvent.passes import one_element_ops

sys.path.insert(0, str(pathlib.Path(__file__).parents[2] / "benchmarks"))
from polybench.medley import nussinov as pairs  # noqa: E402  Nussinov's dynamic programming, cells written in place


def leaky(x, y):
    """One-element arrays on their own (no scalar twin): left as they are."""
    for i in range(x.shape[0] - 1):
        y[i:i + 1] = np.maximum(x[i:i + 1] * 0.5, y[i + 1:i + 2]) - 1.0
    return y


@pytest.mark.parametrize("n", [5, 24])
def test_values_stay_numpys(n):
    rng = np.random.default_rng(n)
    check_like_numpy(pairs, rng.integers(0, 4, n).astype(np.int8), np.zeros((n, n), np.int32))
    check_like_numpy(leaky, rng.random(n), rng.random(n))


def _kernels_per_loop_body(hlo: str) -> list[int]:
    """Per while body of XLA's optimized HLO, the instructions that run as kernels (thunks)."""
    computations = {m.group(1): m.group(0) for m in re.finditer(r"^%?([\w.\-]+) [^\n]*\{\n(?:.*\n)*?\}", hlo, re.M)}
    free = ("parameter", "constant", "get-tuple-element", "tuple", "bitcast")
    return [sum(op not in free for op in re.findall(r"= [^ ]+ ([\w-]+)\(", computations[body]))
            for body in re.findall(r"body=%?([\w.\-]+)", hlo)]


def test_a_loop_body_computes_its_scalar_once(monkeypatch):
    """Nussinov's inner body: 9 kernels with the cell's value also computed as a 1x1 array, 8 without,
    which XLA's CPU runtime runs one after another instead of concurrently, at a fraction of the cost."""
    args = np.zeros(24, np.int8), np.zeros((24, 24), np.int32)
    merged = _kernels_per_loop_body(solvent.code_xla(pairs, *args))
    monkeypatch.setattr(one_element_ops, "rewrite", lambda module: False)
    twice = _kernels_per_loop_body(solvent.code_xla(pairs, *args))
    assert sum(merged) < sum(twice) and min(merged) <= 8  # (the inner body's)
