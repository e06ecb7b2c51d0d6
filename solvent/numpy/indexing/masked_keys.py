"""Keys of a slice of traced length (`traced_bounds.MaskedArray`), counted from that length as NumPy
counts them from the true one: an element read (`s[-1]`), a 1-d slice read as a view (`s[1:]`,
`s[::-1]`), new axes (`s[:, None]`), an integer index array (`u[inv]` after np.unique), and the
negative indices and bounds of a write (`s[-2:] = 0`). Counted from the full size instead, they
would read or write the padding."""

from __future__ import annotations

import numpy as np

from solvent.numpy.indexing.key import ARRAY, INTEGER, MASK, NEW, Entry, normalize
from solvent.numpy.indexing.traced_bounds import MaskedArray, read_only_view
from solvent.numpy.indexing.traced_lengths import shifted
from solvent.numpy.values import full, holds_traced, is_traced, value, wrap
from solvent.ops import elementwise as ew, shape as ops
from solvent.ops.base import shape_of

_I64 = np.int64


def _scalar(x):
    return value(x, _I64)


def _counted(k, length, high):
    """Integer indices `k` (an int64 value) with their negative entries counted back from the traced
    `length`, then clamped into [0, `high`] (both 0-d)."""
    n = shape_of(k)
    length, high = (ops.broadcast_in_dim(v, n, []) if n else v for v in (length, high))
    zero = full(0, n, _I64)
    return ew.clamp(zero, ew.select(ew.compare("LT", k, zero), ew.binary("add", k, length), k), high)


def _last(length):
    """The index of the last element of a traced `length` (0 when it is 0)."""
    return ew.binary("maximum", ew.binary("subtract", length, full(1, (), _I64)), full(0, (), _I64))


def element(array, key):
    """`a[i]` (`a[i, j]`, one integer per axis) of a masked array: one element, a negative index
    counted back from the traced length, clamped into the valid part as traced indices are clamped
    into an array; None for any other key."""
    keys = key if isinstance(key, tuple) else (key,)
    if len(keys) != len(array.lengths) or not all(_integer(k) for k in keys):
        return None
    positions = []
    for k, length, n in zip(keys, array.lengths, array.aval.shape):
        end = full(n, (), _I64) if length is None else length
        positions.append(_counted(_scalar(k), end, _last(end)))
    return wrap(ops.reshape(ops.dynamic_slice(array.value, positions, [1] * len(keys)), ()))


def expanded(array, key):
    """`a[:, None]` (whole slices, one `...` and new axes only, at least one) of a masked array:
    NumPy's view with the new axes (np.expand_dims); None for any other key."""
    keys = list(key) if isinstance(key, tuple) else [key]
    whole = [k for k in keys if isinstance(k, slice) and (k.start, k.stop, k.step) == (None, None, None)]
    ellipses = sum(k is Ellipsis for k in keys)
    rest = len(array.lengths) - len(whole)
    if not any(k is None for k in keys) or len(whole) + ellipses + keys.count(None) != len(keys) or ellipses > 1 \
            or rest < 0:
        return None
    at = next((i for i, k in enumerate(keys) if k is Ellipsis), len(keys))
    keys[at:at + 1] = [slice(None)] * rest
    return np.expand_dims(array, tuple(d for d, k in enumerate(keys) if k is None))


def sliced(array, key):
    """`a[start:stop]` or `a[start::-1]` of a 1-d masked array, with static bounds counted from its
    traced length where negative: NumPy's view (`read_only_view`), from the valid part's start;
    None for any other key."""
    k = key[0] if isinstance(key, tuple) and len(key) == 1 else key
    if len(array.lengths) != 1 or not isinstance(k, slice) or not all(
            b is None or (isinstance(b, (int, np.integer)) and not isinstance(b, bool)) for b in (k.start, k.stop, k.step)):
        return None
    step, n = 1 if k.step is None else int(k.step), array.aval.shape[0]
    if step not in (1, -1) or (step == -1 and k.stop is not None):
        return None
    length = full(n, (), _I64) if array.lengths[0] is None else array.lengths[0]
    last = ew.binary("subtract", length, full(1, (), _I64))

    def bound(b, default, low, high):  # NumPy's: negative counted from the end, then clipped
        if b is None:
            return default
        b = ew.binary("add", length, full(int(b), (), _I64)) if b < 0 else full(int(b), (), _I64)
        return ew.clamp(low, b, high)
    zero = full(0, (), _I64)
    if step == 1:
        start, stop = bound(k.start, zero, zero, length), bound(k.stop, length, zero, length)
        count = ew.binary("maximum", ew.binary("subtract", stop, start), zero)
        return read_only_view(array, lambda v: shifted(v, 0, start, forward=False), [count], "a slice")
    start = bound(k.start, last, full(-1, (), _I64), last)  # element j is a[start - j]
    past = ew.binary("subtract", full(n - 1, (), _I64), start)
    return read_only_view(array, lambda v: shifted(ops.reverse(v, [0]), 0, past, forward=False),
                          [ew.binary("add", start, full(1, (), _I64))], "a slice")


def taken(array, key):
    """`a[indices]` (`np.take(a, indices)`) of a 1-d masked array by an integer index array: the
    elements at them, negative ones counted back from the traced length, each clamped into the valid
    part as traced indices are clamped into an array; None for any other key."""
    if len(array.lengths) != 1 or isinstance(key, MaskedArray) or \
            not (is_traced(key) or isinstance(key, (list, np.ndarray)) and not holds_traced(key)):
        return None  # (a masked or selected index array has rules of its own)
    indices = key if is_traced(key) else np.asarray(key)
    if indices.dtype.kind not in "iu" or not np.ndim(indices):
        return None
    length = array.lengths[0]
    k = _counted(value(indices, _I64), length, _last(length))
    return np.take(wrap(array.value, scalar=False), wrap(k, scalar=False))


def from_the_end(array, key):
    """`key` for a write into masked `array`, with its negative integers and slice bounds along the
    axes of traced length counted back from that length, as NumPy counts them from the true one
    (from the full size they wrote the padding: `s[-1] = 0` was lost), each clipped into it."""
    parsed = normalize(key, array.aval.shape)
    if parsed.has(NEW, ARRAY, MASK):
        return key
    entries = [_from_the_end(e, array.lengths[e.dim]) for e in parsed.entries]
    return parsed.rebuilt([Entry(e.kind, e.dim, v) for e, v in zip(parsed.entries, entries)])


def _from_the_end(e, length):
    def counted(b, high):
        return wrap(_counted(_scalar(b), length, high), scalar=True)
    if length is None:
        return e.value
    if e.kind == INTEGER:
        negative = is_traced(e.value) or e.value < 0
        return counted(e.value, _last(length)) if negative else e.value
    k = e.value
    if k.step not in (None, 1) or any(is_traced(b) for b in (k.start, k.stop)):
        return k
    if not any(b is not None and b < 0 for b in (k.start, k.stop)):
        return k
    return slice(*[counted(b, length) if b is not None and b < 0 else b for b in (k.start, k.stop)])


def _integer(k) -> bool:
    if is_traced(k):
        return k.aval.shape == () and np.dtype(k.dtype).kind in "iu"
    return isinstance(k, (int, np.integer)) and not isinstance(k, (bool, np.bool_))
