"""Several processes running one program: start-up of the distributed runtime jaxlib ships, with
CPU collectives, and which process this is.

Every process runs the same script. After `initialize`, `jax.devices()` (and
so `solvent.sharding.mesh`) lists the devices of all processes, arrays sharded
over such a mesh hold only this process's part, and a jitted function runs as
one SPMD program across the processes, XLA doing the communication::

    solvent.distributed.initialize("10.0.0.1:1234", num_processes=2, process_id=rank)
    mesh = solvent.sharding.mesh((jax.device_count(),), ("x",))
"""

from __future__ import annotations

import jax

#: How XLA's CPU client talks between processes (jax's `jax_cpu_collectives_implementation`).
CPU_COLLECTIVES = "gloo"


def initialize(coordinator: str, num_processes: int, process_id: int, local_device_ids=None,
               cpu_collectives: str = CPU_COLLECTIVES) -> None:
    """Join this process to a group of `num_processes` that run one program together.

    Call it first, before any array is created or function compiled (the device
    client starts with the group). `coordinator` is `"host:port"` of process 0,
    which listens there. Example::

        solvent.distributed.initialize("localhost:12355", num_processes=2, process_id=0)
    """
    if not 0 <= process_id < num_processes:
        raise ValueError(f"process_id={process_id} is not in range(num_processes={num_processes})")
    jax.config.update("jax_cpu_collectives_implementation", cpu_collectives)
    try:
        jax.distributed.initialize(coordinator_address=coordinator, num_processes=num_processes,
                                   process_id=process_id, local_device_ids=local_device_ids)
    except RuntimeError as error:
        raise RuntimeError(f"{error}\nsolvent.distributed.initialize must run before anything touches a device: "
                           "call it at the top of the script, before solvent.asarray or a compiled call") from error


def shutdown() -> None:
    """Leave the group (each process calls it; also done at exit)."""
    jax.distributed.shutdown()


def process_index() -> int:
    """This process's number in the group, 0 when there is no group."""
    return jax.process_index()


def process_count() -> int:
    """How many processes run the program (1 without `initialize`)."""
    return jax.process_count()
