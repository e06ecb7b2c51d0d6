"""Python's builtins on traced values, as the NumPy operations they mean.

On NumPy scalars `max(a, b)`, `int(x)` or `any(...)` make Python comparisons and conversions,
which a traced value cannot answer before the program runs. Rewritten code calls these in
their place (`rewrite.converted`); with no traced argument each is the builtin itself. Each
gives what NumPy's run would: `max`/`min` the first extreme item by `>`/`<` (NaN rules
included), `int`/`round` a Python int and `float` a Python float, held as a weak traced scalar
so that it promotes as that Python number does (NEP 50); `enumerate` and `zip` of traced arrays
give their items to a loop by a traced index, as iterating over the array's rows does.
"""

from __future__ import annotations

import builtins
import math
import operator
import warnings

import numpy as np

from solvent.core import trace
from solvent.core.traced import TracedArray, TracedScalar
from solvent.errors import TracerConversionError, UnsupportedError
from solvent.numpy.folding import static
from solvent.numpy.registry import builtin
from solvent.numpy.repeat import repeat_while
from solvent.numpy.rounding import python_round
from solvent.numpy.matrix_type import TracedMatrix
from solvent.numpy.values import PYTHON_TYPES, is_python_scalar, is_traced, probe_array, value, wrap

_NOTHING = object()  # no `default=` given


def scalar_of(x, dtype, weak: bool):
    """Traced `x` as a NumPy scalar of `dtype`; `weak` for a Python number."""
    out = wrap(x.astype(dtype).value, scalar=True)
    out.weak = weak
    return out


def _only_element(x, what: str):
    """The one element of a traced value whose size is 1, as NumPy's conversions take it."""
    if x.size != 1:
        raise TypeError(f"only length-1 arrays can be converted to Python scalars ({what} of a traced "
                        f"array of shape {x.shape})")
    return np.reshape(x, ())


def _real(x, what: str):
    if x.dtype.kind == "c":
        warnings.warn(f"{what} of a complex value discards the imaginary part", np.exceptions.ComplexWarning,
                      stacklevel=3)
        return np.real(x)
    return x


@builtin(int)
def int_(x=0, *args, **keywords):
    """int() of a traced number: truncated toward zero, a Python int (weak int64). NaN, inf and
    values beyond int64 raise in NumPy; the compiled program gives an unspecified integer there."""
    x = static(x)
    if not is_traced(x) or args or keywords:
        return builtins.int(x, *args, **keywords)
    x = _real(_only_element(x, "int()"), "int()")
    return scalar_of(np.trunc(x) if x.dtype.kind == "f" else x, np.int64, weak=True)


@builtin(bool)
def bool_(x=False):
    """bool() of a traced number: a Python bool (weak), its truth."""
    x = static(x)
    if not is_traced(x):
        return builtins.bool(x)
    return scalar_of(_truth(x, "bool"), np.bool_, weak=True)


@builtin(complex)
def complex_(real=0, imag=0):
    """complex() of traced numbers: a Python complex (weak complex128)."""
    real, imag = static(real), static(imag)
    if not (is_traced(real) or is_traced(imag)):
        return builtins.complex(real, imag)
    parts = [_only_element(v, "complex()") if is_traced(v) else v for v in (real, imag)]
    return scalar_of(parts[0] + 1j * parts[1], np.complex128, weak=True)


@builtin(float)
def float_(x=0.0):
    """float() of a traced number: a Python float (weak float64)."""
    x = static(x)
    if not is_traced(x):
        return builtins.float(x)
    return scalar_of(_real(_only_element(x, "float()"), "float()"), np.float64, weak=True)


@builtin(round)
def round_(number, ndigits=None):
    """round() of a traced NumPy scalar: `np.round(x, ndigits)`, or without `ndigits` a Python int
    (halves to even, as Python rounds)."""
    number = static(number)
    if not is_traced(number):
        return builtins.round(number, ndigits)
    if isinstance(number, TracedScalar) and number.weak and number.dtype.kind == "b":  # a Python bool: an int
        number = scalar_of(number.astype(np.int64), np.int64, weak=True)
    if not isinstance(number, TracedScalar) or number.dtype.kind not in "iuf":
        kind = f"numpy.{number.dtype.name}" if isinstance(number, TracedScalar) else "numpy.ndarray"
        raise TypeError(f"type {kind} doesn't define __round__ method")
    if ndigits is not None and number.weak and number.dtype.kind == "f":  # a Python float: Python's digits
        with trace.current().emitting():
            return scalar_of(python_round(number, operator.index(ndigits)), np.float64, weak=True)
    if ndigits is not None and number.weak and operator.index(ndigits) < 0:  # a Python int: exact, half to even
        return scalar_of(_integer_round(number, -operator.index(ndigits)), np.int64, weak=True)
    if ndigits is not None:  # (of a Python int, a Python int again; of a NumPy float, NumPy's rounding)
        rounded = np.round(number, ndigits)
        return scalar_of(rounded, rounded.dtype, weak=True) if number.weak else rounded
    return scalar_of(np.rint(number) if number.dtype.kind == "f" else number, np.int64, weak=True)


def _integer_round(n, digits: int):
    """The int64 `n` rounded to a multiple of 10**digits, half to even, as Python rounds its ints (in
    integers: through a float, 10**17 + 50 came out 10**17 + 60)."""
    if digits > 18:  # (10**19 is past int64: |n| rounds to 0, or to a multiple that wraps)
        return n * 0
    unit = 10 ** digits
    whole, rest = n // unit, n % unit
    up = (2 * rest > unit) | ((2 * rest == unit) & (whole % 2 == 1))
    return (whole + up) * unit


@builtin(pow)
def pow_(base, exp, mod=None):
    """pow() of traced numbers; with `mod`, of integers, by squaring and multiplying reduced by
    `mod` at every step (in uint64 by doubling where mod**2 could pass int64: Python's own numbers
    do not overflow), a negative exponent as a power of base's inverse modulo mod."""
    base, exp, mod = static(base), static(exp), static(mod)
    if mod is None or not any(is_traced(v) for v in (base, exp, mod)):
        return builtins.pow(base, exp, mod)
    if any(np.result_type(v).kind not in "iub" for v in (base, exp, mod)):
        raise TypeError("pow() 3rd argument not allowed unless all arguments are integers")
    base, exp, mod = (v.astype(np.int64) if is_traced(v) else np.int64(v) for v in (base, exp, mod))
    times = (lambda a, b: a * b % mod) if not is_traced(mod) and abs(mod) <= _EXACT_PRODUCTS else \
        (lambda a, b: _product_mod(a, b, mod))
    base = np.where(exp < 0, _inverse(base % mod, mod), base % mod)

    def step(result, base, exp):
        return np.where(exp % 2 == 1, times(result, base), result), times(base, base), exp // 2
    result, _, _ = repeat_while(lambda result, base, exp: exp > 0, step, (1 % mod, base, np.abs(exp)), reads=(mod,))
    return scalar_of(result, np.int64, weak=True)


#: A modulus up to this keeps a product of two residues within int64.
_EXACT_PRODUCTS = math.isqrt(2 ** 63 - 1)


def _product_mod(a, b, mod):
    """a * b % mod of residues (of mod's sign), by doubling in uint64: no step passes 2 * |mod|."""
    size = np.abs(mod).astype(np.uint64)
    a, b = (np.abs(v).astype(np.uint64) for v in (a, b))  # (residues share mod's sign: so does their product)
    result = np.uint64(0) * size
    for bit in range(62, -1, -1):
        result = result * np.uint64(2) % size
        result = np.where((b >> np.uint64(bit)) & np.uint64(1) != 0, (result + a) % size, result)
    return np.where(mod < 0, -result.astype(np.int64), result.astype(np.int64)) % mod


def _inverse(a, mod):
    """a's inverse modulo mod by Euclid's extended algorithm (where they share a factor, Python raises
    ValueError; the compiled value is unspecified)."""
    def step(r0, r1, s0, s1):
        q = r0 // r1
        return r1, r0 - q * r1, s1, s0 - q * s1
    size = np.abs(mod)
    _, _, s, _ = repeat_while(lambda r0, r1, s0, s1: r1 != 0, step, (a % size, size, a * 0 + 1, a * 0), reads=(mod,))
    return s % mod


def _truth(x, what: str):
    """bool(x) of a traced value with one element, as a traced bool."""
    if x.size != 1:
        raise ValueError("The truth value of an array with more than one element is ambiguous. Use a.any() "
                         f"or a.all() (in {what}() of traced arrays)")
    return np.reshape(x, ()) != 0


def _truths(items, what: str, combine, stop: bool):
    """any() (`stop` True) or all() over `items`: Python's short circuit on static items, `combine`
    of the traced ones."""
    items = static(items)
    if is_traced(items):
        rows = items.shape[0] if items.ndim else None
        if rows is None:
            raise TypeError(f"iteration over a 0-d array ({what}() of a traced value)")
        if rows and items.size != rows:
            raise ValueError("The truth value of an array with more than one element is ambiguous. Use "
                             f"a.any() or a.all() (in {what}() of a traced array of shape {items.shape})")
        return (np.any if stop else np.all)(items != 0) if rows else not stop
    result = not stop
    for item in map(static, items):
        if not is_traced(item):
            if bool(item) == stop:
                return stop
            continue
        truth = _truth(item, what)
        result = truth if result is (not stop) else combine(result, truth)
    return result


@builtin(sum)
def sum_(iterable, /, start=0):
    """sum() of a selection of traced length (x[x < 0]), which Python's loop could not count: `start`
    plus its np.sum in its own dtype (a bool's as int)."""
    if _count(iterable) is None or iterable.ndim != 1:
        return builtins.sum(iterable, start)
    return start + np.sum(iterable, dtype=np.int64 if iterable.dtype == np.bool_ else iterable.dtype)


@builtin(len)
def len_(x):
    """len() of a selection or slice of traced length (x[mask], x[:k]): its traced count."""
    count = _count(x)
    return builtins.len(x) if count is None else scalar_of(wrap(count, scalar=True), np.int64, weak=True)


def _count(x):
    """The traced count of a selection or slice of traced length (its first dimension's), else None."""
    lengths = getattr(x, "lengths", None) if isinstance(x, TracedArray) else None
    return lengths[0] if lengths else None


@builtin(sorted)
def sorted_(iterable, /, *, key=None, reverse=False):
    """sorted() of a traced 1-d array, or of numbers some of them traced: a list of them in order
    (by `key`'s values where given), stable as Python's sort is; NaNs last, where Python's order
    depends on where they stood."""
    array = is_traced(iterable) and iterable.ndim == 1
    items = [iterable[i] for i in range(builtins.len(iterable))] if array else list(iterable)
    keys = items if key is None else [key(item) for item in items]
    if not array and not builtins.any(is_traced(static(v)) for v in (*items, *keys)):
        return builtins.sorted(items, key=key, reverse=reverse)
    if not builtins.all(is_python_scalar(v) or np.ndim(v) == 0 for v in (*items, *keys)):
        raise TracerConversionError("sorted() of traced arrays compares whole arrays, which needs their values "
                                    "while tracing: sort numbers, or use np.sort or np.argsort")
    if not items:
        return []
    values = iterable if array else _stacked(items)
    keys = values if key is None else _stacked(keys)
    if reverse:  # (descending, equal keys in their first order: the stable sort of the reversed keys, reversed)
        order = (builtins.len(items) - 1 - np.argsort(keys[::-1], kind="stable"))[::-1]
    else:
        order = np.argsort(keys, kind="stable")
    ordered = values[order]
    weak = builtins.all(is_python_scalar(v) or getattr(v, "weak", False) for v in items)
    return [scalar_of(ordered[i], ordered.dtype, weak) if weak else ordered[i] for i in range(builtins.len(items))]


def _stacked(numbers):
    """A list of numbers as one traced array (NumPy's conversion of it)."""
    with trace.current().emitting():
        return wrap(value(numbers), scalar=False)


class Rows:
    """`enumerate(x)` or `zip(x, y, ...)` over traced arrays, iterated as the builtin does, whose
    i-th item a traced i can also read: a loop over it rolls (`statements.for_stmt`), and one with
    `break` becomes a `while` over its items, as a loop over the rows of `x` does."""

    def __init__(self, length: int, item):
        self._length, self._item = length, item

    def __len__(self):
        return self._length

    def __getitem__(self, index):
        return self._item(index)

    def __iter__(self):
        return (self._item(i) for i in range(self._length))


def _rows(x) -> bool:
    """Whether `x` is a traced array a loop would take row by row."""
    return is_traced(x) and x.ndim > 0 and static(x) is x


@builtin(enumerate)
def enumerate_(iterable, start=0):
    if not _rows(iterable):
        return enumerate(iterable, start)
    return Rows(builtins.len(iterable), lambda i: (start + i, iterable[i]))


@builtin(zip)
def zip_(*iterables, strict=False):
    if not iterables or not builtins.all(map(_rows, iterables)):
        return zip(*iterables, strict=strict)
    lengths = [builtins.len(x) for x in iterables]
    if strict and builtins.len(set(lengths)) > 1:
        raise ValueError("zip() arguments differ in length")
    return Rows(builtins.min(lengths), lambda i: tuple(x[i] for x in iterables))


#: NumPy's scalar types, which convert a traced value as `astype` does (np.uint32(b) in a CRC loop).
SCALAR_TYPES = (np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
                np.float16, np.float32, np.float64, np.complex64, np.complex128)


def _scalar_type(kind):
    def convert(x=0, *args, **keywords):
        x = static(x)
        if not is_traced(x) or args or keywords:
            return kind(x, *args, **keywords)
        return scalar_of(x, kind, weak=False) if x.ndim == 0 else x.astype(kind)  # (an array stays one)
    convert.__name__ = kind.__name__
    return convert


for _kind in SCALAR_TYPES:
    builtin(_kind)(_scalar_type(_kind))


@builtin(any)
def any_(iterable):
    """any() with traced items: their np.logical_or (a traced bool standing for Python's)."""
    return python_bool(_truths(iterable, "any", np.logical_or, True))


@builtin(all)
def all_(iterable):
    """all() with traced items: their np.logical_and (a traced bool standing for Python's)."""
    return python_bool(_truths(iterable, "all", np.logical_and, False))


def python_bool(truth):
    """A traced truth as the Python bool any(), all() and `in` give (weak: a new scalar, not the item's)."""
    return scalar_of(truth, np.bool_, weak=True) if is_traced(truth) else truth


@builtin(isinstance)
def isinstance_(obj, classinfo):
    """isinstance() of a traced value as of the value NumPy's run has: a traced scalar is what NumPy's
    scalar of its dtype is (np.float64 is a float and an np.floating), or the Python number it
    stands for; a traced array is an ndarray (of a np.matrix, the matrix)."""
    if isinstance(obj, TracedScalar):
        obj = PYTHON_TYPES[obj.dtype.kind](0) if obj.weak else obj.dtype.type(0)
    elif is_traced(obj) and not isinstance(obj, TracedMatrix):
        obj = probe_array(obj)
    return isinstance(obj, classinfo)


@builtin(type)
def type_(obj, *rest):
    """type() of a traced value: what NumPy's run gives (int for a Python int's stand-in, a loop's
    index; np.float64 for NumPy's scalar; np.ndarray)."""
    if rest or not is_traced(obj):
        return builtins.type(obj, *rest)
    if isinstance(obj, TracedScalar):
        return PYTHON_TYPES[obj.dtype.kind] if obj.weak else obj.dtype.type
    return np.matrix if isinstance(obj, TracedMatrix) else np.ndarray  # (while tracing, solvent's stand-in)


@builtin(max)
def max_(*args, key=None, default=_NOTHING):
    """max() with traced items: the first largest by `>` (so a NaN is skipped unless it comes first)."""
    return _extreme("max", np.greater, np.nanmax, args, key, default)


@builtin(min)
def min_(*args, key=None, default=_NOTHING):
    """min() with traced items: the first smallest by `<`."""
    return _extreme("min", np.less, np.nanmin, args, key, default)


def _extreme(name, better, nan_reduce, args, key, default):
    if not args:
        raise TypeError(f"{name} expected at least 1 argument, got 0")
    if len(args) > 1 and default is not _NOTHING:
        raise TypeError(f"Cannot specify a default for {name}() with multiple positional arguments")
    if len(args) == 1 and is_traced(args[0]) and key is None and args[0].ndim == 1 and args[0].dtype.kind != "c":
        return _of_vector(args[0], name, nan_reduce, default)
    items = list(args[0]) if len(args) == 1 else list(args)
    if not items:
        if default is _NOTHING:
            raise ValueError(f"{name}() iterable argument is empty")
        return default
    keys = [_static_scalar(k) for k in (items if key is None else [key(item) for item in items])]
    if not builtins.any(is_traced(k) for k in keys):
        return items[getattr(builtins, name)(range(len(items)), key=keys.__getitem__)]
    best, best_key = items[0], keys[0]
    for item, item_key in zip(items[1:], keys[1:]):
        wins = better(item_key, best_key)
        if not is_traced(wins):
            if wins:
                best, best_key = item, item_key
            continue
        wins = _truth(wins, f"{name}")
        best = _choose(wins, item, best, name)
        best_key = _choose(wins, item_key, best_key, name)
    return best


def _static_scalar(x):
    """`static(x)`, a NumPy scalar where x is a traced scalar whose value is known (`np.zeros(3)[1]`)."""
    value = static(x)
    return value[()] if isinstance(x, TracedScalar) and value is not x else value


def _choose(wins, item, best, name: str):
    """`item` where `wins`, else `best`: the NumPy scalar (or Python number) that max()/min() returns;
    of tuples of them (`max(enumerate(x), key=...)`), the tuple of each entry chosen."""
    if isinstance(item, tuple) and isinstance(best, tuple) and len(item) == len(best):
        return tuple(_choose(wins, a, b, name) for a, b in zip(item, best))
    for x in (item, best):
        if not (is_python_scalar(x) or np.ndim(x) == 0):
            raise TracerConversionError(
                f"{name}() of traced arrays returns one of the arrays themselves, and which one depends on "
                f"values known only when the program runs: use np.{name}imum(a, b) for their elementwise "
                f"{name}imum, or compare NumPy scalars (a[()], a.sum(), ...)")
    chosen = np.where(wins, *_holding_both(item, best))
    weak = builtins.all(is_python_scalar(x) or getattr(x, "weak", False) for x in (item, best))
    return scalar_of(chosen, chosen.dtype, weak)


def _holding_both(*items):
    """`items`, a NumPy integer (float) narrower than 64 bits among them as int64 (float64) where a
    traced Python int is too, or a Python number that the narrow type cannot hold: np.where would wrap
    the int into the narrow type (max(np.uint8(5), int(y)) of 300 gave 44, max(np.int8(100), 1000) -24)."""
    numbers = [x for x in items if is_python_scalar(x) and not isinstance(x, bool)]
    narrow = [x for x in items if not is_python_scalar(x) and not getattr(x, "weak", False)
              and np.dtype(x.dtype).kind in "iuf" and np.dtype(x.dtype).itemsize < 8]
    traced_int = builtins.any(isinstance(x, TracedScalar) and x.weak and x.dtype.kind in "iu" for x in items)
    if not traced_int and builtins.all(_holds(x.dtype, n) for x in narrow for n in numbers):
        return items
    widened = {id(x) for x in narrow}
    return tuple(x.astype(np.float64 if np.dtype(x.dtype).kind == "f" else np.int64) if id(x) in widened else x
                 for x in items)


def _holds(dtype, number) -> bool:
    """Whether the Python number fits `dtype` (an integer its range, a float its finite range)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return not np.isfinite(number) or abs(number) <= float(np.finfo(dtype).max)
    return not isinstance(number, int) or np.iinfo(dtype).min <= number <= np.iinfo(dtype).max


def _of_vector(x, name: str, nan_reduce, default):
    """max(x)/min(x) of a traced 1-d array, as Python's loop over its elements gives it: with a NaN
    first, that NaN; otherwise the first element equal to the extreme of the others."""
    if x.shape[0] == 0:
        if default is _NOTHING:
            raise ValueError(f"{name}() iterable argument is empty")
        return default
    if x.dtype.kind in "biu":
        extreme = getattr(np, name)(x)
    else:
        first = np.argmax(x == nan_reduce(x))
        extreme = x[np.where(np.isnan(x[0]), 0, first)]
    count = _count(x)
    if count is None or default is _NOTHING:  # (an empty selection without default: NumPy raises)
        return extreme
    return _choose(wrap(count, scalar=True) == 0, default, extreme, name)  # a selection that came out empty
