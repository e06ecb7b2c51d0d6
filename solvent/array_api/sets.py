"""The Array API's functions whose result shape depends on the values: `nonzero` and `unique_*`.

Inside `jit` they are refused (programs have static shapes). Outside, on a
`solvent.Array`, each runs as two compiled programs: the first counts the
results on the device, the second produces exactly that many (its size is then
static), so nothing is computed on the host but the count.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from solvent import eager
from solvent.core import trace
from solvent.array_api.common import data_dependent, program


class UniqueAllResult(NamedTuple):
    values: object
    indices: object
    inverse_indices: object
    counts: object


class UniqueCountsResult(NamedTuple):
    values: object
    counts: object


class UniqueInverseResult(NamedTuple):
    values: object
    inverse_indices: object


def _eager_only(name: str, rewrite: str) -> None:
    if trace.is_tracing():
        raise data_dependent(name, rewrite)


def _first_of_each(ordered):
    """Marks the first element of each run of equal values in sorted `ordered` (NaNs each count)."""
    return np.concatenate([np.ones(1, dtype=np.bool_), ordered[1:] != ordered[:-1]])


def nonzero(x, /):
    """The indices of the non-zero elements, one array per dimension, in row-major order."""
    _eager_only("nonzero", "use np.where(x != 0, a, b) or a mask instead of lists of indices")
    if x.ndim == 0:
        raise ValueError("nonzero of a 0-d array; use xp.reshape(x, (1,)) first")
    return eager.nonzero(x)


@program
def _count_distinct(x):
    ordered = np.sort(np.ravel(x))
    return np.sum(_first_of_each(ordered)) if ordered.size else 0


@program
def _unique(x, size):
    """All four results of `unique_all` for `x` with `size` distinct values."""
    flat = np.ravel(x)
    if flat.size == 0:
        empty = np.zeros(0, dtype=np.int64)
        return UniqueAllResult(flat, empty, np.zeros(x.shape, dtype=np.int64), empty)
    order = np.argsort(flat, kind="stable")
    ordered = flat[order]
    first = _first_of_each(ordered)
    starts = np.argsort(~first, kind="stable")[:size]
    counts = np.concatenate([starts[1:], np.full(1, flat.size, dtype=starts.dtype)]) - starts
    group = np.cumsum(first) - 1
    inverse = np.reshape(group[np.argsort(order, kind="stable")], x.shape)
    return UniqueAllResult(ordered[starts], order[starts], inverse, counts)


def _unique_all(x):
    _eager_only("unique", "np.sort(x) and a comparison of neighbours mark the first occurrences")
    return _unique(x, int(_count_distinct(x)))


def unique_all(x, /) -> UniqueAllResult:
    """The distinct values (sorted), the index of each's first occurrence, the inverse, the counts."""
    return _unique_all(x)


def unique_counts(x, /) -> UniqueCountsResult:
    result = _unique_all(x)
    return UniqueCountsResult(result.values, result.counts)


def unique_inverse(x, /) -> UniqueInverseResult:
    result = _unique_all(x)
    return UniqueInverseResult(result.values, result.inverse_indices)


def unique_values(x, /):
    return _unique_all(x).values


__all__ = ["nonzero", "unique_all", "unique_counts", "unique_inverse", "unique_values"]
