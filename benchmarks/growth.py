"""How the loop kernels' time grows from n=200 to n=400, NumPy's against each compiled engine's.

The kernels are the loops over rows whose slices grow or shrink with the loop index (LU, a
Cholesky by rows, forward substitution, a rank-k update, column products), from `polybench/`,
as #12's acceptance names them. Each engine runs each size interleaved with the others, best of
`--best` calls on fresh arguments, the median over `--rounds` rounds; the last column divides an
engine's growth by NumPy's (1.0: it grows as NumPy does).

Usage::

    python benchmarks/growth.py                       # NumPy and solvent, about 3 minutes
    python benchmarks/growth.py --engines numpy,solvent,numba,jax
"""

import argparse
import copy
import statistics
import sys
import time

from polybench import blas, datamining, solvers
from polybench.engines import ENGINES

KERNELS = {k.name: k for m in (solvers, blas, datamining) for k in m.KERNELS}
#: kernel -> its arguments' sizes at n
CASES = {"lu": lambda n: dict(n=n), "cholesky": lambda n: dict(n=n), "trisolv": lambda n: dict(n=n),
         "syrk": lambda n: dict(m=n // 2, n=n), "covariance": lambda n: dict(m=n, n=n)}
SIZES = (200, 400)


def best(run, args, calls: int) -> float:
    """The fastest of `calls` calls, each on a fresh copy of `args`."""
    times = []
    for _ in range(calls):
        fresh = copy.deepcopy(args)
        start = time.perf_counter()
        run(fresh)
        times.append(time.perf_counter() - start)
    return min(times)


def growth(name: str, engines, calls: int, rounds: int) -> dict:
    """{(engine, n): seconds} for one kernel, each engine and size measured in turn, `rounds` times."""
    kernel = KERNELS[name]
    runs = {e: ENGINES[e](kernel) for e in engines}
    args = {n: kernel.init(**CASES[name](n)) for n in SIZES}
    for run in runs.values():  # compiled first
        for n in SIZES:
            run(copy.deepcopy(args[n]))
    found = {(e, n): [] for e in runs for n in SIZES}
    for _ in range(rounds):
        for e, run in runs.items():
            for n in SIZES:
                found[(e, n)].append(best(run, args[n], calls))
    return {key: statistics.median(times) for key, times in found.items()}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engines", default="numpy,solvent")
    parser.add_argument("--best", type=int, default=15)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    engines = args.engines.split(",")
    if "numpy" not in engines:
        engines.insert(0, "numpy")
    low, high = SIZES
    print(f"{'kernel':<11} {'engine':<8} {f'n={low} ms':>10} {f'n={high} ms':>10} {'growth':>7} {'/ NumPy':>8}")
    for name in CASES:
        t = growth(name, engines, args.best, args.rounds)
        base = t[("numpy", high)] / t[("numpy", low)]
        for e in engines:
            g = t[(e, high)] / t[(e, low)]
            print(f"{name:<11} {e:<8} {t[(e, low)] * 1e3:10.3f} {t[(e, high)] * 1e3:10.3f} {g:6.2f}x {g / base:7.2f}x",
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
