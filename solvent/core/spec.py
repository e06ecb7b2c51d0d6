"""Result specs: how a traced function's result, and each value written back into the caller's
containers, is rebuilt from the program's outputs. Tracing makes them; the thunk, outlining,
the transforms and placement read them.

A spec is a tree of the nodes below. Paths (`Argument.path`) and a Node's steps are those of
`core.structure` (`Path`, `Step`), from the call's (args, kwargs, IMPLICIT).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import NamedTuple

from solvent.core import structure


class Spec:
    """A node of a result spec."""

    def outputs(self) -> Iterator[int]:
        """The program outputs this node is made of, in the order its structure lists them (none
        for a node the program does not compute: an input, an argument, a static value; and none
        for `Either` and `Cut`, whose outputs are no value of the structure by themselves)."""
        return iter(())


@dataclass(frozen=True, eq=False)
class Input(Spec):
    """An argument array returned as itself: the caller's object behind program input `index`."""

    index: int


@dataclass(frozen=True, eq=False)
class Output(Spec):
    """Program output `index`."""

    index: int

    def outputs(self) -> Iterator[int]:
        yield self.index


@dataclass(frozen=True, eq=False)
class Argument(Spec):
    """An object of the call returned as itself (a container, or a view sharing an input's
    memory), reached by `path` from (args, kwargs, IMPLICIT)."""

    path: structure.Path


@dataclass(frozen=True, eq=False)
class Static(Spec):
    """A value known at trace time (None, a number, a string, a dtype, ...)."""

    value: object


@dataclass(frozen=True, eq=False)
class Either(Spec):
    """One of `choices` (caller's objects) by the traced index `which` (an output), or `own`, a
    new array, when that index is -1 (see `transforms.identity`)."""

    which: Spec
    choices: tuple
    own: Spec


@dataclass(frozen=True, eq=False)
class Cut(Spec):
    """An array of traced length (x[mask], x[:k]): `data` at its static bound, cut along each
    (axis, length spec) of `lengths` to NumPy's shape."""

    data: Spec
    lengths: tuple


@dataclass(frozen=True, eq=False)
class Matrix(Spec):
    """An np.matrix: the array `data` as one (see `numpy.matrix_type`)."""

    data: Spec

    def outputs(self) -> Iterator[int]:
        return self.data.outputs()


@dataclass(frozen=True, eq=False)
class Row(Spec):
    """Row `index` of `data`, an output stacking many results of one shape and dtype (a list of
    1000 losses is one output, not 1000: XLA took seconds to compile that many); `python` for a
    row that is a Python number."""

    data: Spec
    index: int
    python: bool = False


@dataclass(frozen=True, eq=False)
class Node(Spec):
    """A container of type `kind` (tuple, list, dict, a namedtuple, a dataclass or other object)
    whose children are `(step, spec)` pairs, in order."""

    kind: type
    children: tuple

    def outputs(self) -> Iterator[int]:
        for _, child in self.children:
            yield from child.outputs()

    def build(self, items: list):
        """The container of `kind` holding `items`, one per child."""
        kind = self.kind
        if kind is tuple or kind is list:
            return kind(items)
        if kind is dict:
            return {step[1]: item for (step, _), item in zip(self.children, items)}
        if issubclass(kind, tuple):
            return kind(*items)
        obj = kind.__new__(kind)
        for (step, _), item in zip(self.children, items):
            object.__setattr__(obj, step[1], item)
        return obj


class Setter(NamedTuple):
    """A child of a caller's container the function reassigned (`obj.x = ...`, `d[k] = ...`, a
    list's items for `structure.ALL`): the thunk sets it to what `value` rebuilds."""

    container: structure.Path
    step: structure.Step
    value: Spec


class Deleted(NamedTuple):
    """A child of a caller's container the function removed (`del obj.x`, `d.pop(k)`)."""

    container: structure.Path
    step: structure.Step
