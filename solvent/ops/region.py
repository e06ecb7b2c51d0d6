"""Filling the body region of ops such as `reduce`, `reduce_window` and `scatter`."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo

from solvent.ir.types import tensor_type


def fill_region(op: ir.Operation, index: int, dtypes: Sequence, body: Callable) -> None:
    """Give region `index` of `op` one block of scalar tensor arguments and `body`'s results."""
    types = [tensor_type((), d) for d in dtypes]
    block = op.regions[index].blocks.append(*types)
    with ir.InsertionPoint(block):
        results = body(*block.arguments)
        stablehlo.ReturnOp(list(results))
