"""One reading of an index key, NumPy's: what each entry is, which axes it indexes, where `...`
goes, and NumPy's IndexErrors. Every indexing path (basic, advanced, traced masks, traced
bounds, and NumPy on a `solvent.Array` outside jit) starts from `normalize`.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass

import numpy as np

from solvent.core.traced import TracedScalar
from solvent.numpy.folding import static
from solvent.numpy.values import as_array, is_traced

NEW, SLICE, INTEGER, ARRAY, MASK = "new", "slice", "integer", "array", "mask"

VALID = ("only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and integer or boolean "
         "arrays are valid indices")


@dataclass(frozen=True)
class Entry:
    """One entry of a key: its kind, the first base axis it indexes (for NEW, the next one) and its
    value (an int for a static INTEGER, an array or a traced value otherwise)."""

    kind: str
    dim: int
    value: object


@dataclass(frozen=True)
class Key:
    """A key with `...` expanded into whole slices and trailing axes made explicit."""

    entries: tuple[Entry, ...]
    ellipsis: bool  # NumPy reads `a[..., 0]` as a 0-d array where `a[0]` is a scalar
    gap: int | None = None  # where a `...` that stands for no axes is, among the entries: it parts
    #                         the advanced indices on either side (`a[:, i, ..., 0]`)

    def has(self, *kinds: str) -> bool:
        return any(e.kind in kinds for e in self.entries)

    def rebuilt(self, entries=None) -> tuple:
        """A key NumPy reads as this one, from `entries` (by default its own)."""
        return tuple(e.value for e in (self.entries if entries is None else entries)) + \
            ((Ellipsis,) if self.ellipsis else ())


def _is_array(k) -> bool:
    """An array entry that is not converted: NumPy's, a traced one, or a `solvent.Array`."""
    return is_traced(k) or (hasattr(k, "dtype") and hasattr(k, "ndim") and not isinstance(k, np.generic))


def kind_of(k):
    """(kind, value) of one entry other than `...` (IndexError for what NumPy refuses)."""
    if k is None:
        return NEW, None
    if isinstance(k, slice):
        for bound in (k.start, k.stop, k.step):
            if is_traced(bound) and (bound.ndim or bound.dtype.kind not in "iu" and not bound.weak):
                raise TypeError("slice indices must be integers or None or have an __index__ method")
        return SLICE, k
    if isinstance(k, (bool, np.bool_)):
        return MASK, np.asarray(k)
    if isinstance(k, (list, tuple, range)) or _is_array(k):
        a = k if _is_array(k) else as_array(k)
        if not isinstance(a, TracedScalar):
            a = static(a)  # (an index array known while tracing, np.array([True, False]) made here, is NumPy's)
        if not is_traced(a) and a.dtype.kind not in "iub" and a.size == 0:
            a = np.asarray(a, np.int64)  # an empty list selects nothing
        if a.dtype == np.bool_:
            return MASK, a
        if a.dtype.kind not in "iu":
            raise IndexError(VALID)
        return (INTEGER if isinstance(a, TracedScalar) else ARRAY), a  # (a 0-d array: NumPy's copy)
    try:
        return INTEGER, operator.index(k)
    except TypeError:
        raise IndexError(VALID) from None


def is_advanced(key) -> bool:
    """Whether a key holds an array, a list, a range or a boolean (NumPy's advanced indexing)."""
    return any(k is not Ellipsis and kind_of(k)[0] in (ARRAY, MASK) for k in _parts(key))


def _parts(key) -> tuple:
    return key if isinstance(key, tuple) else (key,)


def normalize(key, shape) -> Key:
    """`key` against an array of `shape`: entries in order, `...` expanded, static integers and
    boolean arrays checked against the axes they index, with NumPy's errors."""
    parts = _parts(key)
    ellipses = sum(1 for k in parts if k is Ellipsis)
    if ellipses > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    kinds = [None if k is Ellipsis else kind_of(k) for k in parts]
    width = [0 if k is None or k[0] == NEW else k[1].ndim if k[0] == MASK else 1 for k in kinds]
    if sum(width) > len(shape):
        raise IndexError(f"too many indices for array: array is {len(shape)}-dimensional, "
                         f"but {sum(width)} were indexed")
    if not ellipses:
        kinds.append(None)
    entries, dim, gap = [], 0, None
    for k in kinds:
        if k is None:  # `...`: whole slices over the axes no other entry indexes
            rest = len(shape) - sum(width)
            gap = len(entries) if ellipses and not rest else gap
            entries += [Entry(SLICE, d, slice(None)) for d in range(dim, dim + rest)]
            dim += rest
            continue
        kind, v = k
        if kind == INTEGER and not is_traced(v) and not -shape[dim] <= v < shape[dim]:
            raise IndexError(f"index {v} is out of bounds for axis {dim} with size {shape[dim]}")
        if kind == MASK:
            _check_mask(v, shape, dim)
        entries.append(Entry(kind, dim, v))
        dim += 0 if kind == NEW else v.ndim if kind == MASK else 1
    return Key(tuple(entries), bool(ellipses), gap)


def _check_mask(mask, shape, dim) -> None:
    """NumPy's rule: a boolean array matches the axes it indexes (or is empty along them)."""
    for i, (n, m) in enumerate(zip(shape[dim:], mask.shape)):
        if m not in (n, 0):
            raise IndexError(f"boolean index did not match indexed array along axis {dim + i}; size of axis "
                             f"is {n} but size of corresponding boolean axis is {m}")
