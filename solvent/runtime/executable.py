"""Compiling StableHLO text with XLA through PJRT, and what the executable can tell."""

from __future__ import annotations

import numpy as np
from jax._src.lib import xla_client
from jaxlib.cpu import _lapack

from solvent.errors import CompileError
from solvent.runtime import devices
from solvent.runtime.sharding import mesh_devices
from solvent.runtime.xla_options import with_backend_options

_lapack.initialize()  # LAPACK custom calls (np.linalg) segfault when run before this fills their table


def compile(module_text: str, device=None, *, mesh=None, shardy: bool = True,
            free_inputs=(), free_outputs=()):
    """A PJRT `LoadedExecutable` for a module whose entry point is `main`.

    Without `mesh`, for one device. With a `mesh`, an SPMD program: one partition
    per mesh device, partitioned by XLA's Shardy (`shardy=True`, the module
    carries `sdy` shardings) or GSPMD (`mhlo.sharding` attributes) partitioner;
    `free_inputs`/`free_outputs` flag the parameters and results whose sharding
    XLA may choose.
    """
    device, targets, options = devices_and_options(device, mesh, shardy, free_inputs, free_outputs)
    try:
        return device.client.compile_and_load(module_text, targets, options)
    except Exception as error:  # XLA reports every failure as JaxRuntimeError
        raise CompileError(f"XLA could not compile the program: {error}") from error


def serialize(executable) -> bytes:
    """An executable as bytes (PJRT's serialization), for the persistent cache."""
    return executable.client.serialize_executable(executable)


def deserialize(blob: bytes, device=None, **where):
    """The executable `serialize` gave, loaded for the `device`, or the mesh and partitioning
    in `where`, that `compile` was given."""
    device, targets, options = devices_and_options(device, **where)
    return device.client.deserialize_executable(blob, targets, options)


def devices_and_options(device, mesh=None, shardy: bool = True, free_inputs=(), free_outputs=()):
    """(first device, the devices, compile options) for one device or an SPMD program on `mesh`."""
    options = with_backend_options(xla_client.CompileOptions())
    if mesh is None:
        device = devices.resolve(device)
        if device != devices.default_device():  # (PJRT assigns the first device otherwise)
            options.device_assignment = xla_client.DeviceAssignment.create(np.array([[device.id]]))
        return device, xla_client.DeviceList((device,)), options
    _partition(options, mesh, shardy, free_inputs, free_outputs)
    return mesh.devices.flat[0], mesh_devices(mesh), options


def _partition(options, mesh, shardy: bool, free_inputs, free_outputs) -> None:
    options.num_replicas = 1
    options.num_partitions = mesh.size
    options.device_assignment = xla_client.DeviceAssignment.create(
        np.array([[d.id for d in mesh.devices.flat]]))
    build = options.executable_build_options
    build.use_spmd_partitioning = True
    build.use_shardy_partitioner = shardy
    if any(free_inputs):
        build.allow_spmd_sharding_propagation_to_parameters = list(free_inputs)
    if any(free_outputs):
        build.allow_spmd_sharding_propagation_to_output = list(free_outputs)


def hlo_text(executable) -> str:
    """XLA's optimized HLO module(s), as text: for an SPMD program, the partitioned module."""
    return "\n".join(module.to_string() for module in executable.hlo_modules())
