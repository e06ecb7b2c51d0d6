"""ndarray methods and attributes of traced arrays (each the NumPy function of that name), and np.copyto."""

from __future__ import annotations

import builtins
import operator

import numpy as np

from solvent.core.traced import TracedScalar, padded
from solvent.errors import TracerConversionError, UnsupportedError
from solvent.numpy import layout
from solvent.numpy.indexing.functions import flat_view
from solvent.numpy.indexing.traced_bounds import MaskedArray, elementwise
from solvent.numpy.registry import implements, method, refuses_method
from solvent.numpy.shape import read_only, view
from solvent.numpy.values import (full, is_python_scalar, is_traced, result_type, shape, stored_scalar, value,
                                  warn_discarding_imaginary, wrap)
from solvent.ops import elementwise as ew, shape as ops
from solvent.ops.base import dtype_of, is_complex, shape_of

#: Methods whose arguments are exactly the NumPy function's after the array.
SAME_AS_FUNCTION = {
    "sum": np.sum, "prod": np.prod, "mean": np.mean, "max": np.max, "min": np.min, "argmax": np.argmax,
    "argmin": np.argmin, "any": np.any, "all": np.all, "std": np.std, "var": np.var, "clip": np.clip,
    "cumsum": np.cumsum, "cumprod": np.cumprod, "dot": np.dot, "squeeze": np.squeeze,
    "swapaxes": np.swapaxes, "ravel": np.ravel, "conj": np.conjugate, "conjugate": np.conjugate,
    "round": np.round, "argsort": np.argsort, "argpartition": np.argpartition, "choose": np.choose,
    "diagonal": np.diagonal, "repeat": np.repeat, "searchsorted": np.searchsorted, "take": np.take,
    "trace": np.trace, "put": np.put,
}


#: Methods that are the NumPy functions of their names, which take or refuse a slice of traced length.
DELEGATING = frozenset(SAME_AS_FUNCTION) | {"reshape", "transpose", "item", "nonzero", "compress"}
#: Methods whose implementations below take a slice of traced length (`MaskedArray`) as it is.
ON_MASKED = frozenset({"astype", "copy", "flatten", "fill", "sort"})


def takes(array, name: str) -> bool:
    """Whether ndarray method `name` may run on `array`: any of them on an array of static shape; on
    a slice of traced length (held at full size, zero past its valid part) only those that respect
    the mask, not those that would read the full size as its length (`tolist`, `view`, `flat`)."""
    return not array.padded or name in DELEGATING or (name in ON_MASKED and isinstance(array, MaskedArray))


def _method(name, function):
    method(name)(lambda self, *args, **kwargs: function(self, *args, **kwargs))


for _name, _function in SAME_AS_FUNCTION.items():
    _method(_name, _function)


def _shape_args(args):
    return args[0] if len(args) == 1 and isinstance(args[0], (tuple, list)) else args


@method("reshape")
def reshape(self, *shape, order="C", copy=None):
    return np.reshape(self, _shape_args(shape), order=order)


@method("transpose")
def transpose(self, *axes):
    return np.transpose(self, _shape_args(axes) if axes else None)


@method("astype")
def astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True):
    dtype = np.dtype(dtype)
    if not np.can_cast(self.dtype, dtype, casting):
        raise TypeError(f"Cannot cast array data from {self.dtype!r} to {dtype!r} according to the rule {casting!r}")
    warn_discarding_imaginary(self.dtype, dtype)
    if not copy and dtype == self.dtype:
        return self  # NumPy hands back the array itself: writes to the result change it
    if isinstance(self, MaskedArray):
        return elementwise(lambda x: astype(x, dtype), [self], {})
    return wrap(ew.convert(self.value, dtype), scalar=isinstance(self, TracedScalar))  # a scalar's is a scalar


@method("copy")
def copy(self, order="C"):
    if isinstance(self, MaskedArray):
        return np.copy(self)
    result = wrap(self.value, scalar=isinstance(self, TracedScalar))
    if order != "C":
        result.memory = None  # NumPy's F, A or K order: not modelled (see `layout`)
    return result


@method("flatten")
def flatten(self, order="C"):
    """`a.flatten()`: always a new array (np.ravel may be a view)."""
    if isinstance(self, MaskedArray):
        if len(self.aval.shape) != 1:
            raise padded(self, ", flattened,")
        return copy(self)
    return wrap(ops.reshape(self.value, (self.size,)), scalar=False)


@method("flat")
def flat(self):
    """`a.flat`: the elements in C order as a 1-d view that writes back, whatever `a`'s layout (a
    flat iterator, which NumPy never copies)."""
    return flat_view(self)


@method("fill")
def fill(self, fill_value):
    if isinstance(self, MaskedArray):  # the valid part only
        self.store(elementwise(lambda x: np.full_like(x, fill_value), [self], {}))
        return
    if is_traced(fill_value):
        warn_discarding_imaginary(fill_value.dtype, self.dtype)
    self.assign(value(fill_value, self.dtype, self.shape))


@implements(np.copyto)
def copyto(dst, src, casting="same_kind", where=True):
    """`np.copyto(dst, src)`: `src` broadcast into `dst` (in place), where `where` holds."""
    if not is_traced(dst):
        raise UnsupportedError("np.copyto into an array that solvent does not trace")
    source = np.result_type(dst.dtype, src) if is_python_scalar(src) else result_type(src)  # weak scalar
    if not np.can_cast(source, dst.dtype, casting):
        raise TypeError(f"Cannot cast array data from {source!r} to {dst.dtype!r} "
                        f"according to the rule {casting!r}")
    warn_discarding_imaginary(source, dst.dtype)
    new = value(stored_scalar(src, dst.dtype) if is_python_scalar(src) else src, dst.dtype, dst.shape)
    if where is not True:
        new = ew.select(value(where, np.bool_, dst.shape), new, dst.value)
    dst.assign(new)


@implements(np.real)
def real(val):
    """`np.real(a)` / `a.real`: a view; writing it changes the real part of `a`."""
    if isinstance(val, TracedScalar):  # a NumPy scalar's part is a scalar (nothing to write through)
        return wrap(ew.unary("real", val.value) if is_complex(val.dtype) else val.value)
    if not is_complex(val.dtype):
        return view(val, shape(val), lambda v: v, lambda parent, new: new, memory=_same_memory(val))
    return _part_view(val, "real")


@implements(np.imag)
def imag(val):
    """`np.imag(a)` / `a.imag`: a view for complex `a`, zeros otherwise (as NumPy's read-only array)."""
    if isinstance(val, TracedScalar):
        return wrap(ew.unary("imag", val.value) if is_complex(val.dtype) else full(0, (), val.dtype))
    if not is_complex(val.dtype):  # (writing into it raises NumPy's error)
        return read_only(val, shape(val), lambda v: full(0, shape_of(v), dtype_of(v)))
    return _part_view(val, "imag")


def _part_view(array, part: str):
    """The real or imaginary part of a complex array as a view that writes back."""
    other = "imag" if part == "real" else "real"

    def write(parent, new):
        pair = (new, ew.unary(other, parent))
        return ew.binary("complex", *(pair if part == "real" else pair[::-1]))
    part_dtype = np.float32 if array.dtype == np.complex64 else np.float64
    return view(array, shape(array), lambda v: ew.unary(part, v), write, part_dtype, memory=_same_memory(array))


#: The dtype of the Python number `item()` gives for each dtype kind, held as a weak traced scalar.
_ITEM_DTYPES = {"b": np.bool_, "i": np.int64, "u": np.int64, "f": np.float64, "c": np.complex128}

#: Elements `tolist()` makes into traced numbers at most: each is an op of the program.
TOLIST_AT_MOST = 1024


@method("item")
def item(self, *args):
    """`x.item()`: the element as NumPy's Python number, a weak traced scalar (as float() and int()
    give theirs: `losses.append(loss.item())`)."""
    if not args and self.size != 1:
        raise ValueError("can only convert an array of size 1 to a Python scalar")
    flat = np.reshape(self, (self.size,))
    element = flat[0] if not args else flat[args[0]] if len(args) == 1 else self[args]
    out = wrap(ew.convert(value(element), _ITEM_DTYPES[self.dtype.kind]), scalar=True)
    out.weak = True
    return out


@method("tolist")
def tolist(self):
    """`x.tolist()`: nested lists of `item()`s (a few: each element is an op of the program)."""
    if self.size > TOLIST_AT_MOST:
        raise UnsupportedError(f".tolist() of a traced array of {self.size} elements would make an op of each; "
                               "keep it an array")
    if not self.shape:
        return item(self)
    return [tolist(self[i]) for i in range(self.shape[0])]


@method("nonzero")
def nonzero(self):
    return np.nonzero(self)


@method("compress")
def compress(self, condition, axis=None, out=None):
    """`a.compress(condition)`: `np.compress(condition, a)` (the array is its second argument)."""
    return np.compress(condition, self, axis=axis, out=out)


@method("sort")
def sort(self, axis=-1, kind=None, order=None, *, stable=None):
    """`a.sort()`: sorts `a` in place (and an argument is sorted for the caller, as in NumPy)."""
    axis = operator.index(axis)  # unlike np.sort, no axis=None: the array keeps its shape
    _assign(self, np.sort(self, axis=axis, kind=kind, order=order, stable=stable))


@method("partition")
def partition(self, kth, axis=-1, kind="introselect", order=None):
    """`a.partition(kth)`: partitions `a` in place."""
    axis = operator.index(axis)
    _assign(self, np.partition(self, kth, axis=axis, kind=kind, order=order))


def _assign(array, new) -> None:
    """`array[...] = new` for a method working in place; a slice of traced length keeps its mask."""
    if isinstance(array, MaskedArray):
        array.store(new)
    else:
        array.assign(value(new))


@method("resize")
def resize(self, *new_shape, refcheck=True):
    """`a.resize(shape)` changes `a`'s own shape, which a traced array cannot: only a no-op resize works."""
    if tuple(int(n) for n in _shape_args(new_shape)) != self.shape:
        raise UnsupportedError(f"ndarray.resize from {self.shape} to {_shape_args(new_shape)}: a traced array "
                               "keeps its shape; use np.resize(a, shape) or a.reshape(shape) for a new array")


@method("view")
def array_view(self, dtype=None, type=None):
    """`a.view()`, `a.view(dtype)`: a view sharing `a`'s data, its bytes read as a dtype of the same
    size (a bitcast both ways); views changing the item size are unsupported."""
    if isinstance(dtype, builtins.type) and issubclass(dtype, np.ndarray):
        dtype, type = None, dtype
    dtype = self.dtype if dtype is None else np.dtype(dtype)
    numbers = {dtype.kind, self.dtype.kind} <= set("iuf")  # (XLA bitcasts neither booleans nor complex)
    if type not in (None, np.ndarray) or (dtype != self.dtype and not (numbers and dtype.itemsize == self.dtype.itemsize)):
        raise UnsupportedError(f"ndarray.view as {type or dtype}: solvent compiles views as an integer or float "
                               "dtype of the same item size only; use a.astype(dtype) to convert values")
    if dtype == self.dtype:
        return view(self, self.shape, lambda v: v, lambda parent, new: new, memory=_same_memory(self))
    own = self.dtype
    return view(self, self.shape, lambda v: ew.bitcast(v, dtype), lambda parent, new: ew.bitcast(new, own), dtype,
                memory=_same_memory(self))


def _same_memory(array):
    """The byte strides of a view of the same elements of `array` (None where not known)."""
    return layout.strides_of(array) if is_traced(array) else None


def _host_only(name):
    def fail(self, *args, **kwargs):
        raise TracerConversionError(
            f"ndarray.{name} of a traced value ({self.aval}): its values are only known when the compiled "
            f"program runs. Return the array from the solvent.jit function and call .{name}() on the result.")
    refuses_method(name)(fail)


for _name in ("tobytes", "tofile"):
    _host_only(_name)
