"""Writes through a slice whose step is not 1 or -1 and whose bounds or step are traced
(`is_prime[i * i::i] = False` in a rolled loop).

Such a slice's length is known only when the program runs. The write is one `stablehlo.while` of
that many steps, each writing one position along the stepped axis (a slab of the other axes) in
place: NumPy's work, not a pass over the whole axis. The value must be the same at every position
(a scalar, or an array without the stepped axis); reads of such slices are refused."""

from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir

from solvent.errors import UnsupportedError
from solvent.numpy.indexing import traced_bounds
from solvent.numpy.indexing.basic import parse, write
from solvent.numpy.indexing.chunked_products import repeat
from solvent.numpy.indexing.key import ARRAY, INTEGER, MASK, NEW, SLICE, Entry, normalize
from solvent.numpy.values import assigned_value, full, is_traced, value, wrap
from solvent.ops import elementwise as ew, shape as ops
from solvent.ops.base import dtype_of, shape_of

_I64 = np.int64
CHUNK = 16  #: positions written per step of the loop (a step costs tens of ns on XLA's CPU backend)


def _stepped(k: slice) -> bool:
    return any(is_traced(b) for b in (k.start, k.stop, k.step)) and (is_traced(k.step) or k.step not in (None, 1, -1))


def applies(key, shape) -> bool:
    """Whether `key` has a slice with traced bounds or step whose step is not 1 or -1."""
    return any(e.kind == SLICE and _stepped(e.value) for e in normalize(key, shape).entries)


def setitem(array, key, new) -> None:
    """`array[key] = new`, one position of the stepped slice per step of a loop."""
    parsed = normalize(key, array.shape)
    stepped = [e for e in parsed.entries if e.kind == SLICE and _stepped(e.value)]
    if len(stepped) > 1 or parsed.has(ARRAY, MASK):
        raise UnsupportedError("a slice with a traced step or bounds and a step other than 1 or -1, together with "
                               "another such slice or an index array; write one of them as a loop")
    at = parsed.entries.index(stepped[0])
    if 0 in array.shape:
        return  # (nothing to write; NumPy checks no value against an empty selection's shape)

    def key_at(position) -> tuple:
        entries = list(parsed.entries)
        entries[at] = Entry(INTEGER, stepped[0].dim, position)
        return parsed.rebuilt(entries)
    if traced_bounds.applies(key_at(0), array.shape):
        raise UnsupportedError("a slice with a traced step together with a slice of traced length; write one of "
                               "them as a loop")
    slab = parse(key_at(0), array.shape).result_shape
    update = _slab_value(value(new, array.dtype), slab, sum(e.kind in (NEW, SLICE) for e in parsed.entries[:at]))
    start, count, step = _positions(stepped[0].value, array.shape[stepped[0].dim])
    last = ew.binary("subtract", count, full(1, (), _I64))

    def chunk(k: ir.Value, current: ir.Value) -> ir.Value:  # positions k*CHUNK.. (past the last: the last again)
        for j in range(CHUNK):
            nth = ew.binary("minimum", ew.binary("add", ew.binary("multiply", k, full(CHUNK, (), _I64)),
                                                 full(j, (), _I64)), last)
            position = wrap(ew.binary("add", start, ew.binary("multiply", nth, step)), scalar=True)
            current = write(current, parse(key_at(position), array.shape), update)
        return current
    array.assign(repeat(_count(count, full(CHUNK, (), _I64)), chunk, array.value))


def _slab_value(v: ir.Value, slab: tuple, axis: int) -> ir.Value:
    """The value written at each position: `v` without the stepped axis (at `axis` of the selection),
    along which it must have length 1, broadcast to the `slab` the other axes select."""
    shape, rank = list(shape_of(v)), len(slab) + 1
    while len(shape) > rank and shape[0] == 1:
        shape.pop(0)
    if len(shape) > rank:
        raise ValueError(f"could not broadcast input array from shape {tuple(shape_of(v))} into a selection of "
                         f"{rank} dimensions")
    along = len(shape) - (rank - axis)
    if along >= 0:
        if shape[along] != 1:
            raise UnsupportedError(
                "an array written through a slice with a traced step: its length is known only when the program "
                "runs; write a scalar (or an array without that axis), or write the elements in a loop")
        shape.pop(along)
    return assigned_value(ops.reshape(v, shape), slab)


def _bound(v, n: int, low: int, high: int) -> ir.Value:
    """A traced or static slice bound as NumPy reads it: negative counts from the end, then clipped."""
    if not is_traced(v):
        return full(min(max(v + n if v < 0 else v, low), high), (), _I64)
    v = _index(v, n)
    v = ew.select(ew.compare("LT", v, full(0, (), _I64)), ew.binary("add", v, full(n, (), _I64)), v)
    return ew.clamp(full(low, (), _I64), v, full(high, (), _I64))


def _index(v, n: int) -> ir.Value:
    """A traced integer as int64, first clipped in its own type to [-(n + 1), n + 1]: beyond that no
    bound or step changes the positions a slice of an axis of n takes, and a uint64 past 2**63 or a
    step near -2**63 would wrap."""
    v = value(v)
    info = np.iinfo(dtype_of(v))
    low, high = max(-(n + 1), info.min), min(n + 1, info.max)
    return ew.convert(ew.clamp(full(low, (), dtype_of(v)), v, full(high, (), dtype_of(v))), _I64)


def _count(span: ir.Value, stride: ir.Value) -> ir.Value:
    """ceil(span / stride) for a positive stride, 0 for a span <= 0."""
    span = ew.binary("maximum", span, full(0, (), _I64))
    stride = ew.binary("maximum", stride, full(1, (), _I64))
    return ew.binary("divide", ew.binary("add", span, ew.binary("subtract", stride, full(1, (), _I64))), stride)


def _positions(k: slice, n: int):
    """(first position, number of positions, step) of `range(*k.indices(n))`, as traced int64s; a
    traced step of 0 (NumPy's ValueError) writes nothing."""
    if not is_traced(k.step) and k.step == 0:
        raise ValueError("slice step cannot be zero")
    step = _index(k.step, n) if is_traced(k.step) else full(max(-(n + 1), min(int(k.step), n + 1)), (), _I64)
    first = _bound(0 if k.start is None else k.start, n, 0, n)
    last = _bound(n if k.stop is None else k.stop, n, 0, n)
    forward = (first, _count(ew.binary("subtract", last, first), step))
    first = full(n - 1, (), _I64) if k.start is None else _bound(k.start, n, -1, n - 1)
    last = full(-1, (), _I64) if k.stop is None else _bound(k.stop, n, -1, n - 1)
    backward = (first, _count(ew.binary("subtract", first, last), ew.unary("negate", step)))
    if not is_traced(k.step):
        start, count = forward if k.step > 0 else backward
        return start, count, step
    positive = ew.compare("GT", step, full(0, (), _I64))
    start, count = (ew.select(positive, f, b) for f, b in zip(forward, backward))
    return start, ew.select(ew.compare("EQ", step, full(0, (), _I64)), full(0, (), _I64), count), step
