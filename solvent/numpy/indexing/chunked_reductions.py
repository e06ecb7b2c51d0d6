"""Sums, maxima and minima of elementwise expressions of slices with traced bounds
(`np.max(T[i, i + 1:j] + T[i + 2:j + 1, j])`), taken a chunk at a time straight from the slices' bases.

`traced_bounds` holds such slices at the full extent of their axes, so reducing an expression of
them costs the full extent on every iteration of the loop around it, and a column slice reads
the whole column, a cache line per element (Nussinov's folding at n=500: 125,000 cells, each
reading a row and a column of 500). An elementwise result of 1-d slices keeps how it was made
(`Recipe`); its reduction evaluates that expression again on chunks of CHUNK elements read from
the bases where the valid part lies, lined up by the slices' starts, and combines the chunks'
reductions. The starts must differ by amounts known while tracing (one loop index plus
constants) so that one offset places every chunk; the last chunk is moved back to end with the
valid part, and lanes outside it, or read by the chunk before, hold the reduction's identity.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from jaxlib.mlir import ir

from solvent.ir.types import tensor_type
from solvent.numpy.elementwise.ufuncs import identity_of
from solvent.numpy.indexing import traced_lengths
from solvent.numpy.indexing.chunked_products import (CHUNK, SHORTEST, chunk_of, lanes_inside, pieces, repeat,
                                                    sliced_axes)
from solvent.numpy.repeat import branch
from solvent.numpy.values import full, is_traced, value, wrap
from solvent.ops import elementwise as ew, shape as ops
from solvent.ops.base import shape_of

_I64 = np.int64


@dataclass(eq=False)
class Leaf:
    """A 1-d slice with traced bounds as an operand: its base's value when the expression was made,
    and its axes in the base (`traced_bounds.parse`)."""

    base: ir.Value
    axes: list
    dtype: np.dtype


@dataclass(eq=False)
class Recipe:
    """`function(*inputs, **kwargs)`, the elementwise op that made the masked array of value `made`;
    inputs are Leafs, Recipes, 0-d values (ir.Value) or Python and NumPy scalars."""

    made: ir.Value
    function: Callable
    inputs: tuple
    kwargs: dict


def recipe(numpy_function, inputs, kwargs, made):
    """How a 1-d elementwise result of value `made` was made; None where an input is not a slice, such
    a result or a 0-d value."""
    described = []
    for x in inputs:
        if _masked(x):
            described.append(recipe_of(x))
        elif (len(x.shape) if hasattr(x, "shape") else np.ndim(x)) == 0:
            described.append(value(x) if is_traced(x) else x)
        else:
            return None
    if any(d is None for d in described):
        return None
    return Recipe(made, numpy_function, tuple(described), dict(kwargs))


def recipe_of(x):
    """How a 1-d masked array can be evaluated again chunk by chunk: a slice as itself, an elementwise
    result as it was made (while it still holds that value); else None."""
    if not _masked(x):
        return None
    if x._axes is not None:
        sliced = sliced_axes(x._axes)
        if len(sliced) != 1 or x._axes[sliced[0]][0] == "reversed":
            return None
        return Recipe(x.value, _itself, (Leaf(x._parent.value, x._axes, x.dtype),), {})
    return x.recipe if x.recipe is not None and x.recipe.made is x.value else None


def taken(table: ir.Value, key, made):
    """How `table[key]` of value `made` was made, a 1-d `table` indexed by a 1-d masked array of
    integers (`x[indices[s:e]]`, a row of a sparse matrix): each chunk gathers from the whole table
    at the key's chunk; None where the key has no recipe."""
    keyed = recipe_of(key)
    if keyed is None or len(shape_of(table)) != 1 or len(key.shape) != 1:
        return None
    return Recipe(made, lambda k: wrap(table, scalar=False)[k], (keyed,), {})


def _masked(x) -> bool:
    """Whether `x` is a slice with traced bounds or a result of one (`traced_bounds.MaskedArray`)."""
    return is_traced(x) and x.padded


def _itself(x):
    return x


#: name -> (the reduction of a chunk, the ufunc combining two partial results)
REDUCTIONS = {"sum": (np.sum, np.add), "max": (np.max, np.maximum), "min": (np.min, np.minimum)}


def reduce(a, recipe, name: str, axis=None, keepdims=False, initial=np._NoValue, dtype=None):
    """`np.sum`, `np.max` or `np.min` (`name`) of the whole of `a` (a 1-d masked array, made as
    `recipe` says) chunk by chunk, as a 0-d traced array; None where the chunks do not apply."""
    if (recipe is None or len(a.lengths) != 1 or a.lengths[0] is None
            or axis not in (None, 0, -1, (0,), (-1,)) or keepdims or initial is not np._NoValue or dtype is not None
            or a.dtype.kind not in ("iufc" if name == "sum" else "iuf")
            or a.dtype.kind in "fc" and a.dtype.itemsize < 4):  # (float16 sums round at every step)
        return None
    leaves = list(_leaves(recipe))
    offsets = _offsets(leaves)
    if offsets is None:
        return None
    extents = [_extent(leaf) for leaf in leaves]
    if min(extents) < SHORTEST or min(e - d for e, d in zip(extents, offsets)) + min(offsets) < CHUNK:
        return None  # (short axes, or starts too far apart for one chunk to line them all up)
    how = REDUCTIONS[name]
    result = how[0](np.zeros(1, a.dtype)).dtype
    spread = [_spread(leaf, a.lengths[0]) for leaf in leaves]
    if all(p is None for p in spread):
        return wrap(_chunked(a, recipe, how, result, leaves, extents, spread))
    # (in a branch: a select of the spread in every chunk took nussinov at n=400 from 25 to 35 ms)
    return wrap(branch(_extremum([p for p in spread if p is not None], "or"),
                       lambda: _chunked(a, recipe, how, result, leaves, extents, spread),
                       lambda: _chunked(a, recipe, how, result, leaves, extents, [None] * len(leaves)),
                       tensor_type((), result)))


def _chunked(a, recipe, how, result, leaves, extents, spread) -> ir.Value:
    """The reduction (`how`: a chunk's reduction and the ufunc combining them, into dtype `result`)
    of `a` over the chunks of its `leaves`, those that `spread` their first element in every lane."""
    reduction, combine = how
    starts = [_start(leaf) for leaf in leaves]
    length = a.lengths[0]
    zero = full(0, (), _I64)
    low = _extremum([_unless(p, ew.binary("subtract", zero, s), -_FAR) for s, p in zip(starts, spread)], "maximum")
    high = _extremum([_unless(p, ew.binary("subtract", full(e - CHUNK, (), _I64), s), _FAR)
                      for e, s, p in zip(extents, starts, spread)], "minimum")

    def chunk(c, total):
        first = ew.binary("multiply", c, full(CHUNK, (), _I64))
        offset = ew.clamp(low, ew.binary("minimum", first, ew.binary("subtract", length, full(CHUNK, (), _I64))), high)
        inside = lanes_inside(first, offset, length, CHUNK)
        chunks = {id(leaf): wrap(_chunk(leaf, s, offset, p), scalar=False)
                  for leaf, s, p in zip(leaves, starts, spread)}
        values = np.where(wrap(inside, scalar=False), _evaluate(recipe, chunks), identity_of(combine, a.dtype))
        return value(combine(wrap(total), reduction(values)), result)
    return repeat(pieces(length, CHUNK), chunk, full(identity_of(combine, result), (), result))


#: A bound on the chunks' offset that never binds (`reduce`'s window for a leaf that spreads).
_FAR = 2 ** 62


def _spread(leaf, length) -> ir.Value | None:
    """Whether `leaf` spreads its first element over the result's `length` (NumPy's broadcasting of a
    length of 1), a traced bool; None where its length is the result's (or static)."""
    own = leaf.axes[_sliced_axis(leaf)][2]
    return None if own is None or traced_lengths.same(own, length) else traced_lengths.is_one(own)


def _unless(spread, bound, far) -> ir.Value:
    """A leaf's bound on the chunks' offset, or `far` where it spreads: its one element is read apart."""
    return bound if spread is None else ew.select(spread, full(far, (), _I64), bound)


def _chunk(leaf, start, offset, spread) -> ir.Value:
    """CHUNK elements of `leaf` from `start + offset`, or its element at `start` in every lane where it
    `spread`s."""
    read = chunk_of(leaf.base, leaf.axes, 0, ew.binary("add", start, offset), None, CHUNK, leaf.dtype)
    if spread is None:
        return read
    first = ops.broadcast_in_dim(ops.reshape(chunk_of(leaf.base, leaf.axes, 0, start, None, 1, leaf.dtype), []),
                                 (CHUNK,), [])
    return ew.select(ops.broadcast_in_dim(spread, (CHUNK,), []), first, read)


def _leaves(recipe):
    for x in recipe.inputs:
        if isinstance(x, Leaf):
            yield x
        elif isinstance(x, Recipe):
            yield from _leaves(x)


def _sliced_axis(leaf) -> int:
    return sliced_axes(leaf.axes)[0]


def _extent(leaf) -> int:
    return shape_of(leaf.base)[_sliced_axis(leaf)]


def _start(leaf) -> ir.Value:
    start = leaf.axes[_sliced_axis(leaf)][1]
    return full(0, (), _I64) if start is None else start


def _offsets(leaves):
    """Each leaf's start less the first's, where every difference is known while tracing: starts of
    one loop index and scale (`traced_bounds._key`), or all at 0; else None."""
    keys = [leaf.axes[_sliced_axis(leaf)][3] for leaf in leaves]
    forms = [(None, 0, 0) if key is None else key[:3] for key in keys]
    if any(f[0] is not forms[0][0] or f[1] != forms[0][1] for f in forms):
        return None
    if any(key is None and leaf.axes[_sliced_axis(leaf)][1] is not None for key, leaf in zip(keys, leaves)):
        return None  # a start with no key (a reversed axis): nothing to compare it with
    return [f[2] - forms[0][2] for f in forms]


def _extremum(values, how) -> ir.Value:
    out = values[0]
    for v in values[1:]:
        out = ew.binary(how, out, v)
    return out


def _evaluate(recipe, chunks):
    """The recipe's expression on the chunks read for its leaves."""
    args = []
    for x in recipe.inputs:
        if isinstance(x, Leaf):
            args.append(chunks[id(x)])
        elif isinstance(x, Recipe):
            args.append(_evaluate(x, chunks))
        elif isinstance(x, ir.Value):
            args.append(wrap(x))
        else:
            args.append(x)
    return recipe.function(*args, **recipe.kwargs)
