"""Which array a name stands for after a traced branch or loop: NumPy's identity under control flow.

After `if c: x = y` with a traced `c`, `x` *is* `y` on one path and the old `x` on the
other, and a later `x += 1` changes whichever it is; after `u, v = v, u` in a rolled time
loop, `u` is one of the two buffers by the parity of the trip count. An `Either` holds
such a name: a traced index `which` into arrays made before the branch or loop (or -1
for a fresh array of its own). It reads as the chosen array and writes go to the chosen
array, so every alias sees exactly what NumPy's would.

A `Binding` says what a value at the end of a region is in those terms; control flow
carries bindings out of branches and around loops.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from jaxlib.mlir import ir

from solvent.core import operators, trace
from solvent.core.session import DEAD, SESSION
from solvent.core.traced import ScalarOrArray, TracedArray, TracedScalar, escaped, mixed
from solvent.errors import ControlFlowError
from solvent.numpy.values import carried_value, wrap
from solvent.ops import elementwise as ew
from solvent.ops.constant import constant

FRESH = -1  # `which` of a value that is none of the choices


def index_constant(k: int) -> ir.Value:
    return constant(np.int32(k))


class Either(TracedArray):
    """An array that is `choices[which]` (arrays from before a branch or loop), or `own` when
    `which` is -1. Reads select among them; a write goes to the chosen one (and to `own`)."""

    def __init__(self, which: ir.Value, choices, own: TracedArray):
        self.aval = own.aval
        self._value = self._parent = self._view = self._seen = None
        self.which, self.choices, self.own = which, tuple(choices), own
        self.depth = len(SESSION.regions)
        if self.depth:
            SESSION.regions[-1].created.append(self)

    @property
    def version(self):
        """Changes whenever one of the arrays it may be changes (views of it re-read then)."""
        return tuple(part.root().version for part in (self.own, *self.choices))

    @property
    def value(self) -> ir.Value:
        if self._value is DEAD:
            raise escaped(self)
        stamp = (self.version, SESSION.epoch)
        if self._seen != stamp:
            v = self.own.value
            for k, choice in enumerate(self.choices):
                v = ew.select(self.chooses(k), choice.value, v)
            self._current, self._seen = v, stamp
        return self._current

    def chooses(self, k: int) -> ir.Value:
        return ew.compare("EQ", self.which, index_constant(k))

    def assign(self, new: ir.Value) -> None:
        self.own.assign(new)
        for k, choice in enumerate(self.choices):
            choice.assign(ew.select(self.chooses(k), new, choice.value))

    def alternatives(self):
        return self.which, self.choices, self.own

    def __repr__(self) -> str:
        return f"Either({self.aval}, one of {len(self.choices)} arrays or its own)"


def _inplace(ufunc, name: str):
    """`x op= y` on an `Either` whose own value is a NumPy scalar (a loop that made `x` a scalar,
    or left it the 0-d argument): NumPy writes the array in place and rebinds the scalar, so
    the arrays it may be change and the name gets a new Either whose own value is the result."""
    inplace = getattr(TracedArray, f"__i{name}__")

    def method(self, other):
        if isinstance(self.own, ScalarOrArray):
            raise mixed(name)
        if not isinstance(self.own, TracedScalar):
            return inplace(self, other)
        new = ufunc(self, other)
        if new.dtype != self.dtype:
            raise ControlFlowError(
                f"`x {operators.SYMBOLS[name]}= ...` changes a name from {self.dtype} to {new.dtype} where it is a NumPy scalar "
                "(after the loop or branch that made it one) and not where it is the array it was before; "
                "give it its final dtype before the loop (x = x.astype(...))")
        with trace.current().emitting():
            for k, choice in enumerate(self.choices):
                choice.assign(ew.select(self.chooses(k), new.value, choice.value))
            return Either(self.which, self.choices, wrap(new.value, scalar=True))
    return method


for _name, _ufunc in operators.BINARY.items():
    setattr(Either, f"__i{_name}__", _inplace(_ufunc, _name))


def roots(x: TracedArray) -> list[TracedArray]:
    """The arrays that own the memory `x` reads (an `Either` reads several)."""
    if isinstance(x, Either):
        return [r for part in (x.own, *x.choices) for r in roots(part)]
    root = x.root()
    return roots(root) if isinstance(root, Either) else [root]  # a view of an Either reads its arrays


def has_identity(x) -> bool:
    """Whether in-place writes to `x` can be seen through other names (NumPy scalars cannot)."""
    return isinstance(x, TracedArray) and not isinstance(x, TracedScalar)


@dataclass
class Binding:
    """A value at the end of a region: `choices[which]` (which may be traced), or fresh when
    `which` is -1; `current` is its value either way."""

    choices: tuple
    which: int | ir.Value
    current: ir.Value

    @property
    def static(self) -> bool:
        return isinstance(self.which, int)

    def which_in(self, universe: list) -> int | ir.Value:
        """`which` as an index into `universe`, which holds every choice."""
        table = [_index(universe, c) for c in self.choices]
        if self.static:
            return FRESH if self.which == FRESH else table[self.which]
        if table == list(range(len(table))):
            return self.which
        return remap(self.which, table)


def _index(items: list, x) -> int:
    """Position of `x` in `items` by identity; -1 when absent (a choice found only now)."""
    return next((k for k, item in enumerate(items) if item is x), FRESH)


def remap(which: ir.Value, table: list[int]) -> ir.Value:
    """`table[which]`, and -1 for -1, as a chain of selects (tables are tiny)."""
    out = index_constant(FRESH)
    for k, target in enumerate(table):
        if target != FRESH:
            out = ew.select(ew.compare("EQ", which, index_constant(k)), index_constant(target), out)
    return out


def as_value(which: int | ir.Value) -> ir.Value:
    return index_constant(which) if isinstance(which, int) else which


def bind(leaf, before: Callable[[TracedArray], bool], aval, carried: dict | None = None) -> Binding:
    """What `leaf` is, at the end of a region, in terms of arrays for which `before` holds.

    `carried` maps the id of a loop's stand-in for a carried name to that name's (choices,
    which): the stand-in is a fresh array of the loop body, standing for whatever the name was.
    """
    current = carried_value(leaf)
    if carried and id(leaf) in carried and leaf.aval == aval:  # (a 0-d stand-in too: the name it stands
        return Binding(*carried[id(leaf)], current)           # for may be an outside array)
    if not has_identity(leaf) or leaf.aval != aval:
        return Binding((), FRESH, current)
    choices, which = _resolve(leaf, before, carried or {})
    return Binding(choices, which, current)


def _resolve(x, before, carried) -> tuple[tuple, int | ir.Value]:
    """(choices, which) for `x`: an array from before, a stand-in, an `Either` (of those, nested), or fresh."""
    if id(x) in carried:
        return carried[id(x)]
    if before(x):
        return flatten(x)
    if not isinstance(x, Either):
        return (), FRESH
    return _merge(x, [_resolve(c, before, carried) if c.aval == x.aval else ((), FRESH) for c in x.choices], None)


def flatten(x) -> tuple[tuple, int | ir.Value]:
    """(choices, which) for an array from before a region, with no `Either` among the choices: an
    Either stands for its choices and its own array, so chains of them never nest (a loop nest
    swapping names would otherwise grow a select chain per loop)."""
    if not isinstance(x, Either):
        return (x,), 0
    parts = [flatten(c) if c.aval == x.aval else ((c,), 0) for c in x.choices]
    return _merge(x, parts, x.own)


def _merge(x: Either, parts: list, own) -> tuple[tuple, int | ir.Value]:
    """`x`'s choices resolved to `parts` ((choices, which) each) as one list; when `x` chooses its
    own array, that is `own` (then one more choice) or fresh (None)."""
    universe = [] if own is None else [own]
    for choices, _ in parts:
        universe += [c for c in choices if _index(universe, c) == FRESH]
    if not universe:
        return (), FRESH
    which = index_constant(FRESH if own is None else 0)
    for k, (choices, inner) in enumerate(parts):
        if choices:
            which = ew.select(x.chooses(k), as_value(Binding(choices, inner, None).which_in(universe)), which)
    return tuple(universe), which


def made_before(depth: int) -> Callable[[TracedArray], bool]:
    """Whether an array existed before a region whose body runs at `depth` (and is usable after it)."""
    return lambda x: x.depth < depth and x._value is not DEAD
