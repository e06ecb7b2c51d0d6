"""Rearranging arrays: flip, roll, rot90, pad, tile, repeat, split, select, choose, insert, delete, resize.

Counts, widths and positions are static (Python ints), so NumPy itself works out
which source element lands where along one axis; the program then takes runs of
whole slices (`take_static`), or gathers where an entry repeats.
"""

from __future__ import annotations

import numpy as np
from numpy.lib.array_utils import normalize_axis_tuple

from solvent.errors import UnsupportedError
from solvent.numpy.folding import static, statics
from solvent.numpy.registry import implements, refuses
from solvent.numpy.shape import concatenate, ravel, reshape, static_int, swapaxes, transpose
from solvent.numpy.values import (as_array, broadcast_value, full, holds_traced, is_python_scalar, is_traced,
                                  normalize_axis, result_type, value, wrap, write_out)
from solvent.ops import elementwise as ew, shape as ops
from solvent.ops.base import dtype_of, shape_of


def _static(x, name: str):
    """Positions, counts or widths as NumPy values; refused when traced (they decide the result's shape)."""
    x = statics(x)
    if holds_traced(x):
        raise UnsupportedError(f"np.{name} with traced positions, counts or widths: the result's shape must be "
                               "known when the program is compiled; pass them as Python ints")
    return x


def _axis_slice(v, axis: int, low: int, high: int):
    rank = len(shape_of(v))
    return ops.slice(v, [low if d == axis else 0 for d in range(rank)],
                     [high if d == axis else n for d, n in enumerate(shape_of(v))], [1] * rank)


def _runs(indices):
    """(first, step, count) runs with step -1, 0 or 1 covering `indices` in order."""
    runs, i = [], 0
    while i < len(indices):
        j = i + 1
        step = indices[j] - indices[i] if j < len(indices) and abs(indices[j] - indices[i]) <= 1 else 0
        while j < len(indices) and indices[j] - indices[j - 1] == step:
            j += 1
        runs.append((indices[i], step, j - i))
        i = j
    return runs


def take_static(v, indices, axis: int):
    """`np.take(v, indices, axis)` for static in-bounds `indices`: concatenated slices and reverses."""
    indices = [int(i) for i in indices]
    out_shape = list(shape_of(v))
    out_shape[axis] = len(indices)
    if 0 in out_shape:
        return full(0, out_shape, dtype_of(v))
    runs = _runs(indices)
    if any(step == 0 and count > 1 for _, step, count in runs):
        # Enzyme-HLO's concat_broadcast_slice pattern miscompiles a repeated slice next to a slice: a gather
        return value(np.take(wrap(v, scalar=False), np.array(indices, np.int64), axis=axis))
    pieces = []
    for first, step, count in runs:
        low = first if step >= 0 else first - count + 1
        piece = _axis_slice(v, axis, low, low + count)
        pieces.append(ops.reverse(piece, [axis]) if step < 0 else piece)
    return pieces[0] if len(pieces) == 1 else ops.concatenate(pieces, axis)


def _result(v):
    """A new traced array holding `v` (0-d stays an array, as NumPy's functions return)."""
    return wrap(v, scalar=False)


# -- flips and rotations (views, as in NumPy) -------------------------------------------

@implements(np.flip)
def flip(m, axis=None):
    m = as_array(m)
    axes = range(m.ndim) if axis is None else normalize_axis_tuple(axis, m.ndim)
    return m[tuple(slice(None, None, -1) if d in axes else slice(None) for d in range(m.ndim))]


@implements(np.fliplr)
def fliplr(m):
    m = as_array(m)
    if m.ndim < 2:
        raise ValueError("Input must be >= 2-d.")
    return m[:, ::-1]


@implements(np.flipud)
def flipud(m):
    m = as_array(m)
    if m.ndim < 1:
        raise ValueError("Input must be >= 1-d.")
    return m[::-1, ...]


@implements(np.rot90)
def rot90(m, k=1, axes=(0, 1)):
    axes, m = tuple(axes), as_array(m)
    if len(axes) != 2:
        raise ValueError("len(axes) must be 2.")
    if axes[0] == axes[1] or abs(axes[0] - axes[1]) == m.ndim:
        raise ValueError("Axes must be different.")
    if not all(-m.ndim <= a < m.ndim for a in axes):
        raise ValueError(f"Axes={axes} out of range for array of ndim={m.ndim}.")
    k = static_int(k, "np.rot90's k") % 4
    if k == 0:
        return m[:]
    if k == 2:
        return flip(flip(m, axes[0]), axes[1])
    order = list(range(m.ndim))
    order[axes[0]], order[axes[1]] = order[axes[1]], order[axes[0]]
    return transpose(flip(m, axes[1]), order) if k == 1 else flip(transpose(m, order), axes[1])


# -- rolling -----------------------------------------------------------------------------

def _roll_traced(v, shift, axis: int):
    """Roll by a traced scalar: a window of the array twice over, starting at (-shift) mod n."""
    n = shape_of(v)[axis]
    if n == 0:
        return v
    size = full(n, (), np.int64)
    rest = ew.binary("remainder", value(shift, np.int64), size)
    rest = ew.select(ew.compare("LT", rest, full(0, (), np.int64)), ew.binary("add", rest, size), rest)
    start = ew.binary("remainder", ew.binary("subtract", size, rest), size)
    starts = [start if d == axis else full(0, (), np.int64) for d in range(len(shape_of(v)))]
    return ops.dynamic_slice(ops.concatenate([v, v], axis), starts, shape_of(v))


@implements(np.roll)
def roll(a, shift, axis=None):
    a = as_array(a)
    if axis is None:
        return reshape(roll(ravel(a), shift, 0), a.shape)
    axes = normalize_axis_tuple(axis, a.ndim, allow_duplicate=True)
    if is_traced(shift):
        if shift.ndim or len(axes) != 1:
            raise UnsupportedError("np.roll with a traced shift takes one scalar shift and one axis")
        return _result(_roll_traced(value(a), shift, axes[0]))
    pairs = np.broadcast(shift, axes)
    if pairs.ndim > 1:
        raise ValueError("'shift' and 'axis' should be scalars or 1D sequences")
    shifts = [0] * a.ndim
    for s, ax in pairs:
        shifts[ax] += int(s)
    v = value(a)
    for ax, s in enumerate(shifts):
        n = a.shape[ax]
        if n and s % n:
            cut = n - s % n
            v = ops.concatenate([_axis_slice(v, ax, cut, n), _axis_slice(v, ax, 0, cut)], ax)
    return _result(v)


# -- tile and repeat -----------------------------------------------------------------------

@implements(np.tile)
def tile(A, reps):
    reps = tuple(_static(reps, "tile")) if np.iterable(reps) else (_static(reps, "tile"),)
    reps = tuple(static_int(r, "np.tile's reps") for r in reps)
    a = as_array(A)
    a = reshape(a, (1,) * (len(reps) - a.ndim) + a.shape)
    reps = (1,) * (a.ndim - len(reps)) + reps
    if any(r < 0 for r in reps):
        raise ValueError("negative dimensions are not allowed")
    target = tuple(r * n for r, n in zip(reps, a.shape))
    if 0 in target:
        return _result(full(0, target, a.dtype))
    interleaved = [size for pair in zip(reps, a.shape) for size in pair]
    spread = ops.broadcast_in_dim(value(a), interleaved, range(1, 2 * a.ndim, 2))
    return _result(ops.reshape(spread, target))


@implements(np.repeat)
def repeat(a, repeats, axis=None):
    a = as_array(a)
    if axis is None:
        a, axis = ravel(a), 0
    axis = normalize_axis(axis, a.ndim)
    n = a.shape[axis]
    order = np.repeat(np.arange(n), _static(repeats, "repeat"))  # NumPy checks the counts
    if np.size(repeats) != 1 or 0 in a.shape or not order.size:
        return _result(take_static(value(a), order, axis))
    count = order.size // n
    spread = list(a.shape[:axis + 1]) + [count] + list(a.shape[axis + 1:])
    dims = [d if d <= axis else d + 1 for d in range(a.ndim)]
    target = a.shape[:axis] + (n * count,) + a.shape[axis + 1:]
    return _result(ops.reshape(ops.broadcast_in_dim(value(a), spread, dims), target))


# -- splitting (views, as in NumPy) ----------------------------------------------------------

@implements(np.array_split)
def array_split(ary, indices_or_sections, axis=0):
    ary = as_array(ary)
    total = ary.shape[axis]
    indices_or_sections = _static(indices_or_sections, "array_split")
    if np.iterable(indices_or_sections):
        sections = len(indices_or_sections) + 1
        points = [0] + list(indices_or_sections) + [total]
    else:
        sections = int(indices_or_sections)
        if sections <= 0:
            raise ValueError("number sections must be larger than 0.") from None
        each, extras = divmod(total, sections)
        points = np.cumsum([0] + extras * [each + 1] + (sections - extras) * [each]).tolist()
    swapped = swapaxes(ary, axis, 0)
    return [swapaxes(swapped[points[i]:points[i + 1]], axis, 0) for i in range(sections)]


@implements(np.split)
def split(ary, indices_or_sections, axis=0):
    indices_or_sections = _static(indices_or_sections, "split")
    if not np.iterable(indices_or_sections):
        if np.shape(ary)[axis] % indices_or_sections:
            raise ValueError("array split does not result in an equal division") from None
    return array_split(ary, indices_or_sections, axis)


def _split_at_least(ary, indices_or_sections, rank, axis, name):
    if np.ndim(ary) < rank:
        raise ValueError(f"{name} only works on arrays of {rank} or more dimensions")
    return split(ary, indices_or_sections, axis)


@implements(np.hsplit)
def hsplit(ary, indices_or_sections):
    return _split_at_least(ary, indices_or_sections, 1, 1 if np.ndim(ary) > 1 else 0, "hsplit")


@implements(np.vsplit)
def vsplit(ary, indices_or_sections):
    return _split_at_least(ary, indices_or_sections, 2, 0, "vsplit")


@implements(np.dsplit)
def dsplit(ary, indices_or_sections):
    return _split_at_least(ary, indices_or_sections, 3, 2, "dsplit")


# -- choosing between arrays ---------------------------------------------------------------

def _operand(x):
    return x if is_python_scalar(x) else as_array(x)


@implements(np.select)
def select(condlist, choicelist, default=0):
    if len(condlist) != len(choicelist):
        raise ValueError("list of cases must be same length as list of conditions")
    if len(condlist) == 0:
        raise ValueError("select with an empty condition list is not possible")
    choices = [_operand(c) for c in choicelist] + [_operand(default)]
    try:
        dtype = result_type(*choices)
    except TypeError as e:
        raise TypeError(f"Choicelist and default value do not have a common dtype: {e}") from None
    conditions = [as_array(c) for c in condlist]
    for i, c in enumerate(conditions):
        if c.dtype != np.bool_:
            raise TypeError(f"invalid entry {i} in condlist: should be boolean ndarray")
    # (a Python int out of the integer dtype's range wraps, as NumPy's cast of the default does)
    choices = [np.asarray(c).astype(dtype) if type(c) is int and dtype.kind in "iu" else c for c in choices]
    target = np.broadcast_shapes(*[np.shape(x) for x in conditions + choices])
    result = value(choices[-1], dtype, target)
    for condition, choice in reversed(list(zip(conditions, choices))):
        result = ew.select(value(condition, np.bool_, target), value(choice, dtype, target), result)
    return _result(result)


@implements(np.choose)
def choose(a, choices, out=None, mode="raise"):
    """Choices picked by `a`; with a traced `a`, mode='raise' cannot raise and clips as mode='clip' does."""
    a = as_array(a)
    choices = list(choices) if is_traced(choices) else [_operand(c) for c in choices]
    if a.dtype.kind not in "iu":
        raise TypeError(f"Cannot cast array data from {a.dtype!r} to dtype('int64') according to the rule 'safe'")
    if mode not in ("raise", "wrap", "clip"):
        raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got {mode!r})")
    n = len(choices)
    if mode == "raise" and not is_traced(static(a)) and ((static(a) < 0) | (static(a) >= n)).any():
        raise ValueError("invalid entry in choice array")
    dtype = result_type(*choices)
    choices = [np.array(c).astype(dtype) if is_python_scalar(c) else c for c in choices]  # (unsafely: 300 -> 44)
    target = np.broadcast_shapes(a.shape, *[np.shape(c) for c in choices])
    index = value(a, np.int64, target)
    if mode == "wrap":
        size = full(n, target, np.int64)
        index = ew.binary("remainder", index, size)
        index = ew.select(ew.compare("LT", index, full(0, target, np.int64)), ew.binary("add", index, size), index)
    result = value(choices[0], dtype, target)
    for i, choice in enumerate(choices[1:], 1):
        result = ew.select(ew.compare("GE", index, full(i, target, np.int64)), value(choice, dtype, target), result)
    if out is not None:
        return write_out(out, _result(result), "unsafe")
    return wrap(result)  # (a 0-d choice is NumPy's scalar: np.choose(1, [a[0], a[1]]))


# -- inserting, deleting, resizing ------------------------------------------------------------

def _flat_axis(arr, axis):
    """NumPy's `axis=None` rule for append/insert/delete: flatten, then use the last axis."""
    if axis is None:
        arr = arr if arr.ndim == 1 else ravel(arr)
        return arr, arr.ndim - 1
    return arr, normalize_axis(axis, arr.ndim)


@implements(np.append)
def append(arr, values, axis=None):
    arr = as_array(arr)
    if axis is None:
        arr, axis = _flat_axis(arr, None)
        values = ravel(as_array(values))
    return concatenate((arr, values), axis=axis)


@implements(np.insert)
def insert(arr, obj, values, axis=None):
    arr, axis = _flat_axis(as_array(arr), axis)
    size = arr.shape[axis]
    obj = obj if isinstance(obj, slice) else _static(obj, "insert")
    positions = np.arange(*obj.indices(size)) if isinstance(obj, slice) else np.array(obj)
    if positions.dtype == np.bool_:
        positions = np.flatnonzero(positions)
    new = value(values, arr.dtype)
    if positions.size == 1:  # NumPy's rule: values laid along `axis` as a block
        new = ops.reshape(new, (1,) * (arr.ndim - len(shape_of(new))) + shape_of(new))
        if positions.ndim == 0:
            order = list(range(1, len(shape_of(new))))
            order.insert(axis, 0)
            new = ops.transpose(new, order)
        count = shape_of(new)[axis]
    else:
        count = positions.size
    block = arr.shape[:axis] + (count,) + arr.shape[axis + 1:]
    new = broadcast_value(new, block)
    order = np.insert(np.arange(size), obj, size + np.arange(count))  # NumPy checks the positions
    return _result(take_static(ops.concatenate([value(arr), new], axis), order, axis))


@implements(np.delete)
def delete(arr, obj, axis=None):
    arr, axis = _flat_axis(as_array(arr), axis)
    kept = np.delete(np.arange(arr.shape[axis]), _static(obj, "delete"))  # NumPy checks the positions
    return _result(take_static(value(arr), kept, axis))


@implements(np.resize)
def resize(a, new_shape):
    new_shape = (new_shape,) if not np.iterable(new_shape) else tuple(new_shape)
    new_shape = tuple(static_int(n, "np.resize's new_shape") for n in new_shape)
    flat = value(ravel(as_array(a)))
    if any(n < 0 for n in new_shape):
        raise ValueError("all elements of `new_shape` must be non-negative")
    size, new_size = shape_of(flat)[0], int(np.prod(new_shape, dtype=np.int64))
    if size == 0 or new_size == 0:
        return _result(full(0, new_shape, dtype_of(flat)))
    copies = -(-new_size // size)
    repeated = ops.reshape(ops.broadcast_in_dim(flat, (copies, size), [1]), (copies * size,))
    return _result(ops.reshape(_axis_slice(repeated, 0, 0, new_size), new_shape))


@refuses(np.trim_zeros)
def trim_zeros(filt, trim="fb", axis=None):
    raise UnsupportedError("np.trim_zeros: the result's shape depends on the array's values, and shapes must be "
                           "known when the program is compiled; slice with static bounds, or keep the shape and "
                           "mask with np.where")


# -- padding -------------------------------------------------------------------------------------

_PAD_KEYWORDS = {"constant": {"constant_values"}, "empty": set(), "edge": set(), "wrap": set(),
                 "reflect": {"reflect_type"}, "symmetric": {"reflect_type"}, "linear_ramp": {"end_values"},
                 "maximum": {"stat_length"}, "mean": {"stat_length"}, "median": {"stat_length"},
                 "minimum": {"stat_length"}}
_STATISTICS = {"maximum": np.max, "minimum": np.min, "mean": np.mean, "median": np.median}


def _pairs(x, rank: int, as_index=False):
    """NumPy's pad arguments as one (before, after) pair per axis: a scalar, a pair, or a pair per axis."""
    if x is None:
        return [(None, None)] * rank
    x = statics(x)
    if is_traced(x):
        if x.ndim:
            raise UnsupportedError("np.pad with traced per-axis values; pass one traced scalar or static values")
        return [(x, x)] * rank
    x = np.array(x)
    if as_index:
        x = np.round(x).astype(np.intp, copy=False)
    if x.ndim < 3 and (x.size == 1 or (x.size == 2 and x.shape != (2, 1))):
        pairs = [(x.ravel()[0], x.ravel()[-1])] * rank
    else:
        pairs = np.broadcast_to(x, (rank, 2)).tolist()
    if as_index and x.size and x.min() < 0:
        raise ValueError("index can't contain negative values")
    return pairs


def _along(axis: int, rank: int, width: int) -> list[int]:
    return [width if d == axis else 0 for d in range(rank)]


def _pad_constant(v, widths, constant_values):
    """Each axis in turn, so corners take the later axis' values, as in NumPy."""
    rank, dtype = len(shape_of(v)), dtype_of(v)
    for axis, ((low, high), pair) in enumerate(zip(widths, _pairs(constant_values, rank))):
        before, after = (value(c.item() if isinstance(c, np.generic) else c, dtype) for c in pair)  # (NumPy's
        # OverflowError for a value out of the dtype's range, as when it writes a Python int)
        if low:
            v = ops.pad(v, before, _along(axis, rank, low), [0] * rank, [0] * rank)
        if high:
            v = ops.pad(v, after, [0] * rank, _along(axis, rank, high), [0] * rank)
    return v


def _pad_order(mode: str, n: int, low: int, high: int) -> np.ndarray:
    """Which source index fills each padded position along one axis (wrap, or NumPy's repeated reflections)."""
    j = np.arange(-low, n + high)
    if mode == "wrap":
        return j % n
    period = 2 * n - 2 if mode == "reflect" else 2 * n
    j = j % period
    return np.where(j < n, j, period - j - (mode == "symmetric"))


def _pad_edge(v, axis: int, low: int, high: int):
    n = shape_of(v)[axis]
    first, last = _spread(_axis_slice(v, axis, 0, 1), axis, low), _spread(_axis_slice(v, axis, n - 1, n), axis, high)
    return ops.concatenate([part for part in (first, v, last) if shape_of(part)[axis]], axis)


def _spread(v, axis: int, width: int):
    """Repeat `v`'s single entry along `axis` `width` times (the axis is dropped, then broadcast: Enzyme-HLO
    miscompiles a concatenation of same-rank broadcasts)."""
    target = list(shape_of(v))
    target[axis] = width
    dims = [d for d in range(len(target)) if d != axis]
    return ops.broadcast_in_dim(ops.reshape(v, [target[d] for d in dims]), target, dims)


def _pad_statistic(v, widths, mode, stat_length):
    """Pads filled with a statistic of the first/last `stat_length` entries, one axis after another."""
    dtype = dtype_of(v)
    for axis, ((low, high), lengths) in enumerate(zip(widths, _pairs(stat_length, len(widths), True))):
        n = shape_of(v)[axis]
        left, right = (n if length is None else min(int(length), n) for length in lengths)
        if (left == 0 or right == 0) and mode in ("maximum", "minimum"):
            raise ValueError("stat_length of 0 yields no value for padding")
        parts = [v]
        for width, (start, stop), at in ((low, (0, left), 0), (high, (n - right, n), 2)):
            if width:
                stat = _STATISTICS[mode](wrap(_axis_slice(v, axis, start, stop), scalar=False), axis=axis,
                                         keepdims=True)
                if np.issubdtype(dtype, np.integer) and stat.dtype != dtype:
                    stat = np.rint(stat)  # NumPy rounds a mean or median half to even for integer arrays
                parts.insert(at if at == 0 else len(parts), _spread(value(stat, dtype), axis, width))
        v = ops.concatenate(parts, axis) if len(parts) > 1 else v
    return v


def _pad_linear_ramp(v, widths, end_values):
    """Ramps from the end values towards the edges: NumPy's np.linspace(end, edge, width, endpoint=False)."""
    dtype = dtype_of(v)
    for axis, ((low, high), ends) in enumerate(zip(widths, _pairs(end_values, len(widths)))):
        n, parts = shape_of(v)[axis], [v]
        for width, end, at, before in ((low, ends[0], 0, True), (high, ends[1], n - 1, False)):
            if width:
                edge = _axis_slice(v, axis, at, at + 1)
                edge = wrap(ops.reshape(edge, [m for d, m in enumerate(shape_of(edge)) if d != axis]), scalar=False)
                ramp = value(np.linspace(end, edge, width, endpoint=False, dtype=dtype, axis=axis))
                parts = [ramp, *parts] if before else [*parts, ops.reverse(ramp, [axis])]
        v = ops.concatenate(parts, axis) if len(parts) > 1 else v
    return v


@implements(np.pad)
def pad(array, pad_width, mode="constant", **kwargs):
    array = as_array(array)
    widths = np.asarray(_static(pad_width, "pad"))
    if widths.dtype.kind not in "iu":
        raise TypeError("`pad_width` must be of integral type.")
    widths = [(int(low), int(high)) for low, high in _pairs(widths, array.ndim, as_index=True)]
    if callable(mode) or kwargs.get("reflect_type", "even") != "even":
        raise UnsupportedError(f"np.pad with mode={mode!r} and {kwargs}; the modes compiled are constant, empty, "
                               "edge, wrap, reflect and symmetric (even), linear_ramp, maximum, minimum, mean and "
                               "median")
    if mode not in _PAD_KEYWORDS:
        raise ValueError(f"mode '{mode}' is not supported")
    if set(kwargs) - _PAD_KEYWORDS[mode]:
        raise ValueError(f"unsupported keyword arguments for mode '{mode}': {set(kwargs) - _PAD_KEYWORDS[mode]}")
    v = value(array)
    if mode in ("constant", "empty"):
        return _result(_pad_constant(v, widths, kwargs.get("constant_values", 0)))
    if array.size == 0:
        for axis, pair in enumerate(widths):
            if array.shape[axis] == 0 and any(pair):
                raise ValueError(f"can't extend empty axis {axis} using modes other than 'constant' or 'empty'")
        return _result(full(0, [n + low + high for n, (low, high) in zip(array.shape, widths)], array.dtype))
    if mode in _STATISTICS:
        return _result(_pad_statistic(v, widths, mode, kwargs.get("stat_length")))
    if mode == "linear_ramp":
        return _result(_pad_linear_ramp(v, widths, kwargs.get("end_values", 0)))
    for axis, (low, high) in enumerate(widths):
        if mode == "edge" or (mode == "reflect" and array.shape[axis] == 1):  # NumPy's legacy rule for size 1
            v = _pad_edge(v, axis, low, high)
        else:
            v = take_static(v, _pad_order(mode, array.shape[axis], low, high), axis)
    return _result(v)
