"""The op registry: one entry per NumPy function, mapping it to its traced implementation."""

from __future__ import annotations

from solvent.core import dispatch


def implements(*numpy_functions):
    """Register the decorated function as the traced implementation of `numpy_functions`.

    Example::

        @implements(np.sum)
        def sum(a, axis=None, dtype=None, out=None, keepdims=False, ...): ...
    """
    def register(impl):
        for fn in numpy_functions:
            if fn in dispatch.FUNCTIONS:
                raise ValueError(f"{qualified_name(fn)} is registered twice")
            dispatch.FUNCTIONS[fn] = impl
        return impl
    return register


def qualified_name(fn) -> str:
    """`np.linalg.norm`-style name of a NumPy callable."""
    module = getattr(fn, "__module__", None) or "numpy"
    module = module.replace("numpy._core.multiarray", "numpy").replace("numpy._core.fromnumeric", "numpy")
    parts = module.split(".")
    if parts[0] == "numpy":
        parts = ["np"] + [p for p in parts[1:] if not p.startswith("_")]
    return ".".join(parts + [getattr(fn, "__name__", repr(fn))])


def supported() -> list[str]:
    """Sorted names of every NumPy function and ufunc solvent can compile."""
    return sorted({qualified_name(fn) for fn in dispatch.FUNCTIONS if not isinstance(fn, (str, tuple))})
