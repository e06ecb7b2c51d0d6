"""A loop of array code: a Python `while` on NumPy arrays, a `stablehlo.while` on traced ones."""

from __future__ import annotations

from collections.abc import Callable

from jaxlib.mlir.dialects import stablehlo

from solvent.core import trace
from solvent.numpy import values
from solvent.ops.base import create


def repeat_while(test: Callable, step: Callable, start: tuple) -> tuple:
    """`while test(*carried): carried = step(*carried)` over a tuple of arrays of fixed shapes and
    dtypes. Traced, the test and step are traced once each into the loop's regions."""
    if not any(values.is_traced(x) for x in start):
        carried = start
        while test(*carried):
            carried = step(*carried)
        return carried
    session = trace.current()
    with session.emitting():
        initial = [values.value(x) for x in start]
        types = [v.type for v in initial]
        op = create("stablehlo.while", initial, types, regions=2)
        for region, body in ((0, lambda *c: [values.value(test(*c))]),
                             (1, lambda *c: [values.value(x) for x in step(*c)])):
            block = op.regions[region].blocks.append(*types)
            with session.inside(block):
                stablehlo.ReturnOp(body(*(values.wrap(a, scalar=False) for a in block.arguments)))
    return tuple(values.wrap(r, scalar=False) for r in op.results)

