"""How an SPMD program is laid out: the mesh it runs on, the sharding of each input and output
(from the arguments, `in_shardings`/`out_shardings` and mutation), written into the module as
Shardy (`sdy`) attributes, and the layouts XLA chose once it compiled the program.

Solvent partitions nothing itself: it states the shardings it knows and XLA's
partitioner (Shardy by default, GSPMD after `gspmd.export`) propagates them
through the program and inserts the communication.
"""

from __future__ import annotations

import contextlib
import dataclasses
import types

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import sdy

from solvent.core import structure
from solvent.core.session import SESSION
from solvent.core.spec import Node, Spec
from solvent.errors import ShardingError
from solvent.ir.context import context
from solvent.ir.module import find_function
from solvent.runtime import sharding as layouts
from solvent.runtime.sharding import Mesh, NamedSharding, PartitionSpec

MESH_NAME = "mesh"


@dataclasses.dataclass(frozen=True)
class Placement:
    """The mesh of an SPMD program and the sharding of each input and output (None: XLA chooses)."""

    mesh: Mesh
    inputs: tuple
    outputs: tuple

    def free(self) -> tuple[tuple, tuple]:
        """Which inputs and outputs XLA may lay out as it likes."""
        return tuple(s is None for s in self.inputs), tuple(s is None for s in self.outputs)


@contextlib.contextmanager
def program(mesh: Mesh | None):
    """Trace a program on `mesh` (None: not known yet; a `constraint` may name it); yields a record
    whose `.mesh` is the program's mesh afterwards."""
    saved = SESSION.mesh
    SESSION.mesh = mesh
    record = types.SimpleNamespace(mesh=None)
    try:
        yield record
    finally:
        record.mesh = SESSION.mesh
        SESSION.mesh = saved


def program_mesh(mesh: Mesh | None = None) -> Mesh | None:
    """The mesh of the program being traced; `mesh` (from a NamedSharding) becomes it if none is yet."""
    if mesh is not None:
        if SESSION.mesh is None:
            SESSION.mesh = mesh
        elif SESSION.mesh != mesh:
            raise ShardingError(f"this program already runs on {_describe(SESSION.mesh)}, a constraint asks "
                             f"for {_describe(mesh)}; one program runs on one mesh: use that mesh's shardings")
    return SESSION.mesh


def find_mesh(args, kwargs, options) -> Mesh | None:
    """The one mesh the arguments' shardings and the explicit shardings name, or None."""
    meshes = {}
    for x in _arrays((args, kwargs)):
        sharding = getattr(x, "key", ())[2:3]
        if sharding and layouts.spans_devices(sharding[0]):  # (one device other than the default: no mesh)
            meshes.setdefault(_mesh_of(sharding[0]), "an argument")
    for name in ("in_shardings", "out_shardings"):
        for sharding in _given(getattr(options, name)):
            if isinstance(sharding, NamedSharding):
                meshes.setdefault(sharding.mesh, name)
    if len(meshes) > 1:
        found = "; ".join(f"{where}: {_describe(m)}" for m, where in meshes.items())
        raise ShardingError(f"one program runs on one mesh, but these name several ({found}); "
                         "move the arrays onto one mesh with solvent.asarray(x, sharding=...)")
    return next(iter(meshes), None)


def plan(signature, options, mesh: Mesh | None, parameters=()) -> Placement | None:
    """The Placement of a traced program, or None when nothing names a mesh (it runs on one device).

    A mesh of one device that the options or a constraint name still makes an
    SPMD program, of one partition: the same program as on more devices.
    `parameters` are the function's parameter names (for `in_shardings` given by name).
    """
    if mesh is None:
        if any(isinstance(s, PartitionSpec) for n in ("in_shardings", "out_shardings")
               for s in _given(getattr(options, n))):
            raise ShardingError("a PartitionSpec needs a mesh, and no argument is sharded: give "
                             "NamedSharding(mesh, PartitionSpec(...)) in in_shardings/out_shardings")
        return None
    inputs = [s if s is not None and _mesh_of(s) == mesh else None for s in signature.input_shardings]
    for i, path in enumerate(signature.input_paths):
        given = _entry(options.in_shardings, path.argument, path.part == 0, parameters)
        if given is not None:
            inputs[i] = _resolve(given, mesh)
    outputs = [None] * len(signature.output_avals)
    if options.out_shardings is not None:
        for k, given in _result_outputs(signature.result, options.out_shardings):
            outputs[k] = _resolve(given, mesh)
    for i, k in signature.mutated.items():  # a donated input and its new value share one layout
        outputs[k] = inputs[i]
    return Placement(mesh, tuple(inputs), tuple(outputs))


def annotate(module: ir.Module, placement: Placement, signature) -> None:
    """Write the placement into the traced module: the mesh and `sdy.sharding` on main's arguments
    and results (what is left out, XLA propagates)."""
    name = mesh_symbol(module, placement.mesh)
    main = find_function(module, "main")
    with context():
        i32 = ir.IntegerType.get_signless(32)
        module.operation.attributes["mhlo.num_partitions"] = ir.IntegerAttr.get(i32, placement.mesh.size)
        module.operation.attributes["mhlo.num_replicas"] = ir.IntegerAttr.get(i32, 1)
        for key, avals, shardings in (("arg_attrs", signature.input_avals, placement.inputs),
                                      ("res_attrs", signature.output_avals, placement.outputs)):
            attributes = list(main.attributes[key]) if key in main.attributes else [
                ir.DictAttr.get({}) for _ in avals]
            for i, (aval, sharding) in enumerate(zip(avals, shardings)):
                if sharding is not None:
                    entries = {a.name: a.attr for a in ir.DictAttr(attributes[i])}
                    entries["sdy.sharding"] = sharding_attribute(name, sharding.spec, len(aval.shape))
                    attributes[i] = ir.DictAttr.get(entries)
            main.attributes[key] = ir.ArrayAttr.get(attributes)


def mesh_symbol(module: ir.Module, mesh: Mesh) -> str:
    """The name of the module's `sdy.mesh` for `mesh`, added at the top of the module if missing."""
    with context(), ir.Location.unknown():
        for op in module.body.operations:
            if op.operation.name == "sdy.mesh":
                return ir.StringAttr(op.attributes["sym_name"]).value
        with ir.InsertionPoint.at_block_begin(module.body):
            sdy.MeshOp(MESH_NAME, ir.Attribute.parse(f"#sdy.mesh{layouts.sdy_mesh(mesh)}"))
    return MESH_NAME


def sharding_attribute(mesh_name: str, spec: PartitionSpec, ndim: int) -> ir.Attribute:
    """`#sdy.sharding<@mesh, [{"x"}, {}]>` for an array of `ndim` dimensions."""
    return ir.Attribute.parse(f"#sdy.sharding<@{mesh_name}, {layouts.sdy_dimensions(spec, ndim)}>")


def settle(placement: Placement, executable) -> Placement:
    """The placement with every layout XLA chose filled in (the ones solvent gave are kept as given)."""
    chosen_in, chosen_out = layouts.compiled_shardings(
        executable, placement.mesh, len(placement.inputs), len(placement.outputs))
    keep = lambda given, chosen: given if given is not None else chosen  # noqa: E731
    return Placement(placement.mesh, tuple(map(keep, placement.inputs, chosen_in)),
                     tuple(map(keep, placement.outputs, chosen_out)))


def _arrays(tree):
    """Every array leaf of `tree`, each once."""
    seen, stack = set(), [tree]
    while stack:
        x = stack.pop()
        if id(x) in seen:
            continue
        seen.add(id(x))
        if structure.is_array(x):
            yield x
            continue
        stack.extend(v for _, v in structure.children(x) or ())


def _given(shardings) -> list:
    """The sharding values of an `in_shardings`/`out_shardings` option."""
    if shardings is None:
        return []
    if isinstance(shardings, dict):
        return [s for s in shardings.values() if s is not None]
    if isinstance(shardings, (tuple, list)):
        return [s for s in shardings if s is not None]
    return [shardings]


def _entry(shardings, key, positional: bool, parameters):
    """The entry of `in_shardings` for the argument at `key` (an index or a keyword name)."""
    if shardings is None or key is None:
        return None
    if isinstance(shardings, dict):
        name = parameters[key] if positional and key < len(parameters) else key
        return shardings.get(name)
    if isinstance(shardings, (tuple, list)):
        return shardings[key] if positional and key < len(shardings) else None
    return shardings


def _result_outputs(result: Spec, shardings):
    """(output index, sharding) for each output the `out_shardings` option covers."""
    if isinstance(shardings, (tuple, list, dict)):
        kind = result.kind if isinstance(result, Node) else None
        if kind is None or not isinstance(shardings, dict if kind is dict else (tuple, list)):
            raise ShardingError(f"out_shardings is a {type(shardings).__name__} but the function returns "
                             "something else; give one sharding for all results, or one per returned item")
        keyed = shardings if isinstance(shardings, dict) else dict(enumerate(shardings))
        for step, child in result.children:
            given = keyed.get(step[1])
            if given is not None:
                yield from ((k, given) for k in child.outputs())
        return
    yield from ((k, shardings) for k in result.outputs())


def _resolve(given, mesh: Mesh) -> NamedSharding:
    if isinstance(given, PartitionSpec):
        return layouts.canonical(NamedSharding(mesh, given))
    if isinstance(given, NamedSharding):
        return layouts.canonical(given)
    raise TypeError(f"a sharding must be a NamedSharding or a PartitionSpec, got {given!r}")


def _mesh_of(sharding) -> Mesh:
    mesh = getattr(sharding, "mesh", None)
    if not isinstance(mesh, Mesh):
        raise ShardingError(f"an argument is laid out by {sharding}, which names no mesh; place it with "
                         "solvent.asarray(x, sharding=NamedSharding(mesh, PartitionSpec(...)))")
    return mesh


def _describe(mesh: Mesh) -> str:
    axes = ", ".join(f"{n}={s}" for n, s in mesh.shape.items())
    return f"mesh({axes}) on devices {[d.id for d in mesh.devices.flat]}"
