"""Runs each example with NumPy and with solvent, and prints timings and a correctness check.

This is what ``make demo`` runs.  For every example the same plain NumPy step
function runs twice from the same initial state: once as is, and once through
``solvent.jit``.  Both runs make one untimed (NumPy) or compile-timed (solvent)
first step and then ``steps`` timed steps, so their final states must agree to
``np.allclose(rtol=1e-10, atol=1e-12)``: everything is float64 end to end.

Columns: ``compile`` is the first solvent call (tracing, optimization, XLA
compilation and one run); ``numpy`` and ``solvent`` are the mean wall time of
one step afterwards, including Python dispatch and, for solvent, one final
device-to-host copy spread over all steps.  The process exits with status 1
if any example mismatches or fails.

Usage::

    python examples/demo.py            # full sizes, well under a minute
    python examples/demo.py --quick    # small sizes, a smoke test
"""

import argparse
import ctypes
import sys
import time
import traceback
from dataclasses import dataclass, replace
from typing import Any, Callable

import numpy as np

import alignment
import ising
import fractal
import heat
import nbody
import option
import regression
import solvent
import spectral

RTOL = 1e-10
ATOL = 1e-12

_M_TRIM_THRESHOLD = -1  # mallopt parameter numbers, from glibc's <malloc.h>
_M_MMAP_THRESHOLD = -3


@dataclass
class Case:
    """One row of the table: how to build, place, advance and read back a state.

    ``advance(step_fn, state)`` makes one step and returns the step's result;
    ``snapshot(state, result)`` returns the arrays to compare, as NumPy arrays
    (reading them also waits for any computation still in flight).
    """

    name: str
    size: str
    steps: int
    step: Callable
    build: Callable[[], Any]
    place: Callable[[Any], Any]
    advance: Callable[[Callable, Any], Any]
    snapshot: Callable[[Any, Any], dict]


@dataclass
class Row:
    """The measurements printed for one case; times in seconds."""

    name: str
    size: str
    compile_s: float = float("nan")
    numpy_s: float = float("nan")
    solvent_s: float = float("nan")
    verdict: str = "not run"


def keep_large_blocks_in_heap():
    """Make NumPy's large temporaries reuse heap memory; return whether that worked.

    By default glibc serves large blocks with ``mmap`` and returns them to the
    system on ``free``, so each 2 MB temporary of a NumPy expression costs
    fresh page faults; its threshold adapts at unpredictable moments, and the
    NumPy time per step of the same loop then varies up to fourfold within one
    process.  Fixed thresholds give NumPy its fast case on every run (solvent's
    buffers are served by the same allocator).  Without glibc nothing changes.
    """
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    return bool(mallopt(_M_MMAP_THRESHOLD, 32 << 20) and mallopt(_M_TRIM_THRESHOLD, 256 << 20))


def heat_case(n, steps, on_device):
    """The heat equation on an ``n x n`` grid, passed as a ``solvent.Array`` or an ndarray."""
    kind = "solvent.Array" if on_device else "numpy.ndarray"
    return Case(
        name=f"heat ({kind})",
        size=f"{n}x{n}",
        steps=steps,
        step=heat.step,
        build=lambda: heat.initial_condition(n),
        place=solvent.asarray if on_device else (lambda u: u),
        advance=lambda step_fn, u: step_fn(u, heat.ALPHA, heat.DT),
        snapshot=lambda u, _: {"u": np.asarray(u)},
    )


def heat_loop_case(n, calls, steps_per_call):
    """The whole time loop in one compiled call (a rolled ``stablehlo.while``)."""
    return replace(heat_case(n, calls, on_device=True), name=f"heat x{steps_per_call} in one call",
                   step=heat.simulate, advance=lambda step_fn, u: step_fn(u, steps_per_call))


def nbody_case(n, steps):
    """The n-body step on a dataclass whose fields are ``solvent.Array``s."""

    def place(bodies):
        return nbody.Bodies(
            pos=solvent.asarray(bodies.pos),
            vel=solvent.asarray(bodies.vel),
            mass=solvent.asarray(bodies.mass),
        )

    def snapshot(bodies, kinetic):
        return {
            "pos": np.asarray(bodies.pos),
            "vel": np.asarray(bodies.vel),
            "kinetic energy": np.asarray(kinetic),
        }

    return Case(
        name="nbody (dataclass)",
        size=f"n={n}",
        steps=steps,
        step=nbody.step,
        build=lambda: nbody.initial_state(n),
        place=place,
        advance=lambda step_fn, bodies: step_fn(bodies, nbody.DT, nbody.EPS),
        snapshot=snapshot,
    )


def spectral_case(n, steps):
    """Cahn-Hilliard by FFTs: ``rfft2``/``irfft2`` and ``np.gradient`` in one program per step."""
    return Case(
        name="cahn-hilliard (fft)",
        size=f"{n}x{n}",
        steps=steps,
        step=spectral.step,
        build=lambda: spectral.initial_state(n),
        place=lambda state: tuple(solvent.asarray(a) for a in state),
        advance=lambda step_fn, state: step_fn(state[0], state[1], spectral.DT),
        snapshot=lambda state, energy: {"u": np.asarray(state[0]), "energy": np.asarray(energy)},
    )


def regression_case(m, n, steps):
    """Robust regression: medians (sorts), an einsum and ``np.linalg.solve`` (LAPACK) per step."""

    def advance(step_fn, state):
        state["beta"], scale = step_fn(state["x"], state["y"], state["beta"])
        return scale

    def build():
        data = regression.make_data(m, n)
        return {"x": data.x, "y": data.y, "beta": np.zeros(n)}

    return Case(
        name="huber regression (linalg)",
        size=f"{m}x{n}",
        steps=steps,
        step=regression.step,
        build=build,
        place=lambda state: {key: solvent.asarray(a) for key, a in state.items()},
        advance=advance,
        snapshot=lambda state, scale: {"beta": np.asarray(state["beta"]), "scale": np.asarray(scale)},
    )


def fractal_case(n, iterations, steps):
    """Escape-time Mandelbrot with boolean masks: ``z[alive] = z[alive] ** 2 + c[alive]`` per iteration."""
    return Case(
        name="mandelbrot (masks)",
        size=f"{n}x{n}",
        steps=steps,
        step=fractal.escape_counts,
        build=lambda: fractal.grid(n),
        place=lambda c: c,
        advance=lambda step_fn, c: step_fn(c, iterations),
        snapshot=lambda c, counts: {"counts": np.asarray(counts)},
    )


def shrinking_fractal_case(n, iterations, steps):
    """Escape-time Mandelbrot on a working set that shrinks every iteration: ``z = z[~escaped]``."""
    return replace(fractal_case(n, iterations, steps), name="mandelbrot (shrinking set)",
                   step=fractal.escape_times, snapshot=lambda c, times: {"times": np.asarray(times)})


def alignment_case(n, steps):
    """Needleman-Wunsch: a score table filled cell by cell in two loops, with Python's ``max``."""
    return Case(
        name="alignment (dp, max)",
        size=f"n={n}",
        steps=steps,
        step=alignment.score,
        build=lambda: alignment.random_pair(n),
        place=lambda pair: pair,
        advance=lambda step_fn, pair: step_fn(*pair),
        snapshot=lambda pair, result: {"score": np.asarray(result[0]), "table": np.asarray(result[1])},
    )


def ising_case(n, sweeps, steps):
    """Metropolis Monte Carlo: random sites and acceptances from a Generator argument, in one loop."""

    def generator_state(rng):
        state = rng.bit_generator.state
        return np.array([state["state"]["state"] >> 64, state["state"]["state"] & (2 ** 64 - 1),
                         state["has_uint32"], state["uinteger"]], dtype=np.uint64)

    def build():
        rng = np.random.default_rng(0)
        return ising.random_lattice(n, rng), rng

    return Case(
        name="ising (metropolis, rng)",
        size=f"{n}x{n}",
        steps=steps,
        step=ising.metropolis,
        build=build,
        place=lambda state: state,
        advance=lambda step_fn, state: step_fn(*state, 0.44, sweeps * n * n),
        snapshot=lambda state, m: {"spins": state[0].copy(), "m": np.asarray(m), "rng": generator_state(state[1])},
    )


def option_case(paths, steps, calls):
    """Monte Carlo with np.random's global functions: the global RandomState is the program's too."""

    def global_state():
        state = np.random.get_state(legacy=False)
        return np.concatenate([state["state"]["key"].astype(np.int64), [state["state"]["pos"], state["has_gauss"]]])

    def build():
        np.random.seed(0)
        return None

    return Case(
        name="asian option (np.random)",
        size=f"{paths}x{steps}",
        steps=calls,
        step=option.asian_call,
        build=build,
        place=lambda state: state,
        advance=lambda step_fn, _: step_fn(100.0, 105.0, 0.03, 0.2, 1.0, steps, paths),
        snapshot=lambda _, price: {"price": np.asarray(price), "np.random": global_state()},
    )


def run_steps(case, step_fn, state):
    """Make ``case.steps`` steps; return the snapshot and the seconds per step."""
    result = None
    start = time.perf_counter()
    for _ in range(case.steps):
        result = case.advance(step_fn, state)
    arrays = case.snapshot(state, result)
    return arrays, (time.perf_counter() - start) / case.steps


def compare(expected, actual):
    """Return ``"ok"`` or ``"MISMATCH ..."`` for two dicts of arrays."""
    for key, want in expected.items():
        got = actual[key]
        if got.shape != want.shape or got.dtype != want.dtype:
            return (f"MISMATCH {key}: got {got.dtype}{list(got.shape)}, "
                    f"expected {want.dtype}{list(want.shape)}")
        if not np.allclose(got, want, rtol=RTOL, atol=ATOL):
            return f"MISMATCH max err {np.max(np.abs(got - want)):.3g} in {key}"
    return "ok"


def measure(case):
    """Run ``case`` with NumPy and with solvent and fill in a :class:`Row`."""
    row = Row(case.name, case.size)

    reference = case.build()
    case.advance(case.step, reference)  # the counterpart of solvent's first call
    expected, row.numpy_s = run_steps(case, case.step, reference)

    state = case.place(case.build())
    compiled = solvent.jit(case.step)
    start = time.perf_counter()
    case.snapshot(state, case.advance(compiled, state))
    row.compile_s = time.perf_counter() - start
    actual, row.solvent_s = run_steps(case, compiled, state)

    row.verdict = compare(expected, actual)
    return row


def format_row(row):
    """One aligned line of the table."""
    speedup = row.numpy_s / row.solvent_s
    return (f"{row.name:<26} {row.size:>9} {row.compile_s:>9.2f} s "
            f"{row.numpy_s * 1e3:>9.3f} ms {row.solvent_s * 1e3:>9.3f} ms "
            f"{speedup:>7.1f}x  {row.verdict}")


HEADER = (f"{'example':<26} {'size':>9} {'compile':>11} "
          f"{'numpy/call':>12} {'solvent/call':>12} {'speedup':>8}  check")


def main(argv=None):
    """Run every case, print the table, and return the process exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, few steps")
    args = parser.parse_args(argv)

    grid, bodies, scale = (64, 64, 10) if args.quick else (512, 512, 1)
    cases = [
        heat_case(grid, 200 // scale, on_device=True),
        heat_case(grid, 200 // scale, on_device=False),
        heat_loop_case(grid, 3, 100),
        nbody_case(bodies, 30 // scale + 2),
        spectral_case(grid // 2, 50 // scale),
        regression_case(40 * grid, 16, 20 // scale),
        fractal_case(grid // 2, 50, 10 // scale + 1),
        shrinking_fractal_case(grid // 2, 50, 10 // scale + 1),
        alignment_case(grid // 2, 10 // scale + 1),
        ising_case(grid // 16, 4, 10 // scale + 1),
        option_case(20 * grid, 50, 10 // scale + 1),
    ]
    heap = "blocks up to 32 MiB kept in the heap" if keep_large_blocks_in_heap() else "default malloc"
    print(f"float64 throughout; check: np.allclose(rtol={RTOL:g}, atol={ATOL:g}); {heap}")
    print(HEADER)
    failed = False
    for case in cases:
        try:
            row = measure(case)
        except Exception as error:  # report every case, then fail at the end
            traceback.print_exc()
            message = str(error).splitlines()[0] if str(error) else ""
            row = Row(case.name, case.size, verdict=f"ERROR {type(error).__name__}: {message}")
        failed |= row.verdict != "ok"
        print(format_row(row), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
