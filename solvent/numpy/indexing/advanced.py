"""Advanced indexing: integer arrays and static boolean masks. A read gathers
(`stablehlo.gather`) after reading the basic part; a write scatters, the last of repeated
indices winning as in NumPy.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from jaxlib.mlir import ir

from solvent.errors import UnsupportedError
from solvent.numpy.layout import c_strides
from solvent.numpy.indexing.basic import Index, parse, read, write
from solvent.numpy.indexing.key import ARRAY, INTEGER, MASK, NEW, normalize
from solvent.numpy.values import broadcast_value, full, is_traced, value
from solvent.ops import elementwise as ew, shape as ops
from solvent.ops.base import dtype_of, shape_of
from solvent.ops.constant import constant, iota
from solvent.ops.gather import gather
from solvent.ops.reduction import reduce
from solvent.ops.scatter import scatter

# -- advanced indexing: integer arrays and boolean masks ---------------------------------------

STATIC_SHAPES = ("solvent compiles programs of static shape, and the number of True elements is only "
                 "known when the program runs")


def expand(key, shape) -> list[tuple]:
    """(kind, dim, entry) per entry of the normalized key (`key.normalize`), static masks turned
    into index arrays.

    kind is "none", "slice", "index" (a host or traced integer array, 0-d for an integer),
    "mask" (a traced boolean array over dimensions dim .. dim + ndim - 1) or "gap" (a `...` of no
    axes, which parts the advanced indices around it).
    """
    expanded, parsed = [], normalize(key, shape)
    for at, e in enumerate(parsed.entries):
        if at == parsed.gap:
            expanded.append(("gap", e.dim, None))
        if e.kind == MASK and e.value.ndim == 0:
            raise UnsupportedError("a boolean scalar as an index (a[True]); use a[None] or np.where(condition, a, b)")
        if e.kind == MASK and is_traced(e.value):
            expanded.append(("mask", e.dim, e.value))
        elif e.kind == MASK:
            expanded += [("index", e.dim + i, k) for i, k in enumerate(np.nonzero(e.value))]
        elif e.kind in (INTEGER, ARRAY):
            expanded.append(("index", e.dim, e.value if is_traced(e.value) else np.asarray(e.value)))
        else:
            expanded.append(("none" if e.kind == NEW else "slice", e.dim, e.value))
    return expanded


def in_bounds(k, n: int, dim: int):
    """Integer indices with negatives counted from the end: checked when static (IndexError),
    clamped into bounds when traced (a compiled program cannot raise; XLA clamps the same way)."""
    if not is_traced(k):
        k = np.asarray(k)
        bad = k[(k < -n) | (k >= n)]
        if bad.size:
            raise IndexError(f"index {bad.flat[0]} is out of bounds for axis {dim} with size {n}")
        return (k % max(n, 1)).astype(np.int64)
    if n == 0 and k.size:
        raise IndexError(f"index is out of bounds for axis {dim} with size 0")
    i = value(k, np.int64)
    zero, size = full(0, shape_of(i), np.int64), full(n, shape_of(i), np.int64)
    i = ew.select(ew.compare("LT", i, zero), ew.binary("add", i, size), i)
    return ew.clamp(zero, i, full(max(n - 1, 0), shape_of(i), np.int64))


def basic_part(expanded, shape, keep=("slice",)) -> Index:
    """The basic index of the entries of kinds `keep`, every other dimension whole."""
    key = [slice(None)] * len(shape)
    for kind, dim, k in expanded:
        if kind in keep:
            key[dim] = int(k) if isinstance(k, np.ndarray) else k
    return parse(tuple(key), shape)


def layout(expanded, basic: Index, batch) -> tuple[int, tuple]:
    """(slice dimensions before the index dimensions, result shape): NumPy puts the broadcast index
    dimensions where the advanced indices are when those are adjacent, else first."""
    at, before, result = _batch_at(expanded), 0, []
    for i, (kind, dim, _) in enumerate(expanded):
        if i == at:
            before, result = sum(1 for e in expanded[:i] if e[0] == "slice"), result + list(batch)
        if kind in ("slice", "none"):
            result.append(basic.axes[dim].length if kind == "slice" else 1)
    return before, tuple(result)


def _batch_at(expanded) -> int:
    """The entry before which the index dimensions go: the first advanced one where those are
    adjacent, else the front."""
    advanced = [i for i, (kind, _, _) in enumerate(expanded) if kind in ("index", "mask")]
    return advanced[0] if advanced == list(range(advanced[0], advanced[-1] + 1)) else 0


@dataclass
class Fancy:
    """An index with integer arrays: the slices are read first (`basic`), then one gather over `dims`."""

    basic: Index            # the slices, with the indexed dimensions kept whole
    dims: list[int]         # base dimensions indexed by arrays, ascending
    indices: list           # per dim: a host int64 array or a traced int64 value, in bounds
    batch: tuple            # the broadcast shape of the index arrays
    before: int             # slice dimensions placed before the batch dimensions in the result
    result_shape: tuple     # NumPy's result shape, None dimensions included
    rest: tuple = ()        # per other dimension of the result, in order: its base dimension (None: a new one)
    rest_before: int = 0    # how many of those come before the batch dimensions

    def strides(self, base: tuple, itemsize: int) -> tuple[int, ...]:
        """NumPy's byte strides of the read from an array of strides `base`: the broadcast index
        dimensions outermost, in C order; the others inside them in the order of their strides in
        the array (NumPy's K order), each where the result puts it (`a[:, idx]` is not C-contiguous)."""
        steps = [0 if d is None else abs(base[d] * self.basic.axes[d].step) for d in self.rest]
        strides, size = [0] * len(self.rest), itemsize
        for k in sorted(range(len(self.rest)), key=lambda k: (steps[k], -k)):  # innermost first
            strides[k] = size
            size *= max(1 if self.rest[k] is None else self.basic.axes[self.rest[k]].length, 1)
        return (*strides[:self.rest_before], *c_strides(self.batch, size), *strides[self.rest_before:])


def parse_fancy(key, shape) -> Fancy:
    """Normalize an index with integer arrays (static masks included) against `shape`."""
    expanded = expand(key, shape)
    if any(kind == "mask" for kind, _, _ in expanded):
        raise UnsupportedError(f"selecting with a traced boolean mask (a[mask]) has a data-dependent shape: "
                               f"{STATIC_SHAPES}; write np.where(mask, a, 0) (or another filler) to keep the "
                               f"shape, or make the mask a NumPy array known while tracing")
    arrays = [(dim, k) for kind, dim, k in expanded if kind == "index"]
    try:
        batch = np.broadcast_shapes(*(k.shape for _, k in arrays))
    except ValueError:
        raise IndexError("shape mismatch: indexing arrays could not be broadcast together with shapes "
                         + " ".join(str(k.shape) for _, k in arrays)) from None
    basic = basic_part(expanded, shape)
    before, result_shape = layout(expanded, basic, batch)
    indices = [in_bounds(k, shape[d], d) for d, k in arrays]
    rest = [dim if kind == "slice" else None for kind, dim, _ in expanded if kind in ("slice", "none")]
    rest_before = sum(kind in ("slice", "none") for kind, _, _ in expanded[:_batch_at(expanded)])
    return Fancy(basic, [d for d, _ in arrays], indices, tuple(batch), before, result_shape, tuple(rest), rest_before)


def _index_matrix(f: Fancy, batch) -> ir.Value:
    """The indices as one (*batch, len(dims)) value."""
    if not any(isinstance(i, ir.Value) for i in f.indices):
        return constant(np.stack([np.broadcast_to(i, f.batch).reshape(batch) for i in f.indices], axis=-1))
    columns = [ops.reshape(broadcast_value(i if isinstance(i, ir.Value) else constant(i), f.batch), [*batch, 1])
               for i in f.indices]
    return ops.concatenate(columns, len(batch))


def _order(f: Fancy, rest: int) -> list[int]:
    """The permutation from the gather's (batch, rest) to NumPy's (rest[:before], batch, rest[before:])."""
    b = len(f.batch)
    return [b + i for i in range(f.before)] + list(range(b)) + [b + i for i in range(f.before, rest)]


def read_fancy(v: ir.Value, f: Fancy) -> ir.Value:
    if 0 in f.result_shape:
        return full(0, f.result_shape, dtype_of(v))
    sub = read(v, f.basic)
    out = gather(sub, _index_matrix(f, f.batch), f.dims)
    out = ops.transpose(out, _order(f, len(shape_of(sub)) - len(f.dims)))
    return ops.reshape(out, f.result_shape)


def write_fancy(v: ir.Value, f: Fancy, update: ir.Value, combine=None) -> ir.Value:
    """`v` with `update` (of the read's shape) stored at the indexed elements, the last of repeated
    indices winning; with `combine(old, new)`, every update merged instead (ufunc.at)."""
    if 0 in f.result_shape:
        return v
    sub = read(v, f.basic)
    rest = [n for d, n in enumerate(shape_of(sub)) if d not in f.dims]
    order = _order(f, len(rest))
    gathered = [*f.batch, *rest]
    update = ops.reshape(update, [gathered[p] for p in order])
    update = ops.transpose(update, np.argsort(order))
    count = int(np.prod(f.batch, dtype=np.int64))
    update = ops.reshape(update, [count, *rest])
    if combine is not None:
        sub = _combine(sub, _index_matrix(f, (count,)), update, f.dims, combine)
    elif all(isinstance(i, np.ndarray) for i in f.indices):
        sub = _store_static(sub, f, update)
    else:
        sub = store_last(sub, _index_matrix(f, (count,)), update, f.dims)
    return write(v, f.basic, sub)


def _store_static(sub, f: Fancy, update):
    """Scatter at host indices, dropping every repeat but the last one (NumPy's order)."""
    rows = np.stack([np.broadcast_to(i, f.batch).reshape(-1) for i in f.indices], axis=-1)
    keys = np.ravel_multi_index(tuple(rows.T), [shape_of(sub)[d] for d in f.dims])
    _, first_from_end = np.unique(keys[::-1], return_index=True)
    keep = np.sort(len(keys) - 1 - first_from_end)
    if len(keep) < len(keys):
        update = gather(update, constant(keep[:, None]), [0])
    return scatter(sub, constant(rows[keep]), update, f.dims, lambda old, new: [new], unique=True)


#: Up to this many updates at traced indices, repeats are found by comparing every pair of them.
FEW_UPDATES = 64


def store_last(sub, indices, update, dims):
    """Scatter at traced indices where the last of repeated indices wins. A few updates each take
    the value of the last at their index, so that repeats write one value in any order, in place
    (`A[[k, p]] = A[[p, k]]`); for many, the highest update position per element is found with a
    `max` scatter, then each element gathers its update, a pass over the whole array."""
    count, dims = shape_of(indices)[0], list(dims)
    if count <= FEW_UPDATES:
        return scatter(sub, indices, _last_at_each(indices, update), dims, lambda old, new: [new])
    slots = [shape_of(sub)[d] for d in dims]
    positions = iota((count,), np.int64, 0)
    winner = scatter(full(-1, slots, np.int64), indices, positions, range(len(dims)),
                     lambda old, new: [ew.binary("maximum", old, new)])
    picked = gather(update, ops.reshape(ew.clamp(full(0, slots, np.int64), winner, full(count - 1, slots, np.int64)),
                                        [*slots, 1]), [0])
    layout = dims + [d for d in range(len(shape_of(sub))) if d not in dims]
    picked = ops.transpose(picked, [layout.index(d) for d in range(len(layout))])
    hit = ops.broadcast_in_dim(ew.compare("GE", winner, full(0, slots, np.int64)), shape_of(sub), dims)
    return ew.select(hit, picked, sub)


def _last_at_each(indices, update):
    """Each of `update`'s rows replaced by the last row whose index (row of `indices`) is the same."""
    count, width = shape_of(indices)
    pairs = [ops.broadcast_in_dim(indices, [count, count, width], [d, 2]) for d in (0, 1)]
    same = ew.compare("EQ", *pairs)
    true = constant(np.bool_(True))
    same = reduce([same], [true], [2], lambda a, b: [ew.binary("and", a, b)])[0]
    later = ew.select(same, iota((count, count), np.int64, 1), full(-1, (count, count), np.int64))
    last = reduce([later], [constant(np.int64(-1))], [1], lambda a, b: [ew.binary("maximum", a, b)])[0]
    return gather(update, ops.reshape(last, [count, 1]), [0])


def _combine(sub, indices, update, dims, combine):
    """Scatter merging every update with `combine(old, new)`; `new` keeps the update's own dtype
    (a second, variadic operand carries it when it differs from the array's)."""
    if dtype_of(update) == dtype_of(sub):
        return scatter(sub, indices, update, dims, lambda old, new: [combine(old, new)])
    if dtype_of(update).kind in "fc" and dtype_of(sub).kind in "fc":
        # XLA refuses floats of two precisions in one scatter: run it in the wider type, each
        # step still rounded to the array's dtype (widening a float is exact).
        wide = np.promote_types(dtype_of(sub), dtype_of(update))
        narrow = lambda old, new: ew.convert(combine(ew.convert(old, dtype_of(sub)), new), wide)
        widened = scatter(ew.convert(sub, wide), indices, ew.convert(update, wide), dims,
                          lambda old, new: [narrow(old, new)])
        return ew.convert(widened, dtype_of(sub))
    carrier = full(0, shape_of(sub), dtype_of(update))
    placeholder = full(0, shape_of(update), dtype_of(sub))
    return scatter([sub, carrier], indices, [placeholder, update], dims,
                   lambda old, spare, _, new: [combine(old, new), spare])[0]
