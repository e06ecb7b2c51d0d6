"""The four ways a kernel runs side by side: NumPy itself, `solvent.jit` and `numba.njit` on
the same source, and `jax.jit` on the port. Each engine turns a `Kernel` into a function of
fresh arguments that returns the kernel's outputs as NumPy arrays, once the work is done."""

import numpy as np


def _arrays(values):
    return tuple(np.asarray(v) for v in (values if isinstance(values, tuple) else (values,)))


def _written(kernel, args, result):
    """What a call of the NumPy source produced: the arguments it writes, or what it returns."""
    return _arrays(result) if kernel.outputs is None else tuple(np.asarray(args[i]) for i in kernel.outputs)


def numpy_engine(kernel):
    def run(args):
        return _written(kernel, args, kernel.numpy(*args))
    return run


def solvent_engine(kernel):
    import solvent
    compiled = solvent.jit(kernel.numpy)

    def run(args):
        return _written(kernel, args, compiled(*args))
    return run


def numba_engine(kernel):
    import warnings

    import numba
    # numba's advice that `@` is faster on contiguous arrays: the kernels slice columns, as written
    warnings.filterwarnings("ignore", category=numba.NumbaPerformanceWarning)
    compiled = numba.njit(kernel.numpy)

    def run(args):
        return _written(kernel, args, compiled(*args))
    return run


def jax_engine(kernel):
    import jax
    jax.config.update("jax_enable_x64", True)
    compiled = jax.jit(kernel.jax, static_argnames=kernel.statics)
    names = kernel.jax.__code__.co_varnames[:kernel.jax.__code__.co_argcount]

    def run(args):  # by keyword: jax.jit takes static arguments wherever they stand
        return _arrays(jax.block_until_ready(compiled(**dict(zip(names, args)))))
    return run


ENGINES = {"numpy": numpy_engine, "solvent": solvent_engine, "numba": numba_engine, "jax": jax_engine}


def matches(kernel, got, expected) -> bool:
    """Same shapes, dtypes and values as NumPy's outputs, within the kernel's tolerance."""
    return len(got) == len(expected) and all(
        g.shape == e.shape and g.dtype == e.dtype
        and np.allclose(g, e, rtol=kernel.rtol, atol=kernel.rtol * np.max(np.abs(e), initial=0), equal_nan=True)
        for g, e in zip(got, expected))


def fresh(kernel, size):
    """The kernel's arguments at one of its dataset sizes, newly built."""
    return kernel.init(**kernel.sizes[size])
