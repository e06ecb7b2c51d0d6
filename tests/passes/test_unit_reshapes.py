"""Unit reshapes moved below elementwise ops with constants (`passes.unit_reshapes`): the ops run
on their operand's shape, values stay NumPy's, and XLA fuses an all-pairs step into one kernel."""

import pathlib
import re
import sys

import numpy as np

import solvent
from differential import check_like_numpy
from solvent.ir.module import parse, to_text
from solvent.passes import unit_reshapes

sys.path.insert(0, str(pathlib.Path(__file__).parents[2] / "benchmarks"))
from classic import nbody_step  # noqa: E402  all pairs: (sum of squares + c) ** 1.5, read as [:, :, None]

MODULE = """
func.func @main(%x: tensor<4x5xf64>, %m: tensor<4x5x1xf64>) -> (tensor<4x5x1xf64>, tensor<4x5x1xf64>) {
  %c = stablehlo.constant dense<1.0e-02> : tensor<4x5x1xf64>
  %p = stablehlo.constant dense<1.5> : tensor<4x5x1xf64>
  %0 = stablehlo.reshape %x : (tensor<4x5xf64>) -> tensor<4x5x1xf64>
  %1 = stablehlo.add %0, %c : tensor<4x5x1xf64>
  %2 = stablehlo.power %1, %p : tensor<4x5x1xf64>
  %3 = stablehlo.divide %m, %2 : tensor<4x5x1xf64>
  %4 = stablehlo.reshape %x : (tensor<4x5xf64>) -> tensor<4x5x1xf64>
  %5 = stablehlo.negate %4 : tensor<4x5x1xf64>
  %6 = stablehlo.add %4, %5 : tensor<4x5x1xf64>
  return %3, %6 : tensor<4x5x1xf64>, tensor<4x5x1xf64>
}
"""


def test_a_reshape_moves_below_ops_with_constants_and_stops_at_other_operands():
    module = parse(MODULE)
    assert unit_reshapes.rewrite(module)
    text = to_text(module)
    assert re.search(r"stablehlo\.add %arg0, %\w+ : tensor<4x5xf64>", text)  # on the operand's shape
    assert re.search(r"stablehlo\.power %\w+, %\w+ : tensor<4x5xf64>", text)
    assert re.search(r"stablehlo\.divide %arg1, %\w+ : tensor<4x5x1xf64>", text)  # m is no constant
    assert re.search(r"stablehlo\.negate %\w+ : tensor<4x5x1xf64>", text)  # (its reshape is used twice)
    assert not unit_reshapes.rewrite(module)  # (a reshape used twice stays where it is)


def test_an_all_pairs_step_is_numpys_and_one_kernel_makes_its_forces():
    rng = np.random.default_rng(5)
    pos, vel, mass = rng.random((64, 3)), np.zeros((64, 3)), rng.random(64)
    check_like_numpy(nbody_step, pos, vel, mass, 0.01, rtol=1e-10)
    hlo = solvent.code_xla(nbody_step, pos, vel, mass, 0.01)
    assert not re.search(r"= f64\[64,64,3\]\{[\d,]+\} fusion\(", hlo)  # the differences are never written out
