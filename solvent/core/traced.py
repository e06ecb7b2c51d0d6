"""Traced arrays: stand-ins for NumPy arrays that record StableHLO while a function runs.

A `TracedArray` is a mutable handle on an SSA value. In-place operations give
it a new value; a view (basic slicing, transpose, reshape) reads its parent's
current value and writes through to it, so mutation is exactly NumPy's.
"""

from __future__ import annotations

import operator
import re
import sys
import weakref

import numpy as np
from jaxlib.mlir import ir

from solvent.core import dispatch, operators
from solvent.core.aval import Aval
from solvent.core.session import DEAD, SESSION
from solvent.errors import (ControlFlowError, EscapedValueError, TracerConversionError, UnsupportedError,
                            is_users_file, numpy_entry, user_location)

#: What text of a traced value says where it is printed (see `TracedArray._text`).
TRACED_TEXT = re.compile(r"Traced(Array|Scalar)\(")


class TracedArray:
    """An array whose values are only known when the compiled program runs."""

    __array_priority__ = 1000  # win NumPy's operator dispatch against ndarray
    affine = None  # for an integer known to be scale * i + offset of a rolled loop's index (numpy.indexing.affine)
    interval = None  # (low, high) of an integer computed from such indices (numpy.indexing.affine)
    weak = False   # a rolled loop's index, a Python int in NumPy's loop: promotes as one (NEP 50)
    is_scalar = False  # a NumPy scalar's stand-in (TracedScalar), as solvent.Scalar is
    padded = False  # a slice with traced bounds, zero past its valid part (numpy.indexing.traced_bounds)
    argument = False  # one of the program's inputs (its shape is the caller's)
    host_array = False  # an argument the caller passed as a NumPy array
    reshaped_at = None  # where `x.shape = ...` gave an ndarray argument its new shape (the thunk sets it)
    known = None  # its value as NumPy computed it at trace time, until written (see numpy.folding)
    memory = "C"  # NumPy's layout: "C", byte strides, or None if unknown (see numpy.layout)
    layout_read = False  # an argument whose layout a view-or-copy decision read (see numpy.layout)
    stands_for = None  # the traced array of an enclosing trace an argument stands for (outlining, transforms)
    layout_from = ()  # the operands whose layouts decided this result's (see numpy.layout)
    views_of = None  # ((root, its version), ...): the copy a branch or loop gave of a view it made of them;
    #                 a write raises, and so does a read after a root's version changed

    def __init__(self, value: ir.Value, aval: Aval):
        self._value = value
        self.aval = aval
        self.version = 0
        self._parent = None
        self._view = None  # (read(parent value) -> value, write(parent value, value) -> parent value)
        self._seen = None
        self.depth = len(SESSION.regions)
        if self.depth:
            SESSION.regions[-1].created.append(self)

    @classmethod
    def view_of(cls, parent: "TracedArray", aval: Aval, read, write, memory=None) -> "TracedArray":
        """A view that reads `read(parent)` and writes back with `write(parent, new)`; `memory`
        its byte strides in NumPy (None: not known)."""
        view = cls.__new__(cls)
        view._value, view.aval, view.version, view.memory = None, aval, 0, memory
        view._parent, view._view, view._seen = parent, (read, write), None
        if parent.padded and not view.padded:  # a view of a slice of traced length held padded is one too
            view.padded, view.made_at = True, vars(parent).get("made_at")
        view.depth = len(SESSION.regions)
        parent.__dict__.setdefault("_views", weakref.WeakSet()).add(view)
        if view.depth:
            SESSION.regions[-1].created.append(view)
        return view

    # -- value and mutation ------------------------------------------------

    def root(self) -> "TracedArray":
        node = self
        while node._parent is not None:
            node = node._parent
        return node

    @property
    def value(self) -> ir.Value:
        """The current SSA value, re-read from the parent if it changed since."""
        if self._parent is None:
            if self._value is DEAD:
                raise escaped(self)
            self._check_held()
            return self._value
        root = self.root()
        root._check_held()  # a view of such a copy reads it
        stamp = (root.version, SESSION.epoch)
        if self._seen != stamp:
            self._value = self._view[0](self._parent.value)
            self._seen = stamp
        return self._value

    def _check_held(self) -> None:
        """A copy a branch or loop gave of a view it made (`views_of`) is exact until its arrays change."""
        if self.views_of is not None and any(version != root.version for root, version in self.views_of):
            raise lost_view("read after a write to the array it views")

    def carried(self) -> ir.Value:
        """The value of such a copy as data a branch or loop carries, unchecked: it is checked where
        it is read."""
        return self._value if self._value is not DEAD else self.value

    def assign(self, value: ir.Value) -> None:
        """Replace the contents (same shape and dtype), writing through views."""
        if self._parent is None:
            if self.views_of is not None:
                raise lost_view("written")
            if self.depth < len(SESSION.regions) and id(self) not in SESSION.regions[-1].writes:
                SESSION.regions[-1].writes[id(self)] = (self, self._value)
            self._value, self.known = value, None
            self.version += 1
            return
        self._parent.assign(self._view[1](self._parent.value, value))
        self._value, self._seen = value, (self.root().version, SESSION.epoch)

    def alternatives(self):
        """(which, choices, own) for an array that is one of several by a traced index (see
        `transforms.identity.Either`); None for an ordinary array."""
        return None

    def restore(self, value: ir.Value) -> None:
        """Put back a root's value from before a region was traced (no write is recorded)."""
        self._value, self.known = value, None
        self.version += 1

    # -- array attributes ----------------------------------------------------

    def _reshape_in_place(self, shape) -> None:
        """`a.shape = s`: NumPy gives the array itself the new shape, its data unchanged. An
        ndarray argument takes it too: the call gives the caller's array that shape."""
        if isinstance(self, TracedScalar):
            raise AttributeError("attribute 'shape' of 'numpy.generic' objects is not writable")
        views = self.__dict__.get("_views")
        if self._parent is not None or (self.argument and not self.host_array) or self.alternatives() is not None \
                or self.depth < len(SESSION.regions) or (views is not None and len(views)):
            raise UnsupportedError(
                "`x.shape = ...` on a solvent.Array argument, a view, an array with views or one made outside "
                "the branch or loop that reshapes it: solvent reshapes in place only NumPy arrays that nothing "
                "else views; write x = x.reshape(...)")
        if not self.argument and self.memory != "C":  # (an argument's is checked by the call: see thunk)
            raise UnsupportedError(
                "`x.shape = ...` on an array that is not C-contiguous in NumPy (a result computed from "
                "transposed or strided arrays): whether NumPy can reshape it in place depends on its "
                "layout; write x = x.reshape(...)")
        new = np.copy(np.reshape(self, shape))  # NumPy's errors for a size that does not match
        self._value, self.aval, self.known = new.value, new.aval, None
        self.version += 1
        if self.argument:
            self.reshaped_at = user_location()

    shape = property(lambda self: self.aval.shape, _reshape_in_place)
    dtype = property(lambda self: self.aval.dtype)
    ndim = property(lambda self: len(self.aval.shape))
    size = property(lambda self: int(np.prod(self.aval.shape, dtype=np.int64)))
    itemsize = property(lambda self: self.aval.dtype.itemsize)
    nbytes = property(lambda self: self.size * self.aval.dtype.itemsize)
    T = property(lambda self: np.transpose(self))
    mT = property(lambda self: np.swapaxes(self, -1, -2))
    real = property(lambda self: np.real(self), lambda self, new: _set_part(self, np.real, new))
    imag = property(lambda self: np.imag(self), lambda self, new: _set_part(self, np.imag, new))
    flat = property(lambda self: dispatch.HOOKS.array_method(self, "flat")(),
                    lambda self, new: dispatch.HOOKS.array_method(self, "put")(range(self.size), new),
                    doc="`a.flat = v`: every element, v repeated as NumPy's flat setter (and np.put) repeat it.")
    strides = property(lambda self: dispatch.HOOKS.array_method(self, "strides")())
    base = property(lambda self: None if self._parent is None else self.root(),
                    doc="`ndarray.base`: the array a view reads from, None for an array that owns its data.")

    def __copy__(self):
        """`copy.copy(a)`, `copy.deepcopy(a)` (and so `dataclasses.asdict`): `a.copy()`, as NumPy's."""
        return dispatch.HOOKS.array_method(self, "copy")()

    def __deepcopy__(self, memo):
        return self.__copy__()

    def __array_namespace__(self, *, api_version=None):
        """The Array API namespace of a traced array: `solvent.numpy`, as outside `jit`."""
        return dispatch.HOOKS.array_namespace(api_version)

    def to_device(self, device, /, *, stream=None):
        return self  # one program runs on one device

    def __len__(self) -> int:
        if not self.aval.shape:
            raise TypeError("len() of unsized object")
        return self.aval.shape[0]

    def __iter__(self):
        if not self.aval.shape:  # (at iter(), as NumPy's: np.iterable of a 0-d array is False)
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(len(self)))

    def __repr__(self) -> str:
        return self._text(repr)

    def __str__(self) -> str:
        return self._text(str)

    def _what(self) -> str:
        return f"TracedArray({self.aval})"

    def _text(self, render) -> str:
        """Text of the value: NumPy's where it is known while tracing; else what it is (`TracedArray(...)`,
        text that TRACED_TEXT finds in a result) where the user's code prints, logs, warns or raises and
        where a library asks (a debugger), and an error in the user's other code and NumPy's: text
        computed with (`len(str(x))`, `str(x) == "3"`, a dict key) would be wrong at every call."""
        if self.known is not None:
            return render(self.known)
        if not SESSION.printing and (is_users_file(sys._getframe(2).f_code.co_filename) or numpy_entry()):
            raise _conversion_error(self, "text")
        return self._what()

    # -- NumPy protocols -----------------------------------------------------

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return dispatch.HOOKS.array_ufunc(ufunc, method, inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        return dispatch.HOOKS.array_function(func, args, kwargs)

    def __getitem__(self, key):
        return dispatch.HOOKS.getitem(self, key)

    def __setitem__(self, key, value):
        dispatch.HOOKS.setitem(self, key, value)

    def _host(self, what: str):
        """The value NumPy computed at trace time, for a conversion to Python; else the error."""
        if self.known is None:
            raise _conversion_error(self, what)
        return self.known

    def __array__(self, dtype=None, copy=None):
        raise _conversion_error(self, "np.asarray()")

    def __bool__(self):
        return bool(self._host("bool()"))

    def __int__(self):
        return int(self._host("int()"))

    def __float__(self):
        return float(self._host("float()"))

    def __complex__(self):
        return complex(self._host("complex()"))

    def __index__(self):
        return operator.index(self._host("use as a Python index"))

    def __format__(self, spec):
        return format(self._host("format()"), spec) if spec else self._text(str)  # (a spec formats the value)

    # Every ndarray method is the NumPy function of the same name (np.sum(a) == a.sum()).
    def __getattr__(self, name):
        method = dispatch.HOOKS.array_method
        if method is None or name.startswith("__"):
            raise AttributeError(name)
        return method(self, name)


class TracedScalar(TracedArray):
    """A traced 0-d value: a `solvent.Scalar` argument or a NumPy-scalar result."""

    is_scalar = True

    def _what(self) -> str:
        return f"TracedScalar({self.aval.dtype.name})"

    def __setitem__(self, key, value):
        raise TypeError(f"'{self.aval.dtype.name}' object does not support item assignment")

    def __round__(self, ndigits=None):
        return dispatch.BUILTINS[round](self, ndigits)

    def is_integer(self):
        """Whether the value is whole, as float.is_integer (and NumPy's scalars') says: a traced bool."""
        if self.aval.dtype.kind in "iub":
            return True
        whole = np.isfinite(self) & (np.floor(self) == self)
        whole.weak = True
        return whole

    def bit_count(self):
        """The number of one bits of |value|, as int.bit_count: a traced Python int."""
        if self.aval.dtype.kind not in "iu":
            raise AttributeError(f"'numpy.{self.aval.dtype.name}' object has no attribute 'bit_count'")
        count = np.bitwise_count(self).astype(np.int64)
        count.weak = True
        return count

    def as_integer_ratio(self):
        raise TracerConversionError("as_integer_ratio() of a traced value (statistics' functions and fractions "
                                    "ask for it): its exact digits are known only when the program runs; use "
                                    "NumPy's functions (np.mean for statistics.mean)")

    def __mul__(self, other):  # `[0] * n`: Python repeats the sequence by n.__index__, as for NumPy's ints
        return NotImplemented if isinstance(other, (list, tuple, str, bytes)) else TracedArray.__mul__(self, other)

    def __rmul__(self, other):
        return NotImplemented if isinstance(other, (list, tuple, str, bytes)) else TracedArray.__rmul__(self, other)


class ScalarOrArray(TracedArray):
    """A 0-d name that a traced loop or branch leaves a NumPy scalar on some paths (trip counts) and a
    new 0-d array on others: NumPy's `x op= y` rebinds the one and writes the other in place (which
    names that share it then see), so solvent refuses it (`mixed`)."""


def mixed(name: str) -> ControlFlowError:
    symbol = operators.SYMBOLS[name]
    return ControlFlowError(
        f"`x {symbol}= y` on a name that the traced loop or branch before leaves a NumPy scalar on some paths "
        "(numbers of iterations) and a 0-d array on others: NumPy rebinds the scalar but writes the array in "
        f"place (which other names for it see); write x = x {symbol} y, or make it an array on every path "
        "(np.asarray)")


def escaped(x: TracedArray) -> EscapedValueError:
    return EscapedValueError(
        f"a traced value ({x.aval}) made while tracing a loop or branch body that solvent then "
        "discarded was used afterwards; keep values computed in a loop or branch inside it, "
        "or return them from it")


def lost_view(use: str) -> ControlFlowError:
    """The error for the copy a traced branch or loop gave of a view it made (see `views_of`)."""
    return ControlFlowError(
        f"a view made in a traced `if` or loop of an array from before it (v = x[:3] if c else x[2:], or "
        f"v = x[i:i + 2] in the loop) is {use}: NumPy's view would share the array's memory, but after the "
        "`if` or loop solvent holds a copy of it; index the array itself there (x[...])")


def padded(x: TracedArray, use: str = "") -> UnsupportedError:
    """The error for a slice with traced bounds used where its true length would matter."""
    return UnsupportedError(
        f"an array whose length depends on traced values (x[:k], A[i, :i], x[mask], np.nonzero(mask)){use} has a "
        "length known only when the program runs; "
        f"solvent holds it at full size ({x.aval}) with a mask that NumPy's functions on it respect (ufuncs, "
        "reductions, scans, sorts, products, joins, ...; reading one element; writes into a slice of the same "
        "bounds), but this use does not: reduce it or write it back inside the program, or make the bounds static "
        "Python ints",
        vars(x).get("made_at"))


def _compiled(entry: str) -> bool:
    """Whether `np.name` (or `np.linalg.name`, ...) is a function solvent registers."""
    target = np
    for part in entry.split(".")[1:]:
        target = getattr(target, part, None)
    try:
        return target is not None and target in dispatch.FUNCTIONS
    except TypeError:  # unhashable
        return False


def _conversion_error(x: TracedArray, what: str) -> TracerConversionError | UnsupportedError:
    entry = numpy_entry()
    if entry is not None and _compiled(entry):  # a function solvent compiles, given a list of traced values
        return UnsupportedError(
            f"{entry} was given a Python list or tuple holding traced values, which NumPy turns into an array "
            f"on the host; make it one traced array first: {entry}(np.array([...])) (or np.stack)")
    if entry is not None:  # inside a NumPy function written in Python that solvent does not register
        return UnsupportedError(
            f"{entry} is not supported by solvent.jit: NumPy's own implementation needs host values "
            f"({what} of a traced value). See solvent.supported() for the functions solvent compiles.")
    advice = ("solvent captures the tests of `if`, `while`, `and`/`or` and `x if c else y` in code whose source it "
              "reads, not Python's other tests (sorting, comparing tuples, `match` cases, list.index): write this one "
              "with NumPy (np.where(cond, a, b), np.sort, np.any)" if what == "bool()" else
              "Its text (str(x), repr(x), f\"{x}\") can be printed (print, logging, warnings.warn and raise show what "
              "it is while tracing), not computed with: return the value and format it after the call"
              if what == "text"
              else "Keep the computation in NumPy")
    if what in ("bool()", "int()", "float()", "complex()"):
        advice += ("; a builtin or math function passed as a value (map(float, x), key=math.fabs, "
                   "functools.reduce(max, x)) is called by Python itself, not rewritten as a call in your code is: "
                   "write the call (a comprehension or a lambda)")
    return TracerConversionError(
        f"{what} of a traced value ({x.aval}): its value is only known when the compiled program runs. "
        f"{advice}, pass the value as a static Python scalar, or compute it outside solvent.jit.")


def _refused(name: str):
    def method(self, other):
        raise mixed(name)
    return method


def _set_part(array, part, new) -> None:
    """`a.real = v` / `a.imag = v`: written through the part's view, as ndarray's setters do."""
    if part is np.imag and not np.issubdtype(array.dtype, np.complexfloating):
        raise TypeError("array does not have imaginary part to set")
    part(array)[...] = new


def _python_bool(x) -> bool:
    """A traced stand-in for a Python bool (np.allclose's, a comparison of a loop index)."""
    return isinstance(x, TracedArray) and x.weak and x.aval.dtype == np.bool_


def _python_arithmetic(method):
    """An operator of Python's: on Python bools, and Python numbers with them, it computes on ints
    (True + True is 2, -True is -1), where NumPy's ufunc of np.bool_ gives a bool (np.add of them
    stays NumPy's)."""
    def operator(*operands):
        if any(_python_bool(x) for x in operands) and all(
                getattr(x, "weak", False) or type(x) in (bool, int, float, complex) for x in operands):
            operands = [int(x) if type(x) is bool else _python_int(x) if _python_bool(x) else x for x in operands]
        return method(*operands)
    return operator


def _python_int(truth):
    """A Python bool's int (a weak int64), as Python's arithmetic reads it."""
    result = np.add(truth, 0)
    result.weak = True
    return result


def _hash(self) -> int:
    """In the user's code, what NumPy's hash gives (a scalar hashes by its value, which a traced one
    has not; an array is unhashable), so `set(x)` or `{x[0]: ...}` never keys by identity; in
    solvent's and the standard library's code (a WeakSet of views), the identity."""
    if not is_users_file(sys._getframe(1).f_code.co_filename):
        return id(self)
    return users_hash(self)


def users_hash(x: TracedArray):
    """What hash() of a traced value gives in the user's code: an error (see `_hash`)."""
    if isinstance(x, TracedScalar):
        raise _conversion_error(x, "hash()")
    raise TypeError("unhashable type: 'numpy.ndarray'")


operators.install(TracedArray)
TracedArray.__hash__ = _hash
for _name in [*(n for n in operators.BINARY if n not in ("and", "or", "xor", "matmul")), *operators.UNARY]:
    for _method in (f"__{_name}__", f"__r{_name}__"):
        if hasattr(TracedArray, _method):
            setattr(TracedArray, _method, _python_arithmetic(getattr(TracedArray, _method)))
for _name in operators.BINARY:  # NumPy scalars are immutable: `s += 1` rebinds `s`
    setattr(TracedScalar, f"__i{_name}__", getattr(TracedArray, f"__{_name}__"))
    setattr(ScalarOrArray, f"__i{_name}__", _refused(_name))
