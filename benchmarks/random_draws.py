"""Times random draws inside a compiled function: NumPy's Generator, ``solvent.jit`` drawing the same
bits from a Generator argument, and ``jax.random`` under ``jax.jit``, side by side in one process.
The rows marked (legacy) draw from NumPy's legacy generator instead: a ``RandomState`` argument, or
the global one behind ``np.random.rand``, which the compiled function takes and leaves as NumPy does.

Each row draws n numbers in one call. solvent's draws are checked to equal NumPy's bit for bit, and
the generator to be left in NumPy's state. JAX's streams are its own (threefry), so only its speed is
comparable. Ratios are NumPy's (or JAX's) time divided by solvent's: above 1 means solvent is faster.
Times are the best of several calls; solvent's include reading and writing the generator's state and
copying the result to the host (NumPy's is there already), JAX's leave it on the device. The last
columns are each compiler's first call (its compile included; solvent's disk cache is off).

Usage::

    python benchmarks/random_draws.py          # n = 10^6
    python benchmarks/random_draws.py --quick  # n = 10^4
    python benchmarks/random_draws.py --n 1000
"""

import argparse
import os
import sys
import time
import timeit

import jax
import numpy as np

import solvent

os.environ["SOLVENT_CACHE_DIR"] = ""  # real compiles, as jax.jit's (its disk cache is off by default)


def cases(n):
    """(name, NumPy draw from a Generator, the jax.random draw of the same distribution) per row."""
    m = min(n, 1000)
    return [
        ("uniform float64", lambda rng: rng.random(n), lambda key: jax.random.uniform(key, (n,), "float64")),
        ("uniform float32", lambda rng: rng.random(n, dtype=np.float32),
         lambda key: jax.random.uniform(key, (n,), "float32")),
        ("uniform(-1, 3)", lambda rng: rng.uniform(-1.0, 3.0, n),
         lambda key: jax.random.uniform(key, (n,), "float64", -1.0, 3.0)),
        ("integers(0, 100)", lambda rng: rng.integers(0, 100, n), lambda key: jax.random.randint(key, (n,), 0, 100)),
        ("standard_normal", lambda rng: rng.standard_normal(n), lambda key: jax.random.normal(key, (n,), "float64")),
        ("normal(2, 0.5)", lambda rng: rng.normal(2.0, 0.5, n),
         lambda key: 2.0 + 0.5 * jax.random.normal(key, (n,), "float64")),
        ("exponential", lambda rng: rng.standard_exponential(n),
         lambda key: jax.random.exponential(key, (n,), "float64")),
        ("integers(bool)", lambda rng: rng.integers(0, 2, n, dtype=bool), lambda key: jax.random.bernoulli(key, 0.5, (n,))),
        # shuffles swap one element at a time, as NumPy's do: a loop of m steps (see the README)
        (f"permutation({m})", lambda rng: rng.permutation(m), lambda key: jax.random.permutation(key, m)),
        (f"choice({m}, {m // 10})", lambda rng: rng.choice(m, m // 10, replace=False),
         lambda key: jax.random.choice(key, m, (m // 10,), replace=False)),
        ("random_sample (legacy)", RandomState(lambda rs: rs.random_sample(n)),
         lambda key: jax.random.uniform(key, (n,), "float64")),
        ("randint(0, 100) (legacy)", RandomState(lambda rs: rs.randint(0, 100, n)),
         lambda key: jax.random.randint(key, (n,), 0, 100)),
        ("np.random.rand (legacy)", Global(lambda: np.random.rand(n)),
         lambda key: jax.random.uniform(key, (n,), "float64")),
        ("np.random.randn (legacy)", Global(lambda: np.random.randn(n)),
         lambda key: jax.random.normal(key, (n,), "float64")),
    ]


class RandomState:
    """A draw from a legacy RandomState argument."""

    def __init__(self, draw):
        self.draw = draw

    def __call__(self, rs):
        return self.draw(rs)

    @staticmethod
    def twins():
        return np.random.RandomState(1), np.random.RandomState(1)

    @staticmethod
    def same_state(a, b) -> bool:
        return all(np.array_equal(x, y) for x, y in zip(a.get_state(), b.get_state()))


class Global(RandomState):
    """A draw from np.random's global state: both sides run after the same np.random.seed."""

    def __call__(self, _):
        return self.draw()

    @staticmethod
    def twins():
        np.random.seed(1)
        return None, None


class Modern:
    """A draw from a Generator argument (PCG64)."""

    @staticmethod
    def twins():
        return np.random.default_rng(1), np.random.default_rng(1)

    @staticmethod
    def same_state(a, b) -> bool:
        return a.bit_generator.state == b.bit_generator.state


def best(call, repeat):
    call()
    return min(timeit.repeat(call, number=1, repeat=repeat))


def first(call):
    """(the result, the seconds) of a first call."""
    start = time.perf_counter()
    result = call()
    return result, time.perf_counter() - start


def measure(draw, jax_draw, repeat):
    """(numpy, solvent or None where refused, jax) seconds per call, and solvent's and jax's first calls."""
    kind = draw if isinstance(draw, RandomState) else Modern
    ours, numpys = kind.twins()
    compiled = solvent.jit(draw)
    try:
        got, solvent_first = first(lambda: compiled(ours))
    except solvent.UnsupportedError:
        got = solvent_first = None
    if got is not None and isinstance(draw, Global):
        after = np.random.get_state()
        np.random.seed(1)
        assert np.array_equal(got, draw(None)) and all(np.array_equal(x, y) for x, y in zip(after, np.random.get_state()))
    elif got is not None:
        assert np.array_equal(got, draw(numpys)) and kind.same_state(ours, numpys)
    key = jax.random.key(0)
    jitted = jax.jit(jax_draw)
    jax_first = first(lambda: jitted(key).block_until_ready())[1]
    numpy_s = best(lambda: draw(numpys), repeat)
    solvent_s = best(lambda: compiled(ours), repeat) if got is not None else None
    jax_s = best(lambda: jitted(key).block_until_ready(), repeat)
    return numpy_s, solvent_s, jax_s, solvent_first, jax_first


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="n = 10^4, few repeats")
    parser.add_argument("--n", type=int, help="draws per call (default 10^6, or 10^4 with --quick)")
    args = parser.parse_args(argv)
    jax.config.update("jax_enable_x64", True)
    n, repeat = (10_000, 5) if args.quick else (1_000_000, 10)
    n = args.n or n
    print(f"n = {n}\n{'draw':<26} {'numpy':>10} {'solvent':>10} {'jax.jit':>10} {'numpy/solvent':>14} {'jax/solvent':>12}"
          f"   first call s: solvent jax")
    firsts = []
    for name, draw, jax_draw in cases(n):
        numpy_s, solvent_s, jax_s, solvent_first, jax_first = measure(draw, jax_draw, repeat)
        if solvent_s is None:
            print(f"{name:<26} {numpy_s * 1e3:>8.3f}ms {'refused':>10} {jax_s * 1e3:>8.3f}ms", flush=True)
            continue
        firsts.append(solvent_first / jax_first)
        print(f"{name:<26} {numpy_s * 1e3:>8.3f}ms {solvent_s * 1e3:>8.3f}ms {jax_s * 1e3:>8.3f}ms "
              f"{numpy_s / solvent_s:>13.2f}x {jax_s / solvent_s:>11.2f}x {solvent_first:>17.2f} {jax_first:.2f}", flush=True)
    print(f"first calls, solvent / jax.jit: median {sorted(firsts)[len(firsts) // 2]:.2f}x, max {max(firsts):.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
