"""First calls: solvent.jit against jax.jit on hand-written jax.numpy ports, and where the time goes.

Each kernel of `kernels.py` (stencils in time loops, a convolution and a CNN layer written
with loops, LU by rows, a pure-Python Game of Life, the examples' heat equation and n-body
step) is called once on a fresh jitted function, timing trace + passes + XLA + the call,
side by side with `jax.jit` on its port. Both results are checked against NumPy. A second
table splits solvent's first call by stage (`Compiled.seconds`).

Usage::

    python benchmarks/compile.py            # every kernel, best of 3 fresh first calls
    python benchmarks/compile.py life lu    # some of them
"""

import argparse
import copy
import statistics
import sys
import time

import jax
import numpy as np

import kernels
import solvent


def _split(fn, args, statics):
    names = fn.__code__.co_varnames[:len(args)]
    kwargs = {n: a for n, a in zip(names, args) if n in statics}
    return [a for n, a in zip(names, args) if n not in statics], kwargs


def _ready(result):
    for x in result if isinstance(result, tuple) else (result,):
        if hasattr(x, "block_until_ready"):
            x.block_until_ready()
    return result


def first_call(make_callable, make_args, repeat):
    """Best wall time of a fresh function's first call (compile included), and its result."""
    best, result = float("inf"), None
    for _ in range(repeat):
        f, (args, kwargs) = make_callable(), make_args()
        start = time.perf_counter()
        result = _ready(f(*args, **kwargs))
        best = min(best, time.perf_counter() - start)
    return best, result


def measure(name, fn, make, statics, repeat):
    expected_args = copy.deepcopy(make())
    expected = fn(*expected_args)
    solvent_s, got = first_call(lambda: solvent.jit(fn, static_argnames=statics),
                                lambda: _split(fn, copy.deepcopy(make()), statics), repeat)
    with jax.enable_x64(True):  # a fresh port each time, so that jax.jit's caches miss as solvent's do
        jax_s, jax_got = first_call(lambda: jax.jit(kernels.jax_ports()[name], static_argnames=statics),
                                    lambda: _split(fn, [jax.numpy.asarray(a) if isinstance(a, np.ndarray) else a
                                                        for a in copy.deepcopy(make())], statics), repeat)
    for label, value in (("solvent", got), ("jax", jax_got)):
        first = value[0] if isinstance(value, tuple) else value
        reference = expected[0] if isinstance(expected, tuple) else expected
        if reference is None:  # mutates its first argument only
            continue
        np.testing.assert_allclose(np.asarray(first), reference, rtol=1e-9, atol=1e-9, err_msg=f"{name} {label}")
    args, kwargs = _split(fn, copy.deepcopy(make()), statics)
    stages = solvent.compile(fn, *args, static_argnames=statics, **kwargs).seconds
    return solvent_s, jax_s, stages


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="kernels to run (default: all)")
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args(argv)
    cases = [c for c in kernels.CASES if not options.names or c[0] in options.names]
    rows = [(name, *measure(name, fn, make, statics, options.repeat)) for name, fn, make, statics in cases]

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
