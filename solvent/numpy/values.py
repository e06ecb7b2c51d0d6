"""Turning NumPy-level operands into StableHLO values and back into traced arrays."""

from __future__ import annotations

import warnings

import numpy as np
from jaxlib.mlir import ir
from numpy._core._exceptions import _UFuncOutputCastingError

from solvent.core.aval import Aval
from solvent.core.structure import ARRAY_TYPES
from solvent.core.traced import TracedArray, TracedScalar, padded
from solvent.errors import UnsupportedError, user_stacklevel
from solvent.ops import elementwise, shape as shape_ops
from solvent.ops.base import dtype_of, shape_of
from solvent.ops.constant import constant, splat


def probe_array(x) -> np.ndarray:
    """A host array of ones with `x`'s dtype and rank, for asking NumPy a result dtype."""
    return np.broadcast_to(np.array(1, dtype=x.dtype), (1,) * len(x.shape))


#: NumPy's own ndarray class (while a trace runs, `np.ndarray` is solvent's stand-in: numpy.creation).
NDARRAY = np.ndarray


def is_traced(x) -> bool:
    return isinstance(x, TracedArray)


def is_python_scalar(x) -> bool:
    return type(x) in (bool, int, float, complex)


def dtype_key(x):
    """What NumPy's type resolution sees: a dtype, or the Python type of a weak scalar."""
    if type(x) is bool:  # resolve_dtypes takes int, float, complex as weak types; bool is np.bool_
        return np.dtype(np.bool_)
    if is_python_scalar(x):
        return type(x)
    if getattr(x, "weak", False):
        python_type = PYTHON_TYPES[np.dtype(x.dtype).kind]
        return np.dtype(np.bool_) if python_type is bool else python_type
    return np.dtype(x.dtype) if hasattr(x, "dtype") else result_type(x)


#: The Python type a weak traced scalar stands for, by its dtype's kind.
PYTHON_TYPES = {"i": int, "u": int, "f": float, "c": complex, "b": bool}


def result_type(*operands) -> np.dtype:
    """NumPy's promotion of `operands`: Python scalars weak (NEP 50), lists as arrays."""
    def key(x):
        if getattr(x, "weak", False):
            return PYTHON_TYPES[np.dtype(x.dtype).kind](0)
        if hasattr(x, "dtype") or is_python_scalar(x):
            return x.dtype if hasattr(x, "dtype") else x
        return dtype_of(value(x)) if holds_traced(x) else np.asarray(x).dtype
    dtype = np.result_type(*[key(x) for x in operands])
    if dtype == object:
        raise UnsupportedError(f"operands {', '.join(repr(x) for x in operands if not is_traced(x))} make "
                               "NumPy compute with Python objects (None, say): solvent compiles arrays of numbers")
    return dtype


def shape(x) -> tuple[int, ...]:
    return tuple(x.shape) if hasattr(x, "shape") else np.shape(x)


def host(x) -> np.ndarray:
    """A non-traced operand as a host array (closure constants, lists, scalars)."""
    if isinstance(x, tuple(t for t in ARRAY_TYPES if t is not TracedArray)) or hasattr(x, "__array__"):
        return _computable(np.asarray(x), x)
    if isinstance(x, (list, tuple)) and any(holds_traced(v) for v in x):
        raise UnsupportedError("a list holding traced arrays; use np.stack or np.array")
    return _computable(np.asarray(x), x)


def _computable(array: np.ndarray, x) -> np.ndarray:
    if array.dtype == object or array.dtype.kind in "SUV":
        raise UnsupportedError(f"{x!r} where an array of numbers is expected: NumPy would make an array of "
                               f"{'Python objects' if array.dtype == object else 'strings'} of it, which solvent "
                               "does not compile")
    return array


def through_protocol(obj):
    """What an object's `__array__` gives where that is traced (an object of the user's holding a traced
    array, which NumPy's C code would refuse); in a list or tuple, each item's; `obj` itself otherwise.
    Objects with their own dispatch (`__array_function__`, `__array_ufunc__`) are left to it."""
    kind = type(obj)
    if kind in (list, tuple):
        items = [through_protocol(v) for v in obj]
        return kind(items) if any(a is not b for a, b in zip(items, obj)) else obj
    if not hasattr(kind, "__array__") or hasattr(kind, "__array_function__") or hasattr(kind, "__array_ufunc__"):
        return obj  # (arrays, traced ones included, have both)
    given = obj.__array__()
    return given if is_traced(given) else obj


def holds_traced(obj) -> bool:
    """Whether `obj` is traced or a (nested) list or tuple holding a traced value."""
    return is_traced(obj) or (isinstance(obj, (list, tuple)) and any(holds_traced(v) for v in obj))


def as_array(a):
    """A traced operand as is; other data as NumPy would convert it (lists of traced values stacked)."""
    if is_traced(a):
        return a
    if isinstance(a, (list, tuple)) and holds_traced(a):
        return wrap(value(a), scalar=False)
    return np.asarray(a)


def strong(x):
    """`x` as NumPy's asarray makes it: a Python number (or a traced stand-in for one) of its own
    dtype, not weak (np.dot(int8 array, 3) is int64)."""
    return wrap(value(x), scalar=False) if getattr(x, "weak", False) else as_array(x)


def cast(x, dtype):
    """`x` converted to `dtype` (unsafe casting, as NumPy's out= with casting='unsafe')."""
    return wrap(value(x, dtype), scalar=shape(x) == ())


def slice_along(x, axis, start, stop):
    """x[..., start:stop, ...] along `axis` (static, non-negative bounds) as a traced array."""
    n = len(shape(x))
    lo = [start if d == axis else 0 for d in range(n)]
    hi = [stop if d == axis else size for d, size in enumerate(shape(x))]
    return wrap(shape_ops.slice(value(x), lo, hi, [1] * n), scalar=False)


def element_of(x, i):
    """x[i] of a 1-D array (i >= 0, static or traced and in bounds) as a traced scalar."""
    if is_traced(i):
        return wrap(shape_ops.reshape(shape_ops.dynamic_slice(value(x), [value(i)], [1]), ()))
    return wrap(shape_ops.reshape(value(slice_along(x, 0, i, i + 1)), ()))


def concatenated(pieces, axis, dtype=None):
    """Traced or host pieces concatenated along `axis`, promoted together (or to `dtype`)."""
    dtype = dtype or result_type(*pieces)
    return wrap(shape_ops.concatenate([value(p, dtype) for p in pieces], axis), scalar=False)


def value(x, dtype=None, to_shape=None) -> ir.Value:
    """`x` as an SSA value, converted to `dtype` and broadcast to `to_shape` if given."""
    if dtype is not None and np.dtype(dtype).kind in "OSUV":
        raise UnsupportedError(f"a value of dtype {np.dtype(dtype)}: solvent compiles arrays of numbers")
    if is_traced(x):
        if x.padded:  # reached a function that would see its padding as data
            raise padded(x)
        v = x.value
    elif isinstance(x, (list, tuple)) and holds_traced(x):
        v = stack_values(x)  # lists of traced values (np.array([...]))
    elif is_python_scalar(x) and dtype is not None:
        v = constant(np.array(x, dtype=dtype))  # NumPy 2: OverflowError when out of the dtype's range
    else:
        v = constant(host(x) if dtype is None else host(x).astype(dtype))
    if dtype is not None:
        v = elementwise.convert(v, dtype)
    if to_shape is not None:
        v = broadcast_value(v, to_shape)
    return v


def stored_scalar(x, dtype) -> np.ndarray:
    """A Python number as NumPy stores it by unsafe casting (np.full, np.copyto): a float wraps into
    an integer dtype (-1.0 into uint8 is 255, NaN into int64 its minimum); a Python int out of the
    dtype's range still raises NumPy's OverflowError."""
    stored = np.empty((), dtype)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        np.copyto(stored, x, casting="unsafe")
    return stored


def carried_value(x) -> ir.Value:
    """`value(x)`, padding included for a slice of traced length: a branch or loop carries it as
    data and marks its result padded (see `transforms.regions.padding`); a copy of a view
    (`views_of`) is carried as it is and checked where it is read."""
    if is_traced(x) and x.views_of is not None:
        return x.carried()
    return x.value if is_traced(x) and x.padded else value(x)


def stack_values(items) -> ir.Value:
    """Stack a (nested) list of traced and host values along a new first axis."""
    parts = [stack_values(x) if isinstance(x, (list, tuple)) else value(x) for x in items]
    target = np.result_type(*[dtype_of(p) for p in parts])
    parts = [shape_ops.reshape(elementwise.convert(p, target), (1,) + shape_of(p)) for p in parts]
    return shape_ops.concatenate(parts, 0)


def broadcast_value(v: ir.Value, to_shape) -> ir.Value:
    """NumPy broadcasting of one value to `to_shape` (trailing dimensions aligned)."""
    from_shape = shape_of(v)
    to_shape = tuple(to_shape)
    if from_shape == to_shape:
        return v
    offset = len(to_shape) - len(from_shape)
    if offset < 0 or any(n not in (1, m) for n, m in zip(from_shape, to_shape[offset:])):
        raise ValueError(f"operands could not be broadcast together: {from_shape} to {to_shape}")
    return shape_ops.broadcast_in_dim(v, to_shape, range(offset, len(to_shape)))


def assigned_value(v: ir.Value, to_shape) -> ir.Value:
    """A value stored by `a[key] = v` broadcast to the indexed shape, as NumPy does it: leading
    length-1 dimensions beyond the target's rank are dropped first (`a[0] = b` with b of shape (1, 1))."""
    from_shape = shape_of(v)
    extra = len(from_shape) - len(tuple(to_shape))
    if extra > 0 and all(n == 1 for n in from_shape[:extra]):
        v = shape_ops.reshape(v, from_shape[extra:])
    return broadcast_value(v, to_shape)


def wrap(v: ir.Value, scalar: bool | None = None) -> TracedArray:
    """A fresh traced array holding `v`; 0-d results are NumPy scalars unless `scalar=False`."""
    aval = Aval(shape_of(v), dtype_of(v))
    if scalar is None:
        scalar = aval.shape == ()
    return (TracedScalar if scalar else TracedArray)(v, aval)


def full(fill, shape, dtype) -> ir.Value:
    """A constant of `shape` filled with `fill` (one element stored, not a big literal)."""
    return splat(fill, shape, dtype)


def normalize_axis(axis: int, ndim: int) -> int:
    """`axis` in [0, ndim), NumPy's AxisError otherwise (a traced one only with values known while tracing)."""
    if is_traced(axis):
        if axis.known is None:
            raise UnsupportedError("an axis must be a static Python int, not a traced value: the result's shape "
                                   "depends on it, and shapes are fixed when the program is compiled")
        axis = axis.known[()] if np.ndim(axis.known) == 0 else axis.known
    if isinstance(axis, (bool, np.bool_)) or not isinstance(axis, (int, np.integer)):
        raise TypeError(f"'{type(axis).__name__}' object cannot be interpreted as an integer")
    if not -ndim <= axis < ndim:
        raise np.exceptions.AxisError(axis, ndim)
    return int(axis) % ndim


def normalize_axes(axis, ndim: int) -> tuple[int, ...]:
    """`axis=None | int | tuple` as a sorted tuple of non-negative axes (reductions' rules)."""
    if axis is None:
        return tuple(range(ndim))
    if ndim == 0 and not isinstance(axis, (tuple, list)) and axis in (0, -1):
        return ()  # NumPy lets a reduction of a 0-d array name axis 0 or -1
    axes = tuple(normalize_axis(a, ndim) for a in (axis if isinstance(axis, (tuple, list)) else (axis,)))
    if len(set(axes)) != len(axes):
        raise ValueError("duplicate value in 'axis'")
    return tuple(sorted(axes))


def check_cast(dtype, to, casting: str, where_from="ufunc") -> None:
    """NumPy's TypeError where an output of `dtype` may not be stored into `to` by `casting` (its
    UFuncTypeError where `where_from` is the ufunc, a name otherwise)."""
    if not np.can_cast(dtype, to, casting):
        if isinstance(where_from, np.ufunc):
            raise _UFuncOutputCastingError(where_from, casting, np.dtype(dtype), np.dtype(to), 0)
        raise TypeError(f"Cannot cast {where_from} output from {dtype!r} to {to!r} with casting rule {casting!r}")
    warn_discarding_imaginary(dtype, to)


def warn_discarding_imaginary(dtype, to) -> None:
    """NumPy's ComplexWarning, at the user's line, where complex values are cast to a real number type."""
    if np.dtype(dtype).kind == "c" and np.dtype(to).kind not in "cb":
        warnings.warn("Casting complex values to real discards the imaginary part", np.exceptions.ComplexWarning,
                      stacklevel=user_stacklevel())


def write_out(out, result: TracedArray, casting: str = "same_kind", where_from="ufunc") -> TracedArray:
    """Store `result` into the traced `out` array (NumPy's `out=`), with NumPy's casting check."""
    if isinstance(out, tuple):
        if len(out) != 1:
            raise UnsupportedError("out= with several arrays")
        out = out[0]
    if isinstance(out, np.ndarray):
        raise UnsupportedError("writing a traced value into a NumPy array on the host: a global's, a closure's or "
                               "an attribute's array (self.w) is a constant of the program, so pass the array (or "
                               "its object) as an argument to update it; one made from one (w = G.copy()) is made "
                               "with NumPy on the host, so make it with np.array(G) or np.zeros(...) instead")
    if not is_traced(out):
        raise UnsupportedError("out= must be an array traced by solvent (an argument or a fresh array)")
    if isinstance(out, TracedScalar):  # a[0] of a 1-d array is a NumPy scalar, not a view NumPy could write
        raise TypeError("return arrays must be of ArrayType")
    check_cast(result.dtype, out.dtype, casting, where_from)
    out.assign(broadcast_value(elementwise.convert(result.value, out.dtype), out.shape))
    return out
