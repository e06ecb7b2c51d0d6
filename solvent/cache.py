"""Signature keys and the per-function cache of compiled thunks."""

from __future__ import annotations

import threading
from collections import OrderedDict

from solvent.core.structure import signature_key, static_key


def call_key(args: tuple, kwargs: dict, static_argnames=()) -> tuple:
    """Structure, array shapes/dtypes, static values and aliasing of one call's arguments.

    Calls with only distinct `solvent.Array` positional arguments take a short
    path (each array carries its key); everything else walks the structure.
    """
    if not kwargs:
        try:
            key = tuple([x.key for x in args])
        except AttributeError:
            pass
        else:
            if len(args) < 2 or len(set(map(id, args))) == len(args):
                return key
    return full_key(args, kwargs, static_argnames)


def full_key(args: tuple, kwargs: dict, static_argnames=()) -> tuple:
    """`call_key` by walking the whole structure (what `describe` reads)."""
    if static_argnames:
        kwargs = {k: ("static", static_key(v)) if k in static_argnames else v for k, v in kwargs.items()}
    return signature_key((args, kwargs))


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
