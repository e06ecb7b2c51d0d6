"""A loop that stays a loop keeps its scalar broadcasts inside (solvent.passes.loop_broadcasts)."""

import re

import numpy as np

import solvent
from solvent.compiler.lower import Options, lower
from solvent.passes import loop_broadcasts
from solvent.ir.module import parse
from differential import check_like_numpy


def ramp(u):
    for i in range(50):
        u = u * 0.5 + i
    return u


def test_a_broadcast_of_the_loop_index_is_not_precomputed_for_every_iteration():
    # Batch fission made `i` a 50x90000 table sliced each iteration (6x slower than NumPy).
    u = np.ones(90000)
    text = solvent.code_hlo(ramp, u)
    assert "stablehlo.while" in text and not re.search(r"tensor<50x90000x", text)
    assert "optimization_barrier" in text
    check_like_numpy(ramp, u)


LOOP = """
func.func @main(%u: tensor<90000xf64>, %rows: tensor<50x90000xf64>) -> tensor<90000xf64> {
  %c0 = stablehlo.constant dense<0> : tensor<i64>
  %c1 = stablehlo.constant dense<1> : tensor<i64>
  %n = stablehlo.constant dense<50> : tensor<i64>
  %iota = stablehlo.iota dim = 0 : tensor<50x90000xf64>
  %r:2 = stablehlo.while(%i = %c0, %v = %u) : tensor<i64>, tensor<90000xf64>
  cond {
    %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %s = stablehlo.dynamic_slice SLICED, %i, %c0, sizes = [1, 90000] : (tensor<50x90000xf64>, tensor<i64>, tensor<i64>) -> tensor<1x90000xf64>
    %w = stablehlo.reshape %s : (tensor<1x90000xf64>) -> tensor<90000xf64>
    %a = stablehlo.add %v, %w : tensor<90000xf64>
    %j = stablehlo.add %i, %c1 : tensor<i64>
    stablehlo.return %j, %a : tensor<i64>, tensor<90000xf64>
  }
  return %r#1 : tensor<90000xf64>
}"""


def test_a_table_of_per_iteration_broadcasts_is_told_from_rows_of_data():
    assert loop_broadcasts.precomputed(parse(LOOP.replace("SLICED", "%iota")))
    assert not loop_broadcasts.precomputed(parse(LOOP.replace("SLICED", "%rows")))


def test_kept_in_loops_passes_each_varying_scalar_of_a_loop_body_through_a_barrier():
    traced = lower(ramp, (np.ones(8),), {}, Options(optimize=False)).traced_text
    kept = loop_broadcasts.kept_in_loops(traced)
    assert kept.count("stablehlo.optimization_barrier") == 1  # `i`, not the constant 0.5


def test_a_loop_reading_a_table_of_complex_constants_compiles():
    # Reading a complex constant's attribute raised in jaxlib's bindings (and aborted the process
    # where the attribute came by name): a polynomial of 17 complex coefficients in a loop.
    p = np.arange(17) * (1 + 0.5j) / 17
    check_like_numpy(lambda x: np.polyval(p, x), np.linspace(-1, 1, 12).reshape(3, 4), rtol=1e-9)
