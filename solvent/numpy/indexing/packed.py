"""Selections whose length depends on data: `x[mask]` and `np.nonzero(mask)` for a traced mask.

NumPy's result has one element per True entry of the mask, a number known only when the program
runs. solvent holds it at its static bound (one slot per mask entry) with the selected elements
packed at the front in NumPy's order, zeros after them, and the traced count as its valid length: a
`traced_bounds.MaskedArray`. NumPy's functions with a rule for a valid prefix (`bounded_functions`,
`bounded_orders`: reductions, sorts, medians, ...) then give NumPy's results, `len()` is the count,
it can be stored back at the same mask (`x[m] = f(x[m])`), and any other use raises instead of
reading the padding (`core.traced.padded`).
"""

from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir

from solvent.core import operators, trace
from solvent.core.aval import Aval
from solvent.core.traced import TracedArray
from solvent.errors import UnsupportedError, user_location
from solvent.ir.module import same_value
from solvent.numpy.indexing import chunked_reductions, traced_bounds, traced_lengths
from solvent.numpy.indexing.advanced import parse_fancy, read_fancy, store_last
from solvent.numpy.indexing.masks import Masked, Selected, check_count_free, read_selected, write_selected
from solvent.numpy.values import full, is_traced, value, wrap
from solvent.ops import elementwise as ew, shape as ops
from solvent.ops.base import dtype_of, shape_of
from solvent.ops.constant import iota
from solvent.ops.gather import gather
from solvent.ops.scatter import scatter

_I64 = np.int64


def _packing(mask) -> tuple[ir.Value, ir.Value]:
    """(slot of each mask entry in the packed result, or one past the bound where it is False; the count),
    made once per value of `mask` (or of an equal mask made again in the same block, as `~m` written
    twice), so every selection with it shares one count: `z[~m]` and `c[~m]` can be combined again."""
    cached = _cached(mask, "_packing")
    if cached is not None:
        return cached
    found = _shared("packing", mask.value)
    if found is not None:
        _cache(mask, "_packing", *found)
        return found
    n = mask.size
    flat = ops.reshape(mask.value, [n])
    ones = wrap(ew.convert(flat, _I64), scalar=False)
    slots = ew.binary("subtract", np.cumsum(ones).value, full(1, (n,), _I64))
    count = np.sum(ones).value
    beyond = ew.binary("add", iota((n,), _I64, 0), full(n, (n,), _I64))  # distinct: the scatter's indices are unique
    target = ew.select(flat, slots, beyond)
    _cache(mask, "_packing", target, count)
    trace.current().shared[-1].append(("packing", mask.value, (target, count)))
    return target, count


def _cached(x, name: str):
    """What was made of `x`'s current value and cached under `name`, where the block it was made in
    is open here (not a branch's or a loop's body traced before: its values are not seen after it;
    after the trace, while its results are read, the function's own block)."""
    cached = vars(x).get(name)
    if cached is None or cached[0] is not x.value:
        return None
    session = trace.current()
    blocks = session.shared if session is not None else [cached[2]]
    return cached[3:] if any(cached[1] is block for block in blocks) else None


def _cache(x, name: str, *made) -> None:
    shared = trace.current().shared
    setattr(x, name, (x.value, shared[-1], shared[0], *made))


def _shared(kind: str, v: ir.Value):
    """What was made of a value equal to `v` in the current block (see `Trace.shared`), or None."""
    for known_kind, known, made in trace.current().shared[-1]:
        if known_kind == kind and same_value(known, v):
            return made
    return None


def _pack(v: ir.Value, axis: int, target: ir.Value) -> ir.Value:
    """The slices of `v` along `axis` moved to their `target` slots (zeros elsewhere, and the
    slices whose target is out of bounds dropped)."""
    order = [axis] + [d for d in range(len(shape_of(v))) if d != axis]
    moved = ops.transpose(v, order)
    n = shape_of(moved)[0]
    packed = scatter(full(0, shape_of(moved), dtype_of(moved)), ops.reshape(target, [n, 1]), moved, [0],
                     lambda old, new: [new], unique=True)
    return ops.transpose(packed, list(np.argsort(order)))


class Selection(traced_bounds.MaskedArray):
    """`x[mask]` kept where the mask's entries are (`spread`, one slot per entry) until its order
    matters: ufuncs of selections by one mask and scalars, and a store back at that mask, never
    pack it. Anything else reads `value`, packed once."""

    spread = None  # the selection in place, laid out as `masks.read_selected` gives; None once written
    noun = "a selection whose length depends on the data (x[mask], np.nonzero)"

    def __repr__(self) -> str:
        return f"Selection({self.aval}, by a traced mask)"

    @property
    def value(self) -> ir.Value:
        if self._value is None:  # packed where the selection was made, so that it is the same after a branch
            with _in_block(self.block):
                self._value = _pack(self.spread, self.axis, _packing(self.mask)[0])
        return TracedArray.value.fget(self)  # an array of a discarded region raises there

    def assign(self, value: ir.Value) -> None:
        super().assign(value)
        self.spread = None  # written as a packed array: it is one from now on

    def filled(self, filler) -> ir.Value:
        """A 1-d selection in place with `filler` in the slots its mask leaves out: reductions need
        no packing (their order of elements does not matter)."""
        if self.spread is None or self.ndim != 1:
            return super().filled(filler)
        mask = ops.reshape(self.mask.value, [self.mask.size])
        return ew.select(mask, self.spread, full(filler, shape_of(self.spread), dtype_of(self.spread)))

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if method == "__call__" and ufunc.nout == 1 and ufunc.signature is None and "out" not in kwargs and all(
                by_mask(x, self.mask) or not _ndim(x) for x in inputs):
            with trace.current().emitting(user_location()):
                result = ufunc(*[wrap(x.spread, scalar=False) if by_mask(x, self.mask) else x for x in inputs],
                               **kwargs)
                return _selection(result.value, self.axis, self.mask)
        return super().__array_ufunc__(ufunc, method, *inputs, **kwargs)


def _ndim(x) -> int:
    return x.ndim if isinstance(x, TracedArray) else np.ndim(x)


def by_mask(x, mask) -> bool:
    """Whether `x` is a selection, unpacked, by `mask` or by a mask computed the same way (`x[x > 1] =
    2 - x[x > 1]` makes two)."""
    return isinstance(x, Selection) and x.spread is not None and (x.mask is mask or (
        x.mask.shape == mask.shape and same_value(x.mask.value, mask.value)))


def in_place(x) -> bool:
    """A 1-d selection still held in place by its mask."""
    return isinstance(x, Selection) and x.spread is not None and x.ndim == 1


def _selection(spread: ir.Value, axis: int, mask) -> Selection:
    count = _packing(mask)[1]
    lengths = [None] * len(shape_of(spread))
    lengths[axis] = count
    out = Selection(None, Aval(tuple(shape_of(spread)), dtype_of(spread)))
    out.spread, out.axis, out.mask, out.lengths, out.made_at = spread, axis, mask, tuple(lengths), user_location()
    out.block = ir.InsertionPoint.current.block
    return out


def _in_block(block: ir.Block) -> ir.InsertionPoint:
    """An insertion point in `block` that the current one is in, or nested in: before the op there
    that holds the current point (a branch or loop traced later)."""
    here = ir.InsertionPoint.current.block
    op = None if here == block else here.owner
    while op is not None:
        if op.operation.block == block:
            return ir.InsertionPoint(op.operation)
        op = op.operation.parent
    return ir.InsertionPoint.current  # (the block itself, or one of another function)


def select(array, m: Masked) -> Selection:
    """`array[mask]`: as many elements as the mask has True ones (packed at the front when needed)."""
    return _selection(read_selected(array.value, m), m.before, _shared_mask(m.mask))


def like(array, selection):
    """`array` (zero past the selection's count) as long as `selection`: one length, so they pair."""
    return traced_bounds.make(value(array), selection.lengths)


def spread_selection(spread: ir.Value, mask) -> Selection:
    """The 1-d selection of the elements of `spread` where the 1-d traced boolean `mask` is True,
    held in place (what a loop carries for a working set that shrinks: `z = z[~done]`)."""
    return _selection(spread, 0, mask)


def _shared_mask(mask):
    """One traced mask object for equal masks (or mask values) made in one block, so that selections
    by `~m` written twice (`z[~m]`, `c[~m]`) are selections by one mask and combine in place."""
    v = mask if isinstance(mask, ir.Value) else mask.value
    known = _shared("mask", v)
    if known is None:
        known = wrap(v, scalar=False) if isinstance(mask, ir.Value) else mask
        trace.current().shared[-1].append(("mask", v, known))
    return known


def reselect(array, key):
    """`s[mask]` of a selection `s` (1-d, of traced length) by a mask selected the same way
    (`s[s > 0]`, `xs[keep]` with `keep` computed from a selection of the same count). A selection
    held in place by a mask held in place by the same one stays in place: its mask narrows."""
    if in_place(array) and by_mask(key, array.mask) and key.dtype == np.bool_ and key.ndim == 1:
        within = ew.binary("and", ops.reshape(array.mask.value, [array.mask.size]), key.spread)
        return _selection(array.spread, 0, _shared_mask(within))
    count = array.lengths[0] if array.ndim == 1 and len(array.lengths) == 1 else None
    if count is None or not (isinstance(key, traced_bounds.MaskedArray) and key.dtype == np.bool_ and key.ndim == 1
                             and key.lengths[0] is not None and same_value(key.lengths[0], count)):
        raise UnsupportedError("indexing an array whose length depends on traced values (x[:k], x[mask]) other "
                               "than by a mask selected the same way; index the array it came from instead")
    cached = _cached(key, "_within")
    if cached is None:
        n = key.aval.shape[0]
        inside = ew.compare("LT", iota((n,), _I64, 0), ops.broadcast_in_dim(count, [n], []))
        cached = (wrap(ew.select(inside, key.value, full(False, (n,), np.bool_))),)
        _cache(key, "_within", *cached)
    return _selection(array.value, 0, cached[0])


def store(array, m: Masked, new) -> None:
    """`array[mask] = new` for `new` selected by the same mask: each selected element takes its slot."""
    if by_mask(new, m.mask):
        array.assign(write_selected(array.value, m, ew.convert(new.spread, array.dtype)))
        return
    target, count = _packing(m.mask)
    if new.lengths[m.before] is not count or any(length is not None for i, length in enumerate(new.lengths)
                                                   if i != m.before):
        raise UnsupportedError("storing a selection made with another mask (or of another length) at a "
                               "traced boolean mask: its length must equal the mask's count, known only "
                               "when the program runs; store a selection made with the same mask "
                               "(x[m] = f(x[m])) or write np.where(mask, new, x)")
    n = m.mask.size
    slots = ew.clamp(full(0, (n,), _I64), target, full(max(n - 1, 0), (n,), _I64))
    order = [m.before] + [d for d in range(len(new.shape)) if d != m.before]
    taken = gather(ops.transpose(new.value, order), ops.reshape(slots, [n, 1]), [0])
    unpacked = ops.transpose(taken, list(np.argsort(order)))
    array.assign(write_selected(array.value, m, ew.convert(unpacked, array.dtype)))


def has_packed(key) -> bool:
    """Whether an index holds index arrays whose number depends on data (np.nonzero's)."""
    return any(isinstance(k, traced_bounds.MaskedArray) for k in (key if isinstance(key, tuple) else (key,)))


def _count_of(keys):
    """The one count of the packed index arrays among `keys`."""
    counts = {id(k.lengths[0]): k.lengths[0] for k in keys if isinstance(k, traced_bounds.MaskedArray)}
    if len(counts) != 1 or any(isinstance(k, traced_bounds.MaskedArray) and (k.ndim != 1 or len(k.lengths) != 1)
                               for k in keys):
        raise UnsupportedError("indexing with several index arrays whose lengths depend on data and may differ; "
                               "index with the arrays of one np.nonzero (x[np.nonzero(m)]) or with the mask")
    return next(iter(counts.values()))


def take(array, key):
    """`array[key]` with packed index arrays (one count): a gather, packed as its indices are."""
    keys = key if isinstance(key, tuple) else (key,)
    count = _count_of(keys)
    plain = tuple(wrap(k.value, scalar=False) if isinstance(k, traced_bounds.MaskedArray) else k for k in keys)
    f = parse_fancy(plain, array.shape)
    lengths = [None] * len(f.result_shape)
    lengths[f.before] = count
    result = traced_bounds.make(traced_lengths.fill(read_fancy(array.value, f), lengths, 0), lengths)
    if len(keys) == 1:  # (a sum of products with it then runs a chunk at a time: `chunked_reductions`)
        result.recipe = chunked_reductions.taken(array.value, keys[0], result.value)
    return result


def put(array, key, new) -> None:
    """`array[key] = new` with one packed index array per dimension (np.nonzero's): the slots past
    the count point out of bounds, where the scatter drops them."""
    keys = key if isinstance(key, tuple) else (key,)
    count = _count_of(keys)
    if len(keys) != array.ndim or not all(isinstance(k, traced_bounds.MaskedArray) for k in keys):
        raise UnsupportedError("writing through index arrays whose length depends on data takes one such array "
                               "per dimension (x[np.nonzero(m)] = v); or write x[m] = v")
    n = keys[0].aval.shape[0]
    mask = getattr(keys[0], "mask", None)
    mask = mask if all(by_mask(k, mask) for k in keys) and keys[0].ndim == 1 else None
    in_place = mask is not None and (by_mask(new, mask) or not _ndim(new))
    if in_place:  # the selections held in place: the mask says which slots count
        valid = ops.reshape(mask.value, [n])
        keys = [wrap(k.spread, scalar=False) for k in keys]
        new = wrap(new.spread, scalar=False) if by_mask(new, mask) else new
    else:
        valid = ew.compare("LT", iota((n,), _I64, 0), ops.broadcast_in_dim(count, [n], []))
    columns = []
    for k, size in zip(keys, array.shape):
        i = ew.convert(k.value, _I64)
        i = ew.select(ew.compare("LT", i, full(0, (n,), _I64)), ew.binary("add", i, full(size, (n,), _I64)), i)
        columns.append(ops.reshape(ew.select(valid, i, full(size, (n,), _I64)), [n, 1]))
    indices, dims = ops.concatenate(columns, 1), list(range(array.ndim))
    if not _ndim(new):  # one value for every index: the elements hit take it (no update per index, which
        hit = scatter(full(False, array.shape, np.bool_), indices, full(True, (n,), np.bool_), dims,
                      lambda old, new: [new])  # a loop would precompute for each of its iterations)
        array.assign(ew.select(hit, value(new, array.dtype, array.shape), array.value))
        return
    if not (in_place or (isinstance(new, traced_bounds.MaskedArray) and new.lengths[:1] == (count,)
                         and new.ndim == 1)):
        raise UnsupportedError("storing an array whose length is not the index arrays' own count (known only "
                               "when the program runs) through them; store a scalar or a value selected the "
                               "same way")
    array.assign(store_last(array.value, indices, ew.convert(new.value, array.dtype), dims))


def _flags(a):
    if a.ndim == 0:
        raise ValueError("Calling nonzero on 0d arrays is not allowed. Use np.atleast_1d(scalar).nonzero() "
                         "instead.")
    return np.not_equal(a, 0) if a.dtype != np.bool_ else a


def nonzero(a):
    """np.nonzero of a traced array: one packed index array per dimension, sharing one count."""
    flags = _flags(a)
    target, count = _packing(flags)
    n = flags.size
    return tuple(traced_bounds.make(_pack(ops.reshape(iota(flags.shape, _I64, d), [n]), 0, target), [count])
                 for d in range(flags.ndim))


def coordinates(a):
    """np.argwhere of a traced array: the (count, ndim) indices of its nonzero entries, packed."""
    flags = _flags(a)
    target, count = _packing(flags)
    n = flags.size
    rows = ops.concatenate([ops.reshape(iota(flags.shape, _I64, d), [n, 1]) for d in range(flags.ndim)], 1)
    return traced_bounds.make(_pack(rows, 0, target), [count, None])


def _updated(name: str):
    """`Selected`'s `op=` (`a[mask] op= v`): by a selection with the same mask, that selection of `a`
    updated (z[m] /= np.abs(z[m])); by a value without a dimension for the count, every mask slot."""
    inplace = getattr(TracedArray, name)

    def method(self, other):
        array, key, m = self.target
        if by_mask(other, m.mask):
            return inplace(array[key], other)
        if getattr(other, "padded", False):
            raise UnsupportedError("a[mask] op= v with v a selection made with another mask (or of another "
                                   "length): its length must equal the mask's count, known only when the program "
                                   "runs; use a selection made with the same mask (x[m] /= np.abs(x[m])) or write "
                                   "np.where(mask, new, x)")
        check_count_free(m, np.shape(other) if not is_traced(other) else other.shape)
        return inplace(self, other)
    return method


for _name in operators.BINARY:
    setattr(Selected, f"__i{_name}__", _updated(f"__i{_name}__"))
