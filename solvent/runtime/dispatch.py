"""The C++ dispatch path jaxlib uses for `jax.jit`, wrapped in this one place.

`jaxlib._jax.pjit` executes a loaded executable from C++ once its first call
(the cache miss, run from Python here) returned "fast-path data" describing
inputs and outputs. It is internal jaxlib API: everything that touches it is
in this module and `tests/runtime/test_dispatch.py` pins its behaviour.
"""

from __future__ import annotations

import functools
import itertools

import jax
from jax._src import config, core, tree_util
from jax._src.interpreters import pxla
from jaxlib import _jax

from solvent.runtime import devices
from solvent.runtime.sharding import result_handlers

_CACHE = _jax.PjitFunctionCache(capacity=4096)
_KEY = pxla.JitGlobalCppCacheKeys(
    donate_argnums=(), donate_argnames=None, device=None, backend=None,
    in_shardings_treedef=None, in_shardings_leaves=None, out_shardings_treedef=None,
    out_shardings_leaves=None, in_layouts_treedef=None, in_layouts_leaves=None,
    out_layouts_treedef=None, out_layouts_leaves=None, compiler_options_kvs=None)
_ids = itertools.count()


def python_executor(executable, output_avals, output_shardings):
    """`run(*buffers) -> [buffers]` from Python: each output assembled from its per-device parts."""
    handlers = result_handlers(output_avals, output_shardings)

    def run(*buffers):
        return executable.execute_sharded(list(buffers)).consume_with_handlers(handlers)
    return run


#: `x64_on()` switches JAX's 64-bit mode on for this thread, for one call (the C++ path narrows
#: float64 host arrays to float32 without it) and returns the previous setting, for `x64_restore`.
x64_on = functools.partial(config.enable_x64.swap_local, True)
x64_restore = config.enable_x64.set_local


def fast_executor(executable, input_shardings, output_shardings, output_avals):
    """`run(*buffers) -> [buffers]` executing `executable` through the C++ path.

    Each executor gets its own function identity, so the shared C++ cache never
    mixes two executables; the first call goes through `execute_sharded`. The
    C++ path checks every buffer's sharding against `input_shardings`, and copies
    host (NumPy) arrays to the device itself, as it does for `jax.jit`: call it
    between `x64_on()` and `x64_restore` when any input is a host array.
    """
    fast_data = pxla.MeshExecutableFastpathData(
        executable, tree_util.tree_structure([0] * len(output_avals)), list(input_shardings),
        list(output_shardings), [core.ShapedArray(a.shape, a.dtype) for a in output_avals],
        [True] * len(output_avals), [True] * len(input_shardings), [None] * len(input_shardings), [])
    execute = python_executor(executable, output_avals, output_shardings)
    places = [next(iter(s.device_set)) for s in input_shardings]

    def slow_path(*buffers):
        slow_path.misses += 1
        buffers = [b if isinstance(b, jax.Array) else devices.put(b, place) for b, place in zip(buffers, places)]
        return execute(*buffers), fast_data, False

    slow_path.misses = 0
    identity = lambda *buffers: None  # noqa: E731  (the C++ cache keys on this object)
    run = _jax.pjit(f"solvent_{next(_ids)}", identity, slow_path, [], [], _KEY,
                    tree_util.dispatch_registry, pxla.cc_shard_arg, _CACHE)
    run.slow_path = slow_path
    return run
