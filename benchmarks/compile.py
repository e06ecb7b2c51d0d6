"""First calls: solvent.jit against jax.jit on hand-written jax.numpy ports, and where the time goes.

Each kernel of `kernels.py` (the PolyBench set and the classic ones: stencils in time loops,
a convolution and a CNN layer written with loops, LU by rows, a pure-Python Game of Life, the
examples' heat equation, an n-body step) is called once on a fresh jitted function at its
"small" size, timing trace + passes + XLA + the call, side by side with `jax.jit` on its
port; both results are checked against NumPy. A second table splits solvent's first call by
stage (`Compiled.seconds`).

Usage::

    python benchmarks/compile.py            # every kernel, best of 3 fresh first calls
    python benchmarks/compile.py life lu    # some of them
"""

import argparse
import os
import statistics
import sys
import time

import jax
import numpy as np

import kernels
import solvent
from polybench.engines import ENGINES, fresh

os.environ["SOLVENT_CACHE_DIR"] = ""  # real compiles, as jax.jit's (its disk cache is off by default)


def first_call(kernel, engine, size, repeat):
    """Best wall time of a fresh function's first call (compile included), and its outputs."""
    best, out = float("inf"), None
    for _ in range(repeat):
        if engine == "jax":
            jax.clear_caches()  # jax.jit of the same function again would reuse the executable
        run, args = ENGINES[engine](kernel), fresh(kernel, size)
        start = time.perf_counter()
        out = run(args)
        best = min(best, time.perf_counter() - start)
    return best, out


def measure(kernel, size, repeat):
    expected = ENGINES["numpy"](kernel)(fresh(kernel, size))
    times = {}
    for engine in ("solvent", "jax"):
        times[engine], got = first_call(kernel, engine, size, repeat)
        for g, e in zip(got, expected):
            np.testing.assert_allclose(g, e, rtol=1e-9, atol=1e-9, err_msg=f"{kernel.name} {engine}")
    stages = solvent.compile(kernel.numpy, *fresh(kernel, size)).seconds
    return times["solvent"], times["jax"], stages


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="kernels to run (default: all)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--size", default="small")
    options = parser.parse_args(argv)
    chosen = [k for k in kernels.ALL if not options.names or k.name in options.names]
    rows = [(k.name, *measure(k, options.size, options.repeat)) for k in chosen]

    print(f"first call, compile included (best of {options.repeat} fresh functions), {jax.devices()[0].platform}")
    print(f"  {'kernel':<16}{'solvent':>10}{'jax.jit':>10}{'ratio':>8}")
    for name, solvent_s, jax_s, _ in rows:
        print(f"  {name:<16}{solvent_s * 1e3:8.0f} ms{jax_s * 1e3:8.0f} ms{solvent_s / jax_s:7.2f}x")
    ratios = [s / j for _, s, j, _ in rows]
    print(f"  median ratio {statistics.median(ratios):.2f}x; slowest solvent first call "
          f"{max(s for _, s, _, _ in rows):.2f} s")

    stages = list(rows[0][3])
    print("\nsolvent's first call by stage (ms)")
    print("  " + f"{'kernel':<16}" + "".join(f"{s[:14]:>15}" for s in stages))
    for name, _, _, seconds in rows:
        print("  " + f"{name:<16}" + "".join(f"{seconds.get(s, 0.0) * 1e3:15.1f}" for s in stages))
    return 0


if __name__ == "__main__":
    sys.exit(main())
