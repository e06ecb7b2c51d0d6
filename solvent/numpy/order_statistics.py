"""Order statistics without a sort: the values at static positions of the sorted leading axis, by
a binary search over the bits of 64-bit keys whose order is NumPy's sort order (NaN last).

NumPy's median and quantiles partition (introselect) rather than sort. XLA's CPU sort calls a
compiled comparator for every comparison (20,480 doubles: 3.2 ms, where NumPy's median takes
0.16 ms); 64 counting passes over the keys find one order statistic in 0.34 ms, and the next
one up takes a single pass more. Array code: it runs on NumPy arrays too.
"""

from __future__ import annotations

import numpy as np

from solvent.numpy.repeat import repeat_while

#: Shorter axes are sorted: 64 passes cost more than the sort there.
SELECT_ABOVE = 64
#: More distinct positions than this are read from one sort.
MOST_POSITIONS = 8
_SIGN, _ALL = np.uint64(1 << 63), np.uint64((1 << 64) - 1)


def selectable(dtype: np.dtype, n: int, positions: np.ndarray) -> bool:
    """Whether selection finds these positions of an axis of `n` values of `dtype` faster than a sort."""
    return dtype.kind in "biuf" and n > SELECT_ABOVE and len(np.unique(np.asarray(positions) % n)) <= MOST_POSITIONS


def at(rows, positions: np.ndarray):
    """`np.sort(rows, axis=0)[positions]` for static `positions` (negative from the end): shape
    (*positions.shape, *rows.shape[1:])."""
    n = rows.shape[0]
    keys = _keys(rows)
    found, previous = {}, None
    for p in np.unique(np.asarray(positions) % n):
        found[p] = _successor(keys, found[p - 1], p) if previous == p - 1 else _kth(keys, p)
        previous = p
    picked = [found[p] for p in np.ravel(np.asarray(positions) % n)]
    return _values(np.stack(picked).reshape(np.shape(positions) + rows.shape[1:]), rows.dtype)


def _keys(rows):
    """uint64 keys in NumPy's sort order of `rows`: floats by their bits (negatives flipped), NaN
    above everything, signed integers offset by 2^63."""
    if rows.dtype.kind == "f":
        bits = rows.astype(np.float64).view(np.uint64)
        keys = np.where(bits >= _SIGN, ~bits, bits | _SIGN)
        return np.where(np.isnan(rows), _ALL, keys)
    if rows.dtype.kind == "i":
        return rows.astype(np.int64).view(np.uint64) ^ _SIGN
    return rows.astype(np.uint64)


def _values(keys, dtype: np.dtype):
    """The values of `_keys`' keys, of `dtype`."""
    if dtype.kind == "f":
        return np.where(keys >= _SIGN, keys ^ _SIGN, ~keys).view(np.float64).astype(dtype)
    if dtype.kind == "i":
        return (keys ^ _SIGN).view(np.int64).astype(dtype)
    return keys.astype(dtype)


def _kth(keys, k: int):
    """The k-th smallest key of each column: the largest r with at most k keys below it, found bit
    by bit from the top."""
    def step(bit, r):
        trial = r | (np.uint64(1) << bit.astype(np.uint64))
        return bit - 1, np.where(np.sum(keys < trial, axis=0) <= k, trial, r)
    start = (np.int64(63), np.zeros(keys.shape[1:], np.uint64))
    return repeat_while(lambda bit, r: bit >= 0, step, start, reads=(keys,))[1]


def _successor(keys, r, k: int):
    """The k-th smallest key, given the (k-1)-th `r`: `r` again where it repeats that far, else the
    least key above it."""
    repeats = np.sum(keys <= r, axis=0) > k
    return np.where(repeats, r, np.min(np.where(keys > r, keys, _ALL), axis=0))
