"""Python objects a traced body changes (a list it appends to, a dict entry or an attribute it
sets): a body traced once stands for any number of runs, or none, so such a change would be made
once whatever the data. They are found by comparing the objects the body's function reaches before
and after it is traced, and put back; the error says which entries took other numbers or arrays, so
that a loop can carry them (`source.statements`)."""

from __future__ import annotations

import collections
import collections.abc
import contextlib
import dis
import functools
import itertools
import sys
import types

import numpy as np

from solvent.core.traced import TracedArray
from solvent.errors import (ControlFlowError, EscapedValueError, SolventError, UnsupportedError, is_users_file,
                            user_location)
from solvent.numpy.values import NDARRAY

#: How far the watch looks into nested containers, and how many objects (and items of one) at most.
DEPTH, MOST = 4, 10_000

_FUNCTIONS = (types.FunctionType, types.MethodType, functools.partial)

#: The parameter prefix a rewritten branch's or loop's function takes a name by where that name is a
#: cell of the user's function, which the function then sets (`rewrite._Rewriter._function`).
CARRIED_CELL = "__solvent_in_"


class _Watch:
    """The mutable objects the user's code reaches from a function, each with a copy of its contents:
    lists, dicts, sets and instances of the user's own classes (what solvent or a library holds
    changes while tracing by design)."""

    def __init__(self, fn):
        self.saved: list[tuple[str, object, object]] = []   # (name, object, its contents)
        self.bound: list[tuple[str, object, object]] = []   # (name, a cell or globals dict, its value there)
        self.shared: list[tuple[str, object, object]] = []  # (as `bound`: cells a rewritten body shares)
        self.seen: set[int] = set()
        self.lost: list[str] = []                             # iterators changed that cannot be put back
        self.where: tuple[str, int] | None = None            # where the user's first function met starts
        self._function(fn, DEPTH)

    def _function(self, fn, depth):
        if id(fn) in self.seen or depth < 0:
            return
        self.seen.add(id(fn))
        if isinstance(fn, types.MethodType):
            self._reach("self", fn.__self__, depth)
            return self._function(fn.__func__, depth)
        if isinstance(fn, functools.partial):
            return self._function(fn.func, depth)
        for name, x in getattr(fn, "reaches", {}).items():  # (what solvent's wrapper hands the user's code)
            self._reach(name, x, depth)
        code = getattr(fn, "__code__", None)
        if code is None:
            return
        own = is_users_file(code.co_filename)
        if own and self.where is None:
            self.where = (code.co_filename, code.co_firstlineno)
        if own:
            self._bindings(fn, code)
            defaults = getattr(fn, "__defaults__", None) or ()  # (`buf=np.zeros(3)`: one array for every call)
            for name, x in zip(code.co_varnames[code.co_argcount - len(defaults):code.co_argcount], defaults):
                self._reach(name, x, depth)
        for name, cell in zip(code.co_freevars, fn.__closure__ or ()):
            with contextlib.suppress(ValueError):  # a cell not yet filled
                x = cell.cell_contents
                if own or isinstance(x, _FUNCTIONS):
                    self._reach(name, x, depth)
        scope = fn.__globals__ if own else {}
        for name in dict.fromkeys(_global_names(code)):
            if name in scope:
                self._reach(name, scope[name], depth)

    def _bindings(self, fn, code):
        """The names outside itself the code rebinds: `nonlocal` cells and globals. A cell the source
        rewrite shares with a branch's or loop's function (`CARRIED_CELL`) is put back unreported."""
        cells, names = _rebound(code)
        for name, cell in zip(code.co_freevars, fn.__closure__ or ()):
            if name in cells:
                shared = CARRIED_CELL + name in code.co_varnames[:code.co_argcount]
                (self.shared if shared else self.bound).append((name, cell, _bound_value(cell, name)))
        self.bound += [(name, fn.__globals__, _bound_value(fn.__globals__, name)) for name in names]

    def _reach(self, name, x, depth):
        if isinstance(x, _FUNCTIONS):
            return self._function(x, depth - 1)
        if depth < 0 or len(self.seen) > MOST or id(x) in self.seen:
            return
        contents = _contents(x)
        if contents is None and not isinstance(x, tuple):
            return
        self.seen.add(id(x))
        if contents is not None:
            self.saved.append((name, x, contents))
        if type(x) is NDARRAY or isinstance(contents, _Position):
            return
        items = x if contents is None else contents
        for item in itertools.islice(items.values() if isinstance(items, dict) else items, MOST):
            self._reach(name, item, depth - 1)

    def put_back(self) -> tuple[list[str], list | None]:
        """Every watched object as it was; returns the names of those that had changed, and what a
        loop could carry of the changes: the entries (a dict's items, an object's attributes) the
        trace gave another number or array (`Slot`s), and the lists it appended one number or array
        to (`Appended`); None where it changed an object otherwise (added or removed an entry)."""
        names = [name for name, holder, old in self.bound if _bound_value(holder, name) is not old]
        for name, holder, old in self.bound + self.shared:
            _rebind(holder, name, old)
        slots = None if names else []
        for name, x, old in self.saved:
            new = _contents(x)
            if _same(new, old):
                continue
            names.append(name)
            _put(x, old)
            if isinstance(old, _Position) and not _same(_contents(x), old):
                self.lost.append(name)
            if slots is None:
                continue
            if isinstance(old, dict) and new.keys() == old.keys() and all(
                    _carriable(old[k]) and _carriable(new[k]) for k in old if new[k] is not old[k]):
                slots += [Slot(name, x, k) for k in old if new[k] is not old[k]]
            elif type(x) is list and len(new) == len(old) + 1 and _same(new[:-1], old) and (
                    _carriable(new[-1]) or type(new[-1]) is tuple and new[-1] and all(map(_carriable, new[-1]))):
                slots.append(Appended(name, x, new[-1]))
            else:
                slots = None
        return list(dict.fromkeys(names)), slots


class Slot:
    """One entry of a Python object a loop carries: an item of a dict or an attribute of an object.

    What a loop carries of a Python object has its value before the loop (`initial`), holds the
    carried value while a trace of the body runs (`enter`), gives the body's new value (`leave`), is
    as before after the trace (`restore`), and holds the loop's result after it (`finish`)."""

    def __init__(self, name: str, holder, key):
        self.name, self.holder, self.key = name, holder, key
        self.item = isinstance(holder, dict)

    def get(self):
        return self.holder[self.key] if self.item else vars(self.holder)[self.key]

    def set(self, v) -> None:
        (self.holder if self.item else vars(self.holder))[self.key] = v

    initial = get

    def leave(self, held):
        return self.get()

    def finish(self, v, names) -> None:
        self.set(v)

    def enter(self, v, index) -> None:
        self._before = self.get()
        self.set(v)

    def restore(self) -> None:
        self.set(self._before)

    def __str__(self) -> str:
        return f"{self.name}[{self.key!r}]" if self.item else f"{self.name}.{self.key}"


class Appended:
    """A list the trace of a body appended one number or array, or a tuple of them (`item`), to."""

    def __init__(self, name: str, holder: list, item):
        self.name, self.holder, self.item = name, holder, item


_UNBOUND = object()


@functools.lru_cache(maxsize=4096)
def _rebound(code) -> tuple[frozenset[str], frozenset[str]]:
    """The cell names and global names `code` (or a function defined in it) assigns or deletes."""
    cells, names = set(), set()
    for instruction in dis.get_instructions(code):
        if instruction.opname in ("STORE_DEREF", "DELETE_DEREF"):
            cells.add(instruction.argval)
        elif instruction.opname in ("STORE_GLOBAL", "DELETE_GLOBAL"):
            names.add(instruction.argval)
    for inner in code.co_consts:
        if isinstance(inner, types.CodeType):
            inner_cells, inner_names = _rebound(inner)
            cells |= inner_cells
            names |= inner_names
    return frozenset(cells), frozenset(names)


def _bound_value(holder, name):
    """What a cell, or a globals dict under `name`, holds (_UNBOUND for nothing)."""
    if isinstance(holder, dict):
        return holder.get(name, _UNBOUND)
    try:
        return holder.cell_contents
    except ValueError:
        return _UNBOUND


def _rebind(holder, name, v) -> None:
    if isinstance(holder, dict):
        holder.pop(name, None) if v is _UNBOUND else holder.__setitem__(name, v)
    elif v is _UNBOUND:
        with contextlib.suppress(ValueError):
            del holder.cell_contents
    else:
        holder.cell_contents = v


def _carriable(v) -> bool:
    """A number or an array, which a loop can carry as it carries a name."""
    return type(v) in (bool, int, float, complex) or isinstance(v, np.generic) or hasattr(v, "__array_ufunc__")


def _global_names(code):
    """The names `code` and the functions defined in it look up (a rewritten loop's body is one)."""
    yield from code.co_names
    for inner in code.co_consts:
        if isinstance(inner, types.CodeType):
            yield from _global_names(inner)


def _contents(x):
    """A copy of what a watched object holds (None for what is not watched): a NumPy array too (a
    global's, or one of strings; a traced body writing it would write it whatever the data)."""
    if type(x) is NDARRAY:
        return x.copy() if x.size <= MOST else None
    if hasattr(type(x), "__solvent_refuse__"):  # (a variable left unbound: source.unbound.Unbound)
        return None
    if isinstance(x, (list, set, bytearray, collections.deque)):
        return list(x)
    if isinstance(x, dict):
        return dict(x)
    if isinstance(x, (type, types.ModuleType)):
        return None
    if _is_iterator(x):
        with contextlib.suppress(TypeError, AttributeError):  # (one that cannot be pickled is not watched)
            return _Position(x)
        return None
    attributes = getattr(x, "__dict__", None)
    module = sys.modules.get(type(x).__module__)
    if not isinstance(attributes, dict) or not is_users_file(getattr(module, "__file__", None)):
        return None
    return dict(attributes)


class _Position:
    """Where an iterator stands: its `__reduce__`, with those of the iterators it draws from (a list's
    or a range's iterator is put back by `__setstate__`), or the instruction a generator stopped at."""

    def __init__(self, x, depth=DEPTH):
        if isinstance(x, types.GeneratorType):
            self.state = ("generator", x.gi_frame.f_lasti if x.gi_frame is not None else None)
            return
        reduced = x.__reduce__()
        self.state = (reduced[0], tuple(_Position(a, depth - 1) if depth and _is_iterator(a) else a
                                        for a in reduced[1]), *reduced[2:3])

    def __eq__(self, other):
        return _equal(self.state, other.state)

    def put(self, x) -> None:
        """Where it can: the iterator `x` back at this position."""
        if len(self.state) == 3 and hasattr(x, "__setstate__"):
            x.__setstate__(self.state[2])
        if self.state[0] != "generator":
            for inner, position in zip(x.__reduce__()[1], self.state[1]):
                if isinstance(position, _Position):
                    position.put(inner)


def _is_iterator(x) -> bool:
    return isinstance(x, collections.abc.Iterator) and not isinstance(x, (str, bytes))


def _equal(a, b) -> bool:
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_equal(u, v) for u, v in zip(a, b))
    return a is b or isinstance(a, (_Position, int, range, type(None))) and type(a) is type(b) and a == b


def _same(new, old) -> bool:
    if isinstance(old, _Position):
        return old == new
    if type(old) is NDARRAY:
        return new.dtype == old.dtype and new.shape == old.shape and new.tobytes() == old.tobytes()
    if isinstance(old, dict):
        return new.keys() == old.keys() and all(new[k] is old[k] for k in old)
    return len(new) == len(old) and all(a is b for a, b in zip(new, old))


def _put(x, old) -> None:
    if isinstance(old, _Position):
        old.put(x)
    elif type(x) is NDARRAY:
        x[...] = old
    elif isinstance(x, (list, bytearray)):
        x[:] = old
    elif isinstance(x, collections.deque):
        x.clear()
        x.extend(old)
    elif isinstance(x, (dict, set)):
        x.clear()
        x.update(old)
    else:
        vars(x).clear()
        vars(x).update(old)


@contextlib.contextmanager
def unchanged(fn, what: str | None):
    """Around the trace of `fn`: the Python objects it reaches, and the globals and `nonlocal` names it
    assigns, hold afterwards what they held before; gives the list of those that had changed. Where
    `what` names the body and it changed one, that is an error: rolled or branched, the change would
    be made once whatever the data."""
    watch = _Watch(fn)
    names = []
    try:
        yield names
    finally:
        changed, slots = watch.put_back()
        names += changed
    if watch.lost:
        raise LostIterator(
            f"{what or 'a body solvent traces apart'} advances the iterator `{watch.lost[0]}` (with next(), or a "
            "loop over it), which solvent traces once whatever the data and cannot put back; read its items "
            "into a list before it (items = list(...)) and index that", watch.where or user_location())
    if names and what is not None:
        listed = ", ".join(f"`{n}`" for n in names)
        raise ObjectsChanged(
            f"{what} changes the Python object {listed} (appends to it, sets an item or attribute, or advances "
            "it): "
            "solvent traces such a body once, whatever the data, so the change would not follow the data; "
            "count or collect in arrays (h = np.zeros(n) before the loop, h[i] = v in it) or in names the body "
            "assigns instead", watch.where or user_location(),
            slots=slots)


@contextlib.contextmanager
def keeping_no_traced_values(fn):
    """Around the trace of a compiled function: a Python object it reaches (a global list, an
    attribute of `self`) that the trace left holding a traced value is put back, and that is an
    error: the value stands for one call of one trace, whatever the calls that run the program."""
    watch = _Watch(fn)
    failed = True
    try:
        yield
        failed = False
    finally:
        names, written = [], []
        for name, x, old in watch.saved:
            new = _contents(x)
            if not _same(new, old) and type(x) is NDARRAY:
                _put(x, old)
                written.append(name)
            elif not _same(new, old) and not isinstance(old, _Position) and _holds_traced(
                    new.values() if isinstance(new, dict) else new):
                _put(x, old)
                names.append(name)
        for name, holder, old in watch.bound:
            if _holds_traced([_bound_value(holder, name)]):
                _rebind(holder, name, old)
                names.append(name)
    if written and not failed:
        raise UnsupportedError(
            f"the function writes into the NumPy array `{written[0]}` (a global's, a closure's or a default "
            "argument's): compiled, the "
            "array is a constant of the program, written once while tracing, not at every call; pass it as an "
            "argument (the call writes into it), or return the new values", watch.where or user_location())
    if names and not failed:
        raise EscapedValueError(
            f"the function stores a traced value in the Python object `{names[0]}` (a global, a closure or an "
            "attribute of `self`): compiled, the object would keep one value of the trace, not one per call; "
            "return the value instead (or pass the object as an argument, whose changes come back)",
            watch.where or user_location())


def _holds_traced(items, depth: int = 3) -> bool:
    for v in items:
        if isinstance(v, TracedArray) or depth and isinstance(v, (list, tuple, dict, set)) and _holds_traced(
                v.values() if isinstance(v, dict) else v, depth - 1):
            return True
    return False


class LostIterator(SolventError):
    """A traced body advanced an iterator that cannot be rewound (a generator): not an error that
    unrolling the loop could mend, since the trace has taken its items."""


class ObjectsChanged(ControlFlowError):
    """A traced body changed Python objects; `slots` lists the entries it gave other numbers or arrays,
    which a loop can carry (None where it changed them otherwise)."""

    def __init__(self, message, location=None, slots=None):
        super().__init__(message, location)
        self.slots = slots
