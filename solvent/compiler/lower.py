"""Lowering one signature to an executable: the stages of STAGES, in that order, each with why
it sits where it does. The traced module becomes text for the pass pipeline (enzyme_call reads
text, and the persistent cache keys it) and stays text on to PJRT, parsed once between for the
Module -> Module steps of the export for XLA (donation, block updates, the mhlo export)."""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
import time
import warnings

import solvent.ir
import solvent.ops.base
import solvent.ops.constant
import solvent.ops.elementwise
import solvent.passes
from solvent.compiler import disk
from solvent.errors import CompileError, EscapedValueError, SolventError, UnsupportedError, raised_at, user_stacklevel
from solvent.ir.module import parse, to_text
from solvent.passes import (block_updates, donation, enumerated_scatters, nan_reductions, one_element_ops,
                            pipelines as passes, held_reads, reads_after_writes, unit_reshapes)
from solvent.runtime import executable as executables
from solvent.sharding import gspmd, placement as placements
from solvent.tracing import Signature, trace
from solvent.transforms import python_objects
from solvent.transforms.source import rewrite

#: The stages of a compilation in the order they run (a compilation's `seconds` has them in this order).
STAGES = (
    ("source rewrite", "Python if/for/while on traced values become solvent's control flow before anything is traced"),
    ("trace", "NumPy calls become one StableHLO module; a sharded program's layouts are annotated on it"),
    ("print traced module", "the text is what enzyme_call reads, and the persistent cache's key"),
    ("pass pipeline", "Enzyme-JAX's patterns over the whole program, autodiff and batching lowered, before XLA"),
    ("export for XLA", "mutated inputs aliased to their outputs (donation: XLA's concern, kept out of code_hlo), "
                       "then block updates as pad + select (after the passes, which would fold them back), then "
                       "mhlo shardings when GSPMD partitions"),
    ("XLA compile", "PJRT compiles the text, or loads what it compiled before from the persistent cache"),
    ("thunk generation", "the call code of this signature, which needs the executable's layouts"),
)


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


class Stages(dict):
    """Seconds per stage of one compilation (STAGES): `with stages("trace"): ...`."""

    @contextlib.contextmanager
    def __call__(self, name: str):
        start = time.perf_counter()
        try:
            yield
        finally:
            self[name] = self.get(name, 0.0) + time.perf_counter() - start


def lower(fn, args, kwargs, options: Options) -> Lowered:
    """`fn` for this call's signature, through the stages of STAGES up to the text PJRT compiles."""
    stages = Stages()
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
    with _own_failures(fn):
        with stages("pass pipeline"):
            optimized = _optimized(traced_text, passes.level_name(options.optimize), options.no_nan)
        with stages("export for XLA"):
            xla_text = _for_xla(optimized, traced.signature, placement, options)
    return Lowered(traced.signature, traced_text, optimized, xla_text, placement, dict(stages))


@contextlib.contextmanager
def _own_failures(fn):
    """Past tracing, the program is valid NumPy: an exception that is not a solvent error is a bug in
    solvent's own passes, raised as a CompileError that says so (never a raw exception)."""
    try:
        yield
    except SolventError:
        raise
    except Exception as error:
        raise CompileError(f"solvent's passes failed on {getattr(fn, '__qualname__', fn)!s} ({type(error).__name__}: "
                           f"{error}); this is a bug in solvent, not in the program: compile with "
                           "solvent.jit(f, optimize=False) to run it, and report it") from error


def _optimized(traced_text: str, level: str, no_nan: bool) -> str:
    """The pass pipeline's output, from the persistent cache when this module was optimized before
    by the same code (solvent's passes, the parser and printer, and the ops they build)."""
    pipeline = passes.passes_for(traced_text, level, no_nan)
    code = disk.fingerprint(solvent.passes, solvent.ir, solvent.ops.base, solvent.ops.constant, solvent.ops.elementwise)
    return disk.cached("passes", (traced_text, pipeline, code),
                       lambda: passes.run(traced_text, level, no_nan).encode()).decode()


def cached_executable(xla_text: str, device, **where):
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


def _trace(fn, args, kwargs, options: Options):
    try:
        return _watched_trace(fn, args, kwargs, options, options.unroll)
    except RecursionError as error:  # (both sides of a traced test run: a recursion on it never ends)
        raise UnsupportedError(
            "the traced function recursed past Python's limit: a recursion whose base case is a test of traced "
            "values never ends when traced, since both sides of the test are traced; write it as a loop (or "
            "make the test static). A deep recursion on static values takes several frames a level while "
            "traced: raise the limit (sys.setrecursionlimit) or write it as a loop", raised_at(error)) from None
    except EscapedValueError as error:
        if not error.rolled:
            raise
        lines = ", ".join(f"{file}:{line}" for file, line in error.rolled)
        warnings.warn(f"loops at {lines} were unrolled: a rolled body let a value escape "
                      "through a Python object", stacklevel=user_stacklevel())
        return _watched_trace(fn, args, kwargs, options, None)


def _watched_trace(fn, args, kwargs, options: Options, unroll):
    """The trace, the Python objects `fn` reaches watched for traced values it leaves in them."""
    with python_objects.keeping_no_traced_values(fn):
        return trace(fn, args, kwargs, options.static_argnames, unroll, pack=options.out_shardings is None)


def _parameters(fn) -> tuple:
    try:
        return tuple(inspect.signature(fn).parameters)
    except (TypeError, ValueError):  # builtins and some callables have no signature
        return ()


def _for_xla(text: str, signature: Signature, placement, options: Options) -> str:
    """The optimized module as PJRT compiles it, parsed once and printed once if a step changed it:
    mutated inputs donated (those of a new shape cannot alias); scatters at indices that enumerate
    their operand as reshapes (`enumerated_scatters`); reads a loop's other updates make of an array
    it writes in place taken after that write (`reads_after_writes`), and those it cannot take after it
    held in a buffer the writes take from (`held_reads`); one-element ops that repeat scalar ones as
    reshapes of those (`one_element_ops`); reshapes that add or drop unit dimensions moved
    below the elementwise ops with constants after them (`unit_reshapes`); block updates as pad + select, which XLA's
    partitioner turns into halo exchanges instead of gathers, and on one device where they cover
    most of their array; then reductions by maximum that keep NaN (`nan_reductions`: on several
    devices, told of it by a second reduction), and mhlo shardings if GSPMD partitions."""
    module = parse(text)
    aliases = {i: k for i, k in signature.mutated.items() if i not in signature.reshaped}
    changed = options.donate and donation.alias(module, aliases)
    optimizing = options.optimize is not False and options.optimize != "none"
    if optimizing:  # (before block updates turn the enumerating constants into pads)
        changed |= enumerated_scatters.rewrite(module)
        changed |= reads_after_writes.rewrite(module)
        changed |= held_reads.rewrite(module)
        changed |= one_element_ops.rewrite(module)
        changed |= unit_reshapes.rewrite(module)
    if placement is not None:
        changed |= block_updates.rewrite(module) | nan_reductions.flag(module)
        if options.shardy_passes == "to_mhlo_shardings":
            gspmd.export(module, placement.mesh)
            changed = True
    elif optimizing:
        changed |= block_updates.rewrite(module, min_fraction=LARGE_BLOCK)
    if placement is None:
        changed |= nan_reductions.rewrite(module)
    return to_text(module) if changed else text


def executable_for(lowered: Lowered, options: Options):
    """(executable, placement with XLA's chosen layouts filled in, or None on one device)."""
    placement = lowered.placement
    if placement is None:
        return cached_executable(lowered.xla_text, options.device), None
    if options.device is not None:
        raise ValueError("device= names one device, but this program is sharded over a mesh; "
                         "drop device= (the shardings say where the program runs)")
    free_inputs, free_outputs = placement.free()
    executable = cached_executable(lowered.xla_text, None, mesh=placement.mesh, free_inputs=tuple(free_inputs),
                                   free_outputs=tuple(free_outputs), shardy=options.shardy_passes == "none")
    return executable, placements.settle(placement, executable)
