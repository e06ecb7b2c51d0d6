"""What a function reads besides its arguments, as a key of the eager program that runs it (`eager`):
a program is reused only while all of it is unchanged, so a global that changes between calls (a new
minibatch in `X`, `model.W` updated, a module's constant) gives a new program, never a stale one.

Numbers, strings and arrays are keyed by value (arrays by a hash of their bytes), containers by their
items, plain functions by their code and what they read in turn (closure, defaults, the globals their
code names), modules by the attributes the code names (and those the functions found name in turn),
objects and classes by all their own attributes and those of their user classes (a method, `super()`
or a dunder reads them unnamed), a library's functions, modules and classes and solvent's own objects
by themselves. A key holds no user function or object, so it keeps none alive. What cannot be looked
into (an object with its own `__getattr__`, an ndarray subclass, a `solvent.Array`, whose values change
in place, an iterator) is None: its program is not kept.
"""

from __future__ import annotations

import array
import collections
import dis
import enum
import functools
import hashlib
import io
import numbers
import pickle
import sys
import types

import numpy as np

from solvent.errors import is_users_file
from solvent.runtime import array as runtime_array

#: Callables of NumPy, builtins and C extensions: what a trace reads of them is their code, known by
#: their identity (they live as long as the process).
LIBRARY_CALLABLES = (types.BuiltinFunctionType, types.BuiltinMethodType, types.WrapperDescriptorType,
                      types.MethodDescriptorType, np.ufunc, type(np.sum))
_GLOBAL_OPS = {"LOAD_GLOBAL", "LOAD_NAME", "STORE_GLOBAL", "DELETE_GLOBAL"}
_ATTRIBUTE_OPS = {"LOAD_ATTR", "LOAD_METHOD", "STORE_ATTR", "DELETE_ATTR", "IMPORT_FROM"}
_DYNAMIC = frozenset({"globals", "locals", "eval", "exec"})


class _NotPlain(Exception):
    """A container holds something other than numbers, strings, bytes and containers of them."""


class _PlainPickler(pickle.Pickler):
    """Pickles exactly the built-in numbers, strings and containers (which skip `reducer_override`)."""

    def reducer_override(self, obj):
        raise _NotPlain


@functools.lru_cache(maxsize=1024)
def names(code) -> tuple[frozenset, frozenset]:
    """(global names, attribute names) `code` and the code nested in it use; its string constants count
    as attribute names too (`getattr(h, "W")`). Found once per code: eager calls ask on every call."""
    found_globals, attributes, codes = set(), set(), [code]
    while codes:
        code = codes.pop()
        for instruction in dis.get_instructions(code):
            if instruction.opname in _GLOBAL_OPS:
                found_globals.add(instruction.argval)
            elif instruction.opname in _ATTRIBUTE_OPS:
                attributes.add(instruction.argval)
        attributes.update(c for c in code.co_consts if isinstance(c, str) and c.isidentifier())
        codes += [c for c in code.co_consts if isinstance(c, types.CodeType)]
    return frozenset(found_globals), frozenset(attributes)


def of_function(fn, seen: frozenset = frozenset()) -> tuple | None:
    """What a trace of the plain function `fn` reads besides its code: its closure, defaults and the
    globals it names, or None where one cannot be keyed."""
    try:
        cells = tuple(c.cell_contents for c in fn.__closure__ or ())
    except ValueError:  # a closure cell not yet filled
        return None
    global_names, attributes = names(fn.__code__)
    if global_names & _DYNAMIC:
        return None  # (names it reads only when it runs: globals()["X"], eval("Y"))
    seen = seen | {id(fn)}
    read = sorted(n for n in global_names if n in fn.__globals__)
    given = (*cells, *(fn.__defaults__ or ()), *(fn.__kwdefaults__ or {}).values())
    keys = [of(v, attributes, seen) for v in (*given, *(fn.__globals__[n] for n in read))]
    return None if any(k is None for k in keys) else (*read, *keys)


def of(value, attributes: frozenset = frozenset(), seen: frozenset = frozenset()):
    """The key of `value` for a trace of code naming `attributes`, or None (see the module docstring)."""
    kind = type(value)
    if isinstance(value, (numbers.Number, str, bytes, type(None), np.generic, enum.Enum, type(Ellipsis))):
        return (kind, repr(value)) if isinstance(value, (float, complex, np.inexact)) else (kind, value)
    if isinstance(value, (slice, range)):
        return kind, value.start, value.stop, value.step
    if isinstance(value, np.ndarray):
        if kind is not np.ndarray or value.dtype == object:
            return None  # (a subclass holds more than its bytes: a mask, a matrix's rules)
        contents = np.ascontiguousarray(value).reshape(-1).view(np.uint8)  # (any dtype's bytes: datetimes too)
        return kind, value.shape, value.dtype.str, hashlib.blake2b(contents, digest_size=16).digest()
    if isinstance(value, (bytearray, array.array)):
        return kind, getattr(value, "typecode", ""), bytes(value)
    if hasattr(value, "__next__"):
        return None  # (an iterator: what it gives next changes as it is read)
    if kind in (tuple, list, dict, set, frozenset):
        plain = _plain_digest(value)
        if plain is not None:
            return kind, plain
    if isinstance(value, (tuple, list, dict, set, frozenset, collections.deque)):
        if hasattr(value, "__dict__") and vars(value):
            return None  # (a subclass's attributes besides its items)
        parts = [of(v, attributes, seen) for v in (value.items() if isinstance(value, dict) else value)]
        if any(p is None for p in parts):
            return None
        return kind, *(frozenset(parts) if isinstance(value, (set, frozenset)) else parts)
    if isinstance(value, types.BuiltinMethodType) and not isinstance(value.__self__, (types.ModuleType, type(None))):
        return _all_keyed(kind, value.__name__, of(value.__self__, attributes, seen))  # (`append = log.append`)
    if isinstance(value, LIBRARY_CALLABLES):
        return value
    if id(value) in seen:  # (reached again inside itself: keyed where it was first met)
        return kind, "again"
    seen = seen | {id(value)}
    return _of_code(value, attributes, seen) if isinstance(value, (
        types.FunctionType, types.MethodType, staticmethod, classmethod, property, functools.partial,
        types.ModuleType, type)) else _of_object(value, attributes, seen)


def _of_code(value, attributes, seen):
    """Functions, methods, descriptors and partials by what they read; modules and classes by their
    attributes (see `_attributes`); a library's functions, modules and classes by themselves."""
    if isinstance(value, (types.FunctionType, types.ModuleType, type)) and not _users(value):
        return value.__code__ if isinstance(value, types.FunctionType) else value  # (a library's: as it is)
    if isinstance(value, types.FunctionType):
        inner = of_function(value, seen)
        return None if inner is None else (value.__code__, inner)
    if isinstance(value, types.MethodType):
        function = of(value.__func__, attributes, seen)
        own = of(value.__self__, attributes | _attribute_names(value.__func__), seen)
        return None if function is None or own is None else (types.MethodType, function, own)
    if isinstance(value, (staticmethod, classmethod)):
        return _all_keyed(type(value), of(value.__func__, attributes, seen))
    if isinstance(value, property):
        return _all_keyed(property, *(of(f, attributes, seen) for f in (value.fget, value.fset, value.fdel)))
    if isinstance(value, functools.partial):
        return _all_keyed(functools.partial, *(of(v, attributes, seen) for v in (value.func, value.args,
                                                                              value.keywords)))
    return _all_keyed(value, _attributes(value, attributes, seen))  # (a module or class)


def _of_object(value, attributes, seen):
    """An object by its class and its attributes (see `_attributes`); a jitted function or np.vectorize by
    its function; solvent's own objects, and a library's without attributes, by themselves; None for
    what cannot be looked into."""
    kind = type(value)
    if isinstance(value, runtime_array.Array):
        return None  # (its values may change in place: `a += 1`)
    wrapped = getattr(value, "pyfunc", None) if isinstance(value, np.vectorize) else getattr(value, "fn", None) \
        if kind.__name__ == "Jitted" and kind.__module__ == "solvent.api" else None
    if wrapped is not None:
        return _all_keyed(kind, of(wrapped, attributes, seen))
    library = kind.__module__.partition(".")[0] == "solvent" or not _users(kind)
    if library and not hasattr(value, "__dict__") or kind.__module__.partition(".")[0] == "solvent":
        return kind, id(value)  # (state of C code, or solvent's own: by itself)
    if kind.__getattribute__ is not object.__getattribute__ or hasattr(kind, "__getattr__"):
        return None  # (attributes made on the fly)
    return _all_keyed(kind, _attributes(value, attributes, seen))


def _users(value) -> bool:
    """Whether a function, module or class is the user's own (not a library's, whose values stay)."""
    if isinstance(value, types.FunctionType):
        return is_users_file(value.__code__.co_filename)
    module = value if isinstance(value, types.ModuleType) else sys.modules.get(value.__module__)
    if module is None or getattr(module, "__file__", None) is None:  # (made by the program, or built in)
        return module is None or module.__name__ not in sys.builtin_module_names
    return is_users_file(module.__file__)


def _all_keyed(*parts):
    return None if any(p is None for p in parts) else parts


def _attribute_names(value) -> frozenset:
    """The attribute names the code of a function, method or descriptor found as an attribute names."""
    for inner in (getattr(value, "__func__", None), getattr(value, "fget", None), value):
        if isinstance(inner, types.FunctionType):
            return names(inner.__code__)[1]
    return frozenset()


def _attributes(owner, attributes: frozenset, seen: frozenset) -> tuple | None:
    """What a trace may read of a module, class or object, each keyed: of a module, its attributes
    among `attributes` and those the functions found name in turn; of an object or class, all its
    own attributes and those of its classes (and metaclasses) that are the user's (through methods, `super()`,
    descriptors and dunders a trace reads them unnamed), skipping what cannot be keyed unless named.
    None where a named one cannot be keyed."""
    if isinstance(owner, types.ModuleType):
        wanted = set(attributes)
        entries = _named(vars(owner), wanted)  # (`wanted` grows with the names the functions found name)
        if "__getattr__" in vars(owner) and not wanted <= vars(owner).keys():
            return None  # (a module's attributes made on the fly)
    else:
        classes = (*owner.__mro__, *type(owner).__mro__) if isinstance(owner, type) else type(owner).__mro__
        own = [] if isinstance(owner, type) else [vars(owner)] if hasattr(owner, "__dict__") else []
        slots = {n: getattr(owner, n) for c in classes for n in getattr(c, "__slots__", ())
                 if not isinstance(owner, type) and isinstance(n, str) and hasattr(owner, n)}
        spaces = [*own, slots, *(vars(c) for c in classes if c is not object and _users(c))]
        entries = [(k, n, v) for k, space in enumerate(spaces) for n, v in space.items()]
        wanted = set(attributes).union(*(_attribute_names(v) for _, _, v in entries))
    read = []
    for k, name, v in entries:
        key = of(v, frozenset(wanted), seen)
        if key is None and name in wanted:
            return None
        if key is not None:
            read.append((k, name, key))
    return tuple(read)


def _named(space: dict, wanted: set) -> list:
    """A module's entries among `wanted`, and among what the functions found name in turn."""
    found = {}
    while True:
        found.update((n, space[n]) for n in wanted if n in space)
        more = set().union(*(_attribute_names(v) for v in found.values())) - wanted
        if not more:
            return [(0, n, found[n]) for n in sorted(found)]
        wanted |= more


def _plain_digest(value) -> bytes | None:
    """A hash of a container of only numbers, strings and containers of them (pickled in C: a walk
    in Python took a second for 10^5 entries), or None."""
    buffer = io.BytesIO()
    try:
        _PlainPickler(buffer, protocol=5).dump(value)
    except (_NotPlain, RecursionError):
        return None
    return hashlib.blake2b(buffer.getbuffer(), digest_size=16).digest()
