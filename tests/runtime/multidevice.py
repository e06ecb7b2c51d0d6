"""Running test cases in a fresh Python process that has several CPU devices.

XLA's CPU client takes its device count from XLA_FLAGS when jax starts, and
the main pytest process keeps its single device (other tests and the dispatch
fast path assume it), so multi-device cases run in a subprocess: a case module
calls `main(cases)`, each case checks its values against NumPy and returns a
few facts (JSON), and the test reads them back with `run_cases`.
"""

import json
import os
import subprocess
import sys
import traceback

MARK = "MULTIDEVICE-RESULTS "


def device_environment(devices: int) -> dict:
    """The environment of a process with `devices` CPU devices."""
    return dict(os.environ, XLA_FLAGS=f"--xla_force_host_platform_device_count={devices}")


def run_cases(script: str, devices: int = 8, timeout: float = 180) -> dict:
    """{case name: {"ok": bool, "error": traceback, ...facts}} from running `script`'s cases."""
    done = subprocess.run([sys.executable, script], env=device_environment(devices), capture_output=True,
                          text=True, timeout=timeout)
    for line in reversed(done.stdout.splitlines()):
        if line.startswith(MARK):
            return json.loads(line[len(MARK):])
    raise AssertionError(f"{script} printed no results (exit {done.returncode}):\n{done.stderr[-4000:]}")


def main(cases: dict) -> None:
    """Run every case (a function returning a dict of facts) and print the results for `run_cases`."""
    results = {}
    for name, case in cases.items():
        try:
            results[name] = {"ok": True, **(case() or {})}
        except Exception:  # reported to the test that reads this case
            results[name] = {"ok": False, "error": traceback.format_exc()}
    print(MARK + json.dumps(results), flush=True)


def collectives(hlo: str) -> list[str]:
    """The collective operations in a partitioned HLO module's text."""
    names = ("all-reduce", "all-gather", "reduce-scatter", "collective-permute", "all-to-all")
    return [name for name in names if f" {name}(" in hlo or f"{name}-start(" in hlo]
