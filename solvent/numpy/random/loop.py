"""Loops of array code: a Python `while` on NumPy arrays, a `stablehlo.while` on traced ones; and
long streams of draws made in blocks by such a loop."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from jaxlib.mlir.dialects import stablehlo

from solvent.core import trace
from solvent.numpy import values
from solvent.numpy.random import masks
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


#: The most draws made at once: the arrays behind many more took XLA's temporary memory past 32 MiB,
#: which the C library then maps afresh on every call and the kernel zeroes page by page (a million
#: rejection-sampled draws ran three times slower than four blocks of a quarter million).
BLOCK = 1 << 17


def blocked(draw: Callable, state, n: int, dtype, *args):
    """`draw(state, n, *args)` (n draws of `dtype` and the state after) for a stream whose n draws are
    those of any split of n in turn: above BLOCK, made in equal blocks by a loop (one size for all
    where one divides n, else one block more for the rest)."""
    if n <= BLOCK:
        return draw(state, n, *args)
    blocks = -(-n // BLOCK)
    size = next((m for m in range(-(-n // blocks), BLOCK // 2, -1) if n % m == 0), -(-n // blocks))
    full = n // size

    def step(i, state, out):
        values, state = draw(state, size, *args)
        return i + 1, state, masks.placed(out, values, i * size)

    _, state, out = repeat_while(lambda i, *_: i < full, step, (np.int64(0), state, np.zeros(n, dtype)))
    if full * size == n:
        return out, state
    rest, state = draw(state, n - full * size, *args)
    return np.concatenate([out[:full * size], rest]), state
