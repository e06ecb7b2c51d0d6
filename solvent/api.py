"""Public entry points: jit, compile, code_hlo, code_mhlo, code_xla. Wires the stages only.

    trace (tracing.py) -> optimize (passes/) -> lower for XLA -> compile (runtime/)
    -> generate the thunk (compiler/thunk.py) -> cache it (compiler/cache.py)
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import inspect
import time
import warnings

import numpy as np
from jaxlib.mlir import ir

import solvent.ir
import solvent.ops.base
import solvent.ops.constant
import solvent.passes
from solvent.passes import block_updates, pipelines as passes
from solvent.sharding import gspmd, placement as placements
from solvent.compiler import thunk as thunks
from solvent.compiler import disk, export as exported
from solvent.compiler.cache import ThunkCache, call_key, full_key
from solvent.compiler.explain import Recompiles, report_stages
from solvent.compiler.thunk import MISS
from solvent.core import structure, trace as trace_state
from solvent.errors import EscapedValueError, SignatureError, UnsupportedError
from solvent.ir.module import find_function, parse, to_text
from solvent.runtime import devices, executable as executables
from solvent.tracing import Signature, trace
from solvent.transforms.source import rewrite


@dataclasses.dataclass(frozen=True)
class Options:
    """Compilation options, shared by every entry point."""

    optimize: bool | str = True
    no_nan: bool = False
    sync: bool = False
    device: object = None
    donate: bool = True
    static_argnames: tuple = ()
    control_flow: bool = True    # rewrite if/while/for so traced conditions become stablehlo ops
    unroll: int = 16             # static `for ... in range(n)` loops longer than this are rolled
    in_shardings: object = None  # one sharding, or one per positional argument, or {parameter: sharding}
    out_shardings: object = None  # one sharding, or one per returned item (tuple, list or dict)
    shardy_passes: str = "none"  # "none": XLA's Shardy partitions; "to_mhlo_shardings": GSPMD does
    cache_size: int = 64         # signatures kept compiled per jitted function (least recently used go)
    explain: bool = False        # log why a jitted function compiles again (also SOLVENT_LOG=recompiles)

    def __post_init__(self):
        passes.pipeline(passes.level_name(self.optimize), self.no_nan)  # fail early on a bad level
        if isinstance(self.static_argnames, str):
            object.__setattr__(self, "static_argnames", (self.static_argnames,))
        if self.shardy_passes not in SHARDY_PASSES:
            raise ValueError(f"unknown shardy_passes={self.shardy_passes!r}; choose one of "
                             f"{', '.join(map(repr, SHARDY_PASSES))}")


#: `shardy_passes` choices (Reactant's names): who turns the module's shardings into a partitioned program.
SHARDY_PASSES = ("none", "to_mhlo_shardings")


@dataclasses.dataclass
class Lowered:
    """Every stage of one signature's compilation."""

    signature: Signature
    traced_text: str     # as traced, before passes
    optimized_text: str  # after solvent's pass pipeline (code_hlo)
    xla_text: str        # as handed to XLA: entry point public, donations marked (code_mhlo)
    placement: placements.Placement | None = None  # mesh and shardings of an SPMD program
    seconds: dict = dataclasses.field(default_factory=dict)  # time spent per stage


class _Stages(dict):
    """Seconds per stage of one compilation: `with stages("trace"): ...`."""

    @contextlib.contextmanager
    def __call__(self, name: str):
        start = time.perf_counter()
        try:
            yield
        finally:
            self[name] = self.get(name, 0.0) + time.perf_counter() - start


def lower(fn, args, kwargs, options: Options) -> Lowered:
    stages = _Stages()
    parameters = _parameters(fn)
    with stages("source rewrite"):
        if options.control_flow:
            fn = rewrite.convert(fn)
    with stages("trace"), placements.program(placements.find_mesh(args, kwargs, options)) as program:
        traced = _trace(fn, args, kwargs, options)
    placement = placements.plan(traced.signature, options, program.mesh, parameters)
    if placement is not None:
        placements.annotate(traced.module, placement, traced.signature)
    with stages("print traced module"):
        traced_text = to_text(traced.module)
    with stages("pass pipeline"):
        optimized = _optimized(traced_text, passes.level_name(options.optimize), options.no_nan)
    with stages("export for XLA"):
        xla_text = _for_xla(optimized, traced.signature, options)
        if placement is not None:
            xla_text = _for_partitioner(xla_text, placement, options)
        elif options.optimize is not False and options.optimize != "none":
            xla_text = block_updates.rewrite(xla_text, min_fraction=LARGE_BLOCK)
    return Lowered(traced.signature, traced_text, optimized, xla_text, placement, dict(stages))


def _optimized(traced_text: str, level: str, no_nan: bool) -> str:
    """The pass pipeline's output, from the persistent cache when this module was optimized before
    by the same code (solvent's passes, the parser and printer, and the ops they build)."""
    pipeline = passes.passes_for(traced_text, level, no_nan)
    code = disk.fingerprint(solvent.passes, solvent.ir, solvent.ops.base, solvent.ops.constant)
    return disk.cached("passes", (traced_text, pipeline, code),
                       lambda: passes.run(traced_text, level, no_nan).encode()).decode()


def _executable(xla_text: str, device, **where):
    """XLA's executable for one device, or for the mesh and partitioning in `where` (see
    `executables.compile`), from the persistent cache when it compiled this module before."""
    mesh = where.get("mesh")
    made = []

    def compile_now() -> bytes:
        made.append(executables.compile(xla_text, device, **where))
        return executables.serialize(made[-1])

    def load(blob: bytes) -> None:  # an entry this jaxlib cannot load is compiled and stored anew
        made.append(executables.deserialize(blob, device, **where))

    _, placed, options = executables.devices_and_options(device, **where)
    placed = [(d.platform, d.device_kind, d.id) for d in placed]
    partitioning = {k: v for k, v in where.items() if k != "mesh"}
    mesh_shape = None if mesh is None else (mesh.devices.shape, tuple(mesh.axis_names))
    disk.cached("xla", (xla_text, placed, mesh_shape, sorted(partitioning.items()), options.SerializeAsString()),
                compile_now, check=load)
    return made[-1]


#: On one device, block updates covering at least this fraction of their array become pad + select.
LARGE_BLOCK = 0.5


def _for_partitioner(text: str, placement: placements.Placement, options: Options) -> str:
    """Block updates as pad + select (halo exchanges, not gathers); mhlo shardings if asked for."""
    text = block_updates.rewrite(text)
    if options.shardy_passes == "to_mhlo_shardings":
        text = gspmd.export(text, placement.mesh)
    return text


def _trace(fn, args, kwargs, options: Options):
    try:
        return trace(fn, args, kwargs, options.static_argnames, options.unroll)
    except EscapedValueError as error:
        if not error.rolled:
            raise
        lines = ", ".join(f"{file}:{line}" for file, line in error.rolled)
        warnings.warn(f"loops at {lines} were unrolled: a rolled body let a value escape "
                      "through a Python object", stacklevel=4)
        return trace(fn, args, kwargs, options.static_argnames, None)


def _parameters(fn) -> tuple:
    try:
        return tuple(inspect.signature(fn).parameters)
    except (TypeError, ValueError):  # builtins and some callables have no signature
        return ()


def _for_xla(text: str, signature: Signature, options: Options) -> str:
    """Mark each mutated input as donated to (aliased with) its new value's output."""
    if not (options.donate and signature.mutated):
        return text
    module = parse(text)
    main = find_function(module, "main")
    with module.context:
        attributes = list(main.arg_attrs) if "arg_attrs" in main.attributes else [
            ir.DictAttr.get({}) for _ in signature.input_avals]
        for i, k in signature.mutated.items():
            entries = {a.name: a.attr for a in ir.DictAttr(attributes[i])}
            entries["tf.aliasing_output"] = ir.IntegerAttr.get(ir.IntegerType.get_signless(32), k)
            attributes[i] = ir.DictAttr.get(entries)
        main.attributes["arg_attrs"] = ir.ArrayAttr.get(attributes)
    return to_text(module)


class Compiled:
    """One function compiled for exactly one signature; call it like the function."""

    def __init__(self, fn, args, kwargs, lowered: Lowered, options: Options):
        self.fn, self.lowered, self.options, self.name = fn, lowered, options, _name(fn)
        self.key = call_key(args, kwargs, options.static_argnames)
        self.full_key = full_key(args, kwargs, options.static_argnames)
        stages = _Stages(lowered.seconds)
        with stages("XLA compile"):
            self.executable, self.placement = _compile(lowered, options)
        self.seconds = stages  # per stage, thunk generation included
        started = time.perf_counter()
        self.thunk = thunks.generate(lowered.signature, self.executable, options.device, options.sync,
                                     self.placement, name=_name(fn),
                                     undonated=self._undonated if options.donate else None,
                                     example=(args, kwargs) if not options.static_argnames else None)
        self._without_donation = None
        stages["thunk generation"] = time.perf_counter() - started

    def _undonated(self, args, kwargs):
        """The call run by the same program compiled without donation (when donating may not fit)."""
        if self._without_donation is None:
            options = dataclasses.replace(self.options, donate=False, sync=True)  # fail before any write-back
            self._without_donation = Compiled(self.fn, args, kwargs, lower(self.fn, args, kwargs, options), options)
        return self._without_donation.thunk(args, kwargs)

    def __call__(self, *args, **kwargs):
        if not kwargs:
            result = self.thunk.fast(args)
            if result is not MISS:
                return result
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
        self.fn, self.name, self.lowered, self.placement = None, meta["name"], None, None
        self.options = Options(static_argnames=tuple(meta["static_argnames"]), device=device)
        self.key, self.full_key, self.text = payload["key"], payload["full_key"], text
        self.executable = _executable(text, device)
        self.thunk = thunks.generate(payload["signature"], self.executable, device, name=self.name)

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


def _compile(lowered: Lowered, options: Options):
    """(executable, placement with XLA's chosen layouts filled in, or None on one device)."""
    placement = lowered.placement
    if placement is None:
        return _executable(lowered.xla_text, options.device), None
    if options.device is not None:
        raise ValueError("device= names one device, but this program is sharded over a mesh; "
                         "drop device= (the shardings say where the program runs)")
    free_inputs, free_outputs = placement.free()
    executable = _executable(lowered.xla_text, None, mesh=placement.mesh, free_inputs=tuple(free_inputs),
                             free_outputs=tuple(free_outputs), shardy=options.shardy_passes == "none")
    return executable, placements.settle(placement, executable)


_TRACES = trace_state.ACTIVE


class Jitted:
    """`solvent.jit(f)`: compiles per signature on first call, then runs the cached thunk."""

    def __init__(self, fn, options: Options):
        self.fn, self.options = fn, options
        self.cache = ThunkCache(options.cache_size)
        self.first_static = _first_static(fn, options.static_argnames)
        self.statics = options.static_argnames
        self.fast = thunks.no_fast_path  # the latest signature's call, checking its own arguments
        self.recompiles = Recompiles(fn, options.explain)
        functools.update_wrapper(self, fn)

    def __call__(self, *args, **kwargs):
        if _TRACES[0] and trace_state.is_tracing():  # a jitted helper called from traced code: inline it
            return self.fn(*args, **kwargs)
        if not kwargs:
            result = self.fast(args)
            if result is not MISS:
                return result
        if self.first_static:
            args, kwargs = _move_statics(args, kwargs, self.first_static)
        key = call_key(args, kwargs, self.statics)
        thunk = self.cache.get(key)
        if thunk is None:
            self.recompiles.compiling(self.fn, args, kwargs)
            lowered = lower(self.fn, args, kwargs, self.options)
            compiled = Compiled(self.fn, args, kwargs, lowered, self.options)
            report_stages(self.recompiles.name, compiled.seconds)
            thunk = self.cache.put(key, compiled.thunk)
        self.fast = thunk.fast
        return thunk(args, kwargs)

    def __get__(self, obj, objtype=None):  # works as a method decorator too
        return self if obj is None else functools.partial(self, obj)


def _first_static(fn, names):
    """(parameter names, index of the first static one) or None when all are passed by name."""
    if not names:
        return None
    params = list(inspect.signature(fn).parameters)
    positions = [params.index(n) for n in names if n in params]
    return (params, min(positions)) if positions else None


def _move_statics(args, kwargs, first_static):
    """Pass the static arguments, and the positional ones after them, by name."""
    params, first = first_static
    if len(args) <= first:
        return args, kwargs
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
    return Jitted(fn, Options(**options))


@dataclasses.dataclass(frozen=True)
class ShapeDtype:
    """A NumPy array argument of this shape and dtype, for `solvent.compile` ahead of time:
    `solvent.compile(f, solvent.ShapeDtype((1024,), np.float64))` runs on real arrays of that signature."""

    shape: tuple
    dtype: object = np.float64

    def stand_in(self) -> np.ndarray:
        """An ndarray of this shape and dtype that holds no memory (a broadcast zero)."""
        return np.broadcast_to(np.zeros((), np.dtype(self.dtype)), tuple(self.shape))


def _is_spec(x) -> bool:
    return isinstance(x, ShapeDtype)


def compile(fn, *args, **kwargs) -> Compiled:
    """Compile `fn` ahead of time for exactly these arguments (or `ShapeDtype`s standing for NumPy
    arrays, anywhere in them); options go in `kwargs` too."""
    options, kwargs = _split_options(kwargs)
    if isinstance(fn, Jitted):
        fn = fn.fn
    specs = structure.flatten((args, kwargs), is_leaf=_is_spec)
    if specs:
        args, kwargs = structure.unflatten((args, kwargs), [x.stand_in() for x in specs], is_leaf=_is_spec)
    return Compiled(fn, args, kwargs, lower(fn, args, kwargs, options), options)


def code_hlo(fn, *args, **kwargs) -> str:
    """The StableHLO module after solvent's pass pipeline."""
    options, kwargs = _split_options(kwargs)
    return lower(_unwrap(fn), args, kwargs, options).optimized_text


def code_mhlo(fn, *args, **kwargs) -> str:
    """The module exactly as XLA receives it."""
    options, kwargs = _split_options(kwargs)
    return lower(_unwrap(fn), args, kwargs, options).xla_text


def code_xla(fn, *args, **kwargs) -> str:
    """XLA's optimized HLO module(s) after compilation; for a sharded program, the partitioned
    per-device module with the collectives XLA inserted."""
    return compile(fn, *args, **kwargs).hlo()


_OPTION_NAMES = {f.name for f in dataclasses.fields(Options)}


def _split_options(kwargs):
    options = {k: v for k, v in kwargs.items() if k in _OPTION_NAMES}
    return Options(**options), {k: v for k, v in kwargs.items() if k not in _OPTION_NAMES}


def _unwrap(fn):
    return fn.fn if isinstance(fn, Jitted) else fn


def _name(fn) -> str:
    return getattr(fn, "__qualname__", repr(fn))


def describe(key) -> str:
    """A readable signature from a call key: `(float64[3], 2.0)`."""
    from solvent.core.aval import Aval

    def show(k):
        if isinstance(k, tuple) and len(k) in (2, 3) and isinstance(k[1], Aval):
            layout = f" sharded {k[2].spec}" if len(k) == 3 and hasattr(k[2], "spec") else ""
            return f"{k[0].__name__}:{k[1]}{layout}"
        if isinstance(k, tuple) and len(k) == 2 and isinstance(k[0], type) and isinstance(k[1], tuple):
            inner = ", ".join(show(v) for _, v in k[1])
            return f"{k[0].__name__}({inner})"
        if isinstance(k, tuple) and len(k) == 2 and isinstance(k[0], type):
            return repr(k[1])
        return repr(k)
    if key[1][:1] == ("shared memory",):  # arguments sharing memory: see structure.shared_memory
        key = key[0]
    args, kwargs = key[1][0][1], key[1][1][1]
    return "(" + ", ".join([show(v) for _, v in args[1]] + [f"{n}={show(v)}" for n, v in kwargs[1]]) + ")"
