"""Loops of array code: a Python `while` on NumPy arrays, one `stablehlo.while` on traced ones (for
library code whose iteration count is data-dependent or too large to unroll); and a branch on a
traced bool that runs only the side taken."""

from __future__ import annotations

from collections.abc import Callable

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo

from solvent.core import trace
from solvent.numpy import values
from solvent.ops import control
from solvent.ops.base import check, create


def repeat_while(test: Callable, step: Callable, start: tuple, reads: tuple = ()) -> tuple:
    """`while test(*carried): carried = step(*carried)` over a tuple of arrays of fixed shapes and
    dtypes. Traced (when a carried array, or one of the arrays `reads` that test and step read
    besides, is), the test and step are traced once each into the loop's regions."""
    if not any(values.is_traced(x) for x in (*start, *reads)):
        carried = start
        while test(*carried):
            carried = step(*carried)
        return carried
    session = trace.current()
    with session.emitting():
        initial = [values.value(x) for x in start]
        types = [v.type for v in initial]
        op = control.while_op(initial)
        for region, body in ((0, lambda *c: [values.value(test(*c))]),
                             (1, lambda *c: [values.value(x) for x in step(*c)])):
            block = op.regions[region].blocks.append(*types)
            with session.inside(block):
                stablehlo.ReturnOp(body(*(values.wrap(a, scalar=False) for a in block.arguments)))
    return tuple(values.wrap(r, scalar=False) for r in op.results)


def branch(test: ir.Value, if_true: Callable[[], ir.Value], if_false: Callable[[], ir.Value],
           result_type: ir.Type) -> ir.Value:
    """`if_true()` where the traced bool `test` holds, else `if_false()`: each traced into its own
    region of one `stablehlo.if`, so that only the side taken runs."""
    op = create("stablehlo.if", [test], [result_type], regions=2)
    for region, side in enumerate((if_true, if_false)):
        with trace.current().inside(op.regions[region].blocks.append()):
            result = side()
            check(result.type == result_type, "the two sides of a branch differ in type")
            stablehlo.ReturnOp([result])
    return op.results[0]
