"""Measures solvent's per-call dispatch time against jax.jit and bare PJRT, and its memory growth.

The function is as small as a compiled program gets, ``f(a, b) = a + b`` on
4-element float64 arrays, so the time per call is almost all dispatch: moving
buffers in, calling the executable and wrapping the results.  Three ways to
call it run in one process, each timed with ``timeit.repeat`` (best of N):

- ``solvent.jit(f)`` on ``solvent.Array`` arguments;
- ``jax.jit(f)`` on ``jax.Array`` arguments (x64 enabled, so also float64),
  the floor that JAX's C++ dispatch path reaches;
- solvent's own PJRT executable called directly
  (``execute_sharded(...).disassemble_into_single_device_arrays()``), the
  floor for any dispatch written in Python.

A fourth measurement calls a mutating function (``u += 1.0``) 10,000 times on
one ``solvent.Array`` and reports the growth of resident memory (VmRSS), which
catches buffers that donation or write-back fail to release.

Usage::

    python benchmarks/dispatch.py            # a few seconds
    python benchmarks/dispatch.py --quick    # about a second
"""

import argparse
import gc
import sys
import timeit

import jax
import jax.numpy as jnp
import numpy as np

import solvent


def add(a, b):
    """The benchmarked program: one elementwise addition."""
    return a + b


def bump(u):
    """A program that only mutates its argument, so every call donates a buffer."""
    u += 1.0


def best_microseconds(call, number, repeat):
    """Return the best time of one ``call()`` over ``repeat`` runs of ``number`` calls, in µs."""
    for _ in range(100):  # warm caches and any lazily built fast path
        call()
    times = timeit.repeat(call, number=number, repeat=repeat)
    return min(times) / number * 1e6


def dispatch_times(number, repeat):
    """Time the three ways of calling ``add``; return ``{label: µs per call}``."""
    host = np.arange(4.0)
    a, b = solvent.asarray(host), solvent.asarray(host * 2)
    ja, jb = jnp.asarray(host), jnp.asarray(host * 2)
    assert ja.dtype == jnp.float64, "jax x64 mode must be on"

    solvent_add = solvent.jit(add)
    jax_add = jax.jit(add)
    executable = solvent.compile(add, a, b).executable
    buffers = [a.buffer, b.buffer]

    def bare():
        return executable.execute_sharded(buffers).disassemble_into_single_device_arrays()

    expected = host * 3
    np.testing.assert_array_equal(np.asarray(solvent_add(a, b)), expected)
    np.testing.assert_array_equal(np.asarray(jax_add(ja, jb)), expected)
    np.testing.assert_array_equal(np.asarray(bare()[0][0]), expected)

    calls = {
        "solvent.jit, solvent.Array args": lambda: solvent_add(a, b),
        "jax.jit, jax.Array args": lambda: jax_add(ja, jb),
        "bare PJRT execute_sharded": bare,
    }
    return {label: best_microseconds(call, number, repeat) for label, call in calls.items()}


def resident_kilobytes():
    """Return this process's resident set size in kB, from /proc/self/status."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS line in /proc/self/status (not Linux?)")


def memory_growth(calls, warmup=1000):
    """Call the mutating ``bump`` ``calls`` times; return RSS before, after (kB) and growth (%)."""
    u = solvent.asarray(np.zeros(4))
    compiled = solvent.jit(bump)
    for _ in range(warmup):
        compiled(u)
    np.asarray(u)  # wait for the warm-up calls to finish
    gc.collect()
    before = resident_kilobytes()
    for _ in range(calls):
        compiled(u)
    final = np.asarray(u)
    gc.collect()
    after = resident_kilobytes()
    np.testing.assert_array_equal(final, np.full(4, float(warmup + calls)))
    return before, after, 100.0 * (after - before) / before


def main(argv=None):
    """Run both measurements, print them and a one-line summary."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer timed calls")
    args = parser.parse_args(argv)
    number, repeat = (2_000, 3) if args.quick else (20_000, 7)
    calls = 10_000

    jax.config.update("jax_enable_x64", True)
    print(f"dispatch of f(a, b) = a + b on 4 float64 elements "
          f"(best of {repeat} x {number} calls, {jax.devices()[0].platform})")
    times = dispatch_times(number, repeat)
    reference = times["jax.jit, jax.Array args"]
    for label, micros in times.items():
        print(f"  {label:<34} {micros:8.2f} µs  {micros / reference:5.2f}x jax.jit")

    before, after, growth = memory_growth(calls)
    print(f"memory over {calls} calls of a mutating function on a solvent.Array")
    print(f"  VmRSS {before} kB after warm-up -> {after} kB after ({growth:+.2f}%)")

    solvent_ratio = times["solvent.jit, solvent.Array args"] / reference
    bare_ratio = times["bare PJRT execute_sharded"] / reference
    print(f"summary: solvent.jit {times['solvent.jit, solvent.Array args']:.2f} µs/call "
          f"= {solvent_ratio:.2f}x jax.jit (bare PJRT {bare_ratio:.2f}x); "
          f"RSS growth {growth:+.2f}% over {calls} mutating calls")
    return 0


if __name__ == "__main__":
    sys.exit(main())
