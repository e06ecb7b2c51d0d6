"""Rewrites of a sharded program that let XLA's partitioner exchange halos where it would gather
whole arrays: a block written at constant offsets (`dynamic_update_slice`, which is what
`u[1:-1] += ...` becomes) and a concatenation are both expressed as pad + select.

XLA partitions a `dynamic_update_slice` or `concatenate` along a sharded
dimension whose pieces do not line up with the shards by all-gathering the
array; a `pad` it partitions with neighbour exchanges (collective-permute) and
a `select` elementwise. Enzyme-JAX has the same rewrite (`dus_to_pad_comm` in
its communication passes), which needs Shardy's per-op shardings that the
enzyme-ad build solvent uses cannot compute; this one runs after the
optimization passes (which would fold pad + select back) on SPMD programs, and
on one device for blocks that cover most of their array outside loops, where
XLA then fuses the update with its producer instead of copying the whole array
(a 2048x2048 heat step: 68 ms -> 21 ms). Inside a while loop XLA updates the
carried buffer in place, on one thread, and the rewrite costs a pass over the
whole array, split over XLA's threads; it pays where the update reads its own
array around the block (`u[1:-1] += u[2:] - u[:-2]`: XLA then copies each
shifted read out before writing; a 512x512 heat step loop: 74 ms -> 16 ms,
jax.jit on the same loop 75 ms), or does not read it at all and the array is
large, of 8-byte elements (`B[1:-1, 1:-1] = f(A)`: heat-3d at 40^3, 100 steps, 3.9 -> 2.6 ms, jacobi-2d
at 250^2 2.9 -> 2.5 ms on this machine's two cores; jax.jit 3.7 and 3.0). An update
reading its array exactly at the block (`u[1:] = u[1:] - v[1:]`) stays in place:
the rewrite made fdtd-2d 1.6 times slower.
"""

from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir

from solvent.ir.context import context
from solvent.ir.module import constant_integer, defining_op, in_loop, ops_where
from solvent.ops.base import create, dtype_of, i64_array, one, shape_of
from solvent.ops.constant import constant, iota

_REWRITES = ("stablehlo.dynamic_update_slice", "stablehlo.concatenate")
#: Elements from which a loop's block update that does not read its own array becomes a parallel
#: pass: smaller arrays cost more to split than the pass saves (jacobi-2d at 90^2: 0.24 -> 0.28 ms).
PARALLEL_FROM = 1 << 15
#: Bytes per element from which that pass pays: the select costs the same per element whatever its
#: width, while XLA's in-place update of narrower elements is that much cheaper (a double-buffered
#: Game of Life at 300^2, 100 steps: int8 1.1 ms in place, 9.7 ms as selects; float32 Jacobi-2d at
#: 250^2 2.8 against 6.2 ms; float64 Jacobi-2d 5.2 against 4.6 ms).
PARALLEL_ITEMSIZE = 8
#: Concatenations of more pieces stay (each piece costs a select over the whole result): the
#: ones this is for are a block between two borders, which is what the optimizer makes of `u[1:-1] = ...`.
MOST_PIECES = 3


def rewrite(module: ir.Module, min_fraction: float = 0.0) -> bool:
    """Every constant-offset dynamic_update_slice, and every concatenate of up to `MOST_PIECES`
    pieces, of `module` as pad + select, in place; False when there was none.

    On one device the rewrite pays off only for large blocks (a stencil's interior: XLA then
    fuses the update instead of copying the array); `min_fraction` skips ops whose largest
    block holds less than that fraction of the result.

    Example (one dimension of a block update)::

        dynamic_update_slice(u, body, 1)  ->  select(1 <= iota < 63, pad(body, 1, 1), u)
    """
    def wanted(op):
        if op.name == _REWRITES[0] or (op.name == _REWRITES[1] and len(op.operands) <= MOST_PIECES):
            large = _largest_block(op) >= min_fraction * _size(op.results[0])
            in_place = min_fraction and in_loop(op) and (op.name != _REWRITES[0] or _kept_in_place(op))
            return large and not in_place and not (min_fraction and _moved(op))
        return False

    found = ops_where(module, wanted)
    if not found:
        return False
    with context():
        for op in found:
            with ir.InsertionPoint(op), op.location:
                new = _block_update(op) if op.name == _REWRITES[0] else _concatenation(op)
            if new is not None:
                op.results[0].replace_all_uses_with(new)
                op.erase()
    return True


#: Ops whose results XLA writes to memory of their own rather than fusing them into a consumer:
#: what they read is read before the update they feed is written.
_MATERIALIZED = {"stablehlo.dynamic_update_slice", "stablehlo.scatter", "stablehlo.dot_general",
                 "stablehlo.reduce", "stablehlo.while", "stablehlo.case", "stablehlo.if",
                 "stablehlo.sort", "stablehlo.custom_call"}


def _kept_in_place(op) -> bool:
    """Whether a block update inside a loop is best left to XLA's in-place update: where it reads
    its own array only exactly at the block, or not at all and the array is small or narrow."""
    reads = _reads_operand(op)
    if reads == "" and op.name == _REWRITES[0]:
        return _size(op.results[0]) < PARALLEL_FROM or dtype_of(op.results[0]).itemsize < PARALLEL_ITEMSIZE
    return reads != "around"


def _reads_operand(op) -> str:
    """How a dynamic_update_slice's update, as XLA fuses it, reads its operand: "around" (other
    than exactly at the block), "block" (only there) or "" (not at all)."""
    operand, update, *indices = op.operands
    block = ([constant_integer(index) for index in indices], list(shape_of(update)))
    seen, pending, found = set(), [update], ""
    while pending:
        producer = defining_op(pending.pop())
        if producer is None or producer in seen or producer.parent != op.parent or producer.name in _MATERIALIZED:
            continue
        seen.add(producer)
        for value in producer.operands:
            if value == operand:
                if _region(producer) != block:
                    return "around"
                found = "block"
            pending.append(value)
    return found


def _region(op) -> tuple[list, list] | None:
    """(start, size) of a unit-stride static slice; None for any other op."""
    if op.name != "stablehlo.slice" or any(s != 1 for s in ir.DenseI64ArrayAttr(op.attributes["strides"])):
        return None
    start = list(ir.DenseI64ArrayAttr(op.attributes["start_indices"]))
    return start, list(shape_of(op.results[0]))


def _moved(op) -> bool:
    """Whether a concatenate's largest piece is only moved data, a slice or a concatenate of slices
    (`np.roll`): with no producer for XLA to fuse into it, pad + select gains nothing on one device,
    and XLA then fused the selects into every consumer (Game of Life by rolls, 16 steps unrolled:
    76 s to compile, 7.6 s as concatenates)."""
    return op.name == _REWRITES[1] and _sliced(max(op.operands, key=_size))


def _sliced(value: ir.Value) -> bool:
    producer = defining_op(value)
    return producer is not None and (producer.name == "stablehlo.slice" or (
        producer.name == _REWRITES[1] and all(_sliced(piece) for piece in producer.operands)))


def _size(value: ir.Value) -> int:
    return int(np.prod(shape_of(value), dtype=np.int64))


def _largest_block(op) -> int:
    """Elements of the update (dynamic_update_slice) or of the largest piece (concatenate)."""
    if op.name == _REWRITES[0]:
        return _size(op.operands[1])
    return max(_size(piece) for piece in op.operands)


def _block_update(op) -> ir.Value | None:
    """`select(inside the block, pad(update), operand)`, or None when an offset is not a constant."""
    operand, update, *indices = op.operands
    offsets = [constant_integer(index) for index in indices]
    if any(offset is None for offset in offsets):
        return None
    shape, size = shape_of(operand), shape_of(update)
    if 0 in size:
        return operand
    offsets = [min(max(o, 0), n - s) for o, n, s in zip(offsets, shape, size)]  # as XLA clamps them
    padded = _pad(update, offsets, [n - o - s for o, n, s in zip(offsets, shape, size)])
    ranges = [(d, o, o + s) for d, (o, n, s) in enumerate(zip(offsets, shape, size)) if s < n]
    if not ranges:
        return padded
    return _select(_inside(shape, ranges), padded, operand)


def _concatenation(op) -> ir.Value | None:
    """Each piece padded to the full shape and selected where it lies along the dimension."""
    dimension = ir.IntegerAttr(op.attributes["dimension"]).value
    shape = shape_of(op.results[0])
    result, start = None, 0
    for piece in op.operands:
        width = shape_of(piece)[dimension]
        if width:
            low, high = [0] * len(shape), [0] * len(shape)
            low[dimension], high[dimension] = start, shape[dimension] - start - width
            padded = _pad(piece, low, high)
            result = padded if result is None else _select(
                _inside(shape, [(dimension, start, start + width)]), padded, result)
        start += width
    return result  # None when every piece is empty: the op stays


def _pad(value: ir.Value, low, high) -> ir.Value:
    zero = constant(np.zeros((), dtype_of(value)))
    shape = [s + lo + hi for s, lo, hi in zip(shape_of(value), low, high)]
    return one("stablehlo.pad", [value, zero], shape, dtype_of(value), edge_padding_low=i64_array(low),
               edge_padding_high=i64_array(high), interior_padding=i64_array([0] * len(low)))


def _inside(shape, ranges) -> ir.Value:
    """A boolean mask of `shape`: true where every (dimension, start, stop) range holds."""
    mask = None
    for dimension, start, stop in ranges:
        position = iota(shape, np.int64, dimension)
        for bound, direction in ((start, "GE"), (stop, "LT")):
            test = one("stablehlo.compare", [position, _splat(bound, shape)], shape, np.bool_,
                       comparison_direction=ir.Attribute.parse(f"#stablehlo<comparison_direction {direction}>"))
            mask = test if mask is None else one("stablehlo.and", [mask, test], shape, np.bool_)
    return mask


def _splat(number: int, shape) -> ir.Value:
    scalar = constant(np.array(number, np.int64))
    return one("stablehlo.broadcast_in_dim", [scalar], shape, np.int64, broadcast_dimensions=i64_array([]))


def _select(mask: ir.Value, on_true: ir.Value, on_false: ir.Value) -> ir.Value:
    return create("stablehlo.select", [mask, on_true, on_false], [on_true.type]).result
