"""What a PolyBench kernel is here: the NumPy source, its `jax.numpy` port, PolyBench's
initialisation and dataset sizes, and which arguments it writes."""

import dataclasses
from typing import Callable


@dataclasses.dataclass(frozen=True)
class Kernel:
    """One PolyBench/C 4.2.1 kernel.

    `numpy(*args)` is the kernel as a scientist writes it in NumPy (loops over rows, slices,
    in-place updates); it writes the arguments at `outputs`, as the C kernel does, and also
    serves numba and solvent unchanged. `jax(*args)` is a hand-written `jax.numpy` port of the
    same algorithm and returns the new values of those arguments, in `outputs` order. A kernel
    with `outputs=None` writes nothing and is compared by what it returns.
    `init(**sizes[name])` builds the arguments as PolyBench's `init_array` does (float64).
    `statics` names the integer arguments (time steps) that `jax.jit` takes as static. Outputs
    match NumPy's within `rtol`, relative to each element and to the array's largest magnitude;
    the few kernels whose PolyBench data amplify rounding (every engine alike) say so with a
    larger one.
    """

    name: str
    numpy: Callable
    jax: Callable
    init: Callable
    sizes: dict
    outputs: tuple | None
    statics: tuple = ()
    rtol: float = 1e-10
