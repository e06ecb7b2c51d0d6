"""Shardings as the runtime layer knows them (jax's Mesh, NamedSharding, PartitionSpec), and their
translations to and from what XLA reads and writes: Shardy attributes, HLO shardings, parameter and
output shardings of a compiled executable.

Solvent reuses jax's sharding types instead of defining its own: they are what
`jax.device_put` places buffers with and what jaxlib's dispatch path checks.
Everything here that touches jax internals (`jax._src`) is wrapped in this
module, so a jax upgrade has one place to look.
"""

from __future__ import annotations

import numpy as np
from jax._src import core, sharding_impls
from jax._src.interpreters import pxla
from jax._src.lib import xla_client
from jax.errors import JaxRuntimeError
from jax.sharding import Mesh, NamedSharding, PartitionSpec, Sharding, SingleDeviceSharding

from solvent.errors import ExecutionError

__all__ = ["Mesh", "NamedSharding", "PartitionSpec", "Sharding", "SingleDeviceSharding"]


def spans_devices(sharding) -> bool:
    """Whether `sharding` lays an array over more than one device (what makes a program SPMD)."""
    return sharding is not None and sharding.num_devices > 1


def canonical(sharding):
    """`sharding` with a PartitionSpec free of trailing `None`s, so equal layouts compare equal.

    `P("x", None)` and `P("x")` lay out a matrix the same way but are different
    objects to jax; solvent keys its caches and places its buffers with the
    canonical one.
    """
    if not isinstance(sharding, NamedSharding):
        return sharding
    entries = list(sharding.spec)
    while entries and entries[-1] is None:
        entries.pop()
    if len(entries) == len(sharding.spec):
        return sharding
    return NamedSharding(sharding.mesh, PartitionSpec(*entries), memory_kind=sharding.memory_kind)


def mesh_devices(mesh: Mesh) -> xla_client.DeviceList:
    """The mesh's devices in the order XLA numbers its partitions (row-major over the mesh)."""
    return xla_client.DeviceList(tuple(mesh.devices.flat))


def sdy_mesh(mesh: Mesh) -> str:
    """The mesh as Shardy writes it: `<["x"=4, "y"=2]>` (devices are the partitions, in order)."""
    axes = ", ".join(f'"{name}"={size}' for name, size in mesh.shape.items())
    return f"<[{axes}]>"


def sdy_dimensions(spec: PartitionSpec, ndim: int) -> str:
    """A PartitionSpec as Shardy's per-dimension list: `[{"x"}, {}]` (`{?}` where left open)."""
    entries = list(spec) + [None] * (ndim - len(spec))
    if len(entries) > ndim:
        raise ValueError(f"the PartitionSpec {spec} has {len(spec)} entries but the array has {ndim} "
                         "dimensions; give at most one entry per dimension")
    dims = []
    for entry in entries:
        if entry is PartitionSpec.UNCONSTRAINED:
            dims.append("{?}")
        else:
            axes = () if entry is None else (entry,) if isinstance(entry, str) else tuple(entry)
            dims.append("{" + ", ".join(f'"{axis}"' for axis in axes) + "}")
    return "[" + ", ".join(dims) + "]"


def hlo_sharding(sharding: NamedSharding, ndim: int) -> str:
    """The HLO sharding text XLA's GSPMD partitioner reads (`mhlo.sharding`): `{devices=[4,1]<=[4]}`."""
    return str(sharding._to_xla_hlo_sharding(ndim))


def _from_xla(op_sharding, mesh: Mesh):
    """A NamedSharding on `mesh` for what XLA chose, or XLA's own sharding when no spec says it."""
    gspmd = sharding_impls.GSPMDSharding(mesh_devices(mesh), op_sharding)
    try:
        return canonical(sharding_impls._gspmd_to_named_sharding_via_mesh(gspmd, mesh))
    except Exception:  # a layout no PartitionSpec on this mesh expresses
        return gspmd


def compiled_shardings(executable, mesh: Mesh, inputs: int, outputs: int) -> tuple[list, list]:
    """(parameter shardings, output shardings) XLA chose for an SPMD executable, on `mesh`."""
    if mesh.size == 1:  # one partition: XLA's partitioner does not run, everything is on the device
        whole = NamedSharding(mesh, PartitionSpec())
        return [whole] * inputs, [whole] * outputs
    parameters = list(executable.get_parameter_shardings() or [])
    results = list(executable.get_output_shardings() or [])
    if len(results) == 1 and outputs != 1:  # XLA puts one sharding on the tuple when all agree (or it is empty)
        results = results * outputs
    if len(parameters) != inputs or len(results) != outputs:
        raise RuntimeError(f"XLA reported {len(parameters)} parameter and {len(results)} output shardings "
                           f"for a program with {inputs} inputs and {outputs} outputs")
    return [_from_xla(s, mesh) for s in parameters], [_from_xla(s, mesh) for s in results]


def result_handlers(avals, shardings) -> list:
    """One function per output that assembles its per-device buffers into one global `jax.Array`."""
    return [pxla.global_aval_to_result_handler(core.ShapedArray(a.shape, a.dtype), s, True)
            for a, s in zip(avals, shardings)]


def partition_spec_of(dimension_axes: list[list[str]]) -> PartitionSpec:
    """A PartitionSpec from the mesh axes that shard each dimension (`[["x"], []]` -> `P("x")`)."""
    entries = [None if not axes else axes[0] if len(axes) == 1 else tuple(axes) for axes in dimension_axes]
    while entries and entries[-1] is None:
        entries.pop()
    return PartitionSpec(*entries)


def host_value(buffer) -> np.ndarray:
    """The host copy of a buffer; one spread over several processes must be replicated to be read."""
    if buffer.is_fully_addressable:
        try:
            return np.asarray(buffer)
        except JaxRuntimeError as error:  # the run that was to make it failed (asynchronously)
            raise ExecutionError(f"the computation that made this array failed: {str(error).strip()}") from None
    if buffer.is_fully_replicated:
        return np.asarray(buffer.addressable_data(0))
    raise ValueError(
        f"this array is sharded over devices of several processes ({buffer.sharding}); this process "
        "holds only part of it. Return it replicated (out_shardings=NamedSharding(mesh, PartitionSpec())) "
        "to read it everywhere, or read this process's part from `array.buffer.addressable_shards`")
