"""The kernel suite side by side: NumPy, `solvent.jit` and `numba.njit` on the same NumPy
source, and `jax.jit` on a hand-written `jax.numpy` port, in one process.

The kernels are the 30 of PolyBench/C 4.2.1 (`polybench/`, written in NumPy from the C
reference) and nine classic ones (`classic.py`), each at two dataset sizes. Every engine's
outputs are checked against NumPy's (rtol 1e-10 unless a kernel says why not). Times are the best of several calls on
fresh copies of the arguments (ndarrays for every engine: what a NumPy user hands over), the
first call's time is reported apart, and the table ends with geomean speedups over NumPy
(numba's over the kernels it compiles, beside solvent's over the same ones).

Usage::

    python benchmarks/kernels.py                      # everything, sizes small and medium
    python benchmarks/kernels.py --sizes mini gemm lu # some kernels, one size
    python benchmarks/kernels.py --json out.json      # also write the measurements
"""

import argparse
import os
import copy
import json
import math
import sys
import time


import classic
import polybench
from polybench.engines import ENGINES, fresh, matches

os.environ["SOLVENT_CACHE_DIR"] = ""  # first calls compile, as jax.jit's do (its disk cache is off)
ALL = polybench.KERNELS + classic.KERNELS
PEERS = ("solvent", "jax", "numba")


def available_engines(engines):
    try:
        import numba  # noqa: F401
    except ImportError:
        print("numba is not installed (pip install -e '.[bench]'): no numba column")
        return [e for e in engines if e != "numba"]
    return engines


def measure(kernel, size, engine, expected=None, budget=0.5):
    """First-call and best steady seconds of one engine, and its outputs; or the error."""
    template = fresh(kernel, size)
    try:
        run = ENGINES[engine](kernel)
        args = copy.deepcopy(template)
        start = time.perf_counter()
        out = run(args)
        first = time.perf_counter() - start
        times = []
        while len(times) < 3 or (sum(times) < budget and len(times) < 50):
            args = copy.deepcopy(template)
            start = time.perf_counter()
            run(args)
            times.append(time.perf_counter() - start)
    except Exception as e:  # a benchmark row, not a test: say what failed and go on
        return {"error": f"{type(e).__name__}: {str(e).strip().splitlines()[0][:160]}"}
    row = {"first": first, "best": min(times)}
    if expected is not None and not matches(kernel, out, expected):
        row["error"] = "MISMATCH against NumPy"
    return row, out


def run_suite(kernels, sizes, engines):
    """Every kernel at every size on every engine: {size: {kernel: {engine: row}}}."""
    results = {}
    for size in sizes:
        results[size] = {}
        for kernel in kernels:
            if size not in kernel.sizes:
                continue
            reference, expected = measure(kernel, size, "numpy")
            rows = {"numpy": reference}
            for engine in engines:
                got = measure(kernel, size, engine, expected)
                rows[engine] = got[0] if isinstance(got, tuple) else got
            results[size][kernel.name] = rows
            print(_line(kernel.name, rows, engines), flush=True)
    return results


def _cell(rows, engine):
    row = rows.get(engine, {})
    if "error" in row:
        return f"{'failed':>20}"
    return f"  {row['best'] * 1e3:10.3f} {rows['numpy']['best'] / row['best']:6.2f}x"


def _line(name, rows, engines):
    firsts = "".join(f"{rows[e]['first'] if 'error' not in rows[e] else float('nan'):7.2f}" for e in engines)
    return f"  {name:<16}{rows['numpy']['best'] * 1e3:10.3f}" + "".join(_cell(rows, e) for e in engines) + firsts


def geomean(values):
    return math.exp(sum(map(math.log, values)) / len(values)) if values else float("nan")


def speedups(table, engine, among=None):
    """Speedups over NumPy of one engine, over the kernels that ran (or those of `among`)."""
    names = [n for n, rows in table.items() if "error" not in rows.get(engine, {"error": 1})]
    names = [n for n in names if among is None or n in among]
    return {n: table[n]["numpy"]["best"] / table[n][engine]["best"] for n in names}


def report(results, engines):
    for size, table in results.items():
        print(f"\n{size}: geomean speedup over NumPy")
        for engine in engines:
            s = speedups(table, engine)
            print(f"  {engine:<8} {geomean(list(s.values())):6.2f}x over {len(s)} kernels; "
                  f"slower than NumPy: {', '.join(n for n, v in s.items() if v < 1) or 'none'}")
            failed = [n for n, rows in table.items() if "error" in rows.get(engine, {})]
            for name in failed:
                print(f"           {name}: {table[name][engine]['error']}")
        if "numba" in engines:
            compiled = speedups(table, "numba")
            same = speedups(table, "solvent", among=compiled)
            print(f"  over the {len(same)} kernels numba compiles: solvent {geomean(list(same.values())):.2f}x, "
                  f"numba {geomean([compiled[n] for n in same]):.2f}x")
        ran = {n: rows["solvent"] for n, rows in table.items() if "error" not in rows.get("solvent", {1: 1})}
        if ran:
            firsts = sorted(row["first"] for row in ran.values())
            # what the first call spends beyond a steady one: tracing, passes and XLA's compile
            compiles = {n: max(row["first"] - row["best"], 0.0) for n, row in ran.items()}
            slowest = max(compiles, key=compiles.get)
            print(f"  solvent first calls: median {firsts[len(firsts) // 2]:.2f} s, max {firsts[-1]:.2f} s; "
                  f"compile (first less steady call): median {sorted(compiles.values())[len(compiles) // 2]:.2f} s, "
                  f"max {compiles[slowest]:.2f} s ({slowest})")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="kernels to run (default: all)")
    parser.add_argument("--sizes", default="small,medium")
    parser.add_argument("--engines", default=",".join(PEERS))
    parser.add_argument("--json", help="write the measurements to this file")
    options = parser.parse_args(argv)
    engines = available_engines(options.engines.split(","))
    kernels = [k for k in ALL if not options.names or k.name in options.names]
    print(f"{'':18}{'numpy ms':>10}" + "".join(f"{e + ' ms  speedup':>20}" for e in engines)
          + "   first call s: " + " ".join(engines))
    results = run_suite(kernels, options.sizes.split(","), engines)
    report(results, engines)
    if options.json:
        with open(options.json, "w") as out:
            json.dump(results, out, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
