"""What a loop carries beside its arrays of data-dependent length (`x[mask]`, `np.nonzero`, slices
of traced length), so that a working set can shrink from one iteration to the next (`z = z[~done]`).

A 1-d selection held in place by a mask (`numpy.indexing.packed`) is carried as its elements in
place and its mask; any other such array as its data (zero past the valid part) and its traced
length per axis. One carried length or mask serves every name that enters each iteration with one
and leaves it with one, so `z ** 2 + c` still pairs `z = z[~m]` and `c = c[~m]` in the next
iteration; names whose lengths or masks part are carried apart.
"""

from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir

from solvent.core.traced import TracedArray
from solvent.numpy.indexing import packed, traced_bounds
from solvent.numpy.values import carried_value, full, value, wrap
from solvent.ops import elementwise as ew, shape as ops

_MASK = "mask"  # the axis key of a name carried in place, by its mask


def traced_lengths(leaf) -> tuple:
    """Per axis of `leaf`, its traced length (an int64 scalar value), or None where it has its full extent."""
    if isinstance(leaf, traced_bounds.MaskedArray):
        return tuple(leaf.lengths)
    return (None,) * (leaf.ndim if isinstance(leaf, TracedArray) else np.ndim(leaf))


def _key(x):
    return x if isinstance(x, ir.Value) else ("static", x)


def _partition(keyed):
    """Per name {axis: (key, initial)} -> (per name {axis: group}, per group its initial value):
    one group per distinct key, numbered in order of appearance."""
    groups, axes, initial = {}, [], []
    for by_axis in keyed:
        axes.append({})
        for axis, (key, start) in by_axis.items():
            if key not in groups:
                groups[key] = len(initial)
                initial.append(start)
            axes[-1][axis] = groups[key]
    return axes, initial


class Carried:
    """The lengths and masks a loop carries, by name position: `axes[k]` maps an axis of name k
    (or `_MASK`) to its group; `initial[g]` is group g on entry: a length (a value, or the static
    extent), or a mask (a value, or None for all True)."""

    def __init__(self, leaves, extents):
        self.extents = extents  # per name, its static shape
        self.entering = [traced_lengths(leaf) for leaf in leaves]  # per name, its lengths before the loop
        keyed = []
        for leaf in leaves:
            if packed.in_place(leaf):
                keyed.append({_MASK: ((_MASK, leaf.mask.value), leaf.mask.value)})
            else:
                keyed.append({axis: (_key(n), n) for axis, n in enumerate(traced_lengths(leaf)) if n is not None})
        self.axes, self.initial = _partition(keyed)

    def carries(self, k: int) -> bool:
        return bool(self.axes[k])

    def operands(self) -> list[ir.Value]:
        return [self._group_value(g, n) for g, n in enumerate(self.initial)]

    def _group_value(self, g: int, x) -> ir.Value:
        if self._is_mask(g):
            n = self._mask_size(g)
            return full(True, (n,), np.bool_) if x is None else ops.reshape(x, [n])
        return ew.convert(x if isinstance(x, ir.Value) else value(np.int64(x)), np.int64)

    def _is_mask(self, g: int) -> bool:
        return any(axes.get(_MASK) == g for axes in self.axes)

    def _mask_size(self, g: int) -> int:
        return next(self.extents[k][0] for k, axes in enumerate(self.axes) if axes.get(_MASK) == g)

    def value_of(self, k: int, leaf) -> ir.Value:
        """The array name k carries for `leaf`: a selection's elements in place, or its data."""
        if _MASK in self.axes[k]:
            return leaf.spread if packed.in_place(leaf) else value(leaf)
        return carried_value(leaf)

    def array(self, k: int, v: ir.Value, groups: list, made_at):
        """Name k's array inside the loop or after it, from its carried `v` and the `groups` values."""
        if _MASK in self.axes[k]:
            g = self.axes[k][_MASK]
            if not isinstance(groups[g], TracedArray):
                groups[g] = wrap(groups[g], scalar=False)  # one mask object, shared by the group's names
            array = packed.spread_selection(v, groups[g])
        else:
            array = traced_bounds.make(v, [groups[self.axes[k][axis]] if axis in self.axes[k] else None
                                           for axis in range(len(self.extents[k]))])
        array.made_at = made_at
        return array

    def returned(self, leaves) -> list[ir.Value]:
        """Each group's length or mask at the end of an iteration, from its first name."""
        out = [None] * len(self.initial)
        for k, leaf in enumerate(leaves):
            lengths = traced_lengths(leaf)
            for axis, g in self.axes[k].items():
                if out[g] is None and axis == _MASK:
                    out[g] = leaf.mask.value if packed.in_place(leaf) else None
                elif out[g] is None:
                    out[g] = lengths[axis] if lengths[axis] is not None else self.extents[k][axis]
        return [self._group_value(g, x) for g, x in enumerate(out)]

    def refine(self, leaves) -> bool:
        """Regroup from the names at the end of a traced iteration: a name gains a group where it
        leaves with a traced length (or as a selection in place, when it entered as one or whole),
        and a group splits where its names leave with different ones. True if anything changed."""
        keyed = []
        for k, leaf in enumerate(leaves):
            entered_whole = not self.axes[k]
            if packed.in_place(leaf) and (entered_whole or _MASK in self.axes[k]):
                g = self.axes[k].get(_MASK)
                keyed.append({_MASK: ((("group", g), leaf.mask.value), self.initial[g] if g is not None else None)})
                continue
            lengths, by_axis = traced_lengths(leaf), {}
            for axis in sorted({a for a in self.axes[k] if a != _MASK} | {a for a, n in enumerate(lengths)
                                                                           if n is not None}):
                g, extent = self.axes[k].get(axis), self.extents[k][axis]
                end = lengths[axis] if lengths[axis] is not None else extent
                entering = self.entering[k][axis] if self.entering[k][axis] is not None else extent
                start = ("group", g) if g is not None else _key(entering)
                by_axis[axis] = ((start, _key(end)), self.initial[g] if g is not None else entering)
            keyed.append(by_axis)
        axes, initial = _partition(keyed)
        changed = axes != self.axes
        self.axes, self.initial = axes, initial
        return changed
