"""Signature keys and the per-function cache of compiled thunks."""

from __future__ import annotations

import threading
from collections import OrderedDict

import numpy as np

from solvent.core.structure import owns_memory, signature_key, static_key, written_alone
from solvent.runtime.array import Array, Scalar

_KEYED = frozenset({Array, Scalar})  # carry their own key (aval, and sharding)
_STATIC = frozenset({int, float, bool, complex, str, type(None)})


def call_key(args: tuple, kwargs: dict, static_argnames=(), layouts: bool = False) -> tuple:
    """Structure, array shapes/dtypes, static values and aliasing of one call's arguments, and
    with `layouts` the strides of NumPy arrays (for a function whose programs depend on them).

    A flat positional list of NumPy arrays, `solvent.Array`s and Python or NumPy scalars takes a
    short path (one entry per argument, no walk); anything else, and arrays passed twice or
    that may share memory (or an array whose own elements overlap), walk the structure (`full_key`),
    whose key says how they alias.
    """
    if kwargs:
        return full_key(args, kwargs, static_argnames, layouts)
    parts, arrays, views, overlapping = [], [], False, False
    for x in args:
        kind = type(x)
        if kind is np.ndarray:
            parts.append((kind, x.shape, x.dtype, x.strides) if layouts else (kind, x.shape, x.dtype))
            arrays.append(id(x))
            if not owns_memory(x):
                views, overlapping = True, overlapping or written_alone(x)
        elif kind in _KEYED:
            parts.append(x.key)
            arrays.append(id(x))
        elif kind in _STATIC or isinstance(x, np.generic):
            parts.append(static_key(x))
        else:
            return full_key(args, kwargs, static_argnames, layouts)
    if len(arrays) > 1 and views or overlapping or len(set(arrays)) < len(arrays):
        return full_key(args, kwargs, static_argnames, layouts)
    return tuple(parts)


def full_key(args: tuple, kwargs: dict, static_argnames=(), layouts: bool = False) -> tuple:
    """`call_key` by walking the whole structure (what `describe` reads)."""
    if static_argnames:
        kwargs = {k: ("static", static_key(v)) if k in static_argnames else v for k, v in kwargs.items()}
    return signature_key((args, kwargs), layouts)


class ThunkCache:
    """Compiled thunks of one function, by call key; compiles each key once and keeps the `size`
    most recently used (a function called with ever new shapes does not grow without bound)."""

    def __init__(self, size: int = 64):
        self.entries: OrderedDict = OrderedDict()
        self.size = size
        self.lock = threading.Lock()

    def get(self, key):
        thunk = self.entries.get(key)
        if thunk is not None:
            try:
                self.entries.move_to_end(key)
            except KeyError:  # evicted by another thread meanwhile
                pass
        return thunk

    def put(self, key, value):
        with self.lock:
            self.entries.setdefault(key, value)
            self.entries.move_to_end(key)
            while len(self.entries) > self.size:
                self.entries.popitem(last=False)
            return self.entries[key]

    def __len__(self) -> int:
        return len(self.entries)
