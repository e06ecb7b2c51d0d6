"""Indexing reads and writes: integers, slices (any step), None, `...`, traced integers,
integer arrays (fancy indexing) and boolean masks.

A basic read with at least one slice is a view: writes through it land in the
base array. Basic writes become `dynamic_update_slice`, or a padded select for
strided slices. An index with arrays reads the slices first and then gathers
(`stablehlo.gather`); a write scatters, the last of repeated indices winning as
in NumPy. A traced boolean mask selects a data-dependent number of elements, so
it can only be written through (`a[mask] = v`, `a[mask] += v`), as a select.
"""

from __future__ import annotations

import dis
import sys
from dataclasses import dataclass

import numpy as np
from jaxlib.mlir import ir

from solvent.core import operators
from solvent.core.aval import Aval
from solvent.core.traced import TracedArray
from solvent.errors import UnsupportedError, is_library_file
from solvent.numpy import affine, masked
from solvent.numpy.registry import implements
from solvent.numpy.shape import view
from solvent.numpy.values import assigned_value, broadcast_value, full, is_traced, value, wrap
from solvent.ops import elementwise as ew, shape as ops
from solvent.ops.base import dtype_of, shape_of
from solvent.ops.constant import constant, iota
from solvent.ops.gather import gather
from solvent.ops.scatter import scatter


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


def parse(key, base_shape) -> Index:
    """Normalize a basic index against `base_shape` (NumPy's rules and errors)."""
    key = key if isinstance(key, tuple) else (key,)
    used = sum(1 for k in key if k is not None and k is not Ellipsis)
    ellipses = sum(1 for k in key if k is Ellipsis)
    if ellipses > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if used > len(base_shape):
        raise IndexError(f"too many indices for array: array is {len(base_shape)}-dimensional, "
                         f"but {used} were indexed")
    rest = [slice(None)] * (len(base_shape) - used)
    expanded = []
    for k in key:
        expanded += rest if k is Ellipsis else [k]
    if not ellipses:
        expanded += rest
    axes, result_shape, dim = [], [], 0
    for k in expanded:
        if k is None:
            result_shape.append(1)
            continue
        n = base_shape[dim]
        if isinstance(k, slice) and any(is_traced(b) for b in (k.start, k.stop, k.step)):
            start, length = affine.static_slice(k, n)  # `masked` takes the other traced slices
            axes.append(Axis(0, 1, length, True, dynamic=start))
            result_shape.append(length)
        elif isinstance(k, slice):
            start, stop, step = k.indices(n)
            length = len(range(start, stop, step))
            axes.append(Axis(start, step, length, True))
            result_shape.append(length)
        elif is_traced(k):
            if k.dtype.kind not in "iu":
                raise IndexError("only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and "
                                 "integer or boolean arrays are valid indices")
            axes.append(Axis(0, 1, 1, False, dynamic=k))
        else:
            i = int(k)
            if not -n <= i < n:
                raise IndexError(f"index {i} is out of bounds for axis {dim} with size {n}")
            axes.append(Axis(i % n, 1, 1, False))
        dim += 1
    return Index(axes, tuple(result_shape))


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


# -- advanced indexing: integer arrays and boolean masks ---------------------------------------

_VALID = ("only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and integer or boolean "
          "arrays are valid indices")
STATIC_SHAPES = ("solvent compiles programs of static shape, and the number of True elements is only "
                 "known when the program runs")


def is_advanced(key) -> bool:
    """Whether an index holds an array, a list or a boolean (NumPy's advanced indexing)."""
    for k in key if isinstance(key, tuple) else (key,):
        if isinstance(k, (list, np.ndarray, bool, np.bool_)) or (is_traced(k) and (k.ndim or k.dtype == np.bool_)):
            return True
    return False


def _entry(k):
    """One key entry as None, `...`, a slice, a host integer or boolean array, or a traced array."""
    if k is None or k is Ellipsis or isinstance(k, slice):
        return k
    if is_traced(k) or _holds_traced(k):
        k = k if is_traced(k) else wrap(value(k), scalar=False)  # a list of traced integers
    else:
        k = np.asarray(k)
        if k.dtype.kind not in "iub" and k.size == 0:
            k = k.astype(np.int64)  # an empty list selects nothing
    if k.dtype.kind not in "iub":
        raise IndexError(_VALID)
    if k.dtype == np.bool_ and k.ndim == 0:
        raise UnsupportedError("a boolean scalar as an index (a[True]); use a[None] or np.where(condition, a, b)")
    return k


def _holds_traced(x) -> bool:
    return is_traced(x) or (isinstance(x, (list, tuple)) and any(_holds_traced(v) for v in x))


def _expand(key, shape) -> list[tuple]:
    """(kind, dim, entry) per key entry with `...` expanded and static masks turned into index arrays.

    kind is "none", "slice", "index" (a host or traced integer array, 0-d for an integer)
    or "mask" (a traced boolean array over dimensions dim .. dim + ndim - 1).
    """
    entries = [_entry(k) for k in (key if isinstance(key, tuple) else (key,))]
    width = [0 if k is None or k is Ellipsis else 1 if isinstance(k, slice) or k.dtype != np.bool_ else k.ndim
             for k in entries]
    ellipses = sum(1 for k in entries if k is Ellipsis)
    if ellipses > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if sum(width) > len(shape):
        raise IndexError(f"too many indices for array: array is {len(shape)}-dimensional, "
                         f"but {sum(width)} were indexed")
    if not ellipses:
        entries.append(Ellipsis)
    expanded, dim = [], 0
    for k, w in zip(entries, width + [0]):
        if k is Ellipsis:
            expanded += [("slice", d, slice(None)) for d in range(dim, dim + len(shape) - sum(width))]
            dim += len(shape) - sum(width)
        elif k is None:
            expanded.append(("none", dim, None))
        elif isinstance(k, slice) or k.dtype != np.bool_:
            expanded.append(("slice" if isinstance(k, slice) else "index", dim, k))
        else:
            expanded += _mask_entries(k, shape, dim)
        dim += w
    return expanded


def _mask_entries(mask, shape, dim) -> list[tuple]:
    """A boolean index: its nonzero arrays when static, itself when traced."""
    for i, (n, m) in enumerate(zip(shape[dim:], mask.shape)):
        if n != m:
            raise IndexError(f"boolean index did not match indexed array along axis {dim + i}; size of axis "
                             f"is {n} but size of corresponding boolean axis is {m}")
    if is_traced(mask):
        return [("mask", dim, mask)]
    return [("index", dim + i, k) for i, k in enumerate(np.nonzero(mask))]


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


def _basic_part(expanded, shape, keep=("slice",)) -> Index:
    """The basic index of the entries of kinds `keep`, every other dimension whole."""
    key = [slice(None)] * len(shape)
    for kind, dim, k in expanded:
        if kind in keep:
            key[dim] = int(k) if isinstance(k, np.ndarray) else k
    return parse(tuple(key), shape)


def _layout(expanded, basic: Index, batch) -> tuple[int, tuple]:
    """(slice dimensions before the index dimensions, result shape): NumPy puts the broadcast index
    dimensions where the advanced indices are when those are adjacent, else first."""
    advanced = [i for i, (kind, _, _) in enumerate(expanded) if kind in ("index", "mask")]
    at = advanced[0] if advanced == list(range(advanced[0], advanced[-1] + 1)) else 0
    before, result = 0, []
    for i, (kind, dim, _) in enumerate(expanded):
        if i == at:
            before, result = sum(1 for e in expanded[:i] if e[0] == "slice"), result + list(batch)
        if kind in ("slice", "none"):
            result.append(basic.axes[dim].length if kind == "slice" else 1)
    return before, tuple(result)


@dataclass
class Fancy:
    """An index with integer arrays: the slices are read first (`basic`), then one gather over `dims`."""

    basic: Index            # the slices, with the indexed dimensions kept whole
    dims: list[int]         # base dimensions indexed by arrays, ascending
    indices: list           # per dim: a host int64 array or a traced int64 value, in bounds
    batch: tuple            # the broadcast shape of the index arrays
    before: int             # slice dimensions placed before the batch dimensions in the result
    result_shape: tuple     # NumPy's result shape, None dimensions included


def parse_fancy(key, shape) -> Fancy:
    """Normalize an index with integer arrays (static masks included) against `shape`."""
    expanded = _expand(key, shape)
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
    basic = _basic_part(expanded, shape)
    before, result_shape = _layout(expanded, basic, batch)
    indices = [in_bounds(k, shape[d], d) for d, k in arrays]
    return Fancy(basic, [d for d, _ in arrays], indices, tuple(batch), before, result_shape)


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
        sub = _store_last(sub, _index_matrix(f, (count,)), update, f.dims)
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


def _store_last(sub, indices, update, dims):
    """Scatter at traced indices where the last of repeated indices wins: the highest update
    position per element is found with a `max` scatter, then each element gathers its update."""
    count, dims = shape_of(indices)[0], list(dims)
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


# -- traced boolean masks: written through as a select -----------------------------------------

@dataclass
class Masked:
    """An index with one traced boolean mask (and slices or integers): a select over the basic read."""

    basic: Index            # slices and integers, the mask's dimensions kept whole
    mask: object            # the traced boolean array
    at: int                 # the mask's first dimension in the basic read
    before: int             # where NumPy's result has its dimension of selected elements
    counted: tuple          # NumPy's result shape with that dimension 1


def parse_masked(key, shape) -> Masked | None:
    """The traced-mask form of an index, or None when it has no traced mask."""
    expanded = _expand(key, shape)
    masks = [k for kind, _, k in expanded if kind == "mask"]
    if not masks:
        return None
    if len(masks) > 1 or any(kind == "none" or (kind == "index" and k.ndim) for kind, _, k in expanded):
        raise UnsupportedError(f"a traced boolean mask together with another mask, integer arrays or None: "
                               f"{STATIC_SHAPES}; write np.where(mask, new, a) instead")
    basic = _basic_part(expanded, shape, keep=("slice", "index"))
    before, counted = _layout(expanded, basic, (1,))
    at = sum(1 for kind, _, _ in expanded[:next(i for i, e in enumerate(expanded) if e[0] == "mask")]
             if kind == "slice")
    return Masked(basic, masks[0], at, before, counted)


def _mask_order(m: Masked, rank: int) -> list[int]:
    """Permutation of the basic read that brings the mask's dimensions to NumPy's result position."""
    dims = list(range(m.at, m.at + m.mask.ndim))
    if m.before == m.at:
        return list(range(rank))
    return dims + [d for d in range(rank) if d not in dims]


def _selected_shape(m: Masked) -> list[int]:
    """NumPy's result shape with one slot per mask element in place of the count of True ones."""
    return [*m.counted[:m.before], m.mask.size, *m.counted[m.before + 1:]]


def read_selected(v: ir.Value, m: Masked) -> ir.Value:
    """Every element the mask could select, laid out as NumPy's result (for `a[mask] op= v`)."""
    sub = read(v, m.basic)
    return ops.reshape(ops.transpose(sub, _mask_order(m, len(shape_of(sub)))), _selected_shape(m))


def write_selected(v: ir.Value, m: Masked, selected: ir.Value) -> ir.Value:
    """`v` with the masked elements taken from `selected` (laid out as `read_selected` gives)."""
    sub = read(v, m.basic)
    order = _mask_order(m, len(shape_of(sub)))
    selected = ops.reshape(selected, [shape_of(sub)[p] for p in order])
    selected = ops.transpose(selected, np.argsort(order))
    hit = ops.broadcast_in_dim(m.mask.value, shape_of(sub), range(m.at, m.at + m.mask.ndim))
    return write(v, m.basic, ew.select(hit, selected, sub))


def check_count_free(m: Masked, new_shape) -> None:
    """A value stored at a traced mask must not have a dimension for the number of True elements."""
    axis = m.before - (len(m.counted) - len(new_shape))
    if 0 <= axis < len(new_shape) and new_shape[axis] != 1:
        raise UnsupportedError(f"storing an array of shape {tuple(new_shape)} at a traced boolean mask: its "
                               f"length must equal the number of True elements, and {STATIC_SHAPES}; store "
                               f"a scalar or a value broadcast along the masked elements, or write "
                               f"np.where(mask, new, a)")


def broadcast_selected(m: Masked, new: ir.Value) -> ir.Value:
    """A value for the masked elements, broadcast as NumPy would over however many are selected."""
    check_count_free(m, shape_of(new))
    return broadcast_value(broadcast_value(new, m.counted), _selected_shape(m))


class Selected(TracedArray):
    """`a[mask]` for a traced mask, read only by `a[mask] op= v`: one slot per mask element, so
    the in-place operation and the store back are selects and the count is never needed."""

    target: tuple = ()      # (array, key, Masked) it was read from

    def __repr__(self) -> str:
        return f"Selected({self.aval}, for a[mask] op= value)"


def _checked(name: str):
    inplace = getattr(TracedArray, name)

    def method(self, other):
        check_count_free(self.target[2], np.shape(other) if not is_traced(other) else other.shape)
        return inplace(self, other)
    return method


for _name in operators.BINARY:
    setattr(Selected, f"__i{_name}__", _checked(f"__i{_name}__"))


def _in_augmented_assignment() -> bool:
    """Whether user code indexed a traced array only to write it straight back, as `a[key] op= v`
    does (Python's bytecode duplicates the array and the key before the read: COPY 2, COPY 2)."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_code is not TracedArray.__getitem__.__code__:
        frame = frame.f_back
    caller = frame.f_back if frame is not None else None
    if caller is None or is_library_file(caller.f_code.co_filename):
        return False  # solvent's own code (an eager call) or NumPy's
    instructions = list(dis.get_instructions(caller.f_code))
    at = next((i for i, ins in enumerate(instructions) if ins.offset == caller.f_lasti), None)
    return at is not None and at >= 2 and all(ins.opname == "COPY" and ins.arg == 2
                                              for ins in instructions[at - 2:at])


# -- entry points -----------------------------------------------------------------------------

def _is_traced_flag(key) -> bool:
    """A traced 0-d boolean as the whole index: NumPy reads `a[m]` as `a[None][[m]]`."""
    return is_traced(key) and key.dtype == np.bool_ and key.shape == ()


def _flag_as_mask(array, key):
    """`a[m]` for a 0-d traced `m` as a mask over a new leading axis of one element (a view of `a`)."""
    return getitem(array, None), np.reshape(key, (1,))


@implements("getitem")
def getitem(array, key):
    if _is_traced_flag(key):
        return getitem(*_flag_as_mask(array, key))
    if masked.applies(key, array.shape):  # a slice of traced length (bounds from a rolled loop's index)
        return masked.getitem(array, key)
    if is_advanced(key):
        return _getitem_advanced(array, key)
    index = parse(key, array.shape)
    if _is_element(key, index):
        return wrap(read(array.value, index))  # an element: a NumPy scalar, not a view
    return view(array, index.result_shape, lambda v: read(v, index),
                lambda parent, new: write(parent, index, new))


def _getitem_advanced(array, key):
    """A copy (never a view), as NumPy gives for advanced indices."""
    m = parse_masked(key, array.shape)
    if m is not None and _in_augmented_assignment():
        selected = Selected(read_selected(array.value, m), Aval(tuple(_selected_shape(m)), array.dtype))
        selected.target = (array, key, m)
        return selected
    f = parse_fancy(key, array.shape)
    element = f.result_shape == () and not any(k is Ellipsis for k in (key if isinstance(key, tuple) else (key,)))
    return wrap(read_fancy(array.value, f), scalar=element)  # 0-d integer arrays index as integers


def _is_element(key, index: Index) -> bool:
    """NumPy returns a scalar when every dimension has an integer index and there is no `...`."""
    keys = key if isinstance(key, tuple) else (key,)
    integers_only = index.result_shape == () and not any(a.keep for a in index.axes)
    return integers_only and not any(k is Ellipsis for k in keys)


@implements("setitem")
def setitem(array, key, new):
    if _is_traced_flag(key):
        return setitem(*_flag_as_mask(array, key), new)
    if masked.applies(key, array.shape):
        return masked.setitem(array, key, new)
    if is_advanced(key):
        return _setitem_advanced(array, key, new)
    index = parse(key, array.shape)
    update = assigned_value(value(new, array.dtype), index.result_shape)
    array.assign(write(array.value, index, update))


def _setitem_advanced(array, key, new):
    if isinstance(new, Selected) and new.target[0] is array and new.target[1] is key:
        array.assign(write_selected(array.value, new.target[2], new.value))  # the end of a[mask] op= v
        return
    m = parse_masked(key, array.shape)
    if m is not None:
        array.assign(write_selected(array.value, m, broadcast_selected(m, value(new, array.dtype))))
        return
    f = parse_fancy(key, array.shape)
    update = assigned_value(value(new, array.dtype), f.result_shape)
    array.assign(write_fancy(array.value, f, update))

