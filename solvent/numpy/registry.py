"""The op registry: one entry per NumPy function, mapping it to its traced implementation.

`solvent.supported()` and the generated docs/supported.md both read this table.
"""

from __future__ import annotations

import numpy as np

from solvent.core import dispatch

#: NumPy functions and ndarray method names registered only to say why they cannot compile.
REFUSED = set()
#: NumPy functions that do not dispatch on their arguments (NumPy would convert a traced one on the
#: host): rewritten code calls their traced implementation directly (see `transforms.source.numpy_calls`).
UNDISPATCHED: set = set()

#: The NumPy namespaces whose functions the coverage table lists, by their short prefix.
NAMESPACES = {"np": np, "np.linalg": np.linalg, "np.fft": np.fft}


def implements(*numpy_functions):
    """Register the decorated function as the traced implementation of `numpy_functions`.

    Example::

        @implements(np.sum)
        def sum(a, axis=None, dtype=None, out=None, keepdims=False, ...): ...
    """
    return _registering(dispatch.FUNCTIONS, numpy_functions, qualified_name)


def _registering(table: dict, keys, name):
    """A decorator putting its function in `table` under each of `keys`, each only once."""
    def register(impl):
        for key in keys:
            if key in table:
                raise ValueError(f"{name(key)} is registered twice")
            table[key] = impl
        return impl
    return register


def method(*names):
    """Register the decorated function as the traced implementation of the ndarray methods `names`
    (called with the array first)."""
    return _registering(dispatch.METHODS, names, lambda name: f"ndarray.{name}")


def builtin(*python_builtins):
    """Register the decorated function as what the Python builtins `python_builtins` mean when an
    argument is traced (called in their place by rewritten code)."""
    return _registering(dispatch.BUILTINS, python_builtins, lambda fn: fn.__name__)


def refuses_method(*names):
    """`refuses` for ndarray methods."""
    def register(impl):
        REFUSED.update(names)
        return method(*names)(impl)
    return register


def refuses_builtin(*python_builtins):
    """`refuses` for Python builtins and `math` functions."""
    def register(impl):
        REFUSED.update(python_builtins)
        return builtin(*python_builtins)(impl)
    return register


def refuses(*numpy_functions):
    """Register an implementation that always raises `UnsupportedError` with its own reason (a
    data-dependent shape, say): the coverage lists the function as not supported."""
    def register(impl):
        REFUSED.update(numpy_functions)
        return implements(*numpy_functions)(impl)
    return register


def compiled(fn) -> bool:
    """Whether solvent compiles `fn` (registered, and not only to refuse it)."""
    return fn in dispatch.FUNCTIONS and fn not in REFUSED


def qualified_name(fn) -> str:
    """`np.linalg.norm`-style name of a NumPy callable."""
    module = getattr(fn, "__module__", None) or "numpy"
    module = module.replace("numpy._core.multiarray", "numpy").replace("numpy._core.fromnumeric", "numpy")
    parts = module.split(".")
    if parts[0] == "numpy":
        parts = ["np"] + [p for p in parts[1:] if not p.startswith("_")]
    return ".".join(parts + [getattr(fn, "__name__", repr(fn))])


def supported() -> list[str]:
    """Sorted public names of every NumPy function and ufunc solvent can compile (aliases included)."""
    registered = [fn for fn in dispatch.FUNCTIONS if compiled(fn)]
    public = {name for name, fn in public_functions() if compiled(fn)}
    named = {fn for name, fn in public_functions()}
    return sorted(public | {qualified_name(fn) for fn in registered if not _hashable_in(fn, named)})


def supported_builtins() -> list[str]:
    """Sorted names of the Python builtins (and `math` functions) that work on traced values in the
    user's own functions."""
    return sorted(fn.__name__ if fn.__module__ == "builtins" else f"{fn.__module__}.{fn.__name__}"
                  for fn in dispatch.BUILTINS if fn not in REFUSED)


def supported_methods() -> list[str]:
    """Sorted names of the ndarray methods solvent compiles on traced arrays."""
    return sorted(name for name in dispatch.METHODS if name not in REFUSED)


def public_functions() -> list[tuple[str, object]]:
    """(public name, callable) of every NumPy function that dispatches to traced values
    (`__array_function__`) and every ufunc: what a user's program can hand a traced array."""
    from numpy._core.overrides import ARRAY_FUNCTIONS
    return [(f"{prefix}.{name}", fn) for prefix, namespace in NAMESPACES.items() for name in dir(namespace)
            if not name.startswith("_") and (isinstance(fn := getattr(namespace, name), np.ufunc)
                                            or _hashable_in(fn, ARRAY_FUNCTIONS))]


def _hashable_in(fn, table) -> bool:
    try:
        return fn in table
    except TypeError:  # unhashable module attributes (dicts)
        return False


def unsupported() -> list[str]:
    """Public NumPy functions that dispatch to traced values but that solvent does not compile."""
    return sorted(name for name, fn in public_functions() if not compiled(fn))


def coverage_markdown() -> str:
    """docs/supported.md: the registered NumPy functions and ndarray methods, and those not supported."""
    def listing(names):
        return "\n".join(f"- `{name}`" for name in names)
    names, methods, missing = supported(), supported_methods(), unsupported()
    builtins = supported_builtins()
    return (
        "# NumPy coverage\n\n"
        "Generated from solvent's op registry by `make docs`\n"
        f"(NumPy {np.__version__}); `solvent.supported()` returns the same function list.\n\n"
        f"## Functions and ufuncs compiled by `solvent.jit` ({len(names)})\n\n{listing(names)}\n\n"
        f"## ndarray methods on traced arrays ({len(methods)})\n\n{listing(methods)}\n\n"
        f"## Python builtins on traced values ({len(builtins)})\n\n"
        "In the functions whose source solvent reads; `abs`, `divmod`, `pow`, `len` and `sum` work\n"
        "everywhere, through NumPy's operators.\n\n"
        f"{listing(builtins)}\n\n"
        f"## Not supported ({len(missing)})\n\n"
        "NumPy functions that accept arrays but are not compiled; called on a traced array each raises\n"
        "`solvent.UnsupportedError` naming it.\n\n"
        f"{listing(missing)}\n")
