"""Values with no elements as constants, before the Enzyme-JAX pipeline runs.

An op whose results have no elements computes nothing that can be observed, and an empty
tensor of a given type has exactly one value, so each such op can be a constant of its type.
Some of the pipeline's patterns crash the whole process on such ops (a scatter into an empty
array, which `a[:0][mask[:0]]` makes), so `pipelines.run` folds them away first.
"""

from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir

from solvent.ir.context import context
from solvent.ir.module import ops_where, parse, to_text
from solvent.ops.base import dtype_of, shape_of
from solvent.ops.constant import constant

#: Ops kept even when all their results are empty: control flow, calls into other code, state.
_KEPT = {"stablehlo.constant", "stablehlo.while", "stablehlo.case", "stablehlo.if", "stablehlo.custom_call",
         "stablehlo.return", "stablehlo.optimization_barrier", "stablehlo.rng_bit_generator"}


def _empty(value: ir.Value) -> bool:
    kind = str(value.type)
    return kind.startswith("tensor<") and "*" not in kind and 0 in shape_of(value)


def folded(module_text: str) -> str:
    """`module_text` with every StableHLO op whose results are all empty tensors replaced by
    constants (the text itself when there is none)."""
    if "x0x" not in module_text and "<0x" not in module_text:
        return module_text  # no type with a zero extent
    module = parse(module_text)
    found = ops_where(module, lambda op: op.name.startswith("stablehlo.") and op.name not in _KEPT and
                      len(op.results) and all(_empty(r) for r in op.results))
    if not found:
        return module_text
    with context():
        for op in found:
            with ir.InsertionPoint(op), op.location:
                for result in op.results:
                    result.replace_all_uses_with(constant(np.zeros(shape_of(result), dtype_of(result))))
            op.erase()
    return to_text(module)
