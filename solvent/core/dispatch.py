"""The table traced values dispatch through; `solvent.numpy` fills it at import time.

Keeping the table here lets `core/` hand NumPy calls to the NumPy layer without
importing it (imports point downward only).
"""

from __future__ import annotations

from collections.abc import Callable

#: NumPy callable (function or ufunc) -> traced implementation.
FUNCTIONS: dict[object, Callable] = {}

#: Operations that are not NumPy functions: "getitem", "setitem", "ufunc", "array_method".
HOOKS: dict[str, Callable] = {}
