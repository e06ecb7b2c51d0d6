"""Items of a Python list or iterator of numbers (or of tuples of them, `itertools.combinations`,
`enumerate` of a list of floats) that a `for` loop over them reads by a traced index, so that a long
loop over them rolls as one over `range` does instead of copying its body once per item."""

from __future__ import annotations

import numpy as np

from solvent.core import trace
from solvent.errors import UnsupportedError
from solvent.numpy.folding import as_known
from solvent.numpy.indexing import affine
from solvent.numpy.values import is_traced
from solvent.transforms.source.builtins import scalar_of

_DTYPES = {int: np.int64, float: np.float64}


def reader(items):
    """`read(k)`: item `k` with a traced `k`, each number a Python number's stand-in (a weak int64 or
    float64) as the rows of columns of one Python type give it; None where items are not all numbers
    of one type per position, or all tuples of one length of such."""
    tuples = all(type(item) is tuple for item in items)
    columns = list(zip(*items)) if tuples else [items]
    if not items or (tuples and len({len(item) for item in items}) != 1):
        return None
    kinds = [{type(v) for v in column} for column in columns]
    if any(len(kind) != 1 or next(iter(kind)) not in _DTYPES for kind in kinds):
        return None
    try:
        host = [np.array(column, _DTYPES[next(iter(kind))]) for column, kind in zip(columns, kinds)]
    except OverflowError:  # (a Python int beyond int64)
        return None
    with trace.current().emitting():
        tables = [as_known(column) for column in host]

    def read(k):
        row = tuple(scalar_of(table[k], table.dtype, weak=True) for table in tables)
        return row if tuples else row[0]
    return read


def bounded(items, key):
    """`reader(items)` for a traced `key` whose range is known to lie inside them (a rolled loop's
    index and arithmetic on it, `k % 4`); Python's IndexError where it leaves them; None otherwise."""
    span = affine.interval(key)
    if span is None or np.ndim(key) != 0:
        return None
    first, last = span
    if not (0 <= first and last < len(items) or -len(items) <= first and last < 0):
        raise IndexError(f"{type(items).__name__} index out of range (the loop's index reaches {first}..{last}, "
                         f"of {len(items)} items)")
    return reader(items)


class Numbers:
    """The items of a loop over a list or tuple (the list itself, which may grow), by their position:
    by a traced position too, which the loop's test keeps in range, where they are numbers."""

    def __init__(self, items, read=None):
        self.items, self.read = items, read  # (`read`: tables made before a loop, which all its traces use)

    def __len__(self):
        return len(self.items)

    def __getitem__(self, k):
        read = (self.read or reader(self.items)) if is_traced(k) else None
        if read is None and is_traced(k):
            raise UnsupportedError(
                "a `for` loop over a list, tuple or iterator of arrays (or of other objects than numbers) whose "
                "`break` or `continue` a traced value decides: it runs as one loop, reading its items by a traced "
                "position, which only numbers and the rows of an array can take; loop over an array (np.stack "
                "the items, or x[::-1] for reversed(x)), or test with `if` instead of breaking")
        return read(k) if read is not None else self.items[k]
