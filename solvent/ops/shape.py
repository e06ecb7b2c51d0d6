"""StableHLO ops that move data without arithmetic: broadcast, reshape, slices, concatenation."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from jaxlib.mlir import ir

from solvent.ir.module import defining_op, same_value
from solvent.ops import elementwise as ew
from solvent.ops.base import check, dtype_of, i64_array, one, shape_of
from solvent.ops.constant import constant, iota


def broadcast_in_dim(x: ir.Value, shape: Sequence[int], dims: Sequence[int]) -> ir.Value:
    """Place `x`'s dimension i at output dimension dims[i]; other dimensions repeat."""
    in_shape = shape_of(x)
    check(len(dims) == len(in_shape), "broadcast_in_dim: one dim per operand dimension")
    for size, dim in zip(in_shape, dims):
        check(size in (1, shape[dim]), f"broadcast_in_dim: {in_shape} into {tuple(shape)}")
    if tuple(shape) == in_shape and list(dims) == list(range(len(shape))):
        return x
    return one("stablehlo.broadcast_in_dim", [x], shape, dtype_of(x), broadcast_dimensions=i64_array(dims))


def reshape(x: ir.Value, shape: Sequence[int]) -> ir.Value:
    check(int(np.prod(shape)) == int(np.prod(shape_of(x))), f"reshape: {shape_of(x)} to {tuple(shape)}")
    if tuple(shape) == shape_of(x):
        return x
    return one("stablehlo.reshape", [x], shape, dtype_of(x))


def transpose(x: ir.Value, permutation: Sequence[int]) -> ir.Value:
    check(sorted(permutation) == list(range(len(shape_of(x)))), "transpose: not a permutation")
    if list(permutation) == sorted(permutation):
        return x
    shape = [shape_of(x)[p] for p in permutation]
    return one("stablehlo.transpose", [x], shape, dtype_of(x), permutation=i64_array(permutation))


def slice(x: ir.Value, start: Sequence[int], limit: Sequence[int], strides: Sequence[int]) -> ir.Value:
    """Static `stablehlo.slice` with positive strides."""
    shape = [max(0, -(-(hi - lo) // step)) for lo, hi, step in zip(start, limit, strides)]
    if tuple(shape) == shape_of(x):
        return x
    return one("stablehlo.slice", [x], shape, dtype_of(x), start_indices=i64_array(start),
               limit_indices=i64_array(limit), strides=i64_array(strides))


def reverse(x: ir.Value, dims: Sequence[int]) -> ir.Value:
    if not dims:
        return x
    return one("stablehlo.reverse", [x], shape_of(x), dtype_of(x), dimensions=i64_array(dims))


def concatenate(values: Sequence[ir.Value], dimension: int) -> ir.Value:
    shapes = [shape_of(v) for v in values]
    for s in shapes:
        same = len(s) == len(shapes[0]) and all(n == m for i, (n, m) in enumerate(zip(s, shapes[0])) if i != dimension)
        check(same, f"concatenate: shapes {shapes} differ outside dimension {dimension}")
    check(len({dtype_of(v) for v in values}) == 1, "concatenate: dtypes differ")
    out = list(shapes[0])
    out[dimension] = sum(s[dimension] for s in shapes)
    return one("stablehlo.concatenate", list(values), out, dtype_of(values[0]),
               dimension=ir.IntegerAttr.get(ir.IntegerType.get_signless(64), dimension))


def dynamic_slice(x: ir.Value, starts: Sequence[ir.Value], sizes: Sequence[int]) -> ir.Value:
    """Slice of static `sizes` at traced scalar `starts` (clamped into bounds, as in the spec).

    A read of an array just written at one element (or row) elsewhere (`A[i, j] -= ...;
    A[i, j] /= A[j, j]`, or `A[i, :j]` after `A[i, j] = ...`) is taken through that write: from the
    update where it hit the read, from the array before the write elsewhere. XLA then reads the
    array before updating it in place; a read of the written array made it copy the array on
    every iteration of a loop. (Only the last write, and the writes of the same block it hides:
    reading through a chain of them made Nussinov's loop slower.)

    A 0-d `x` is its own slice (StableHLO prints a 0-d dynamic_slice as text it cannot parse back)."""
    if not shape_of(x):
        return x
    write = defining_op(x)
    if write is not None and write.name == "stablehlo.dynamic_update_slice":
        before, update, *written = write.operands
        hit = _hit(shape_of(x), sizes, shape_of(update), written, starts)
        if hit is True:
            return update
        if hit is not None:
            before = under_same_block(before, update, written)
            return ew.select(hit, broadcast_in_dim(update, sizes, range(len(sizes))), _slice_at(before, starts, sizes))
    return _slice_at(x, starts, sizes)


def _slice_at(x: ir.Value, starts: Sequence[ir.Value], sizes: Sequence[int]) -> ir.Value:
    return one("stablehlo.dynamic_slice", [x, *starts], sizes, dtype_of(x), slice_sizes=i64_array(sizes))


def _hit(shape, sizes, written_sizes, written, starts):
    """Where a read of `sizes` at `starts` sees the block written at `written`: True where it is
    exactly that block, else a boolean of the read's shape; None unless the block is, on every
    axis, one element wide or whole (and read whole there)."""
    if any(w not in (1, n) or (w == n and s != n) for w, s, n in zip(written_sizes, sizes, shape)):
        return None
    if any(a.type != b.type for a, b in zip(written, starts)):
        return None
    masks = []
    for axis, (n, size, w, a, b) in enumerate(zip(shape, sizes, written_sizes, written, starts)):
        if w == n or (size == 1 and a == b):
            continue
        dtype = dtype_of(a)
        low, last = constant(np.zeros((), dtype)), constant(np.full((), n - 1, dtype))
        at = ew.clamp(low, a, last)
        if size == 1:
            masks.append(broadcast_in_dim(ew.compare("EQ", at, ew.clamp(low, b, last)), sizes, []))
        else:
            read = ew.binary("add", iota(sizes, dtype, axis), broadcast_in_dim(
                ew.clamp(low, b, constant(np.full((), n - size, dtype))), sizes, []))
            masks.append(ew.compare("EQ", read, broadcast_in_dim(at, sizes, [])))
    if not masks:  # every axis whole, or the one element written
        return True
    hit = masks[0]
    for mask in masks[1:]:
        hit = ew.binary("and", hit, mask)
    return hit


def under_same_block(x: ir.Value, update: ir.Value, written: Sequence[ir.Value], stop: ir.Value | None = None) -> ir.Value:
    """`x` before its earlier writes of exactly the block at `written` (`A[i, j] = max(A[i, j], a)`
    twice), which the later write hides, down to `stop`: a read past them leaves one array live,
    not two."""
    write = defining_op(x)
    while ((stop is None or x != stop) and write is not None and write.name == "stablehlo.dynamic_update_slice"
           and shape_of(write.operands[1]) == shape_of(update)
           and all(same_value(a, b) for a, b in zip(write.operands[2:], written))):
        x = write.operands[0]
        write = defining_op(x)
    return x


def dynamic_update_slice(x: ir.Value, update: ir.Value, starts: Sequence[ir.Value]) -> ir.Value:
    """`x` with `update` written at `starts` (a 0-d `x` is the update itself)."""
    check(dtype_of(x) == dtype_of(update), "dynamic_update_slice: dtypes differ")
    if not shape_of(x):
        return update
    _read_written(x, update, starts)
    return one("stablehlo.dynamic_update_slice", [x, update, *starts], shape_of(x), dtype_of(x))


def _read_written(x: ir.Value, update: ir.Value, starts: Sequence[ir.Value], limit: int = 64) -> None:
    """Make the reads of `x` that `dynamic_slice` took through its last write, of that write's size
    and at the block this write replaces (a read-modify-write of another element or row), read `x`
    itself: XLA otherwise keeps the array from before that write alive until this one, and copies it
    (`a[k] += 1; a[k + 1] += 2` in a loop: two copies of `a` a step, 100x NumPy's time). Reads
    elsewhere keep the array before (XLA would fuse them into this write, which then could not write
    `x` in place: `corr[i + 1:, i] = corr[i, i + 1:]`), and so does a write of the last write's block,
    which hides it (`A[i, j] -= s; A[i, j] /= A[j, j]`)."""
    write = defining_op(x)
    if write is None or write.name != "stablehlo.dynamic_update_slice" or \
            all(same_value(a, b) for a, b in zip(write.operands[2:], starts)):
        return
    written, seen, pending = write.operands[1], {}, [update]
    while pending and len(seen) < limit:  # (breadth first: the reads lie a few ops from the update)
        op = defining_op(pending.pop(0))
        if op is None or op.name in ("stablehlo.constant", "stablehlo.while", "stablehlo.case") or id(op) in seen:
            continue
        seen[id(op)] = op  # (kept alive: a freed wrapper's id is reused)
        if op.name == "stablehlo.select" and _is_broadcast_of(op.operands[1], written):
            read = defining_op(op.operands[2])
            if read is not None and read.name == "stablehlo.dynamic_slice" and \
                    shape_of(read.result) == shape_of(written) == shape_of(update) and \
                    all(same_value(a, b) for a, b in zip(read.operands[1:], starts)):
                read.operands[0] = x  # x holds the update where the read hits it, and elsewhere what the array
                op.result.replace_all_uses_with(read.result)  # before did: the select is the read of x
        elif op.name != "stablehlo.dynamic_slice":  # (a read's operands are arrays and indices)
            pending += list(op.operands)


def _is_broadcast_of(value: ir.Value, x: ir.Value) -> bool:
    op = defining_op(value)
    return value == x or (op is not None and op.name == "stablehlo.broadcast_in_dim" and op.operands[0] == x)


def pad(x: ir.Value, value: ir.Value, low: Sequence[int], high: Sequence[int],
        interior: Sequence[int]) -> ir.Value:
    shape = [lo + hi + n + max(0, n - 1) * mid for n, lo, hi, mid in zip(shape_of(x), low, high, interior)]
    return one("stablehlo.pad", [x, value], shape, dtype_of(x), edge_padding_low=i64_array(low),
               edge_padding_high=i64_array(high), interior_padding=i64_array(interior))
