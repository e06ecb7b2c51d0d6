"""Values with no elements as constants before the pass pipeline (`passes.empty_values`): the
module keeps its meaning, and programs whose empty ops crashed an Enzyme-JAX pattern run."""

import numpy as np

import solvent
from differential import check_like_numpy
from solvent.ir.context import context
from solvent.passes import empty_values


def empty_selection(x):
    return x[:0][(x > 0)[:0]], x[x > 0]


def test_programs_of_empty_selections_and_scatters_run_as_numpy():
    check_like_numpy(empty_selection, np.arange(4.0) - 1.0)
    check_like_numpy(empty_selection, np.zeros(0))
    check_like_numpy(lambda x, i: (x.__setitem__(i, 1.0), np.argsort(x)[:0][(x > 0)[:0]])[1],
                     np.arange(4.0), np.zeros(0, np.int64))


def test_ops_with_empty_results_become_constants_and_others_stay():
    text = solvent.code_hlo(empty_selection, np.arange(4.0), optimize=False)
    with context():
        folded = empty_values.folded(text)
    assert "stablehlo.scatter" in text and "stablehlo.compare" in text
    assert folded.count("stablehlo.scatter") < text.count("stablehlo.scatter")
    assert "stablehlo.compare" in folded  # x > 0 over the four elements stays
    plain = solvent.code_hlo(lambda x: x * 2.0, np.arange(4.0), optimize=False)
    assert empty_values.folded(plain) is plain
