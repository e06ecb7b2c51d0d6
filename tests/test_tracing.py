"""Tracing a function into `main` (`solvent.tracing`): how its results become program outputs."""

import numpy as np
import solvent
from differential import check_types_like_numpy


def history(x, steps):
    losses, snapshots = [], []
    for _ in range(steps):
        x = x * 0.9
        losses.append(float(np.sum(x * x)))
        snapshots.append(x.copy())
    return x, losses, snapshots


def many_results(x):
    return ([x * i for i in range(40)], {f"k{i}": x[i % 3] for i in range(30)},
            tuple(np.float32(x[0]) * i for i in range(20)), [x[0]] * 20, [x[1] + i for i in range(3)])


def test_many_results_of_one_type_are_one_output_and_come_back_as_numpys():
    """A list of 1000 losses was 1000 outputs: XLA took 12 s to compile them (0.4 s as one)."""
    x = np.arange(1.0, 4.0)
    check_types_like_numpy(history, x, 300)
    check_types_like_numpy(many_results, x)
    outputs = solvent.compile(history, x, 300).lowered.signature.output_avals
    assert len(outputs) == 3 and outputs[1].shape == (300,) and outputs[2].shape == (300, 3)


def test_results_from_one_list_are_separate_writable_arrays():
    rows = solvent.jit(lambda x: [x * i for i in range(20)])(np.ones(2))
    rows[3][0] = -1.0
    assert rows[3][0] == -1.0 and rows[4][0] == 4.0 and rows[2][0] == 2.0


def test_one_array_returned_twice_is_one_object():
    same = solvent.jit(lambda x: [x[0]] * 20 + [x * 2] * 20)(np.ones(2))
    assert all(v is same[0] for v in same[:20]) and all(v is same[20] for v in same[20:])
