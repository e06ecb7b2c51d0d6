"""Basic indexing: integers, slices (any step), None, `...` and traced integers.

A basic read with at least one slice is a view: writes through it land in the
base array. Basic writes become `dynamic_update_slice`, or a padded select for
strided slices.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from jaxlib.mlir import ir

from solvent.numpy.indexing import affine
from solvent.numpy.indexing.key import INTEGER, NEW, SLICE, VALID, normalize
from solvent.numpy.values import full, is_traced, value
from solvent.ops import elementwise as ew, shape as ops
from solvent.ops.base import dtype_of, shape_of


@dataclass
class Axis:
    """How one dimension of the base is indexed: `length` elements from `start` by `step`."""

    start: int
    step: int
    length: int
    keep: bool                 # False for an integer index (dimension dropped)
    dynamic: object = None     # traced integer index, if any


@dataclass
class Index:
    axes: list[Axis]
    result_shape: tuple[int, ...]  # shape of the read, None dims included
    dims: tuple = ()               # per dimension of the read: the base axis it comes from, None for a new one

    def strides(self, base: tuple[int, ...]) -> tuple[int, ...]:
        """NumPy's byte strides of the read as a view of an array of strides `base` (0 for new axes)."""
        return tuple(0 if d is None else base[d] * self.axes[d].step for d in self.dims)


def parse(key, base_shape) -> Index:
    """Normalize a basic index against `base_shape` (NumPy's rules and errors, see `key`)."""
    axes, result_shape, dims = [], [], []
    for entry in normalize(key, base_shape).entries:
        k, dim = entry.value, entry.dim
        if entry.kind == NEW:
            result_shape.append(1)
            dims.append(None)
            continue
        if entry.kind not in (SLICE, INTEGER):
            raise IndexError(VALID)
        n = base_shape[dim]
        if entry.kind == SLICE and any(is_traced(b) for b in (k.start, k.stop, k.step)):
            start, length = affine.static_slice(k, n)  # `traced_bounds` takes the other traced slices
            axes.append(Axis(0, 1, length, True, dynamic=start))
        elif entry.kind == SLICE:
            start, stop, step = k.indices(n)
            length = len(range(start, stop, step))
            axes.append(Axis(start, step, length, True))
        else:
            axes.append(Axis(0, 1, 1, False, dynamic=k) if is_traced(k) else Axis(k % n, 1, 1, False))
            continue
        result_shape.append(length)
        dims.append(dim)
    return Index(axes, tuple(result_shape), tuple(dims))


def _positive(axis: Axis) -> tuple[int, int]:
    """(lowest index, positive stride) covering the same elements."""
    if axis.step > 0 or axis.length == 0:
        return axis.start, abs(axis.step)
    return axis.start + (axis.length - 1) * axis.step, -axis.step


def _dynamic_starts(index: Index, base_shape) -> list[ir.Value]:
    starts = []
    for axis, n in zip(index.axes, base_shape):
        if axis.dynamic is None:
            starts.append(full(0, (), np.int64))
            continue
        i = value(axis.dynamic, np.int64)
        form = getattr(axis.dynamic, "affine", None)
        if form is not None and form.bounds()[0] >= 0:  # a rolled loop's index, never negative
            starts.append(i)
            continue
        negative = ew.compare("LT", i, full(0, (), np.int64))
        starts.append(ew.select(negative, ew.binary("add", i, full(n, (), np.int64)), i))
    return starts


def _block(index: Index, base_shape):
    """Sizes of the sub-block at the traced starts: one for a traced integer, the length of a
    slice from a traced start, and the full extent elsewhere."""
    return [(a.length if a.keep else 1) if a.dynamic is not None else n for a, n in zip(index.axes, base_shape)]


def read(v: ir.Value, index: Index) -> ir.Value:
    if 0 in index.result_shape:  # nothing to read (Enzyme-HLO miscompiles empty slices of reverses)
        return full(0, index.result_shape, dtype_of(v))
    base_shape = shape_of(v)
    if any(a.dynamic is not None for a in index.axes):
        v = ops.dynamic_slice(v, _dynamic_starts(index, base_shape), _block(index, base_shape))
    v = ops.reverse(v, [d for d, a in enumerate(index.axes) if a.step < 0 and a.dynamic is None])
    starts, limits, strides = [], [], []
    for axis, n in zip(index.axes, shape_of(v)):
        low, stride = _positive(axis)
        if axis.step < 0 and axis.dynamic is None:
            low = n - 1 - axis.start
        starts.append(low)
        limits.append(low + max(axis.length - 1, 0) * stride + (1 if axis.length else 0))
        strides.append(stride)
    v = ops.slice(v, starts, limits, strides)
    return ops.reshape(v, index.result_shape)


def write(v: ir.Value, index: Index, update: ir.Value) -> ir.Value:
    """`v` with the indexed region replaced by `update` (already broadcast to the read shape)."""
    if 0 in index.result_shape:
        return v
    base_shape = shape_of(v)
    block_shape = [a.length for a in index.axes]
    update = ops.reshape(update, block_shape)
    update = ops.reverse(update, [d for d, a in enumerate(index.axes) if a.step < 0])
    dynamic = any(a.dynamic is not None for a in index.axes)
    starts = _dynamic_starts(index, base_shape)
    target = ops.dynamic_slice(v, starts, _block(index, base_shape)) if dynamic else v
    positive = [_positive(a) if a.dynamic is None else (0, 1) for a in index.axes]
    if all(stride == 1 for _, stride in positive):
        offsets = [full(low, (), np.int64) for low, _ in positive]
        target = ops.dynamic_update_slice(target, update, offsets)
    else:
        target = _strided_update(target, update, positive)
    return ops.dynamic_update_slice(v, target, starts) if dynamic else target


def _strided_update(target, update, positive):
    shape = shape_of(target)
    high = [n - low - (length - 1) * stride - 1 if length else n - low
            for n, (low, stride), length in zip(shape, positive, shape_of(update))]
    low = [low for low, _ in positive]
    interior = [stride - 1 for _, stride in positive]
    zero = full(0, (), dtype_of(update))
    padded = ops.pad(update, zero, low, high, interior)
    mask = ops.pad(full(True, shape_of(update), np.bool_), full(False, (), np.bool_), low, high, interior)
    return ew.select(mask, padded, target)
