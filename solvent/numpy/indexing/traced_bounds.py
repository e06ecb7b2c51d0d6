"""Slices whose bounds are traced (`A[i, :i]` in a rolled loop): full extent plus a valid part.

A rolled loop traces its body once with a traced index, so `A[k+1:, k]` has a length only known at run
time. Such a slice is held at the full extent of its axes, cut from its base's row (index axes) without
copying the rest, with a traced valid length per axis; its value (`.value`) has element j at j and zeros
past the valid prefix. Ops among slices of one base with the same traced start keep them where they lie in
the base instead (`MaskedArray.aligned`), so `A[k + 1:, k + 1:] -= np.outer(A[k + 1:, k], A[k, k + 1:])`
moves nothing. Elementwise ufuncs, sums, dot products, matmul and outer products give NumPy's results on
the valid part, and writes go back through a mask into the base's row (one dynamic_update_slice, which XLA
does in place in a loop). Functions with no rule for the padding raise `UnsupportedError`."""

from __future__ import annotations

import sys

import numpy as np
from jaxlib.mlir import ir

from solvent.core import dispatch, trace
from solvent.core.aval import Aval
from solvent.core.traced import TracedArray, padded
from solvent.errors import UnsupportedError, is_library_file, user_location
from solvent.numpy.indexing import affine, chunked_reductions, traced_lengths
from solvent.numpy.indexing.traced_lengths import fill, mask, one_extent, resized, shifted
from solvent.numpy.indexing.key import ARRAY, INTEGER, MASK, NEW, SLICE, normalize
from solvent.numpy.values import assigned_value, check_cast, full, is_traced, value, wrap
from solvent.ops import elementwise as ew, shape as ops
from solvent.ops.base import dtype_of, shape_of

_I64 = np.int64


def applies(key, shape) -> bool:
    """Whether an index has a slice with traced bounds whose length is not static (see `affine`)."""
    return any(e.kind == SLICE and _traced_bounds(e.value) and affine.static_slice(e.value, shape[e.dim]) is None
               for e in normalize(key, shape).entries)


def _traced_bounds(k: slice) -> bool:
    return any(is_traced(b) for b in (k.start, k.stop, k.step))


def _scalar(x) -> ir.Value:
    return value(x, _I64)


def _clamp(v, n) -> ir.Value:
    """A bound as NumPy normalizes it: negative counts from the end, then clipped to [0, n]."""
    v = _scalar(v)
    negative = ew.compare("LT", v, full(0, (), _I64))
    v = ew.select(negative, ew.binary("add", v, full(n, (), _I64)), v)
    return ew.clamp(full(0, (), _I64), v, full(n, (), _I64))


def parse(key, shape):
    """Per base axis: ("index", start), ("slice", start, length, key) or ("reversed", start, length,
    None), the last a step -1 slice as the step 1 slice it is of the reversed axis. The start is
    None where it is 0, the length None where the slice is the whole axis, and the key (`_key`)
    tells a traced start that is the same as another's."""
    axes = []
    for e in normalize(key, shape).entries:
        if e.kind == NEW:
            raise UnsupportedError("None (np.newaxis) in an index whose slice bounds are traced")
        if e.kind in (ARRAY, MASK):
            raise UnsupportedError("an index array or mask together with a slice whose bounds are traced; "
                                   "index with the array first (x[rows][:, :i])")
        n = shape[e.dim]
        if e.kind == INTEGER:
            axes.append(("index", _clamp(e.value, n)))
        elif e.value.step is None or not is_traced(e.value.step) and e.value.step == 1:
            axes.append(_forward(e.value, n))
        else:
            axes.append(_backward(e.value, n))
    return axes


def _forward(k, n):
    zero = k.start is None or (not is_traced(k.start) and (int(k.start) == 0 or int(k.start) <= -n))
    if zero and not is_traced(k.stop) and (k.stop is None or int(k.stop) >= n):
        return "slice", None, None, None  # the whole axis: its length is static
    start = None if zero else _clamp(k.start, n)
    span = affine.span(0 if zero else k.start, n if k.stop is None else k.stop, n)
    if span is not None:  # (a length `same` as that of a slice shifted by a constant)
        length = traced_lengths.of_span(span, n)
    else:
        stop = _clamp(n if k.stop is None else k.stop, n)
        length = stop if zero else ew.binary("maximum", ew.binary("subtract", stop, start), full(0, (), _I64))
    return "slice", start, length, None if zero else _key(k.start, n)


def _key(start, n):
    """What makes two starts the same while tracing: one loop-index form (`i + 1` written twice),
    the same traced value, or the same Python integer, on an axis of the same length."""
    form = getattr(start, "affine", None)
    if form is not None and form.index is not None:
        return form.index, form.scale, form.offset, n
    return (start, 1, 0, n) if is_traced(start) else (None, 0, int(start), n)


def same_key(a, b) -> bool:
    return a is not None and b is not None and a[0] is b[0] and a[1:] == b[1:]


def _backward(k, n):
    """`x[k - 1::-1]`: NumPy's bounds for step -1 (in [-1, n - 1]) taken into the reversed axis."""
    if is_traced(k.step) or int(k.step) != -1:
        raise UnsupportedError("a slice with traced bounds and a step other than 1 or -1")

    def bound(v, default):
        if v is None:
            return full(default, (), _I64)
        v = _scalar(v)
        v = ew.select(ew.compare("LT", v, full(0, (), _I64)), ew.binary("add", v, full(n, (), _I64)), v)
        return ew.clamp(full(-1, (), _I64), v, full(n - 1, (), _I64))
    start, stop = bound(k.start, n - 1), bound(k.stop, -1)
    length = ew.binary("maximum", ew.binary("subtract", start, stop), full(0, (), _I64))
    return "reversed", ew.binary("subtract", full(n - 1, (), _I64), start), length, None


def is_sliced(a) -> bool:
    return a[0] != "index"


def _block(v, axes):
    """The block an index picks, straight from `v`: one element along index axes, whole slice axes."""
    if all(is_sliced(a) for a in axes):
        return v, None
    zero = full(0, (), _I64)
    starts = [zero if is_sliced(a) else a[1] for a in axes]
    return ops.dynamic_slice(v, starts, [n if is_sliced(a) else 1 for a, n in zip(axes, shape_of(v))]), starts


def _reversed(v, axes):
    """`v` with the axes of step -1 slices reversed (its own inverse)."""
    dims = [axis for axis, a in enumerate(axes) if a[0] == "reversed"]
    return ops.reverse(v, dims) if dims else v


def read(v, axes, filled=True, aligned=False):
    """The slice at full extent; zero outside its valid part unless not `filled` (for an op whose
    result is masked again, so that XLA need not select over its operands). Its element j is at j,
    or, `aligned`, where it is in `v` along axes whose start has a key (see `MaskedArray.aligned`)."""
    block, _ = _block(v, axes)
    block = _reversed(block, axes)
    for axis, a in enumerate(axes):
        if is_sliced(a) and a[1] is not None and not (aligned and a[3] is not None):
            block = shifted(block, axis, a[1], forward=False)
    lengths = [a[2] for a in axes if is_sliced(a)]
    block = ops.reshape(block, [n for a, n in zip(axes, shape_of(v)) if is_sliced(a)])
    starts = aligned_starts(axes) if aligned else None
    return fill(block, lengths, 0, starts) if filled else block


def aligned_starts(axes):
    """Where an aligned read of `axes` puts element 0 of each slice axis (None: at 0)."""
    return [a[1] if a[3] is not None else None for a in axes if is_sliced(a)]


def write(v, axes, update, aligned=()):
    """`v` with `update` (the slice's full extent) stored on the slice's valid part; the rest of `v`
    is kept, and rows outside the index are not touched, so a loop updates its carry in place.
    Along the base axes in `aligned`, `update` already holds each element where it goes."""
    block, starts = _block(v, axes)
    block = _reversed(block, axes)
    shape = shape_of(block)
    update = ops.reshape(ew.convert(update, dtype_of(v)), shape)
    for axis, a in enumerate(axes):
        if is_sliced(a) and a[1] is not None and axis not in aligned:
            update = shifted(update, axis, a[1], forward=True)
    inside = mask(shape, [a[2] if is_sliced(a) else None for a in axes], [a[1] if is_sliced(a) else None for a in axes])
    block = _reversed(ew.select(inside, update, block), axes)
    return block if starts is None else ops.dynamic_update_slice(v, block, starts)


class MaskedArray(TracedArray):
    """A traced slice with traced bounds: full-extent data, zero past `lengths[axis]`."""

    lengths: tuple = ()
    padded = True
    _form = None  # (value, data, starts, keys): the same array as `aligned` gives it
    _axes = None  # a view's index into its parent, as `parse` gives it
    recipe = None  # how an elementwise result was made (`chunked_reductions.Recipe`)
    written_at = None  # (value, data, key): a 1-d result lined up at a traced start (`_lined_up_at_a_start`)
    noun = "a slice whose bounds are traced"  # (in errors)

    def aligned(self, filled: bool):
        """(data, starts, keys): the data with element j of an axis at starts[axis] + j (at j where
        the start is None), so that slices of one base with the same traced start (`A[k + 1:, k]`,
        `A[k, k + 1:]`, `A[k + 1:, k + 1:]`) combine and go back in place without moving; zero outside
        the valid part if `filled`, anything there if not (for ops whose result is zeroed again)."""
        if self._axes is not None:
            keys = [a[3] for a in self._axes if is_sliced(a)]
            return read(self._parent.value, self._axes, filled, aligned=True), aligned_starts(self._axes), keys
        value, none = self.value, [None] * len(self.lengths)
        if self._form is None or self._form[0] is not value:
            return value, none, none
        _, data, starts, keys = self._form
        return (fill(data, self.lengths, 0, starts) if filled else data), starts, keys

    def filled(self, filler) -> ir.Value:
        """The data (as `aligned` lays it out) with `filler` outside the valid part: what a
        reduction with `filler` as its identity reads."""
        data, starts, _ = self.aligned(False)
        return fill(data, self.lengths, filler, starts)

    def store(self, result) -> None:
        """`self[...] = result` for a view (`out=self`): in place in the base where they line up."""
        if self._axes is None or not isinstance(result, MaskedArray):
            self.assign(ew.convert(result.value, self.dtype))
            return
        self._parent.assign(_write_masked(self._parent.value, self._axes, _to_extents(result, self.aval.shape)))

    def __repr__(self) -> str:
        return f"MaskedArray({self.aval}, valid prefix traced)"

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return ufunc_on_masked(ufunc, method, inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        return function_on_masked(func, args, kwargs)

    def __getitem__(self, key):
        return dispatch.HOOKS.getitem(self, key)  # a mask selects again (numpy.indexing.packed)

    def _static_extent(self, what: str):
        """The full extent, for solvent and NumPy; the user's code would take it for NumPy's length."""
        if not is_library_file(sys._getframe(2).f_code.co_filename):
            raise padded(self, f", asked for its {what},")
        return self.aval.shape

    shape = property(lambda self: self._static_extent("shape"))
    size = property(lambda self: int(np.prod(self._static_extent("size"), dtype=np.int64)))
    nbytes = property(lambda self: int(np.prod(self._static_extent("nbytes"), dtype=np.int64)) * self.dtype.itemsize)

    def __len__(self):
        raise padded(self, ", given to len() where solvent does not read the source,")


def make(v: ir.Value, lengths, data: ir.Value | None = None, starts=None, keys=None) -> MaskedArray:
    """A fresh masked array holding `v` (already zero past the valid prefix); `data` is the same
    array not zeroed, aligned at `starts` (see `MaskedArray.aligned`), where the caller has it."""
    array = MaskedArray(v, Aval(shape_of(v), dtype_of(v)))
    array.lengths, array.made_at = tuple(lengths), user_location()
    if data is not None:
        none = [None] * len(lengths)
        array._form = (array.value, data, list(starts or none), list(keys or none))
    return array


def getitem(array, key):
    axes = parse(key, array.shape)
    lengths = tuple(a[2] for a in axes if is_sliced(a))
    shape = tuple(n for a, n in zip(axes, array.shape) if is_sliced(a))
    if not is_traced(array):
        return masked_result(read(value(array), axes, filled=False, aligned=True), lengths, aligned_starts(axes),
                       [a[3] for a in axes if is_sliced(a)])
    view = MaskedArray.view_of(array, Aval(shape, array.dtype), lambda v: read(v, axes),
                               lambda parent, new: write(parent, axes, new))
    view.lengths, view.made_at, view._axes = lengths, user_location(), axes
    return view


def read_only_view(array, read, lengths, name: str):
    """NumPy's view of a masked `array` (np.flip, np.transpose, ...): `read` of its current data
    (zero past the valid part, as `value` holds it), so later writes to `array` show through;
    writing through the view is refused (NumPy would write into `array`)."""
    def write(parent, new):
        raise UnsupportedError(f"a write through {name} of an array whose length depends on traced values: write "
                               "into that array itself (x[:k][::-1][0] = v as x[k - 1] = v)")
    def zeroed(parent):  # zero past the view's own valid part (a shorter slice's data run on)
        return fill(read(parent), lengths, 0)
    v = zeroed(array.value)
    view = MaskedArray.view_of(array, Aval(shape_of(v), dtype_of(v)), zeroed, write)
    view.lengths, view.made_at = tuple(lengths), user_location()
    return view


def setitem(array, key, new):
    axes = parse(key, array.shape)
    shape = [n for a, n in zip(axes, array.shape) if is_sliced(a)]
    if isinstance(new, MaskedArray):
        new = _to_extents(new, shape)
    if isinstance(new, MaskedArray) and list(new.aval.shape) == shape:
        array.assign(_write_masked(array.value, axes, _spread_to(new, [a[2] for a in axes if is_sliced(a)])))
        return
    update = new.value if isinstance(new, TracedArray) else value(new, array.dtype)
    array.assign(write(array.value, axes, assigned_value(ew.convert(update, array.dtype), shape)))


def _to_extents(new, shape):
    """A masked `new` with the extents of `shape` (its last axes, as NumPy broadcasts) along axes of
    traced length where its own differ (a result of slices of longer or shorter bases than the
    target's: `Z[:, :m] = y[:m]`), its valid part kept."""
    own, target = list(new.aval.shape), list(shape)[len(shape) - len(new.aval.shape):]
    if len(own) > len(shape) or own == target:
        return new
    v = new.value
    for axis, (n, m, length) in enumerate(zip(own, target, new.lengths)):
        if n != m and length is not None:
            v = resized(v, axis, m)
    return make(v, new.lengths)


def _spread_to(new, lengths):
    """`new`, written into a slice of `lengths`: its first element spread where its length is 1."""
    apart = [axis for axis, (n, m) in enumerate(zip(new.lengths, lengths[len(lengths) - len(new.lengths):]))
             if n is not None and (m is None or not traced_lengths.same_unless_one(n, m))]
    if not apart:
        return new
    v, own = new.value, list(new.lengths)  # (its valid part at the front)
    for axis in apart:
        v, own[axis] = traced_lengths.spread_first(v, axis, new.lengths[axis]), lengths[len(lengths) - len(own) + axis]
    return make(v, own)


def _write_masked(v, axes, new):
    """`write` of a masked array: along axes where its start is the target's, without moving it."""
    sliced = [axis for axis, a in enumerate(axes) if is_sliced(a)]
    at = new.written_at
    if at is not None and at[0] is new.value and len(sliced) == 1 and same_key(at[2], axes[sliced[0]][3]):
        return write(v, axes, at[1], {sliced[0]})
    data, starts, keys = new.aligned(False)
    aligned = set()
    for own, (axis, start, key) in enumerate(zip(sliced, starts, keys)):
        if same_key(key, axes[axis][3]):
            aligned.add(axis)
        elif start is not None:
            data = shifted(data, own, start, forward=False)
    return write(v, axes, data, aligned)


# NumPy on masked arrays: the valid part of each result.
# Operands are lined up (`lined_up`, `masked_products`); those a product sums over are
# zero outside their valid part, reductions fill it with their identity, and
# every result is zeroed outside its own valid part again (`masked_result`).


def plain_value(x):
    return wrap(x.value, scalar=False) if isinstance(x, MaskedArray) else x


def operand_form(x, ndim, filled):
    """[data, starts, keys, lengths] of a masked operand, the lists aligned to the last `ndim` axes."""
    if not isinstance(x, MaskedArray):
        return None
    data, starts, keys = x.aligned(filled)
    pad = [None] * (ndim - len(x.lengths))
    return [data, pad + list(starts), pad + list(keys), pad + list(x.lengths)]


def to_zero(form, axis, ndim):
    """`form` with its data along (result) `axis` moved to start at 0."""
    if form is not None and form[1][axis] is not None:
        form[0] = shifted(form[0], axis - (ndim - len(shape_of(form[0]))), form[1][axis], forward=False)
        form[1][axis] = form[2][axis] = None


def lined_up(inputs, ndim, apart=(), filled=()):
    """The inputs as plain arrays, lined up axis by axis: where every masked input has the same
    start along an axis (not one of the axes `apart`), its data stay where they are in the base;
    elsewhere they move to start at 0. Data outside the valid part are zero for the inputs in
    `filled`, anything for the others (elementwise results are zeroed again). Returns them and the
    result's starts and keys."""
    forms = [operand_form(x, ndim, i in filled) for i, x in enumerate(inputs)]
    starts, keys = [], []
    for axis in range(ndim):
        here = [f for f in forms if f is not None and f[3][axis] is not None]
        key = here[0][2][axis] if here and axis not in apart and \
            all(same_key(f[2][axis], here[0][2][axis]) for f in here) else None
        starts.append(here[0][1][axis] if key is not None else None)
        keys.append(key)
        for f in forms if key is None else ():
            to_zero(f, axis, ndim)
    for axis in range(ndim):  # (slices of bases of different extents there are at 0: their keys differ)
        here = [f for f in forms if f is not None and f[3][axis] is not None]
        own = [axis - (ndim - len(shape_of(f[0]))) for f in here]
        for f, v in zip(here, one_extent([f[0] for f in here], own, longest=axis in apart)):
            f[0] = v
    plain = [x if f is None else wrap(f[0], scalar=False) for x, f in zip(inputs, forms)]
    return plain, starts, keys


def ndim_of(x) -> int:
    return len(x.shape) if hasattr(x, "shape") else np.ndim(x)


def lengths_of(x, ndim):
    """`x`'s valid lengths aligned to the last `ndim` axes (NumPy's broadcasting)."""
    own = list(x.lengths) if isinstance(x, MaskedArray) else [None] * ndim_of(x)
    return [None] * (ndim - len(own)) + own


def broadcast_lined_up(inputs, ndim, at_start=False):
    """`lined_up` operands of an elementwise op and the result's lengths, by NumPy's broadcasting of
    lengths known only when the program runs: along an axis where two operands' lengths may differ
    (x[:k] + x[:j], p + p[:1]), the result is as long as the one that is not 1, and an operand of
    length 1 spreads its first element over it (where neither is 1 NumPy raises; the compiled
    program cannot, and gives unspecified values there). Last, with `at_start`, the operands lined up
    at a traced start as well, and its key (`_lined_up_at_a_start`); None without or where none applies."""
    columns = [lengths_of(x, ndim) for x in inputs]
    lengths, apart = [], []
    for axis, column in enumerate(zip(*columns)):
        known = [n for n in column if n is not None]
        if any(not traced_lengths.same(n, known[0]) for n in known[1:]):
            apart.append(axis)
            for n in known[1:]:
                known[0] = ew.select(traced_lengths.is_one(known[0]), n, known[0])
        lengths.append(known[0] if known else None)
    _check_extents(inputs, lengths, ndim)
    at = _lined_up_at_a_start(inputs, [c[0] for c in columns]) if at_start and apart == [0] == [ndim - 1] else None
    plain, starts, keys = lined_up(inputs, ndim, apart)
    for i, column in enumerate(columns):
        for axis in apart:
            if column[axis] is not None:
                own = axis - (ndim - ndim_of(plain[i]))
                plain[i] = wrap(traced_lengths.spread_first(plain[i].value, own, column[axis]), scalar=False)
    return plain, lengths, starts, keys, at


def _lined_up_at_a_start(inputs, lengths):
    """(operands, key): 1-d operands of `lengths` that may differ, lined up where those with a traced
    start (key) have their data, the others moved there, each spread from its own first element
    where its length is 1; None unless every operand is a slice at one traced start, a slice at 0
    or one element long. An elementwise result keeps what they make (`MaskedArray.written_at`) for
    a write back to a slice at that start (`dp[w:] = np.maximum(dp[w:], dp[:n - w] + v)`), which
    then need not move its value there: XLA computed the spreads in that move 8 times slower (NumPy's
    own loop was 5 times faster). Only such a write can take it: where the operand at the start is
    the one of length 1, the result runs past the end of its array from there."""
    forms = [operand_form(x, 1, False) for x in inputs]
    if any((f is None and ndim_of(x) and x.shape[-1] != 1) or (f is not None and f[3][0] is None)
           for x, f in zip(inputs, forms)):
        return None
    keyed = [f for f in forms if f is not None and f[2][0] is not None]
    if not keyed or any(not same_key(f[2][0], keyed[0][2][0]) for f in keyed):
        return None
    start, key, extent = keyed[0][1][0], keyed[0][2][0], shape_of(keyed[0][0])[0]
    plain = []
    for x, f, n in zip(inputs, forms, lengths):
        if f is None:
            plain.append(x)
            continue
        own = f[1][0]
        first = ops.dynamic_slice(f[0], [full(0, (), _I64) if own is None else own], [1])
        data = f[0] if own is not None else shifted(resized(f[0], 0, extent), 0, start, forward=True)
        plain.append(wrap(traced_lengths.spread_first(data, 0, n, first), scalar=False))
    return plain, key


def masked_result(v, lengths, starts=None, keys=None):
    """The masked array of an op's data `v` (aligned at `starts`, anything outside the valid part)."""
    if all(length is None for length in lengths):
        return wrap(v)
    canonical = v
    for axis, start in enumerate(starts or ()):
        if start is not None:
            canonical = shifted(canonical, axis, start, forward=False)
    return make(fill(canonical, lengths, 0), lengths, v, starts, keys)


def emitting_here():
    return trace.current().emitting(user_location())


def ufunc_on_masked(uf, method, inputs, kwargs):
    with emitting_here():
        if method != "__call__":
            if method not in UFUNC_METHODS or kwargs.get("out") is not None:
                raise UnsupportedError(f"np.{uf.__name__}.{method}{' with out=' if method in UFUNC_METHODS else ''} "
                                       "on a slice whose bounds are traced")
            kwargs.pop("out", None)
            return UFUNC_METHODS[method](uf, *inputs, **kwargs)
        out, where = kwargs.pop("out", None), kwargs.pop("where", True)
        if uf.signature is not None and uf is not np.matmul:  # (np.vecdot & co.)
            raise UnsupportedError(f"np.{uf.__name__} on a slice whose bounds are traced; write it with np.dot")
        result = FUNCTIONS[np.matmul](*inputs, **kwargs) if uf is np.matmul else elementwise(uf, inputs, kwargs)
        if out is None and where is True:
            return result
        target = out[0] if isinstance(out, tuple) else out
        if not isinstance(target, MaskedArray):
            raise UnsupportedError("out= that is not itself a slice with traced bounds (or where= without out=)")
        check_cast(result.dtype, target.dtype, kwargs.get("casting", "same_kind"), uf)
        target.store(result if where is True else np.where(where, result, target))
        return target


def elementwise(numpy_function, inputs, kwargs):
    """An elementwise function of `inputs` (broadcast as NumPy does) on their lined-up data; valid
    where the inputs are."""
    ndim = max(ndim_of(x) for x in inputs)
    plain, lengths, starts, keys, at = broadcast_lined_up(inputs, ndim, at_start=True)
    result = masked_result(numpy_function(*plain, **kwargs).value, lengths, starts, keys)
    if at is not None and isinstance(result, MaskedArray):
        result.written_at = (result.value, numpy_function(*at[0], **kwargs).value, at[1])
    if ndim == 1 and isinstance(result, MaskedArray):
        result.recipe = chunked_reductions.recipe(numpy_function, inputs, kwargs, result.value)
    return result


def _check_extents(inputs, lengths, ndim) -> None:
    """An operand of full extent along an axis of traced length: NumPy pairs it with the valid part
    only when the lengths match (or broadcasts a length of 1), which only the data decides."""
    for x in inputs:
        if isinstance(x, MaskedArray) or not ndim_of(x):
            continue
        extents = [None] * (ndim - ndim_of(x)) + list(np.shape(x) if not isinstance(x, TracedArray) else x.shape)
        if any(length is not None and extent not in (None, 1) for length, extent in zip(lengths, extents)):
            raise UnsupportedError(
                f"an array of shape {tuple(extents[ndim - ndim_of(x):])} combined with one whose length depends on "
                "traced values: NumPy pairs them only when the lengths are equal, which is known only when the "
                "program runs; select both the same way (x[m] * y[m], x[:k] * y[:k])")


#: NumPy function -> its form on masked arrays, and ufunc method name -> its form (`ufunc` first);
#: both filled by `bounded_functions` and `bounded_orders`, one rule per kind of function.
FUNCTIONS: dict = {}
UFUNC_METHODS: dict = {}

#: What the rules cover, for the error that names a function they do not.
COVERED = ("ufuncs and their reduce and accumulate; reductions (sum, prod, mean, var, std, max, min, ptp, any, all, "
           "count_nonzero, argmax, argmin, the nan- ones, average, allclose, linalg.norm of vectors); elementwise "
           "functions (where, clip, round, isclose, nan_to_num, real, imag, ...); scans (cumsum, cumprod and their "
           "nan- forms); flip, roll and diff; products (dot, matmul, inner, vdot, tensordot, einsum, outer, "
           "convolve); sort, argsort, searchsorted, trapezoid; median, quantile, percentile and their nan- forms "
           "of 1-d ones; concatenate, stack, hstack, vstack, append; transpose, swapaxes, moveaxis, expand_dims; "
           "ravel and reshape(-1) of 1-d ones; take of a 1-d one; "
           "linalg.solve, inv, det, slogdet and cholesky of a square block (A[:k, :k]); copy; reading one element")


def function_on_masked(func, args, kwargs):
    """`func(*args, **kwargs)` where an argument is a masked array, by its entry in FUNCTIONS."""
    with emitting_here():
        handler = FUNCTIONS.get(func)
        if handler is None:
            noun = next((a.noun for a in args if isinstance(a, MaskedArray)), MaskedArray.noun)
            raise UnsupportedError(f"np.{getattr(func, '__name__', func)} of {noun} (such arrays support {COVERED})")
        if kwargs.pop("out", None) is not None or kwargs.pop("where", True) is not True:
            raise UnsupportedError(f"np.{func.__name__} with out= or where= on a slice whose bounds are traced")
        return handler(*args, **kwargs)
