"""Products of a vector and a matrix summed over an axis of traced length (`A[i, :i] @ A[:i, i:]`),
taken a chunk of that axis at a time, straight from the arrays the slices are of. (A dot of two
vectors, `A[i, :j] @ A[j, :j]`, is the sum of their products: `chunked_reductions`.)

A rolled loop's slice is held at the full extent of its axis (`traced_bounds`), so a product over
it costs the full extent on every iteration, whatever the valid length: a Cholesky by rows at
n=400 did three times the work of the triangle. A loop over the chunks that hold the valid part
costs what that part costs (a chunk at most more). Each chunk is read from the slice's base with
one dynamic_slice, other sliced axes whole (where `traced_bounds.read` puts them when aligned);
the last chunk is moved back to end with the valid part, and positions outside it, or read by
the chunk before, are zero in the vector, so infinities or NaN there never reach the sum. A
matrix whose other axis also starts at the loop index (`A[:i, i:]` in LU) is taken in blocks of
COLUMNS of that axis from its start, each summed over the chunks, so neither axis costs its
full extent.
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

#: Elements per chunk of a reduction over a vector (`chunked_reductions`): 32 let XLA:CPU sum a chunk
#: in registers (a Cholesky by rows at n=400 in jax.jit: 2.6 ms with 32, 4.4 with 64, 11 with 16).
CHUNK = 32
#: Rows (or columns) of a matrix per chunk of its product with a vector (trmm at 200 x 240:
#: 0.43 ms with 8, 0.47 with 4, 0.55 with 16, 0.73 whole; LU at n=400 7.3, 7.4, 8.9, 8.8 ms).
ROWS = 8
#: Axes shorter than this keep the whole-extent product: a loop of chunks costs more than the
#: elements it skips, and keeps the optimizer from batching a loop's products into one.
SHORTEST = 2 * CHUNK
#: Columns per block of a product whose free axis starts at a traced position (`A[:i, i:]`): the
#: blocks cover that axis from its start, not the whole of it (LU by rows at n=400: 5.8 ms with
#: 96 or 128, 7.1 with 64, 7.4 whole; at n=200 0.92 against 1.01).
COLUMNS = 96
_I64 = np.int64


def product(a, b, dtype, same_start: bool) -> ir.Value | None:
    """The product of `a` and `b` summed chunk by chunk (the result's axes: a's free ones, then
    b's), or None where chunks do not apply. `a` and `b` are (base value, axes as
    `traced_bounds.parse` gives them, the summed axis among the sliced ones); chunks apply where
    both bases are at most 2-d, the summed axes run forward over at least SHORTEST elements, and
    they start at 0 in both or at one start (`same_start`) on axes of one extent, so that the
    chunks of the two line up."""
    found = [_summed_axis(*x) for x in (a, b)]
    if None in found or not _free_shape(*a) + _free_shape(*b):
        return None
    (sa, length, na), (sb, _, nb) = found
    if not ((sa is None and sb is None) or (same_start and na == nb)):
        return None
    start, extent = full(0, (), _I64) if sa is None else sa, min(na, nb)
    windows = [_window(*x) for x in (a, b)]
    if all(w is None for w in windows):
        return _chunk_sum(a, b, dtype, start, length, extent, [None, None])
    which = 0 if windows[0] is not None else 1
    offset, valid, columns = windows[which]

    def block(k, total):  # the COLUMNS of the free axis from its k-th block on
        _, at = _placed(offset, valid, k, COLUMNS, columns)
        part = _chunk_sum(a, b, dtype, start, length, extent, [at if i == which else None for i in (0, 1)])
        return ops.dynamic_update_slice(total, part, [at])
    return repeat(pieces(valid, COLUMNS), block, full(0, _free_shape(*a) + _free_shape(*b), dtype))


def _chunk_sum(a, b, dtype, start, length, extent, windows) -> ir.Value:
    """The sum over the chunks of the summed axis from `start` on (`length` long, on axes of at
    least `extent`); an operand with a window (the start of a block) has its free axis that block."""
    free = [COLUMNS if w is not None else n for x, w in zip((a, b), windows) for n in _free_shape(*x)]

    def chunk(c, total):
        first, at = _placed(start, length, c, ROWS, extent)
        inside = lanes_inside(first, at, ew.binary("add", start, length), ROWS)
        fa, fb = (chunk_of(*x, at, inside, ROWS, dtype, w) for x, w in zip((a, b), windows))
        return ew.binary("add", total, dot_general(fa, fb, ([_summed_dim(*a)], [_summed_dim(*b)])))
    return repeat(pieces(length, ROWS), chunk, full(0, free, dtype))


def lanes_inside(first, at, end, size) -> ir.Value:
    """Which of the `size` positions from `at` lie in [first, end): the valid part not read before.

    (The end is tested as min(end, at + size), the same test but a bound the loop changes, which XLA
    does not hoist out as a broadcast array that each iteration reads back from memory: Cholesky by
    rows at n=400 3.1 -> 2.5 ms, LU 5.8 -> 5.3.)"""
    position = ew.binary("add", iota((size,), _I64, 0), ops.broadcast_in_dim(at, (size,), []))
    end = ew.binary("minimum", end, ew.binary("add", at, full(size, (), _I64)))
    return ew.binary("and", ew.compare("GE", position, ops.broadcast_in_dim(first, (size,), [])),
                     ew.compare("LT", position, ops.broadcast_in_dim(end, (size,), [])))


def pieces(length, size) -> ir.Value:
    """How many pieces of `size` cover `length`."""
    return ew.binary("divide", ew.binary("add", length, full(size - 1, (), _I64)), full(size, (), _I64))


def _placed(start, length, k, size, extent):
    """(first, at): where piece k of [start, start + length) begins, and where a read of `size`
    elements holding it begins: there, or moved back to end with the valid part, within [0, extent)."""
    first = ew.binary("add", start, ew.binary("multiply", k, full(size, (), _I64)))
    end = ew.binary("subtract", ew.binary("add", start, length), full(size, (), _I64))
    return first, ew.clamp(full(0, (), _I64), ew.binary("minimum", first, end), full(extent - size, (), _I64))


def repeat(count, step, initial) -> ir.Value:
    """`total = step(k, total)` for k in range(count), `count` traced: one stablehlo.while."""
    def more(k, total):
        return wrap(ew.compare("LT", value(k), count))

    def body(k, total):
        return wrap(ew.binary("add", value(k), full(1, (), _I64))), wrap(step(value(k), value(total)))
    return value(repeat_while(more, body, (wrap(full(0, (), _I64)), wrap(initial)))[1])


def _window(base, axes, summed):
    """(start, length, extent) of a matrix operand's free axis where it starts at a traced position
    (`A[:i, i:]`) and is long enough for blocks of COLUMNS, else None."""
    sliced = sliced_axes(axes)
    free = [k for i, k in enumerate(sliced) if i != summed % len(sliced)]
    if len(free) != 1:
        return None
    _, start, length, _ = axes[free[0]]
    extent = shape_of(base)[free[0]]
    return None if start is None or length is None or extent < 2 * COLUMNS else (start, length, extent)


def sliced_axes(axes) -> list[int]:
    """The base axes a slice keeps (not the ones an integer picks)."""
    return [k for k, ax in enumerate(axes) if ax[0] != "index"]


def _summed_axis(base, axes, summed):
    """(start or None, traced length, extent) of the summed axis, or None where chunks do not apply."""
    sliced = sliced_axes(axes)
    if len(shape_of(base)) > 2 or any(axes[k][0] == "reversed" for k in sliced):
        return None
    axis = sliced[summed]
    _, start, length, _ = axes[axis]
    extent = shape_of(base)[axis]
    return None if length is None or extent < SHORTEST else (start, length, extent)


def _summed_dim(base, axes, summed) -> int:
    return summed % len(sliced_axes(axes))


def _free_shape(base, axes, summed) -> list[int]:
    sliced = sliced_axes(axes)
    return [shape_of(base)[k] for i, k in enumerate(sliced) if i != summed % len(sliced)]


def chunk_of(base, axes, summed, at, inside, size, dtype, window=None) -> ir.Value:
    """`size` elements of the summed axis from `at` (zero where not `inside`), the other sliced axis
    whole (or COLUMNS of it from `window`), index axes dropped."""
    sliced = sliced_axes(axes)
    axis, zero = sliced[summed], full(0, (), _I64)
    other = zero if window is None else window
    starts = [at if k == axis else (other if k in sliced else axes[k][1]) for k in range(len(axes))]
    sizes = [size if k == axis else ((n if window is None else COLUMNS) if k in sliced else 1)
             for k, n in enumerate(shape_of(base))]
    chunk = ops.reshape(ew.convert(ops.dynamic_slice(base, starts, sizes), dtype), [sizes[k] for k in sliced])
    if inside is None:
        return chunk
    keep = ops.broadcast_in_dim(inside, shape_of(chunk), [_summed_dim(base, axes, summed)])
    return ew.select(keep, chunk, full(0, shape_of(chunk), dtype))
