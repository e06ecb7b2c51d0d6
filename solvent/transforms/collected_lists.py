"""Lists a rolled `for` over a static range appends to on every step (`losses.append(loss)`,
`path.append(x.copy())`): the loop carries a buffer of one row per step, each step writes its item
at its row, and the list gets the rows after the loop, as NumPy's loop leaves it.

Only for a list the body uses by that one `append` alone (the rewrite checks the source: a body
traced once cannot read a list that grows), and only for items NumPy's list holds as they are at
the end of their step: numbers, and arrays the step made (or views of them) that nothing the loop
carries on holds or views, or that one name alone goes on with while no step writes that name's
array in place (`y = step(y); out.append(y)`: the list's last item is then the name's array)."""

from __future__ import annotations

import numpy as np

from solvent.core import trace
from solvent.core.session import SESSION
from solvent.core.traced import TracedArray, TracedScalar
from solvent.errors import ControlFlowError
from solvent.numpy.values import full, wrap
from solvent.transforms.python_objects import Appended
from solvent.transforms.regions import is_weak, leaves_of, weakened


class Collected:
    """A list a loop over `steps` appends one item to on every step, carried as a buffer (the
    entry protocol of `python_objects.Slot`)."""

    def __init__(self, appended: Appended, steps: range):
        self.name, self.holder, self.steps = appended.name, appended.holder, steps
        item = appended.item
        self.arity = len(item) if type(item) is tuple else None  # items that are tuples: a buffer a place
        parts = item if self.arity else (item,)
        self.shapes, self.dtypes = [np.shape(p) for p in parts], [_dtype(p) for p in parts]
        self.weak = [is_weak(p) for p in parts]
        self.name_of_last = None  # the position among the loop's names of the one holding the last item

    def initial(self):
        with trace.current().emitting():
            buffers = tuple(wrap(full(0, (len(self.steps), *shape), dtype), scalar=False)
                            for shape, dtype in zip(self.shapes, self.dtypes))
        return buffers if self.arity else buffers[0]

    def enter(self, buffer, index) -> None:
        self.buffer, self.index, self.length = buffer, index, len(self.holder)

    def leave(self, held):
        """The buffers with the item the step appended at their row (taken off the list again); an error
        (the loop then unrolls) where the step appended otherwise or NumPy's list would not hold
        the item as it is now."""
        grown = self.holder[self.length:]
        del self.holder[self.length:]
        parts = self._parts(grown[0]) if len(grown) == 1 else None
        if parts is None:
            raise ControlFlowError(f"the body of a traced loop appends to `{self.name}` other than one item a step "
                                   f"of the first one's kind ({self._kind()}) holding no array twice")
        self.name_of_last = None if self.arity else _went_on_with(parts[0], held)
        if self.name_of_last is None and not all(_as_made(part, held) for part in parts):
            raise ControlFlowError(f"the body of a traced loop appends to `{self.name}` an array that may "
                                   "change after it is appended (one the loop goes on with or a view of it, or one "
                                   "made before the loop); append a copy")
        self.weak = [w and is_weak(part) for w, part in zip(self.weak, parts)]
        start, step = self.steps.start, self.steps.step
        row = self.index if (start, step) == (0, 1) else (self.index - start) // step
        buffers = self.buffer if self.arity else (self.buffer,)
        for buffer, part in zip(buffers, parts):
            buffer[row] = part
        return self.buffer

    def _parts(self, item) -> tuple | None:
        """`item`'s parts (itself, or a tuple's items), each of the first item's shape and dtype, no array
        among them twice (NumPy's list would hold it twice, each row a copy here); else None."""
        parts = (item if type(item) is tuple and len(item) == self.arity else None) if self.arity else (item,)
        if parts is None or [np.shape(p) for p in parts] != self.shapes or [_dtype(p) for p in parts] != self.dtypes:
            return None
        arrays = [p.root() for p in parts if isinstance(p, TracedArray) and np.ndim(p) > 0]
        return parts if len({id(a) for a in arrays}) == len(arrays) else None

    def _kind(self) -> str:
        kinds = [f"{dtype}{list(shape)}" for shape, dtype in zip(self.shapes, self.dtypes)]
        return f"a tuple of {', '.join(kinds)}" if self.arity else kinds[0]

    def restore(self) -> None:
        del self.holder[self.length:]

    def finish(self, buffer, names) -> None:
        columns = [[self._kept(b[k], weak) for k in range(len(self.steps))]
                   for b, weak in zip(buffer if self.arity else (buffer,), self.weak)]
        self.holder.extend(zip(*columns) if self.arity else columns[0])
        if self.name_of_last is not None and columns[0]:
            self.holder[-1] = leaves_of(names)[self.name_of_last]  # (NumPy's list and name share it)

    @staticmethod
    def _kept(x, weak: bool):
        """A row as the list holds it: a number as its step made it, an array of its own."""
        return weakened(x, weak) if isinstance(x, TracedScalar) else x.copy()

    def __str__(self) -> str:
        return f"{self.name}[...]"


def carried(slots, steps: range | None, lists) -> list | None:
    """What a loop over `steps` (None: not a static range) carries of the changes `slots`
    (`python_objects.ObjectsChanged.slots`): the entries as they are, the appended lists among
    `lists` (those the body uses by one `append` alone) as `Collected`; None where one cannot be."""
    if not slots:
        return None
    out = []
    for slot in slots:
        if not isinstance(slot, Appended):
            out.append(slot)
        elif steps is None or not any(slot.holder is x for x in lists):
            return None
        else:
            out.append(Collected(slot, steps))
    return out


def _dtype(item) -> np.dtype:
    return item.dtype if hasattr(item, "dtype") else np.result_type(type(item))


def _went_on_with(item, held) -> int | None:
    """The position among the loop's names of the one name that goes on with `item`, an array the step
    made, where nothing else the loop carries holds or views it and no step writes that name's array
    in place (its stand-in unwritten): NumPy's list then holds it as it is at the end of its step."""
    names, entries, before = (leaves_of(part) for part in held)
    if not isinstance(item, TracedArray) or item._parent is not None or np.ndim(item) == 0 or \
            item.alternatives() is not None or item.depth < len(SESSION.regions) or len(names) != len(before):
        return None
    holding = [k for k, x in enumerate(names) if isinstance(x, TracedArray) and x.root() is item]
    if len(holding) != 1 or names[holding[0]] is not item or \
            any(isinstance(x, TracedArray) and x.root() is item for x in entries):
        return None
    stand_in = before[holding[0]]
    unwritten = isinstance(stand_in, TracedArray) and stand_in._parent is None and stand_in.version == 0 and \
        stand_in.depth >= len(SESSION.regions) and stand_in.alternatives() is None
    return holding[0] if unwritten else None


def _as_made(item, held) -> bool:
    """Whether NumPy's list holds `item` as it is at the end of its step: a number, or an array the
    step made (or a view of one: a draw's rows) of which nothing `held` (what the loop carries on)
    is a view or the array itself, so that no later step can change it."""
    if isinstance(item, TracedScalar) or not isinstance(item, (TracedArray, np.ndarray)):
        return True
    if not isinstance(item, TracedArray) or np.ndim(item) == 0:
        return False  # (a host array; a 0-d array, whose rows would be NumPy scalars)
    root = item.root()
    return root.depth >= len(SESSION.regions) and not any(
        isinstance(x, TracedArray) and x.root() is root for x in leaves_of(held))
