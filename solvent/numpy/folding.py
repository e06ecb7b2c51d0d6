"""Values known at trace time stay NumPy's own: `np.arange(4).tolist()`, `len(np.nonzero(mask)[0])`.

An array made from static arguments (`np.arange(n)`, `np.zeros(3)`) is traced, so that traced
values can be written into it, but it also holds the value NumPy computes (`known`). A NumPy call
whose traced operands are all known is computed by NumPy itself at trace time, and its result is
a constant of the program that is known too; a write into an array forgets its value. So shape
arithmetic, `.tolist()`, index lists and conditions on such values are Python values, exactly as
NumPy gives them, and the compiled program uses NumPy's own numbers.

Only calls that return new arrays fold: a view (slicing, reshape, transpose) shares memory with
its base, and a copy would not see later writes.
"""

from __future__ import annotations

import numpy as np

from solvent.core import trace
from solvent.core.traced import TracedArray
from solvent.errors import TracerConversionError, UnsupportedError
from solvent.numpy.values import value, wrap
from solvent.ops.constant import constant

#: NumPy functions whose results are new arrays (never views) and that write nothing.
FOLDED = frozenset({
    np.sum, np.prod, np.max, np.min, np.amax, np.amin, np.mean, np.cumsum, np.cumprod, np.any, np.all,
    np.argmax, np.argmin, np.count_nonzero, np.nonzero, np.flatnonzero, np.argwhere, np.unique, np.where,
    np.concatenate, np.stack, np.vstack, np.hstack, np.diff, np.sort, np.argsort, np.searchsorted,
    np.bincount, np.dot, np.outer, np.clip, np.round, np.around, np.repeat, np.tile, np.isin, np.take,
    np.setdiff1d, np.intersect1d, np.union1d, np.array_equal, np.allclose, np.isclose, np.array, np.copy,
    np.cross, np.trace, np.linspace, np.zeros_like, np.ones_like, np.full_like, np.append, np.histogram,
    np.digitize, np.ptp, np.median, np.percentile, np.quantile, np.average, np.std, np.var,
})
#: ndarray methods likewise.
FOLDED_METHODS = frozenset({"sum", "prod", "max", "min", "mean", "cumsum", "cumprod", "any", "all", "argmax",
                            "argmin", "nonzero", "astype", "copy", "round", "clip", "std", "var", "ptp",
                            "argsort", "dot", "repeat", "take", "trace"})
_UFUNC_METHODS = frozenset({"__call__", "reduce", "accumulate", "outer", "reduceat"})
#: The most elements a known value holds: index lists and shape arithmetic, not data (a large
#: constant would bloat the program and its compile).
LIMIT = 4096


def static(x):
    """`x`'s value as NumPy computed it when it is a traced array that has one; else `x`."""
    return x.known if isinstance(x, TracedArray) and x.known is not None else x


def statics(x):
    """`x` with every traced array that has a known value, into lists and tuples, replaced by it."""
    if isinstance(x, (list, tuple)) and not hasattr(x, "_fields"):
        return type(x)(statics(v) for v in x)
    return static(x)


def _operands(args) -> list:
    """The traced arrays among `args`, into lists and tuples (np.concatenate([a, b]))."""
    found = []
    for a in args:
        if isinstance(a, TracedArray):
            found.append(a)
        elif isinstance(a, (list, tuple)):
            found += _operands(a)
    return found


def _all_known(values) -> bool:
    traced = _operands(values)
    return bool(traced) and all(t.known is not None for t in traced)


def static_arguments(args, kwargs) -> bool:
    """Whether every traced value among a call's arguments is known (or there are none)."""
    return all(t.known is not None for t in _operands([*args, *kwargs.values()]))


def _host(x):
    if isinstance(x, (list, tuple)) and not hasattr(x, "_fields"):
        return type(x)(_host(v) for v in x)
    return x.known.copy() if isinstance(x, TracedArray) else x


def folds_ufunc(method: str, inputs, kwargs) -> bool:
    return method in _UFUNC_METHODS and "out" not in kwargs and _all_known(list(inputs) + list(kwargs.values()))


def folds_function(func, args, kwargs) -> bool:
    return func in FOLDED and "out" not in kwargs and _all_known(list(args) + list(kwargs.values()))


def folds_method(array, name: str, args, kwargs) -> bool:
    return name in FOLDED_METHODS and "out" not in kwargs and kwargs.get("copy", True) is not False and \
        _all_known([array, *args, *kwargs.values()])


def call(fn, args, kwargs, otherwise):
    """`fn` computed by NumPy on the known values, as known traced constants; `otherwise()` (the
    traced implementation) when the result is larger than `LIMIT`."""
    result = fn(*_host(args), **{k: _host(v) for k, v in kwargs.items()})
    return as_known(result) if small(result) else otherwise()


def small(result) -> bool:
    """Whether a result (arrays, or a tuple or list of them) holds at most `LIMIT` elements."""
    items = result if isinstance(result, (list, tuple)) else (result,)
    return sum(getattr(r, "size", 0) for r in items) <= LIMIT


def as_known(result):
    """NumPy's result as traced constants that keep their host values (tuples and lists kept)."""
    if isinstance(result, (list, tuple)) and not hasattr(result, "_fields"):
        return type(result)(as_known(r) for r in result)
    if isinstance(result, (np.ndarray, np.generic)) and result.dtype.kind in "biufc":
        host = np.asarray(result)
        traced = wrap(constant(host), scalar=isinstance(result, np.generic))
        traced.known = host
        if not host.flags.c_contiguous:
            traced.memory = host.strides  # NumPy's layout of the result (see `layout`)
        return traced
    return result  # Python numbers and objects NumPy returns as such


def traced_constant(host: np.ndarray) -> TracedArray:
    """A NumPy array from outside (a constant of the program) as a traced array, for operations whose
    other operands are traced but whose dispatch looks at it alone (`TABLE[i]`, `np.take(table, i)`);
    its values stay known when it is small."""
    with trace.current().emitting():
        return as_known(host) if host.size <= LIMIT else wrap(value(host), scalar=False)


def element(array, key):
    """`array[key]` of a known array with a static key, when NumPy gives a copy (an element, an
    integer-array or mask selection) rather than a view; else None."""
    if array.known is None:
        return None
    key = tuple(static(k) for k in key) if isinstance(key, tuple) else static(key)
    try:
        host = array.known[key]
    except (TracerConversionError, UnsupportedError):  # a traced entry whose value is not known
        return None
    if isinstance(host, np.ndarray) and np.shares_memory(host, array.known):
        return None  # a view: it must see later writes to the base
    return as_known(host)
