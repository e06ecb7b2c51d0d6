"""Public entry points: jit, compile, export and load, code_hlo, code_mhlo, code_xla. Wires the
stages only: lower and compile (compiler/lower.py) -> generate the thunk (compiler/thunk.py) ->
cache it (compiler/cache.py)."""

from __future__ import annotations

import dataclasses
import functools
import inspect
import math
import time

import numpy as np

from solvent.compiler import export as exported, thunk as thunks
from solvent.compiler.cache import ThunkCache, call_key, full_key
from solvent.compiler.explain import Recompiles, report_stages
from solvent.compiler.lower import Lowered, Options, Stages, cached_executable, executable_for, lower
from solvent.core import structure, trace as trace_state
from solvent.core.session import ACTIVE
from solvent.errors import SignatureError, UnsupportedError
from solvent.runtime import devices, executable as executables
from solvent.runtime.array import Array, device_of as array_device


class Entry:
    """Base of the objects users call: each instance has its own subclass, whose `__call__` is the
    generated fast path of its latest signature (`thunk.fast`), so a call with the arguments of
    that signature runs in one Python frame; any other call goes to `miss(args, kwargs)`."""

    def __new__(cls, *args, **kwargs):
        own = type(cls.__name__, (cls,), {"__module__": cls.__module__, "__qualname__": cls.__qualname__})
        return object.__new__(own)

    def __call__(self, *args, **kwargs):
        return self.miss(args, kwargs)

    def enter(self, thunk) -> None:
        """Make `thunk`'s signature the one this object's calls try first."""
        own = type(self)
        if own.__dict__.get("__call__") is not thunk.fast:
            own.__call__ = thunk.fast


class Compiled(Entry):
    """One function compiled for exactly one signature; call it like the function."""

    def __init__(self, fn, args, kwargs, lowered: Lowered, options: Options):
        self.fn, self.lowered, self.options, self.name = fn, lowered, options, _name(fn)
        self.first_static = _first_static(fn, options.static_argnames)
        self.key = call_key(args, kwargs, options.static_argnames)
        self.full_key = full_key(args, kwargs, options.static_argnames)
        stages = Stages(lowered.seconds)
        with stages("XLA compile"):
            self.executable, self.placement = executable_for(lowered, options)
        self.seconds = stages  # per stage, thunk generation included
        started = time.perf_counter()
        self.thunk = thunks.generate(lowered.signature, self.executable, options.device, options.sync,
                                     self.placement, name=_name(fn),
                                     undonated=self._undonated if options.donate else None,
                                     example=(args, kwargs) if not options.static_argnames else None)
        self._without_donation = None
        self.enter(self.thunk)
        stages["thunk generation"] = time.perf_counter() - started

    def _undonated(self, args, kwargs):
        """The call run by the same program compiled without donation (when donating may not fit)."""
        if self._without_donation is None:
            options = dataclasses.replace(self.options, donate=False, sync=True)  # fail before any write-back
            self._without_donation = Compiled(self.fn, args, kwargs, lower(self.fn, args, kwargs, options), options)
        return self._without_donation.thunk(args, kwargs)

    def miss(self, args, kwargs):
        """A call the fast path did not take: checked against the signature, then run."""
        if self.first_static:
            args, kwargs = _move_statics(args, kwargs, self.first_static)
        key = call_key(args, kwargs, self.options.static_argnames)
        received = key if key == self.key else full_key(args, kwargs, self.options.static_argnames)
        if received != self.key and received != self.full_key:  # (views stood in for `ShapeDtype`s)
            raise SignatureError(
                f"{self.name} was compiled for arguments {describe(self.full_key)} but was called "
                f"with {describe(received)}; call solvent.compile again for the new signature, or use solvent.jit")
        return self.thunk(args, kwargs)

    def cost_analysis(self) -> dict:
        return self.executable.cost_analysis()

    def memory_analysis(self):
        """XLA's sizes of the arguments, outputs, temporaries and code (bytes), beside `cost_analysis`."""
        return self.executable.get_compiled_memory_stats()

    def hlo(self) -> str:
        return executables.hlo_text(self.executable)

    def as_text(self) -> str:
        return self.lowered.optimized_text

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name}, {describe(self.full_key)})"


class Loaded(Compiled):
    """A `Compiled` read back by `solvent.load`: the same calls, in a process without its source."""

    def __init__(self, path, device=None):
        device = devices.resolve(device)
        meta, text, payload = exported.read(path, device.platform)
        self.fn, self.name, self.lowered, self.placement, self.first_static = None, meta["name"], None, None, None
        self.options = Options(static_argnames=tuple(meta["static_argnames"]), device=device)
        self.key, self.full_key, self.text = payload["key"], payload["full_key"], text
        self.executable = cached_executable(text, device)
        self.thunk = thunks.generate(payload["signature"], self.executable, device, name=self.name)
        self.enter(self.thunk)

    def as_text(self) -> str:
        return self.text


def export(compiled: Compiled, path) -> None:
    """Write `compiled` (from `solvent.compile`) to `path` for `solvent.load`, in this process or
    another that has not its source: the program as a StableHLO portable artifact, and how calls
    map to it (see `compiler/export.py`)."""
    if not isinstance(compiled, Compiled) or isinstance(compiled, Loaded):
        raise TypeError(f"solvent.export takes what solvent.compile returns, not {type(compiled).__name__}")
    if compiled.placement is not None:
        raise UnsupportedError(f"cannot export {compiled.name}: it runs sharded over several devices, "
                               "and export writes one-device programs only")
    device = devices.resolve(compiled.options.device)
    exported.write(path, compiled.lowered.xla_text,
                   {"signature": compiled.lowered.signature, "key": compiled.key, "full_key": compiled.full_key},
                   {"name": compiled.name, "static_argnames": list(compiled.options.static_argnames),
                    "platform": device.platform})


def load(path, device=None) -> Loaded:
    """The function `solvent.export` wrote to `path`, compiled for `device` (default: the first),
    callable with arguments of the signature it was compiled for."""
    return Loaded(path, device)


class Jitted(Entry):
    """`solvent.jit(f)`: compiles per signature on first call, then runs the cached thunk."""

    def __init__(self, fn, options: Options):
        self.fn, self.options = fn, options
        self.cache = ThunkCache(options.cache_size)
        self.first_static = _first_static(fn, options.static_argnames)
        self.statics = options.static_argnames
        self.layouts = False  # whether call keys hold the strides of NumPy arrays (see `numpy.layout`)
        self.recompiles = Recompiles(fn, options.explain)
        functools.update_wrapper(self, fn)

    def miss(self, args, kwargs):
        """A call the fast path did not take: inlined into a trace, or run by its signature's thunk
        (compiled first if new), which becomes the one calls try first."""
        if ACTIVE[0] and trace_state.is_tracing():  # a jitted helper called from traced code: inline it
            return self.fn(*args, **kwargs)
        if self.first_static:
            args, kwargs = _move_statics(args, kwargs, self.first_static)
        key = call_key(args, kwargs, self.statics, self.layouts)
        thunk = self.cache.get(key)
        if thunk is None:
            self.recompiles.compiling(self.fn, args, kwargs)
            options = _on_their_device(self.options, args, kwargs)
            lowered = lower(self.fn, args, kwargs, options)
            compiled = Compiled(self.fn, args, kwargs, lowered, options)
            report_stages(self.recompiles.name, compiled.seconds)
            if lowered.signature.layouts and not self.layouts:  # from now on keys tell layouts apart
                self.layouts = True
                self.cache.entries.clear()
                key = call_key(args, kwargs, self.statics, True)
            thunk = self.cache.put(key, compiled.thunk)
        self.enter(thunk)
        return thunk(args, kwargs)

    def __get__(self, obj, objtype=None):  # works as a method decorator too
        return self if obj is None else functools.partial(self, obj)


def _first_static(fn, names):
    """(names of the parameters that may be passed by position, index of the first static one) or None
    when all are passed by name. Static arguments are passed by name: a positional-only one cannot be."""
    if not names:
        return None
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):  # (no signature to read: a builtin)
        return None
    for name in names:
        kind = next((p.kind for p in params if p.name == name), None)
        if kind is None and not any(p.kind is p.VAR_KEYWORD for p in params):
            raise ValueError(f"static_argnames names {name!r}, which is not a parameter of {_name(fn)}")
        if kind is inspect.Parameter.POSITIONAL_ONLY:
            raise ValueError(f"static_argnames names {name!r}, a positional-only parameter of {_name(fn)}: "
                             "solvent passes static arguments by name, so make it a plain parameter (drop the /)")
    positional = [p.name for p in params if p.kind is p.POSITIONAL_OR_KEYWORD]
    positions = [positional.index(n) for n in names if n in positional]
    return (positional, min(positions)) if positions else None


def _move_statics(args, kwargs, first_static):
    """Pass the static arguments, and the positional ones after them, by name."""
    params, first = first_static
    if len(args) <= first:
        return args, kwargs
    if len(args) > len(params):
        raise SignatureError(f"static argument {params[first]!r} passed by position before more positional "
                             f"arguments than its function names ({len(args)} for {len(params)}, the rest for its "
                             "*args): solvent passes static arguments by name, which Python then refuses; pass the "
                             "extra ones as one tuple, or make the static parameter keyword-only")
    return args[:first], {**kwargs, **dict(zip(params[first:], args[first:]))}


def jit(fn=None, **options):
    """Compile `fn` with XLA, once per argument signature.

    Example::

        @solvent.jit
        def step(u, v, dt):
            u[1:-1] += dt * (v[2:] - v[:-2])
            return np.sum(u * u)
    """
    if fn is None:
        return lambda f: jit(f, **options)
    if "static_argnums" in options:  # (jax.jit's name for them): the parameters at those positions
        names = options.get("static_argnames", ())
        options["static_argnames"] = ((names,) if isinstance(names, str) else tuple(names)) + \
            _parameters_at(fn, options.pop("static_argnums"))
    return Jitted(fn, Options(**options))


def _parameters_at(fn, positions) -> tuple[str, ...]:
    """The names of `fn`'s positional parameters at `positions` (an int or several; negative from the end)."""
    params = [p for p in inspect.signature(fn).parameters.values()
              if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    names = []
    for k in (positions,) if isinstance(positions, int) else positions:
        if not -len(params) <= k < len(params):
            raise ValueError(f"static_argnums={k} is not a position of {_name(fn)}'s {len(params)} "
                             "positional parameters")
        names.append(params[k].name)
    return tuple(names)


@dataclasses.dataclass(frozen=True)
class ShapeDtype:
    """A NumPy array argument of this shape and dtype, for `solvent.compile` ahead of time:
    `solvent.compile(f, solvent.ShapeDtype((1024,), np.float64))` runs on real arrays of that signature."""

    shape: tuple
    dtype: object = np.float64

    def stand_in(self) -> np.ndarray:
        """An ndarray of this shape and dtype laid out as a NumPy array made anew is (C order), which a
        program that depends on layouts is compiled for; its memory is never touched (pages the system
        gives on first use). Past a gigabyte, a broadcast zero that holds none (of no such layout)."""
        dtype, shape = np.dtype(self.dtype), tuple(self.shape)
        if dtype.itemsize * math.prod(shape) <= 1 << 30:
            return np.empty(shape, dtype)
        return np.broadcast_to(np.zeros((), dtype), shape)


def _is_spec(x) -> bool:
    return isinstance(x, ShapeDtype)


def compile(fn, *args, **kwargs) -> Compiled:
    """Compile `fn` ahead of time for exactly these arguments (or `ShapeDtype`s standing for NumPy
    arrays, anywhere in them); options go in `kwargs` too."""
    fn, args, kwargs, options = _prepared(fn, args, kwargs)
    specs = structure.flatten((args, kwargs), is_leaf=_is_spec)
    if specs:
        args, kwargs = structure.unflatten((args, kwargs), [x.stand_in() for x in specs], is_leaf=_is_spec)
    options = _on_their_device(options, args, kwargs)
    return Compiled(fn, args, kwargs, lower(fn, args, kwargs, options), options)


def _on_their_device(options: Options, args, kwargs) -> Options:
    """`options` naming the device the arguments' Arrays are on, where that is not the default one and
    the options name none: a program runs where its data is (their keys tell the devices apart)."""
    if options.device is not None:
        return options
    found = {array_device(x.key) for x in structure.flatten((args, kwargs)) if isinstance(x, Array)}
    if len(found) > 1:
        names = ", ".join(str(d or devices.default_device()) for d in found)
        raise SignatureError(f"arguments on several devices ({names}): move them onto one with a.to_device(device)")
    return dataclasses.replace(options, device=found.pop()) if found and None not in found else options


def code_hlo(fn, *args, **kwargs) -> str:
    """The StableHLO module after solvent's pass pipeline."""
    return lower(*_prepared(fn, args, kwargs)).optimized_text


def code_mhlo(fn, *args, **kwargs) -> str:
    """The module exactly as XLA receives it."""
    return lower(*_prepared(fn, args, kwargs)).xla_text


def code_xla(fn, *args, **kwargs) -> str:
    """XLA's optimized HLO module(s) after compilation; for a sharded program, the partitioned
    per-device module with the collectives XLA inserted."""
    return compile(fn, *args, **kwargs).hlo()


_OPTION_NAMES = {f.name for f in dataclasses.fields(Options)}


def _prepared(fn, args, kwargs):
    """(function, args, kwargs, options) of a call to compile or inspect: the options among `kwargs`
    over those a jitted `fn` was made with (the program it runs), static arguments passed by name."""
    given = {k: v for k, v in kwargs.items() if k in _OPTION_NAMES}
    kwargs = {k: v for k, v in kwargs.items() if k not in _OPTION_NAMES}
    options = dataclasses.replace(fn.options, **given) if isinstance(fn, Jitted) else Options(**given)
    fn = fn.fn if isinstance(fn, Jitted) else fn
    first_static = _first_static(fn, options.static_argnames)
    if first_static:
        args, kwargs = _move_statics(args, kwargs, first_static)
    return fn, args, kwargs, options


def _name(fn) -> str:
    return getattr(fn, "__qualname__", repr(fn))


def describe(key) -> str:
    """A readable signature from a call key: `(float64[3], 2.0)`."""
    from solvent.core.aval import Aval

    def show(k):
        if isinstance(k, tuple) and len(k) == 2 and isinstance(k[0], str) and k[0] == "ref":
            return "the same object again"
        if isinstance(k, tuple) and len(k) in (2, 3) and isinstance(k[1], Aval):
            layout = "" if len(k) < 3 else f" sharded {k[2].spec}" if hasattr(k[2], "spec") else \
                f" on {array_device(k)}"
            return f"{k[0].__name__}:{k[1]}{layout}"
        if isinstance(k, tuple) and len(k) == 2 and isinstance(k[0], type) and isinstance(k[1], tuple):
            inner = ", ".join(show(v) for _, v in k[1])
            return f"{k[0].__name__}({inner})"
        if isinstance(k, tuple) and len(k) == 2 and isinstance(k[0], type):
            return repr(k[1])
        return repr(k)
    shared = ""
    if key[1][:1] == ("shared memory",):  # arguments sharing memory: see structure.shared_memory
        groups: dict[int, list[str]] = {}
        for i, where in key[1][1]:
            groups.setdefault(where.group, []).append(str(i))
        shared = "; " + "; ".join(f"arrays {' and '.join(g)} (counted in argument order) views of one array"
                                  for g in groups.values())
        key = key[0]
    args, kwargs = key[1][0][1], key[1][1][1]
    return "(" + ", ".join([show(v) for _, v in args[1]] + [f"{n}={show(v)}" for n, v in kwargs[1]]) + shared + ")"
