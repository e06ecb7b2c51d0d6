"""Times NumPy library operations (FFT, linear algebra, sorting, statistics, indexing) with NumPy,
with ``solvent.jit`` and with ``jax.jit``, side by side in one process.

Each row is one NumPy function written once against a namespace ``xp``: NumPy
runs it on host arrays, ``solvent.jit`` compiles the very same NumPy code, and
``jax.jit`` runs it with ``xp = jax.numpy`` (x64 enabled, so everything is
float64). Every time is the best of several runs of one call, waiting for the
result; solvent's and JAX's results are checked against NumPy's first.
Ratios are NumPy's time (or JAX's) divided by solvent's: above 1 means solvent
is faster.

Usage::

    python benchmarks/numpy_ops.py            # about half a minute
    python benchmarks/numpy_ops.py --quick    # small sizes
"""

import argparse
import sys
import timeit

import jax
import jax.numpy as jnp
import numpy as np

import solvent


def spectral(xp, u):
    """One pseudo-spectral smoothing step: rfft2, a multiplier, irfft2."""
    k = xp.fft.rfftfreq(u.shape[1])
    return xp.fft.irfft2(xp.fft.rfft2(u) / (1.0 + k * k), s=u.shape)


def solve(xp, a, b):
    return xp.linalg.solve(a, b)


def chain(xp, a, b, c):
    return xp.einsum("ij,jk,kl->il", a, b, c)


def sort(xp, x):
    return xp.sort(x)


def median(xp, x):
    return xp.median(x)


def gather(xp, x, index):
    return xp.sum(x[index])


def cumulative(xp, x):
    return xp.cumsum(xp.diff(x))


def cases(n):
    """(name, size, function, host arguments) for each row."""
    rng = np.random.default_rng(0)
    m = int(np.sqrt(n))
    return [
        ("rfft2 / irfft2", f"{m}x{m}", spectral, (rng.standard_normal((m, m)),)),
        ("linalg.solve", f"{m // 2}x{m // 2}", solve,
         (rng.standard_normal((m // 2, m // 2)) + m * np.eye(m // 2), rng.standard_normal((m // 2, 8)))),
        ("einsum chain", f"{m // 2}^2 x3", chain, tuple(rng.standard_normal((m // 2, m // 2)) for _ in range(3))),
        ("sort", f"{n}", sort, (rng.standard_normal(n),)),
        ("median", f"{n}", median, (rng.standard_normal(n),)),
        ("fancy gather + sum", f"{n}", gather, (rng.standard_normal(n), rng.integers(0, n, n))),
        ("diff + cumsum", f"{n}", cumulative, (rng.standard_normal(n),)),
    ]


def best_seconds(call, repeat):
    call()
    return min(timeit.repeat(call, number=1, repeat=repeat))


def measure(function, host, repeat):
    """(numpy, solvent, jax) seconds per call of `function` on `host` arguments."""
    expected = function(np, *host)
    compiled = solvent.jit(lambda *args: function(np, *args))
    device = [solvent.asarray(a) for a in host]
    np.testing.assert_allclose(np.asarray(compiled(*device)), expected, rtol=1e-9, atol=1e-9)
    jitted = jax.jit(lambda *args: function(jnp, *args))
    on_jax = [jnp.asarray(a) for a in host]
    np.testing.assert_allclose(np.asarray(jitted(*on_jax)), expected, rtol=1e-9, atol=1e-9)
    return (best_seconds(lambda: function(np, *host), repeat),
            best_seconds(lambda: compiled(*device).block_until_ready(), repeat),
            best_seconds(lambda: jitted(*on_jax).block_until_ready(), repeat))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, few repeats")
    args = parser.parse_args(argv)
    jax.config.update("jax_enable_x64", True)
    n, repeat = (4096, 3) if args.quick else (262144, 10)
    print(f"{'operation':<20} {'size':>11} {'numpy':>10} {'solvent':>10} {'jax.jit':>10} "
          f"{'numpy/solvent':>14} {'jax/solvent':>12}")
    for name, size, function, host in cases(n):
        numpy_s, solvent_s, jax_s = measure(function, host, repeat)
        print(f"{name:<20} {size:>11} {numpy_s * 1e3:>8.3f}ms {solvent_s * 1e3:>8.3f}ms {jax_s * 1e3:>8.3f}ms "
              f"{numpy_s / solvent_s:>13.2f}x {jax_s / solvent_s:>11.2f}x", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
