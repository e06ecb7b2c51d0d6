"""Array creation on traced values, and fresh arrays that can hold traced values.

NumPy never dispatches `np.zeros((n, n))` and friends (no array argument), yet
traced code fills such arrays: `out = np.zeros(n); out[i] = x.sum()`. Those
functions are registered with `@fresh`: while a trace runs they are wrapped so
that calls on the tracing thread return traced arrays; other threads, and
everything after the trace, see NumPy unchanged.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import operator
import sys
import threading
import types

import numpy as np

from solvent.core import trace
from solvent.core.traced import TracedScalar, padded
from solvent.errors import RANDOM, UnsupportedError, is_library_file
from solvent.numpy import folding, layout
from solvent.numpy.indexing.traced_bounds import MaskedArray
from solvent.numpy.matrix_type import TracedMatrix
from solvent.numpy.registry import UNDISPATCHED, implements
from solvent.numpy.shape import TRACED_INDEX, broadcast_arrays, ravel, read_only, static_int, undecided, view
from solvent.numpy.values import (as_array, broadcast_value, full as full_value, holds_traced, is_traced,
                                  normalize_axis, result_type, stored_scalar, through_protocol, value,
                                  warn_discarding_imaginary, wrap)
from solvent.ops import elementwise as ew, shape as ops
from solvent.ops.base import dtype_of, shape_of
from solvent.ops.constant import constant, iota

#: Name -> traced implementation of the creation functions patched into NumPy while tracing.
FRESH: dict = {}


def fresh(numpy_function):
    """Register the decorated function for `numpy_function` and patch it into NumPy while tracing
    (`@fresh(np.zeros)`)."""
    def register(impl):
        implements(numpy_function)(impl)
        FRESH[numpy_function.__name__] = impl
        return impl
    return register


def _shape(shape) -> tuple[int, ...]:
    known = folding.static(shape)  # (a known array too: np.zeros(np.array([2, 3])))
    shape = tuple(known) if isinstance(known, (tuple, list)) or np.ndim(known) == 1 else (known,)
    shape = tuple(static_int(n, "the shape of a new array") for n in shape)
    if any(n < 0 for n in shape):
        raise ValueError("negative dimensions are not allowed")
    return shape


def _filled(fill, shape, dtype):
    dtype = np.dtype(dtype if dtype is not None else np.float64)
    if is_traced(fill):
        return wrap(value(fill, dtype, _shape(shape)), scalar=False)
    return wrap(full_value(stored_scalar(fill, dtype), _shape(shape), dtype), scalar=False)


def _host(host_array):
    """A fresh traced array holding a host array computed by NumPy from static arguments."""
    return wrap(constant(host_array), scalar=False)


def _static_only(name, *arguments):
    if any(is_traced(folding.static(a)) for a in arguments):
        raise UnsupportedError(f"np.{name} with traced arguments; pass Python numbers (static) instead {TRACED_INDEX}")


@fresh(np.zeros)
def zeros(shape, dtype=float, order="C", *, like=None, device=None):
    return _filled(0, shape, dtype)


@fresh(np.ones)
def ones(shape, dtype=None, order="C", *, like=None, device=None):
    return _filled(1, shape, dtype)


@fresh(np.empty)
def empty(shape, dtype=float, order="C", *, like=None, device=None):
    return _filled(0, shape, dtype)  # zeros: a program has no uninitialised memory


@fresh(np.full)
def full(shape, fill_value, dtype=None, order="C", *, like=None, device=None):
    if dtype is None:
        dtype = fill_value.dtype if is_traced(fill_value) else np.array(fill_value).dtype
    return _filled(fill_value, shape, dtype)


def _diagonals(N, M, k, direction, name):
    """Bool (N, M) mask of `row + k <direction> column` (EQ: the k-th diagonal, GE: on or below it)."""
    N, M = static_int(N, f"{name}'s N"), static_int(N if M is None else M, f"{name}'s M")
    k = static_int(k, f"{name}'s k")
    rows, cols = iota((N, M), np.int64, 0), iota((N, M), np.int64, 1)
    return ew.compare(direction, ew.binary("add", rows, full_value(k, (N, M), np.int64)), cols)


@fresh(np.eye)
def eye(N, M=None, k=0, dtype=float, order="C", *, like=None, device=None):
    return wrap(ew.convert(_diagonals(N, M, k, "EQ", "np.eye"), dtype), scalar=False)


@fresh(np.identity)
def identity(n, dtype=None, *, like=None):
    return eye(n, dtype=float if dtype is None else dtype)


@fresh(np.tri)
def tri(N, M=None, k=0, dtype=float, *, like=None):
    return wrap(ew.convert(_diagonals(N, M, k, "GE", "np.tri"), dtype), scalar=False)


@fresh(np.arange)
def arange(start, stop=None, step=None, dtype=None, *, like=None, device=None):
    _static_only("arange", start, stop, step)
    start, stop, step = (folding.static(a) for a in (start, stop, step))
    host = np.arange(start, stop, step, dtype=dtype)  # NumPy decides the length and dtype
    if host.size == 0:
        return _host(host)
    start = host[0] if stop is not None or step is not None else host.dtype.type(0)
    step = host[1] - host[0] if host.size > 1 else host.dtype.type(1)
    ramp = iota(host.shape, host.dtype, 0)
    scaled = ew.binary("multiply", ramp, full_value(step, host.shape, host.dtype))
    return wrap(ew.binary("add", scaled, full_value(start, host.shape, host.dtype)), scalar=False)


@fresh(np.linspace)
def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, *, device=None):
    num = static_int(num, "np.linspace's num (its number of samples)")
    if is_traced(start) or is_traced(stop):
        samples, step = _traced_linspace(start, stop, num, endpoint, dtype, axis)
        return (samples, step) if retstep else samples
    host = np.linspace(start, stop, num, endpoint, retstep, dtype, axis)
    return (_host(host[0]), host[1]) if retstep else _host(host)


def _traced_linspace(start, stop, num, endpoint, dtype, axis):
    """NumPy's linspace steps on traced ends; NumPy picks its scaling by whether a step is 0, so both are made."""
    num = operator.index(num)
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    div = num - 1 if endpoint else num
    exact = result_type(start, stop, 1.0)
    delta = np.subtract(stop, start, dtype=exact)
    ramp = np.arange(0, num, dtype=exact).reshape((-1,) + (1,) * np.ndim(delta))
    if div > 0:
        step = delta / div
        samples = np.where(np.any(step == 0), ramp / div * delta, ramp * step)
    else:
        step, samples = np.nan, ramp * delta
    samples = samples + start
    if endpoint and num > 1:
        samples[-1, ...] = stop
    samples = np.moveaxis(samples, 0, axis)
    if dtype is not None and np.issubdtype(dtype, np.integer):
        samples = np.floor(samples)
    return samples.astype(exact if dtype is None else dtype), step


@fresh(np.logspace)
def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    if not (is_traced(start) or is_traced(stop) or is_traced(base)):
        return _host(np.logspace(start, stop, num, endpoint, base, dtype, axis))
    rank = len(np.broadcast_shapes(*(np.shape(a) for a in (start, stop, base))))
    start, stop, base = (array(a, copy=None, ndmin=rank) for a in (start, stop, base))
    powers = np.power(np.expand_dims(base, axis), linspace(start, stop, num, endpoint, axis=axis))
    return powers if dtype is None else powers.astype(dtype)


@fresh(np.geomspace)
def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    _static_only("geomspace", start, stop)
    return _host(np.geomspace(start, stop, num, endpoint, dtype, axis))


@fresh(np.indices)
def indices(dimensions, dtype=int, sparse=False):
    """Index grids: one iota per dimension (dense: stacked; sparse: a tuple of broadcastable ramps)."""
    dimensions = _shape(tuple(dimensions))
    rank = len(dimensions)
    if sparse:
        return tuple(wrap(ew.convert(iota(tuple(n if d == i else 1 for d, n in enumerate(dimensions)),
                                          np.int64, i), dtype), scalar=False) for i in range(rank))
    grids = [ops.reshape(iota(dimensions, np.int64, i), (1,) + dimensions) for i in range(rank)]
    stacked = ops.concatenate(grids, 0) if grids else full_value(0, (0,), np.int64)
    return wrap(ew.convert(stacked, dtype), scalar=False)


# -- arrays of traced data -------------------------------------------------------

def _converted(obj, dtype, copy, ndmin):
    """NumPy's array construction from data holding traced values (a view only where NumPy gives one;
    a matrix becomes a plain array, as without subok)."""
    if isinstance(obj, TracedMatrix):
        obj = obj.A
    same = is_traced(obj) and not isinstance(obj, TracedScalar) and (dtype is None or np.dtype(dtype) == obj.dtype)
    if same and not copy:
        result = obj
    elif copy is False:
        raise ValueError("Unable to avoid copy while creating an array as requested.")
    elif isinstance(obj, MaskedArray):  # a slice of traced length keeps its mask
        result = obj.astype(obj.dtype if dtype is None else dtype)
    elif isinstance(obj, (list, tuple)) and any(isinstance(x, MaskedArray) for x in obj):  # np.array(np.nonzero(m))
        result = np.stack(obj)
        result = result if dtype is None else result.astype(dtype)
    else:
        if dtype is not None:
            warn_discarding_imaginary(result_type(obj), dtype)
        result = wrap(value(obj, dtype), scalar=False)
    missing = static_int(ndmin, "np.array's ndmin") - len(result.aval.shape)
    if missing <= 0:
        return result
    if isinstance(result, MaskedArray):
        raise padded(result, ", given ndmin=,")
    new = (1,) * missing + result.shape
    old = result.shape
    return view(result, new, lambda v: ops.reshape(v, new), lambda p, v: ops.reshape(v, old))


def _ordered(result, original, order, name: str):
    """NumPy's `order=` ("C"/"F") for `result` (`original` if no copy was asked): it, or a copy in that order."""
    if order not in ("C", "F") or not is_traced(result) or isinstance(result, TracedScalar):
        return result
    if result is not original:  # a new array: laid out in `order`
        if result._parent is None:
            result.memory = "C" if order == "C" else layout.f_strides(result.shape, result.itemsize)
        return result
    strides = layout.consulted(result)
    if strides is None:
        return undecided(result, result.shape, name)
    if layout.contiguous(result.shape, strides, result.itemsize, order):
        return result
    return _ordered(wrap(result.value, scalar=False), None, order, name)


def _made(result, given):
    """NumPy's new array of host data as a traced constant (values known): a host array would take both
    branches' in-place changes while a traced `if` is traced. np.asarray(a) of an array stays `a`."""
    return result if result is given or result.base is given else folding.as_known(result)


@fresh(np.array)
def array(object, dtype=None, *, copy=True, order="K", subok=False, ndmin=0, like=None):
    if not holds_traced(object):
        return _made(np.array(object, dtype, copy=copy, order=order, subok=subok, ndmin=ndmin), object)
    return _ordered(_converted(object, dtype, copy, ndmin), object, order, "np.array")


@fresh(np.asarray)
def asarray(a, dtype=None, order=None, *, device=None, copy=None, like=None):
    if not holds_traced(a):
        return _made(np.asarray(a, dtype, order, copy=copy), a)
    return _ordered(_converted(a, dtype, copy, 0), a, order, "np.asarray")


@fresh(np.asanyarray)
def asanyarray(a, dtype=None, order=None, *, device=None, copy=None, like=None):
    if isinstance(a, TracedMatrix) and dtype in (None, a.dtype) and not copy:
        return a  # subclasses stay as they are
    return asarray(a, dtype, order, copy=copy)


@fresh(np.ascontiguousarray)
def ascontiguousarray(a, dtype=None, *, like=None):
    if not holds_traced(a):
        return _made(np.ascontiguousarray(a, dtype), a)
    return _ordered(_converted(a, dtype, None, 1), a, "C", "np.ascontiguousarray")


@fresh(np.asfortranarray)
def asfortranarray(a, dtype=None, *, like=None):
    """The same values; a copy where NumPy copies (its array is not F-contiguous), as writes tell."""
    if not holds_traced(a):
        return _made(np.asfortranarray(a, dtype), a)
    return _ordered(_converted(a, dtype, None, 1), a, "F", "np.asfortranarray")


@fresh(np.require)
def require(a, dtype=None, requirements=None, *, like=None):
    """Flags (contiguity, alignment, ownership) describe host memory; only `dtype` applies to a traced array."""
    if not holds_traced(a):
        return _made(np.require(a, dtype, requirements), a)
    return _converted(a, dtype, None, 0)


@implements(np.copy)
def copy(a, order="K", subok=False):
    return wrap(value(a), scalar=False)


# -- like forms --------------------------------------------------------------------

def _like(fill):
    def create(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
        target = np.shape(a) if shape is None else _shape(shape)
        return _filled(fill, target, a.dtype if dtype is None else dtype)
    return create


@implements(np.full_like)
def full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None, *, device=None):
    target = np.shape(a) if shape is None else _shape(shape)
    return _filled(fill_value, target, a.dtype if dtype is None else dtype)


implements(np.zeros_like)(_like(0))
implements(np.ones_like)(_like(1))
implements(np.empty_like)(_like(0))


# -- diagonals and triangles --------------------------------------------------------

def _triangle(m, k, keep_below):
    """`m` with the entries above (tril) or below (triu) the k-th diagonal zeroed, NumPy's 1-d rule included."""
    m = as_array(m)
    if len(m.shape) == 0:
        raise TypeError("tri() missing 1 required positional argument: 'N'")
    rows, cols = m.shape[-2:] if len(m.shape) > 1 else m.shape * 2
    mask = _diagonals(rows, cols, k if keep_below else k - 1, "GE", "np.tril" if keep_below else "np.triu")
    target = np.broadcast_shapes(shape_of(mask), m.shape)
    mask, kept = broadcast_value(mask, target), broadcast_value(value(m), target)
    zero = full_value(0, target, m.dtype)
    return wrap(ew.select(mask, kept, zero) if keep_below else ew.select(mask, zero, kept), scalar=False)


@implements(np.tril)
def tril(m, k=0):
    return _triangle(m, k, True)


@implements(np.triu)
def triu(m, k=0):
    return _triangle(m, k, False)


@implements(np.diagonal)
def diagonal(a, offset=0, axis1=0, axis2=1):
    """NumPy's read-only view of the diagonal: a strided slice of the flattened square block, read
    as of `a`'s current values."""
    rank, offset = len(np.shape(a)), static_int(offset, "np.diagonal's offset")
    if rank < 2:
        raise ValueError("diag requires an array of at least two dimensions")
    axis1, axis2 = normalize_axis(axis1, rank), normalize_axis(axis2, rank)
    if axis1 == axis2:
        raise ValueError("axis1 and axis2 cannot be the same")
    order = [d for d in range(rank) if d not in (axis1, axis2)] + [axis1, axis2]
    *batch, rows, cols = (np.shape(a)[d] for d in order)
    length = max(0, min(rows, cols - offset) if offset >= 0 else min(rows + offset, cols))
    top, left = max(0, -offset), max(0, offset)

    def read(v):
        v = ops.transpose(v, order)
        if length == 0:
            return full_value(0, (*batch, 0), dtype_of(v))
        block = ops.slice(v, [0] * len(batch) + [top, left], [*batch, top + length, left + length], [1] * rank)
        flat = ops.reshape(block, (*batch, length * length))
        return ops.slice(flat, [0] * (rank - 1), [*batch, length * length], [1] * (rank - 2) + [length + 1])
    return read_only(as_array(a), (*batch, length), read)


@implements(np.diag)
def diag(v, k=0):
    k, vector = static_int(k, "np.diag's k"), value(v)
    if len(shape_of(vector)) == 2:
        return diagonal(v, k)
    if len(shape_of(vector)) != 1:
        raise ValueError("Input must be 1- or 2-d.")
    n = shape_of(vector)[0] + abs(k)
    dtype = dtype_of(vector)
    padded = ops.pad(vector, full_value(0, (), dtype), [0], [abs(k)], [0])
    spread = ops.broadcast_in_dim(padded, (n, n), [0 if k >= 0 else 1])  # entry (r, r + k) is v[min(r, r + k)]
    return wrap(ew.select(_diagonals(n, n, k, "EQ", "np.diag"), spread, full_value(0, (n, n), dtype)), scalar=False)


@implements(np.diagflat)
def diagflat(v, k=0):
    return diag(ravel(v), k)


@implements(np.meshgrid)
def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    """Coordinate grids, as NumPy builds them: reshaped inputs, broadcast unless `sparse`."""
    if indexing not in ("xy", "ij"):
        raise ValueError("Valid values for `indexing` are 'xy' and 'ij'.")
    rank = len(xi)
    grids = []
    for i, x in enumerate(xi):
        target = [1] * rank
        target[i] = -1
        if indexing == "xy" and rank > 1 and i < 2:
            target[:2] = [1, -1] if i == 0 else [-1, 1]
        grids.append(np.reshape(asanyarray(x), target))
    if not sparse:
        grids = broadcast_arrays(*grids)
    if copy:
        grids = tuple(wrap(value(g), scalar=False) for g in grids)
    return grids  # a list when sparse and not copied, as NumPy returns


# -- fresh arrays in traced code ---------------------------------------------------

_originals = {name: getattr(np, name) for name in FRESH}
_lock = threading.Lock()
_active = 0


def _fresh(name):
    original = _originals[name]
    host = _originals["zeros"] if name == "empty" else original  # a program has no uninitialised memory

    @functools.wraps(original)
    def create(*args, **kwargs):
        like = kwargs.get("like")  # NumPy looks C functions up by name for like=: that is this wrapper
        if trace.is_tracing() and (is_traced(like) or like is None  # NumPy's own calls stay host
                                   and not is_library_file(sys._getframe(1).f_code.co_filename)):
            args = tuple(through_protocol(a) for a in args)
            with trace.current().emitting():
                made = FRESH[name](*args, **kwargs)
                if is_traced(made) and like is None and folding.small(made) and \
                        folding.static_arguments(args, kwargs) and not any(made is a for a in args):
                    return folding.call(host, args, kwargs, lambda: made)  # NumPy's own values, known
                return made
        return original(*args, **kwargs)
    return create


class _NDArrayType(type):
    """Metaclass of the `np.ndarray` stand-in: calls from traced code make traced arrays, and a traced
    array (not a NumPy scalar) is an instance there (`if not isinstance(x, np.ndarray): x = np.stack(...)`
    takes NumPy's path); everything else (issubclass, other threads, NumPy itself) sees ndarray."""

    def __call__(cls, shape, dtype=float, buffer=None, offset=0, strides=None, order=None):
        if (buffer is None and trace.is_tracing()
                and not is_library_file(sys._getframe(1).f_code.co_filename)):
            with trace.current().emitting():
                return empty(shape, dtype)
        return _REAL_NDARRAY(shape, dtype, buffer, offset, strides, order)

    def __instancecheck__(cls, obj):
        return isinstance(obj, _REAL_NDARRAY) or (
            is_traced(obj) and not isinstance(obj, TracedScalar) and trace.is_tracing()
            and not is_library_file(sys._getframe(1).f_code.co_filename))

    def __subclasscheck__(cls, other):
        return issubclass(other, _REAL_NDARRAY)


_REAL_NDARRAY = np.ndarray


class _TracingNDArray(np.ndarray, metaclass=_NDArrayType):
    """`np.ndarray(shape)` while tracing (NumPy does not dispatch constructors either)."""
    __qualname__ = "ndarray"  # (and __name__, below: type(x).__name__ in the user's code)


_TracingNDArray.__name__ = "ndarray"


_originals["ndarray"] = _REAL_NDARRAY
_wrappers = {name: _fresh(name) for name in FRESH}
_wrappers["ndarray"] = _TracingNDArray
#: NumPy's own creation functions -> what np.<name> is while tracing, for rewritten code to call in
#: place of one it holds from before (`from numpy import zeros`).
STAND_INS = {_originals[name]: wrapper for name, wrapper in _wrappers.items()}


# -- np.random: its C code allocates with np.empty and must get real arrays ----------------------

def _refusing(original, what: str):
    """`original`, refused on a tracing thread: a draw there would be a constant of the program."""
    @functools.wraps(original)
    def call(*args, **kwargs):
        if trace.is_tracing():
            raise UnsupportedError(f"{what}: {RANDOM}")
        return original(*args, **kwargs)
    return call


class _HostNumPy(types.ModuleType):
    """`np` as the numpy.random modules see it while a trace runs: NumPy with its own creation
    functions (a traced array given to their C code would crash the process), refused for
    traced code; `np.ndarray` stays the class (their type checks on other threads need it)."""

    def __getattr__(self, name):
        return _HOST_FUNCTIONS.get(name) or getattr(np, name)


_HOST_NUMPY = _HostNumPy("numpy")
_HOST_FUNCTIONS = {name: original if isinstance(original, type) else _refusing(original, "np.random")
                   for name, original in _originals.items()}


def _global_draw(original, name: str):
    """`np.random.<name>`, which draws from (or seeds) the global RandomState: on a tracing thread the
    same method of the traced global state (`numpy.random.legacy`), an input of the program; a trace
    that has not got it yet starts again with it (`trace.NeedsGlobalRandom`)."""
    @functools.wraps(original)
    def call(*args, **kwargs):
        if not trace.is_tracing():
            return original(*args, **kwargs)
        state = trace.current().global_random
        if state is None:
            raise trace.NeedsGlobalRandom()
        return getattr(state, name)(*args, **kwargs)
    return call


#: np.random's functions of the global RandomState that are not its bound methods.
_GLOBAL_FUNCTIONS = ("seed", "ranf", "sample")

#: np.random functions that make a generator, as a trace makes it (numpy.random registers them).
MADE_INSIDE: dict = {}


def _made_inside(original, name: str):
    """`np.random.<name>` (default_rng): on a tracing thread the generator it makes, as traced code sees one."""
    @functools.wraps(original)
    def call(*args, **kwargs):
        return MADE_INSIDE[name](*args, **kwargs) if trace.is_tracing() else original(*args, **kwargs)
    return call


def _random_shields() -> list[tuple[object, str, object]]:
    """(owner, name, stand-in) for every np.random entry point and the `np` of its C modules."""
    shields = [(module, "np", _HOST_NUMPY) for name, module in list(sys.modules.items())
               if name.startswith("numpy.random.") and getattr(module, "np", None) is np]
    for name in dir(np.random):
        fn = getattr(np.random, name)
        if getattr(fn, "__self__", None) is np.random.mtrand._rand or name in _GLOBAL_FUNCTIONS:
            shields.append((np.random, name, _global_draw(fn, name)))
        elif name in MADE_INSIDE:
            shields.append((np.random, name, _made_inside(fn, name)))
        elif name in ("default_rng", "get_bit_generator", "set_bit_generator"):
            shields.append((np.random, name, _refusing(fn, f"np.random.{name}")))
    return shields


_shielded: list = []


@contextlib.contextmanager
def fresh_arrays():
    """While a trace runs, np.zeros & co. on the tracing thread return traced arrays (and np.random
    is refused there)."""
    global _active
    with _lock:
        if _active == 0:
            for name, wrapper in _wrappers.items():
                setattr(np, name, wrapper)
            shields = _random_shields()
            _shielded[:] = [(owner, name, getattr(owner, name)) for owner, name, _ in shields]
            for owner, name, stand_in in shields:
                setattr(owner, name, stand_in)
        _active += 1
    try:
        yield
    finally:
        with _lock:
            _active -= 1
            if _active == 0:
                for name, original in _originals.items():
                    setattr(np, name, original)
                for owner, name, original in _shielded:
                    setattr(owner, name, original)


@implements(np.fromiter)
def fromiter(iter, dtype, count=-1, *, like=None):
    """The items as one array, as NumPy's loop fills one: traced items (a generator over a traced
    array's rows, say) are made one traced array. NumPy's own function cannot be given them, nor
    dispatches on an iterator: rewritten code calls this one for an iterator (`numpy_calls`)."""
    items = list(itertools.islice(iter, None if count < 0 else count))
    if 0 <= count != len(items):
        raise ValueError(f"iterator too short: Expected {count} but iterator had only {len(items)} items.")
    if not holds_traced(items):
        return np.fromiter(items, dtype, count)
    return as_array(items).astype(np.dtype(dtype))


UNDISPATCHED.add(np.fromiter)
