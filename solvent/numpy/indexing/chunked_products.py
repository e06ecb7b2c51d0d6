"""Dot products of two slices of traced length (`A[i, :j] @ A[j, :j]` in a Cholesky by rows) taken
CHUNK elements at a time, straight from the arrays the slices are of.

A rolled loop's slice is held at the full extent of its axis (`traced_bounds`), so a product over
it costs the full extent on every iteration, whatever the valid length: a Cholesky by rows at
n=400 did three times the work of the triangle. A loop over the chunks that hold the valid part
costs what that part costs (CHUNK elements at most more). Each chunk is read from the slice's
base with one dynamic_slice; the last one is moved back to end with the valid part, and positions
outside it, or read by the chunk before, are zero in both factors, so infinities or NaN there
never reach the sum. Products with a matrix stay whole: their chunks cost more than the elements
they skip (a matrix row of chunks is a small dot that XLA:CPU runs on one thread).
"""

from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir

from solvent.numpy.repeat import repeat_while
from solvent.numpy.values import full, value, wrap
from solvent.ops import elementwise as ew, shape as ops
from solvent.ops.base import shape_of
from solvent.ops.constant import iota
from solvent.ops.linalg import dot_general

#: Elements per chunk: 32 let XLA:CPU sum a chunk in registers (a Cholesky by rows at n=400
#: in jax.jit: 2.6 ms with 32, 4.4 with 64, 11 with 16, 7.9 over the full extent).
CHUNK = 32
_I64 = np.int64


def dot(a, b, dtype, same_start: bool) -> ir.Value | None:
    """The dot product of two 1-d slices summed chunk by chunk, or None where chunks do not apply.
    `a` and `b` are (base value, axes as `traced_bounds.parse` gives them); chunks apply where the
    slices run forward along axes of at least 2 * CHUNK elements, from 0 in both or from one
    start (`same_start`) on axes of one extent, so that the chunks of the two line up."""
    found = [_slice_axis(*x) for x in (a, b)]
    if None in found:
        return None
    (sa, length, na), (sb, _, nb) = found
    if not ((sa is None and sb is None) or (same_start and na == nb)):
        return None
    zero, size = full(0, (), _I64), full(CHUNK, (), _I64)
    start = zero if sa is None else sa
    end = ew.binary("add", start, length)
    count = ew.binary("divide", ew.binary("add", length, full(CHUNK - 1, (), _I64)), size)
    last = ew.binary("subtract", end, size)  # where the last chunk starts, unless before 0
    top = full(min(na, nb) - CHUNK, (), _I64)

    def step(c, total):
        first = ew.binary("add", start, ew.binary("multiply", value(c), size))
        at = ew.clamp(zero, ew.binary("minimum", first, last), top)
        position = ew.binary("add", iota((CHUNK,), _I64, 0), ops.broadcast_in_dim(at, (CHUNK,), []))
        inside = ew.binary("and", ew.compare("GE", position, ops.broadcast_in_dim(first, (CHUNK,), [])),
                           ew.compare("LT", position, ops.broadcast_in_dim(end, (CHUNK,), [])))
        product = dot_general(*(_chunk(*x, at, inside, dtype) for x in (a, b)), ([0], [0]))
        return wrap(ew.binary("add", value(c), full(1, (), _I64))), wrap(ew.binary("add", value(total), product))

    def more(c, total):
        return wrap(ew.compare("LT", value(c), count))

    return value(repeat_while(more, step, (wrap(zero), wrap(full(0, (), dtype))))[1])


def _slice_axis(base, axes):
    """(start or None, traced length, extent) of a 1-d slice's axis, or None where chunks do not apply."""
    sliced = [k for k, ax in enumerate(axes) if ax[0] != "index"]
    if len(sliced) != 1 or axes[sliced[0]][0] != "slice":
        return None
    _, start, length, _ = axes[sliced[0]]
    extent = shape_of(base)[sliced[0]]
    return None if length is None or extent < 2 * CHUNK else (start, length, extent)


def _chunk(base, axes, at, inside, dtype) -> ir.Value:
    """The CHUNK elements of the slice's axis from `at`, zero where not `inside`."""
    starts = [at if ax[0] == "slice" else ax[1] for ax in axes]
    sizes = [CHUNK if ax[0] == "slice" else 1 for ax in axes]
    chunk = ops.reshape(ew.convert(ops.dynamic_slice(base, starts, sizes), dtype), [CHUNK])
    return ew.select(inside, chunk, full(0, (CHUNK,), dtype))

