"""Checks kernels on one dataset size: every engine's outputs against NumPy's (within each kernel's tolerance),
with the first call's time. `python benchmarks/polybench/check.py [--size mini] [name ...]`."""

import argparse
import pathlib
import sys
import time
import traceback

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
from polybench import KERNELS  # noqa: E402
from polybench.engines import ENGINES, fresh, matches  # noqa: E402


def check(kernel, size, engines):
    expected = ENGINES["numpy"](kernel)(fresh(kernel, size))
    for engine in engines:
        try:
            run = ENGINES[engine](kernel)
            start = time.perf_counter()
            got = run(fresh(kernel, size))
            seconds = time.perf_counter() - start
        except Exception as e:  # a report, not a test: say what failed and go on
            print(f"{kernel.name:14} {engine:8} FAILED {type(e).__name__}: {str(e).splitlines()[0][:300]}")
            if engine == "solvent":
                traceback.print_exc(limit=-3)
            continue
        ok = matches(kernel, got, expected)
        print(f"{kernel.name:14} {engine:8} {'ok' if ok else 'MISMATCH'}  first call {seconds:.3f} s")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", default="mini")
    parser.add_argument("--engines", default="solvent,jax,numba")
    parser.add_argument("names", nargs="*")
    args = parser.parse_args()
    for kernel in KERNELS:
        if not args.names or kernel.name in args.names:
            check(kernel, args.size, args.engines.split(","))


if __name__ == "__main__":
    main()
