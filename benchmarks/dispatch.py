"""Measures solvent's per-call dispatch time against jax.jit, and its memory growth.

The programs are as small as compiled programs get (16-element float64 arrays),
so the time per call is almost all dispatch: moving arguments in, calling the
executable, and handing results (and in-place changes) back. Each row runs the
same work side by side in one process, timed with ``timeit.repeat`` (best of N):

- ``f(x, y) = x * y + 1.0`` on ``numpy.ndarray`` arguments: ``solvent.jit``
  against ``jax.jit`` on the same ndarrays (its C++ path converts them; it returns
  a ``jax.Array`` without waiting), and against ``jax.jit`` plus ``np.asarray`` of
  the result (NumPy in, NumPy out, as solvent gives);
- ``g(x): x += 1.0`` on an ndarray: ``solvent.jit`` against ``jax.jit`` plus
  ``np.copyto`` back into the ndarray;
- ``f`` on ``solvent.Array`` arguments against ``jax.jit`` on ``jax.Array``\ s;
- solvent's own executable through the bare PJRT ``execute_sharded`` path, results made
  ``jax.Array``\ s by the C++ result handlers (what solvent's call does for Arrays, without
  checking the arguments or wrapping the results);
- a time step on a 1000 x 1000 grid, each result given to the next call, where copying
  results in and out (not the call) is the cost: NumPy, ``solvent.jit``, ``jax.jit`` plus
  ``np.asarray`` (jax.jit's own module for ``.at[].set`` is the slower part there: it costs
  the same with ``jax.Array``\ s fed back).

JAX's rows run with its 64-bit mode switched on around them only; solvent needs
no global setting. Last, 100,000 calls (pure and mutating) on ndarrays and 10,000
mutating calls on one ``solvent.Array`` report the growth of resident memory.

Usage::

    python benchmarks/dispatch.py            # about half a minute
    python benchmarks/dispatch.py --quick    # a few seconds
"""

import argparse
import gc
import sys
import timeit

import jax
import jax.numpy as jnp
import numpy as np

import solvent
from solvent.runtime.sharding import result_handlers


def multiply_add(x, y):
    """The benchmarked pure program: one fused elementwise expression."""
    return x * y + 1.0


def bump(u):
    """A program that only mutates its argument: every call writes back (or donates)."""
    u += 1.0


def jax_bump(u):
    return u + 1.0


def best_microseconds(call, number, repeat):
    """Return the best time of one ``call()`` over ``repeat`` runs of ``number`` calls, in µs."""
    for _ in range(200):  # warm caches and any lazily built fast path
        call()
    times = timeit.repeat(call, number=number, repeat=repeat)
    return min(times) / number * 1e6


def dispatch_times(number, repeat):
    """Time every row; return ``{(row, runtime): µs per call}``."""
    host, other = np.arange(16.0), np.ones(16)
    state, jax_state = np.zeros(16), np.zeros(16)
    a, b = solvent.asarray(host), solvent.asarray(other)
    solvent_f, solvent_bump = solvent.jit(multiply_add), solvent.jit(bump)
    executable = solvent.compile(multiply_add, a, b).executable
    buffers, handlers = [a.buffer, b.buffer], result_handlers([a.aval], [a.buffer.sharding])
    expected = host * other + 1.0
    np.testing.assert_array_equal(solvent_f(host, other), expected)
    np.testing.assert_array_equal(np.asarray(solvent_f(a, b)), expected)
    times = {
        ("ndarray", "solvent.jit"): best_microseconds(lambda: solvent_f(host, other), number, repeat),
        ("mutating ndarray", "solvent.jit"): best_microseconds(lambda: solvent_bump(state), number, repeat),
        ("solvent.Array", "solvent.jit"): best_microseconds(lambda: solvent_f(a, b), number, repeat),
        ("solvent.Array", "bare PJRT execute_sharded"): best_microseconds(
            lambda: executable.execute_sharded(buffers).consume_with_handlers(handlers), number, repeat),
    }
    with jax.enable_x64(True):
        jax_f, jax_g = jax.jit(multiply_add), jax.jit(jax_bump)
        ja, jb = jnp.asarray(host), jnp.asarray(other)
        assert ja.dtype == jnp.float64
        np.testing.assert_array_equal(np.asarray(jax_f(host, other)), expected)
        times.update({
            ("ndarray", "jax.jit"): best_microseconds(lambda: jax_f(host, other), number, repeat),
            ("ndarray", "jax.jit + np.asarray"): best_microseconds(
                lambda: np.asarray(jax_f(host, other)), number, repeat),
            ("mutating ndarray", "jax.jit + np.copyto"): best_microseconds(
                lambda: np.copyto(jax_state, jax_g(jax_state)), number, repeat),
            ("solvent.Array", "jax.jit"): best_microseconds(lambda: jax_f(ja, jb), number, repeat),
        })
    np.testing.assert_array_equal(state, jax_state)  # the same number of increments, the same values
    return times


def smooth(u):
    """A time step on a large grid, written as users write it: the result is a new array."""
    v = u.copy()
    v[1:-1, 1:-1] = 0.25 * (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2])
    return v


def large_result_times(n, steps, repeat):
    """µs per step of ``u = smooth(u)`` on an n x n float64 grid, each result given to the next call:
    NumPy, ``solvent.jit`` and ``jax.jit`` plus ``np.asarray`` (NumPy in, NumPy out)."""
    start = np.random.default_rng(0).random((n, n))
    with jax.enable_x64(True):
        jax_smooth = jax.jit(lambda u: u.at[1:-1, 1:-1].set(
            0.25 * (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2])))
    engines = {"numpy": smooth, "solvent.jit": solvent.jit(smooth),
               "jax.jit + np.asarray": lambda u: np.asarray(jax_smooth(u))}

    def run(step):
        u = start
        for _ in range(steps):
            u = step(u)
        return u

    expected = run(smooth)
    times = {}
    with jax.enable_x64(True):
        for name, step in engines.items():
            np.testing.assert_allclose(run(step), expected, rtol=1e-12)
            times[name] = min(timeit.repeat(lambda: run(step), number=1, repeat=repeat)) / steps * 1e6
    return times


def resident_kilobytes():
    """Return this process's resident set size in kB, from /proc/self/status."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS line in /proc/self/status (not Linux?)")


def memory_growth(calls, make, step, warmup=1000):
    """RSS before and after (kB) and growth (%) over ``calls`` calls of ``step(*make())``."""
    args = make()
    for _ in range(warmup):
        step(*args)
    gc.collect()
    before = resident_kilobytes()
    for _ in range(calls):
        step(*args)
    np.asarray(args[0])  # wait for the calls to finish
    gc.collect()
    after = resident_kilobytes()
    return before, after, 100.0 * (after - before) / before


def main(argv=None):
    """Run the measurements, print them as ratios against jax.jit, and a one-line summary."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer timed calls")
    args = parser.parse_args(argv)
    number, repeat = (2_000, 3) if args.quick else (20_000, 7)
    calls = 10_000 if args.quick else 100_000

    print(f"dispatch on 16 float64 elements (best of {repeat} x {number} calls, {jax.devices()[0].platform})")
    times = dispatch_times(number, repeat)
    references = {"ndarray": ("jax.jit", "jax.jit + np.asarray"), "mutating ndarray": ("jax.jit + np.copyto",),
                  "solvent.Array": ("jax.jit",)}
    for row, runtime in times:
        ratios = "  ".join(f"{times[(row, runtime)] / times[(row, r)]:5.2f}x {r}" for r in references[row])
        print(f"  {row:<17} {runtime:<28} {times[(row, runtime)]:7.2f} µs   {ratios}")

    n = 1000
    print(f"u = smooth(u) on a {n}x{n} float64 grid, each result the next call's argument "
          f"(best of {repeat} x 20 steps)")
    large = large_result_times(n, 20, repeat)
    for runtime, t in large.items():
        print(f"  {runtime:<28} {t:9.1f} µs per step   {t / large['jax.jit + np.asarray']:5.2f}x jax.jit + np.asarray"
              f"   {large['numpy'] / t:5.2f}x faster than NumPy")

    pure, mutating = solvent.jit(multiply_add), solvent.jit(bump)
    rows = [(f"{calls} ndarray calls (pure and mutating)", lambda: (np.arange(16.0), np.ones(16)),
             lambda x, y: (pure(x, y), mutating(x))),
            ("10000 mutating calls on a solvent.Array", lambda: (solvent.asarray(np.zeros(16)),), mutating)]
    growths = []
    for label, make, step in rows:
        before, after, growth = memory_growth(calls if "ndarray" in label else 10_000, make, step)
        growths.append(growth)
        print(f"memory over {label}: VmRSS {before} kB -> {after} kB ({growth:+.2f}%)")

    ratio = {row: times[(row, "solvent.jit")] / times[(row, references[row][0])] for row in references}
    print("summary: " + "; ".join(f"{row} {times[(row, 'solvent.jit')]:.2f} µs = {ratio[row]:.2f}x "
                                  f"{references[row][0]}" for row in references)
          + f"; RSS growth {max(growths):+.2f}% at most")
    return 0


if __name__ == "__main__":
    sys.exit(main())
