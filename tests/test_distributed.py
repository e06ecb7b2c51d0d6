"""Two local processes run one sharded program over the devices of both, as
`solvent.distributed.initialize` sets them up; each checks its part against NumPy."""

import json
import os
import socket
import subprocess
import sys
import textwrap

import pytest

import solvent

WORKER = textwrap.dedent('''
    import json, sys
    import numpy as np
    import solvent

    solvent.distributed.initialize(sys.argv[1], num_processes=2, process_id=int(sys.argv[2]))
    from solvent.sharding import NamedSharding, PartitionSpec as P

    def step(u, v, dt):
        u[1:-1] += dt * (v[2:] - 2.0 * v[1:-1] + v[:-2])
        return np.sum(u * v), u @ v.reshape(8, 4)

    mesh = solvent.sharding.mesh((4,), ("x",))          # 2 devices here, 2 in the other process
    rows = NamedSharding(mesh, P("x"))
    u_host, v_host = np.linspace(0.0, 1.0, 32).reshape(4, 8), np.cos(np.arange(32.0)).reshape(4, 8)
    u, v = solvent.asarray(u_host, sharding=rows), solvent.asarray(v_host, sharding=rows)
    f = solvent.jit(step, out_shardings=(None, NamedSharding(mesh, P())))
    for _ in range(2):
        total, product = f(u, v, 0.1)
        expected_total, expected_product = step(u_host, v_host, 0.1)
    print("RESULT " + json.dumps({
        "process": solvent.distributed.process_index(), "processes": solvent.distributed.process_count(),
        "total": float(total), "expected_total": float(expected_total),
        "product": bool(np.allclose(np.asarray(product), expected_product, rtol=1e-13)),
        "parts": bool(all(np.allclose(np.asarray(s.data), u_host[s.index], rtol=1e-13)
                          for s in u.buffer.addressable_shards)),
        "local_devices": len(u.buffer.addressable_shards), "spread": not u.buffer.is_fully_addressable,
    }), flush=True)
''')


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("localhost", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def results():
    coordinator = f"localhost:{free_port()}"
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=2")
    workers = [subprocess.Popen([sys.executable, "-c", WORKER, coordinator, str(i)], env=env, text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE) for i in range(2)]
    outputs = []
    try:
        for worker in workers:
            out, err = worker.communicate(timeout=120)
            lines = [line for line in out.splitlines() if line.startswith("RESULT ")]
            assert lines, f"a worker printed no result (exit {worker.returncode}):\n{err[-3000:]}"
            outputs.append(json.loads(lines[-1][len("RESULT "):]))
    finally:
        for worker in workers:
            worker.kill()
    return outputs


def test_two_processes_run_one_sharded_program(results):
    assert sorted(r["process"] for r in results) == [0, 1]
    for r in results:
        assert r["processes"] == 2 and r["spread"] and r["local_devices"] == 2
        assert r["total"] == pytest.approx(r["expected_total"], rel=1e-13)
        assert r["product"], "the replicated result matches NumPy in every process"
        assert r["parts"], "each process holds its rows of the mutated array"


def test_initialize_checks_the_process_id():
    with pytest.raises(ValueError, match="process_id"):
        solvent.distributed.initialize("localhost:1", num_processes=2, process_id=2)
