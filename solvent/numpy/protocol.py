"""Entry points of NumPy's dispatch protocols for traced values.

`__array_function__`, `__array_ufunc__`, indexing and ndarray methods arrive
here; each looks up the registry, emits at the user's source line, and raises
`UnsupportedError` (never a host fallback) for what is not registered.
"""

from __future__ import annotations

import numpy as np

from solvent.core import dispatch, trace
from solvent.core.session import SESSION
from solvent.core.traced import TracedArray, padded
from solvent.errors import TracerConversionError, UnsupportedError, user_location
from solvent.numpy import folding, layout, methods
from solvent.numpy.elementwise.ufuncs import COMPARISONS
from solvent.numpy.indexing import affine, subscripts, traced_bounds
from solvent.numpy.registry import qualified_name
from solvent.numpy.values import through_protocol, warn_discarding_imaginary


def _emitting():
    session = trace.current()
    if session is None:
        raise UnsupportedError("a traced value was used after its solvent.jit trace ended "
                               "(did it escape through a global or closure?)")
    return session.emitting(user_location())


def _any_masked(values) -> bool:
    """Whether a slice of traced length is among `values` (NumPy asks the first traced operand's
    class, which may not be the masked one: `scalar * A[:i, k]`)."""
    return any(isinstance(x, traced_bounds.MaskedArray) for x in values)


def array_function(func, args, kwargs):
    args = tuple(through_protocol(a) for a in args)
    if SESSION.catching["linalg"] and getattr(func, "__module__", None) == "numpy.linalg":
        where = SESSION.catching["linalg"][-1]
        raise UnsupportedError(
            f"{qualified_name(func)} inside the `try` at {where[0]}:{where[1]} that catches LinAlgError: compiled, "
            "NumPy's linear algebra gives nan or inf where NumPy raises (a singular or not positive definite "
            "matrix), so the handler would never run; test the result instead (np.isfinite(x).all())",
            user_location())
    if _any_masked(args):
        return traced_bounds.function_on_masked(func, args, kwargs)
    impl, folds = dispatch.FUNCTIONS.get(func), folding.folds_function(func, args, kwargs)
    if impl is None and not folds:
        raise UnsupportedError(f"{qualified_name(func)} is not supported by solvent.jit; "
                               "see solvent.supported() for the functions it compiles")
    with _emitting():
        if folds:
            result = folding.call(func, args, kwargs, lambda: _traced(func, impl, args, kwargs))
        else:
            result = impl(*args, **kwargs)
    layout.of_results(result, (*args, *kwargs.values()))
    return result


def _traced(func, impl, args, kwargs):
    """The traced implementation, for a call whose folded result is too large to be a constant."""
    if impl is None:
        raise UnsupportedError(f"{qualified_name(func)} is not supported by solvent.jit on a result of more "
                               f"than {folding.LIMIT} elements; see solvent.supported()")
    return impl(*args, **kwargs)


#: ufuncs that never set NumPy's floating-point error flags (comparisons, logic, bits, tests, signs).
_NEVER_RAISING = COMPARISONS | {np.logical_and, np.logical_or, np.logical_xor, np.logical_not, np.bitwise_and,
                                np.bitwise_or, np.bitwise_xor, np.invert, np.isnan, np.isinf, np.isfinite, np.signbit,
                                np.negative, np.positive, np.absolute, np.conjugate, np.copysign}


def _check_float_errors(ufunc) -> None:
    """A ufunc inside a `try` that catches FloatingPointError while NumPy's error state raises: compiled,
    it gives inf or nan where NumPy raises, and the handler would silently never run."""
    if not SESSION.catching["float"] or ufunc in _NEVER_RAISING:
        return
    raising = sorted(k for k, v in np.geterr().items() if v in ("raise", "call"))
    if raising:
        where = SESSION.catching["float"][-1]
        raise UnsupportedError(
            f"np.{ufunc.__name__} inside the `try` at {where[0]}:{where[1]} that catches FloatingPointError, with "
            f"NumPy's error state raising ({', '.join(raising)}): compiled, it gives inf or nan and never raises, "
            "so the handler would never run; test the result instead (np.isfinite(x).all())", user_location())


def array_ufunc(ufunc, method, inputs, kwargs):
    _check_float_errors(ufunc)
    inputs = tuple(through_protocol(x) for x in inputs)
    if _any_masked(inputs):  # the masked operand's own rules (a selection's first)
        masked = next(x for x in inputs if isinstance(x, traced_bounds.MaskedArray))
        return masked.__array_ufunc__(ufunc, method, *inputs, **kwargs)
    impl = dispatch.FUNCTIONS.get(ufunc)
    if impl is None:
        raise UnsupportedError(f"the ufunc np.{ufunc.__name__} is not supported by solvent.jit")
    with _emitting():
        if folding.folds_ufunc(method, inputs, kwargs):
            host = ufunc if method == "__call__" else getattr(ufunc, method)
            result = folding.call(host, inputs, kwargs, lambda: impl(method, *inputs, **kwargs))
        else:
            result = impl(method, *inputs, **kwargs)
    layout.of_results(result, (*inputs, *kwargs.values()))
    return result


def _check_traced_index(array, key) -> None:
    """An index known only when the program runs inside a `try` that catches IndexError: compiled, one
    out of bounds is clamped and never raises, so the handler would silently never run."""
    if not SESSION.catching["index"]:
        return
    entries = key if isinstance(key, tuple) else (key,)
    plain = not any(k is None or k is Ellipsis for k in entries)  # (entry k indexes axis k)
    sizes = [array.shape[k] if plain and k < len(array.shape) else None for k in range(len(entries))]
    if not any(_may_be_outside(k, n) for k, n in zip(entries, sizes)):
        return
    where = SESSION.catching["index"][-1]
    raise UnsupportedError(
        f"indexing by a traced index inside the `try` at {where[0]}:{where[1]} that catches IndexError: compiled, "
        "an index out of bounds is clamped and never raises, so the handler would never run; test the index "
        "instead (if i < len(x))", user_location())


def _may_be_outside(k, n) -> bool:
    """Whether `k` is a traced integer index not known to lie within an axis of `n` (a loop's index over
    range(len(x)) is)."""
    if not (isinstance(k, TracedArray) and k.known is None and k.dtype.kind in "iu"):
        return False
    span = affine.interval(k)
    return span is None or n is None or not -n <= span[0] <= span[1] < n


def getitem(array, key):
    _check_traced_index(array, key)
    with _emitting():
        folded = folding.element(array, key)
        return folded if folded is not None else subscripts.getitem(array, key)


def setitem(array, key, value):
    _check_traced_index(array, key)
    with _emitting():
        if isinstance(value, TracedArray):
            warn_discarding_imaginary(value.dtype, array.dtype)
        subscripts.setitem(array, key, value)


_AN_NDARRAY = np.empty(0)  # an instance: NumPy 2 keeps removed methods (ptp, itemset) on the class only


def array_method(array, name):
    impl = dispatch.METHODS.get(name)
    if impl is None:
        if hasattr(_AN_NDARRAY, name):
            raise UnsupportedError(f"ndarray.{name} is not supported by solvent.jit")
        python = {"b": bool, "i": int, "u": int, "f": float, "c": complex}[array.dtype.kind]
        if array.weak and hasattr(python, name):  # float(x).hex(), int(x).bit_length(): a Python number's
            raise TracerConversionError(f"{python.__name__}.{name} of a traced value ({array.aval}): its value is "
                                        "only known when the compiled program runs; compute it with NumPy, or "
                                        "outside solvent.jit")
        raise AttributeError(f"'TracedArray' object has no attribute {name!r}")
    if not methods.takes(array, name):
        raise padded(array, f", given to ndarray.{name},")

    def bound(*args, **kwargs):
        with _emitting():
            if folding.folds_method(array, name, args, kwargs):
                result = folding.call(lambda a, *rest, **kw: getattr(a, name)(*rest, **kw), (array, *args), kwargs,
                                      lambda: impl(array, *args, **kwargs))
            else:
                result = impl(array, *args, **kwargs)
        if name not in _C_ORDER_METHODS:
            layout.of_results(result, (array, *args, *kwargs.values()))
        return result
    return bound


#: Methods whose new arrays are C-contiguous whatever their array's layout (NumPy's order="C" default).
_C_ORDER_METHODS = frozenset({"copy", "flatten"})


dispatch.HOOKS.array_function, dispatch.HOOKS.array_ufunc = array_function, array_ufunc
dispatch.HOOKS.getitem, dispatch.HOOKS.setitem, dispatch.HOOKS.array_method = getitem, setitem, array_method
