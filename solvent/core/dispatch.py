"""The tables and hooks traced values dispatch through, filled by the layers above at import time.

Keeping them here lets `core/` hand NumPy calls to the NumPy layer without importing it (imports
point downward only): the NumPy layer registers its implementations in `FUNCTIONS` and `METHODS`
(through `numpy.registry`), and each hook is set by the one module that implements it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

#: NumPy function or ufunc -> traced implementation.
FUNCTIONS: dict[object, Callable] = {}

#: ndarray method name -> traced implementation (called with the array first).
METHODS: dict[str, Callable] = {}

#: Python builtin (max, int, round, ...) -> what it means on traced values (rewritten code calls it).
BUILTINS: dict[object, Callable] = {}


@dataclass
class Hooks:
    """Calls that go upward at run time; each names the module that sets it."""

    array_function: Callable | None = None  # numpy.protocol: TracedArray.__array_function__
    array_ufunc: Callable | None = None     # numpy.protocol: TracedArray.__array_ufunc__
    getitem: Callable | None = None         # numpy.protocol: x[key]
    setitem: Callable | None = None         # numpy.protocol: x[key] = v
    array_method: Callable | None = None    # numpy.protocol: x.name for ndarray methods
    array_namespace: Callable | None = None  # array_api: x.__array_namespace__()
    vmap: Callable | None = None            # transforms.batching: np.vectorize, np.apply_along_axis


HOOKS = Hooks()
