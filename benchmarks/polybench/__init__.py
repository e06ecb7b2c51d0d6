"""The PolyBench/C 4.2.1 kernels, written in plain NumPy from the C reference, each with a
`jax.numpy` port (`KERNELS`, in PolyBench's order of categories)."""

import importlib

_CATEGORIES = ("datamining", "blas", "linalg_kernels", "solvers", "medley", "stencils")

KERNELS = [k for c in _CATEGORIES for k in importlib.import_module(f"{__name__}.{c}").KERNELS]
