"""Sharding for users: meshes and shardings (jax's own types, re-exported as solvent's names), a
mesh helper, and `constraint`, which asks XLA for a layout at one point of a traced program.

    import numpy as np, solvent
    from solvent.sharding import NamedSharding, PartitionSpec as P

    mesh = solvent.sharding.mesh((4, 2), ("x", "y"))
    a = solvent.asarray(np.ones((1024, 64)), sharding=NamedSharding(mesh, P("x", None)))
    solvent.jit(lambda a: (a * 2).sum(axis=0))(a)   # partitioned by XLA over the 8 devices

`Mesh`, `NamedSharding` and `PartitionSpec` are `jax.sharding`'s classes:
solvent places buffers with them and XLA reads them, so there is nothing to
convert. Solvent writes no communication of its own; XLA's partitioner
(Shardy by default) inserts the collectives.
"""

from __future__ import annotations

import jax
import numpy as np

from solvent.core import trace
from solvent.core.traced import TracedArray
from solvent.ops import base
from solvent.errors import ShardingError
from solvent.sharding.placement import mesh_symbol, program_mesh, sharding_attribute
from solvent.runtime.array import Array, asarray
from solvent.runtime.sharding import Mesh, NamedSharding, PartitionSpec, canonical

__all__ = ["Mesh", "NamedSharding", "PartitionSpec", "ShardingError", "constraint", "mesh"]


def mesh(shape, axis_names, devices=None) -> Mesh:
    """A Mesh of the first `prod(shape)` devices (of every process), laid out row-major.

    Example::

        mesh = solvent.sharding.mesh((2, 4), ("data", "model"))
    """
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    names = (axis_names,) if isinstance(axis_names, str) else tuple(axis_names)
    devices = jax.devices() if devices is None else list(devices)
    count = int(np.prod(shape))
    if len(names) != len(shape):
        raise ValueError(f"a mesh of shape {shape} needs {len(shape)} axis names, got {names}")
    if count > len(devices):
        raise ValueError(
            f"a mesh of shape {shape} needs {count} devices but {len(devices)} are available; on CPU, set "
            f"XLA_FLAGS=--xla_force_host_platform_device_count={count} before solvent (or jax) is imported")
    return Mesh(np.array(devices[:count]).reshape(shape), names)


def constraint(x, spec):
    """Ask XLA to lay `x` out as `spec` at this point of the program; returns the constrained value.

    `spec` is a NamedSharding, or a PartitionSpec on the program's mesh (the one
    its arguments are sharded over). Inside `jit` this is Shardy's
    `sdy.sharding_constraint`; outside, a `solvent.Array` is resharded on its
    devices and a NumPy array is returned unchanged. Example::

        @solvent.jit
        def f(a, b):
            c = solvent.sharding.constraint(a @ b, PartitionSpec("x", None))
            return c.sum(axis=1)
    """
    if isinstance(x, TracedArray):
        return _constrain(x, _named(spec, program_mesh(getattr(spec, "mesh", None))))
    if isinstance(x, Array):
        return asarray(x, sharding=_named(spec, getattr(x.sharding, "mesh", None)))
    return x


def _constrain(x: TracedArray, sharding: NamedSharding) -> TracedArray:
    session = trace.current()
    name = mesh_symbol(session.module, sharding.mesh)
    with session.emitting():
        value = x.value
        attribute = sharding_attribute(name, sharding.spec, len(x.shape))
        op = base.create("sdy.sharding_constraint", [value], [value.type], {"sharding": attribute})
    return type(x)(op.result, x.aval)


def _named(spec, mesh) -> NamedSharding:
    if isinstance(spec, NamedSharding):
        return canonical(spec)
    if not isinstance(spec, PartitionSpec):
        raise TypeError(f"constraint takes a NamedSharding or a PartitionSpec, got {spec!r}")
    if mesh is None:
        raise ShardingError(f"constraint(x, {spec}) needs a mesh and none is known here (no argument is "
                         "sharded); give NamedSharding(mesh, spec) instead")
    return canonical(NamedSharding(mesh, spec))

