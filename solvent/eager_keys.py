"""What a function reads besides its arguments, as a key of the eager program that runs it (`eager`):
a program is reused only while all of it is unchanged, so a global that changes between calls (a new
minibatch in `X`, `model.W` updated, a module's constant) gives a new program, never a stale one.

Numbers, strings and arrays are keyed by value (arrays by a hash of their bytes), containers by their
items, plain functions by their code and what they read in turn (closure, defaults, the globals their
code names), modules, classes and objects by the attributes the code names (and those the methods it
reaches name: `model.apply(x)` reading `self.W`), NumPy's and solvent's own objects by themselves.
A key holds no function or user object, only codes, classes and modules, so it keeps nothing alive.
What cannot be looked into (an object with its own `__getattr__`, an ndarray subclass, a
`solvent.Array`, whose values change in place) is None: its program is not kept.
"""

from __future__ import annotations

import dis
import enum
import functools
import hashlib
import numbers
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
    if isinstance(value, (tuple, list, dict, set, frozenset)):
        parts = [of(v, attributes, seen) for v in (value.items() if isinstance(value, dict) else value)]
        if any(p is None for p in parts):
            return None
        return kind, *(frozenset(parts) if isinstance(value, (set, frozenset)) else parts)
    if isinstance(value, LIBRARY_CALLABLES):
        return value
    if id(value) in seen:  # (reached again inside itself: keyed where it was first met)
        return kind, "again"
    seen = seen | {id(value)}
    return _of_code(value, attributes, seen) if callable(value) and not hasattr(value, "__dict__") or \
        isinstance(value, (types.FunctionType, types.MethodType, staticmethod, classmethod, property,
                           functools.partial, types.ModuleType, type)) else _of_object(value, attributes, seen)


def _of_code(value, attributes, seen):
    """Functions, methods, descriptors and partials by what they read; modules and classes by the
    attributes named; other callables without attributes (C code of another library) by themselves."""
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
    if isinstance(value, (types.ModuleType, type)):
        return _all_keyed(value, _attributes(value, attributes, seen))
    return value


def _of_object(value, attributes, seen):
    """An object by its class and the attributes the code names; NumPy's and solvent's own objects (np.s_,
    a jitted function's wrapper by its function) by themselves; None for what cannot be looked into."""
    kind = type(value)
    if isinstance(value, runtime_array.Array):
        return None  # (its values may change in place: `a += 1`)
    wrapped = getattr(value, "pyfunc", None) if isinstance(value, np.vectorize) else getattr(value, "fn", None) \
        if kind.__name__ == "Jitted" and kind.__module__ == "solvent.api" else None
    if wrapped is not None:
        return _all_keyed(kind, of(wrapped, attributes, seen))
    if kind.__module__.partition(".")[0] in ("numpy", "solvent"):
        return kind, id(value)
    if kind.__getattribute__ is not object.__getattribute__ or hasattr(kind, "__getattr__"):
        return None  # (attributes made on the fly)
    return _all_keyed(kind, _attributes(value, attributes | {"__call__"} if callable(value) else attributes, seen))


def _users(value) -> bool:
    """Whether a function, module or class is the user's own (not a library's, whose values stay)."""
    if isinstance(value, types.FunctionType):
        return is_users_file(value.__code__.co_filename)
    module = value if isinstance(value, types.ModuleType) else sys.modules.get(value.__module__)
    return is_users_file(getattr(module, "__file__", None))


def _all_keyed(*parts):
    return None if any(p is None for p in parts) else parts


def _attribute_names(value) -> frozenset:
    """The attribute names the code of a function, method or descriptor found as an attribute names
    (a method reading `self.W` reads the object's `W`)."""
    for inner in (getattr(value, "__func__", None), getattr(value, "fget", None), value):
        if isinstance(inner, types.FunctionType):
            return names(inner.__code__)[1]
    return frozenset()


def _attributes(owner, attributes: frozenset, seen: frozenset) -> tuple | None:
    """A module's, class's or object's attributes among `attributes` and among those the methods found
    name in turn, each keyed, or None where one cannot be."""
    is_class, is_module = isinstance(owner, type), isinstance(owner, types.ModuleType)
    classes = owner.__mro__ if is_class else () if is_module else type(owner).__mro__
    spaces = ([] if is_class or not hasattr(owner, "__dict__") else [vars(owner)]) + [vars(c) for c in classes]
    slots = set() if is_class or is_module else {n for c in classes for n in getattr(c, "__slots__", ())}
    found, wanted = {}, set(attributes)
    while True:
        for name in wanted - found.keys():
            space = next((s for s in spaces if name in s), None)
            if name in slots and hasattr(owner, name):  # (a slot's value, not its descriptor in the class)
                found[name] = getattr(owner, name)
            elif space is not None:
                found[name] = space[name]
        more = set().union(*(_attribute_names(v) for v in found.values())) - wanted
        if not more:
            break
        wanted |= more
    read = [(name, of(found[name], frozenset(wanted), seen)) for name in sorted(found)]
    return None if any(k is None for _, k in read) else tuple(read)
