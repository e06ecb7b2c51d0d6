"""Integers known while tracing to be `scale * i + offset` for a rolled loop's index `i` in a
static range, so that `a[i:i + k]` is a slice of static length `k` (a dynamic slice of the
array, updated in place), not a slice of traced length.

A rolled `for i in range(...)` marks its index; `+`, `-` and `*` with Python integers, and
negation, carry the form along; anything else forgets it. Integer arithmetic on such forms (of
several loops' indices, `i + j`, `k % 2`) keeps the interval its values lie in, which decides what
Python's `n ** k` gives (an int, or a float where k < 0).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from solvent.core.traced import TracedArray


@dataclass(frozen=True)
class Affine:
    """`scale * index + offset`, the index ranging over [low, high] (inclusive)."""

    index: object
    scale: int
    offset: int
    low: int
    high: int

    def bounds(self) -> tuple[int, int]:
        ends = (self.scale * self.low + self.offset, self.scale * self.high + self.offset)
        return min(ends), max(ends)


def mark_loop_index(index, start, stop, step: int) -> None:
    """`index` takes the values of `range(start, stop, step)`: Python integers, or bounds that are
    themselves affine in an outer loop's index (`range(i + 1, n)`), where it ranges within theirs."""
    if all(isinstance(b, (int, np.integer)) for b in (start, stop)):
        values = range(start, stop, step)
        if not values:
            return
        low, high = min(values[0], values[-1]), max(values[0], values[-1])
    else:
        first, last = interval(start), interval(stop)
        if first is None or last is None:
            return
        low, high = (first[0], last[1] - 1) if step > 0 else (last[0] + 1, first[1])
        if form(start) is None or form(stop) is None:  # (bounds from `k % 3`: no form, an interval)
            index.interval = (low, high) if low <= high else None
            return
    if low <= high:
        index.affine = Affine(index, 1, 0, low, high)


def form(x) -> Affine | None:
    """The form of an operand: an affine traced integer's, or a Python integer's (no index)."""
    found = getattr(x, "affine", None)
    if found is not None:
        return found
    if isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_)):
        return Affine(None, 0, int(x), 0, 0)
    return None


def interval(x) -> tuple[int, int] | None:
    """(lowest, highest) value of an integer, known while tracing (a Python int, a loop's index and
    arithmetic on them); None where unknown."""
    if isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_)):
        return int(x), int(x)
    form = getattr(x, "affine", None)
    return form.bounds() if form is not None else getattr(x, "interval", None)


def _interval(ufunc, spans):
    """The interval of `ufunc` of integers in `spans` (None where unknown), or None."""
    if ufunc is np.absolute:  # (at least 0 whatever the operand: `2 ** abs(int(x))` is an int)
        low, high = spans[0] or (-_LARGEST, _LARGEST)
        return (max(low, -high, 0) if low > 0 or high < 0 else 0), max(-low, high)
    if ufunc is np.remainder and spans[1] is not None and spans[1][0] == spans[1][1] > 0 and spans[0] is None:
        return 0, spans[1][0] - 1  # (`int(x) % 4`)
    if not all(spans):
        return None
    if ufunc is np.negative:
        return -spans[0][1], -spans[0][0]
    (a, b), (c, d) = spans
    ends = (a * c, a * d, b * c, b * d)
    divisor = c if c == d and c > 0 else None
    return {np.add: (a + c, b + d), np.subtract: (a - d, b - c), np.multiply: (min(ends), max(ends)),
            np.remainder: (((a, b) if 0 <= a and b < divisor else (0, divisor - 1)) if divisor else None),
            np.floor_divide: ((a // divisor, b // divisor) if divisor else None)}.get(ufunc)


def propagate(ufunc, operands, result) -> None:
    """Give `result` of `ufunc(*operands)` its affine form, or its interval, where the operands
    have them and its dtype holds every value they allow (`np.uint8(253) + i` wraps: no form)."""
    _propagate(ufunc, operands, result)
    dtype = np.dtype(result.dtype)
    info = np.iinfo(dtype) if dtype.kind in "iu" else None
    for name, found in (("interval", result.interval), ("affine", result.affine and result.affine.bounds())):
        if found and (info is None or found[0] < info.min or found[1] > info.max):
            setattr(result, name, None)


def _propagate(ufunc, operands, result) -> None:
    spans = [interval(x) for x in operands]
    if len(spans) == ufunc.nin and ufunc in _INTERVALS and np.dtype(result.dtype).kind in "iu":
        result.interval = _interval(ufunc, spans)
    if ufunc is np.negative and getattr(operands[0], "affine", None) is not None:
        negated = operands[0].affine
        result.affine = Affine(negated.index, -negated.scale, -negated.offset, negated.low, negated.high)
    if ufunc not in (np.add, np.subtract, np.multiply) or len(operands) != 2:
        return
    a, b = form(operands[0]), form(operands[1])
    if a is None or b is None or (a.index is None and b.index is None):
        return
    if a.index is not None and b.index is not None and a.index is not b.index:
        return
    base = a if a.index is not None else b
    if ufunc is np.multiply:
        if a.index is not None and b.index is not None:
            return
        factor, scaled = (b.offset, a) if a.index is not None else (a.offset, b)
        scale, offset = scaled.scale * factor, scaled.offset * factor
    else:
        sign = 1 if ufunc is np.add else -1
        scale, offset = a.scale + sign * b.scale, a.offset + sign * b.offset
    result.affine = Affine(base.index, scale, offset, base.low, base.high)


_INTERVALS = {np.negative, np.absolute, np.add, np.subtract, np.multiply, np.remainder, np.floor_divide}
_LARGEST = 2 ** 63 - 1  # (an int64's)


def span(start, stop, n: int):
    """`stop - start` as ((index, scale), ...), constant where it is the length of the slice
    `[start:stop]` of an axis of `n` for every value of the loop indices: both bounds affine or
    Python integers, the start at least 0 and the stop in [0, n]; None otherwise. Terms with a
    positive scale come first, then the stop's before the start's: the same order in every process."""
    a, b = form(start), form(stop)
    if a is None or b is None or a.bounds()[0] < 0 or b.bounds()[0] < 0 or b.bounds()[1] > n:
        return None
    scales = {}
    for f, sign in ((b, 1), (a, -1)):
        if f.index is not None:
            index, scale = scales.get(id(f.index), (f.index, 0))
            scales[id(f.index)] = index, scale + sign * f.scale
    terms = sorted(((i, s) for i, s in scales.values() if s), key=lambda t: -t[1])  # (a stable sort)
    return tuple(terms), b.offset - a.offset


def static_slice(key: slice, n: int):
    """(start, length) of a slice with traced bounds whose length is the same for every value of
    the loop index and that always lies inside [0, n); None otherwise."""
    if key.step is not None and (isinstance(key.step, TracedArray) or key.step != 1):
        return None
    start = form(0 if key.start is None else key.start)
    stop = form(n if key.stop is None else key.stop)
    if start is None or stop is None or start.scale == 0 or start.scale != stop.scale or start.index is not stop.index:
        return None  # (a common non-zero scale means both follow the same index)
    length = stop.offset - start.offset
    first, last = start.bounds()
    if length < 0 or first < 0 or last + length > n:
        return None
    return key.start, length
