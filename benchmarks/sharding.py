"""Runs one sharded computation on 1, 2, 4 and 8 CPU devices and prints each time as a ratio to
the 1-device time.

The computation is one explicit step of the 2-D heat equation on an N x N
float64 grid, updated in place (``u[1:-1, 1:-1] += ...``), plus the grid's
energy ``np.sum(u * u)``: the stencil needs the neighbouring devices' edge rows
(collective-permute), the energy a sum over all devices (all-reduce). On n
devices the grid is split into n row blocks (``PartitionSpec("x", None)`` on a
mesh of n devices, given as ``in_shardings``), so the 1-device run is the same
SPMD program with one partition. XLA's partitioner writes all the
communication; the values are checked against NumPy. For reference the script
also times NumPy and solvent's ordinary single-device program (no mesh).

The devices are virtual CPU devices (``--xla_force_host_platform_device_count``)
sharing this machine's cores, so the ratios show the cost of partitioning and
communication on those cores, not the speed-up of real accelerators.

Usage::

    python benchmarks/sharding.py            # N = 2048, about a minute
    python benchmarks/sharding.py --quick    # N = 512, a few seconds
"""

import os

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")  # before jax starts

import argparse  # noqa: E402
import sys  # noqa: E402
import timeit  # noqa: E402

import jax  # noqa: E402
import numpy as np  # noqa: E402

import solvent  # noqa: E402
from solvent.sharding import NamedSharding, PartitionSpec  # noqa: E402

DEVICE_COUNTS = (1, 2, 4, 8)


def heat_step(u, alpha):
    """One explicit heat-equation step, in place; returns the energy before the step."""
    energy = np.sum(u * u)
    u[1:-1, 1:-1] += alpha * (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2] - 4.0 * u[1:-1, 1:-1])
    return energy


def place(host, devices: int | None):
    """The grid in row blocks over a mesh of `devices` devices, and the step compiled for it
    (`devices=None`: an ordinary one-device array and program, no mesh)."""
    if devices is None:
        return solvent.asarray(host), solvent.jit(heat_step)
    rows = NamedSharding(solvent.sharding.mesh((devices,), ("x",)), PartitionSpec("x", None))
    return solvent.asarray(host, sharding=rows), solvent.jit(heat_step, in_shardings=rows)


def best_seconds(run, steps: int, repeat: int) -> float:
    """Best time of one step over `repeat` runs of `steps` steps."""
    return min(timeit.repeat(lambda: run(steps), number=1, repeat=repeat)) / steps


def seconds_per_step(host, devices: int | None, steps: int, repeat: int) -> float:
    """Time one step on `devices` devices; checks the first step against NumPy."""
    u, step = place(host, devices)
    float(step(u, 0.1))  # compile and warm up
    expected = host.copy()
    heat_step(expected, 0.1)
    np.testing.assert_allclose(np.asarray(u), expected, rtol=1e-12)

    def run(count):
        for _ in range(count):
            energy = step(u, 0.1)
        float(energy)  # wait for the last step
    return best_seconds(run, steps, repeat)


def numpy_seconds(host, steps: int, repeat: int) -> float:
    grid = host.copy()

    def run(count):
        for _ in range(count):
            heat_step(grid, 0.1)
    return best_seconds(run, steps, repeat)


def main(argv=None):
    """Time every device count and print the ratios to the 1-device time."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a smaller grid and fewer steps")
    args = parser.parse_args(argv)
    n, steps, repeat = (512, 10, 3) if args.quick else (2048, 10, 5)
    available = jax.device_count()
    if available < max(DEVICE_COUNTS):
        print(f"needs {max(DEVICE_COUNTS)} devices, found {available}: unset XLA_FLAGS or give "
              f"--xla_force_host_platform_device_count={max(DEVICE_COUNTS)}")
        return 1
    host = np.random.default_rng(0).random((n, n))
    print(f"heat step (in-place stencil + energy sum) on a {n}x{n} float64 grid, "
          f"best of {repeat} x {steps} steps")
    print(f"  NOTE: the devices are virtual CPU devices sharing this machine's {os.cpu_count()} cores")
    times = {d: seconds_per_step(host, d, steps, repeat) for d in DEVICE_COUNTS}
    for devices, seconds in times.items():
        print(f"  {devices} device{'s' if devices > 1 else ' '}  {seconds * 1e3:9.3f} ms/step  "
              f"{seconds / times[1]:5.2f}x the 1-device time")
    plain, reference = seconds_per_step(host, None, steps, repeat), numpy_seconds(host, steps, repeat)
    print(f"  for reference: solvent without a mesh {plain * 1e3:.3f} ms/step, NumPy {reference * 1e3:.3f} ms/step")
    summary = ", ".join(f"{d}: {times[d] / times[1]:.2f}x" for d in DEVICE_COUNTS)
    print(f"summary: time relative to 1 device ({os.cpu_count()} CPU cores shared by all devices): {summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
