"""Loops of array code: a Python `while` on NumPy arrays, one `stablehlo.while` on traced ones (for
library code whose iteration count is data-dependent or too large to unroll)."""

from __future__ import annotations

from collections.abc import Callable

from jaxlib.mlir.dialects import stablehlo

from solvent.core import trace
from solvent.numpy import values
from solvent.ops import control


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
