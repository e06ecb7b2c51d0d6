"""`make fuzz`: random programs against NumPy for a set time; prints what it compared.

    python tests/fuzz/run.py --minutes 10

Exits with status 1 and the smallest failing program hypothesis found on the first mismatch.

XLA's CPU code generator contracts `a * b + c` into one fused multiply-add where it can, and
not the same way in every fusion, so a value compared with its own maximum (`t > t.max()`)
can differ from itself by one rounding; NumPy rounds twice, always. The fuzz compares
solvent's semantics, not XLA's rounding, so it runs with code generated without FMA
instructions on x86 (README, "Known differences").
"""

import argparse
import os
import platform
import sys
import time

if platform.machine() in ("x86_64", "AMD64"):
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " --xla_cpu_max_isa=AVX").strip()

from hypothesis import HealthCheck, given, settings, strategies as st

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from programs import Stats, check, programs  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--cases", type=int, default=60, help="inputs compared per program")
    options = parser.parse_args()
    stats, deadline = Stats(), time.time() + 60 * options.minutes

    @settings(max_examples=25, deadline=None, database=None, derandomize=False,
              suppress_health_check=list(HealthCheck))
    @given(programs(), st.integers(0, 2 ** 32 - 1))
    def batch(program, seed):
        if time.time() < deadline:
            check(program, stats, cases=options.cases, seed=seed)

    try:
        while time.time() < deadline:
            batch()
            print(stats, flush=True)
    except AssertionError as error:
        print(f"MISMATCH after {stats}:\n{error}", flush=True)
        return 1
    print(f"done: {stats}; 0 mismatches", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
