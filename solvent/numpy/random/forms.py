"""How NumPy's draw methods take their arguments and give their results, for both of its generators
(`generator` for `np.random.Generator`, `legacy` for `RandomState`): sizes and shapes, parameters
broadcast, bounds known when the function is compiled, and the scalar or array returned."""

from __future__ import annotations

import concurrent.futures
import functools
import math
import operator

import numpy as np

from solvent.core.traced import padded
from solvent.errors import UnsupportedError
from solvent.numpy.random import libm
from solvent.numpy.values import is_traced


def whole_arrays(cls):
    """`cls` (a traced generator) with its draw methods refusing arrays whose length is known only when
    the program runs (`x[:k]`, `x[mask]`): NumPy's draws follow that length, which they would not see."""
    for name, method in list(vars(cls).items()):
        if not name.startswith("_") and callable(method):
            setattr(cls, name, _refusing_padded(method))
    return cls


def _refusing_padded(method):
    @functools.wraps(method)
    def checked(self, *args, **kwargs):
        for x in (*args, *kwargs.values()):
            if getattr(x, "padded", False):
                raise padded(x, f", given to {self.name}.{method.__name__},")
        return method(self, *args, **kwargs)
    return checked


def double(top):
    """The doubles in [0, 1) that NumPy makes of 53-bit integers: top / 2^53 (exact)."""
    return top.astype(np.float64) * (1.0 / 9007199254740992.0)


def single(words):
    """The floats in [0, 1) that NumPy makes of 32-bit words (next_float): their top 24 bits / 2^24."""
    return (words >> np.uint64(8)).astype(np.float32) * np.float32(1.0 / 16777216.0)


def product(span, top, method: str = "Generator.uniform", ordered: bool = True):
    """span * (top / 2^53) rounded once, as NumPy forms it before adding low. XLA would fuse a
    multiply and add (rounding once) and fold products of constants; so a known span's product is
    formed from its mantissa (span = m 2^e, one rounding), then scaled by 2^(e - 53) in its exponent
    bits (exact, and no multiply for XLA to fuse); known spans below 2^-960, whose products may be
    subnormal, are refused. A traced span (no constant to fold) is multiplied, the product kept
    apart; where it is not finite, or (`ordered`) below 0, the draws are NaN where NumPy raises."""
    if is_traced(span):
        drawn = libm.rounded(span * libm.rounded(double(top)))
        bad = ~np.isfinite(span) | (span < 0) if ordered else ~np.isfinite(span)
        return np.where(bad, np.nan, drawn)
    if np.any((span != 0) & (np.abs(span) < 2.0 ** -960)):
        raise UnsupportedError(f"{method} over a range narrower than 2^-960 inside solvent.jit: "
                               "scale a wider range instead")
    mantissa, exponent = np.frexp(span)
    product = mantissa * top
    shift = ((exponent.astype(np.int64) - 53) << 52).astype(np.uint64)  # two's complement: adds e - 53
    scaled = (product.view(np.uint64) + shift).view(np.float64)
    return np.where(product == 0, 0.0, scaled)


def parameters(method: str, size, traced: bool = False, **named):
    """A distribution's parameters as float64 arrays (known when the function is compiled, or with
    `traced` traced ones too), the shape of the draws (theirs broadcast, or `size`, to which they
    must broadcast), and whether one scalar is drawn (no size and scalar parameters)."""
    arrays = [value.astype(np.float64) if traced and is_traced(value)
              else np.asarray(static(value, method, name), np.float64) for name, value in named.items()]
    common = np.broadcast_shapes(*(a.shape for a in arrays))
    shape = common if size is None else dimensions(size)
    if np.broadcast_shapes(common, shape) != shape:
        raise ValueError(f"shape mismatch: parameters of shape {common} cannot be broadcast to size {shape}")
    return arrays, shape, size is None and common == ()


def non_negative(x, name: str):
    """x, checked as NumPy checks a scale: a known one below 0 (or -0.0) is refused, and a traced
    one, whose value the check cannot see, gives NaN draws there instead."""
    negative = np.signbit(x) & ~np.isnan(x)
    if is_traced(x):
        return np.where(negative, np.nan, x)
    if np.any(negative):
        raise ValueError(f"{name} < 0")
    return x


def static(x, method: str, name: str):
    if is_traced(x):
        raise UnsupportedError(f"{method} with a traced {name}: solvent draws with bounds known "
                               "when the function is compiled (Python numbers or NumPy arrays from outside)")
    return x


def integer(x, method: str, name: str) -> int:
    """A bound of integer draws as a Python int (a float only where it is whole)."""
    if isinstance(x, (list, tuple)) or isinstance(x, np.ndarray) and x.ndim:
        raise UnsupportedError(f"{method} with an array {name} inside solvent.jit: pass a number")
    if isinstance(x, (float, np.floating)):
        if not float(x).is_integer():
            raise UnsupportedError(f"{method} with {name}={x!r} inside solvent.jit: pass an int")
        return int(x)
    return operator.index(x)


def no_draws(size) -> bool:
    """Whether `size` asks for no draws (NumPy then returns an empty array and checks nothing else)."""
    return size is not None and count(dimensions(size)) == 0


def dimensions(size) -> tuple[int, ...]:
    """`size` as a shape tuple."""
    return tuple(operator.index(s) for s in size) if isinstance(size, (tuple, list)) else (operator.index(size),)


def shape(size, out, dtype: np.dtype) -> tuple[int, ...]:
    """The shape of the draws: `size`'s, or `out`'s (which must be of `dtype`)."""
    if out is None:
        return () if size is None else dimensions(size)
    if np.dtype(out.dtype) != dtype:
        raise TypeError(f"Supplied output array has the wrong type. Expected {dtype}, got {out.dtype}")
    if size is not None and dimensions(size) != tuple(out.shape):
        raise ValueError("size must match out.shape when used together")
    return tuple(out.shape)


def count(shape) -> int:
    return int(np.prod(shape, dtype=np.int64))


def result(values, shape, scalar: bool, out=None, python: bool = False):
    """The draws as NumPy returns them: `out` filled, an array of `shape`, or for no size one scalar
    (a Python float from `random` and `uniform`, a NumPy integer from `integers`)."""
    if out is not None:
        out[...] = values.reshape(out.shape)
        return out
    values = values.reshape(shape)
    if not scalar:
        return values
    item = values[()]  # a NumPy scalar
    if python and is_traced(item):
        item.weak = True
    return item.item() if python and not is_traced(item) else item  # (known: choice of a population of one)


#: NumPy's messages for an empty population of `choice`, by generator: (an empty array, a number below 1).
A_ERRORS = {
    "Generator": ("a cannot be empty unless no samples are taken",
                  "a must be a positive integer unless no samples are taken"),
    "RandomState": ("'a' cannot be empty unless no samples are taken",
                    "a must be greater than 0 unless no samples are taken"),
}


def population(a, size, generator: str, axis: int = 0):
    """`choice`'s `a` (an array as one, traced or not) and the number of elements it draws from (its
    length along `axis`, or the number `a`, traced or not), with NumPy's checks (and `generator`'s
    messages) where the number is known while tracing."""
    if is_traced(a) and not np.ndim(a):
        return a, a.astype(np.int64)
    if is_traced(a) or np.ndim(a):
        a = a if is_traced(a) else np.asarray(a)
        if generator == "RandomState" and a.ndim != 1:
            raise ValueError("a must be 1-dimensional")
        count = a.shape[axis]
        if count == 0 and np.prod(size) != 0:
            raise ValueError(A_ERRORS[generator][0])
        return a, count
    count = operator.index(np.asarray(a).item())
    if count <= 0 and np.prod(size) != 0:
        raise ValueError(A_ERRORS[generator][1])
    return a, count


#: NumPy's messages for a bad `p` of `choice`, by generator: (not 1-d, wrong size, NaN, negative, sum).
P_ERRORS = {
    "Generator": ("p must be 1-dimensional", "a and p must have same size", "Probabilities contain NaN",
                  "Probabilities are not non-negative",
                  "Probabilities do not sum to 1. See Notes section of docstring for more information."),
    "RandomState": ("'p' must be 1-dimensional", "'a' and 'p' must have same size", "probabilities contain NaN",
                    "probabilities are not non-negative", "probabilities do not sum to 1"),
}


def cumulative(p, population: int, generator: str) -> np.ndarray:
    """`choice`'s cumulative probabilities, normalised, with NumPy's checks of `p` (and the messages
    of `generator`'s, "Generator" or "RandomState")."""
    errors = P_ERRORS[generator]
    p = np.asarray(p, dtype=np.float64)
    if p.ndim != 1:
        raise ValueError(errors[0])
    if p.size != population:
        raise ValueError(errors[1])
    total = math.fsum(p)
    if np.isnan(total):
        raise ValueError(errors[2])
    if np.any(p < 0):
        raise ValueError(errors[3])
    if abs(total - 1.0) > np.sqrt(np.finfo(np.float64).eps):
        raise ValueError(errors[4])
    cdf = p.cumsum()
    cdf /= cdf[-1]
    return cdf


def not_reproduced(owner: str, name: str, supported, instead: str) -> Exception:
    """The error for a method of `owner` ("Generator", "RandomState", "np.random") solvent does not
    reproduce (AttributeError for dunder names, which Python's protocols probe for)."""
    if name.startswith("__"):
        return AttributeError(name)
    return UnsupportedError(f"{owner}.{name} inside solvent.jit: solvent reproduces NumPy's streams for "
                            f"{', '.join(owner + '.' + m for m in supported)} so far; {instead}")


def on_host(compute):
    """compute(), run by NumPy on another thread: on a tracing one, np.random's C code may not
    allocate (its seeding included)."""
    with concurrent.futures.ThreadPoolExecutor(1) as helper:
        return helper.submit(compute).result()
