"""What a traced function sees for a `np.random.Generator` argument: NumPy's methods, drawing NumPy's
bits from the traced PCG64 state and replacing it in place, so that loops and branches carry it."""

from __future__ import annotations

import operator

import numpy as np

from solvent.core import trace
from solvent.errors import UnsupportedError
from solvent.numpy.random import forms, shuffles, streams, weighted, ziggurat
from solvent.numpy.random.libm import rounded
from solvent.numpy.folding import traced_constant
from solvent.numpy.values import is_traced

SUPPORTED = ("random", "uniform", "integers", "standard_normal", "normal", "standard_exponential", "exponential",
             "choice", "shuffle", "permutation", "permuted")
_INTEGERS = {np.dtype(t) for t in (np.int64, np.uint64, np.int32, np.uint32, np.int16, np.uint16, np.int8, np.uint8,
                                   np.bool_)}
_normalize_axis = np.lib.array_utils.normalize_axis_index


@forms.whole_arrays
class TracedGenerator:
    """A PCG64 `np.random.Generator` argument while tracing."""

    name = "Generator"  # (in messages)

    def __init__(self, state):
        self._state = state  # the traced uint64 state (numpy.random.argument)

    def _draw(self, draw, *args):
        values, state = draw(self._state, *args)
        self._state[...] = state
        trace.current().draws += 1
        return values

    def random(self, size=None, dtype=np.float64, out=None):
        """Uniform floats in [0, 1): 53 bits of a 64-bit word, or 24 of a 32-bit one for float32."""
        dtype = np.dtype(dtype)
        shape = forms.shape(size, out, dtype)
        if dtype == np.float64:
            values = forms.double(self._draw(streams.words64, forms.count(shape)) >> 11)
        elif dtype == np.float32:
            values = forms.single(self._draw(streams.words32, forms.count(shape)))
        else:
            raise TypeError(f"Unsupported dtype {dtype!r} for random")
        scalar = size is None and out is None
        return forms.result(values.astype(np.float64) if scalar else values, shape, scalar, out, python=True)

    def uniform(self, low=0.0, high=1.0, size=None):
        """low + (high - low) * a double, over the bounds broadcast (to `size` if given) as NumPy does;
        they may be traced (`forms.product`)."""
        (low, high), shape, scalar = forms.parameters("Generator.uniform", size, traced=True, low=low, high=high)
        span = high - low
        if not is_traced(span):  # (a traced range NumPy refuses gives NaN draws: `forms.product`)
            if not np.all(np.isfinite(span)):
                raise OverflowError("high - low range exceeds valid bounds" if span.ndim == 0
                                    else "Range exceeds valid bounds")
            if np.any(span < 0):
                raise ValueError("high - low < 0")
        top = (self._draw(streams.words64, forms.count(shape)) >> 11).astype(np.float64).reshape(shape)
        return forms.result(low + forms.product(span, top), shape, scalar, python=True)

    def standard_normal(self, size=None, dtype=np.float64, out=None):
        """Standard normals by NumPy's ziggurat, bit for bit (`ziggurat.normals`)."""
        return self._floats("standard_normal", ziggurat.normals, size, dtype, out)

    def standard_exponential(self, size=None, dtype=np.float64, method="zig", out=None):
        """Standard exponentials by NumPy's ziggurat, or for any other `method` (NumPy's "inv") -log1p(-u)."""
        draw = ziggurat.exponentials if method == "zig" else ziggurat.inverted_exponentials
        return self._floats("standard_exponential", draw, size, dtype, out)

    def normal(self, loc=0.0, scale=1.0, size=None):
        """loc + scale * a standard normal (the product rounded first, as in NumPy's C), over the
        parameters broadcast (to `size` if given) as NumPy does; they may be traced."""
        (loc, scale), shape, scalar = forms.parameters("Generator.normal", size, traced=True, loc=loc, scale=scale)
        scale = forms.non_negative(scale, "scale")
        values = self._draw(ziggurat.normals, forms.count(shape)).reshape(shape)
        return forms.result(loc + rounded(scale * values), shape, scalar, python=True)

    def exponential(self, scale=1.0, size=None):
        """scale * a standard exponential, over `scale` (maybe traced) broadcast to `size` as NumPy does."""
        (scale,), shape, scalar = forms.parameters("Generator.exponential", size, traced=True, scale=scale)
        scale = forms.non_negative(scale, "scale")
        values = self._draw(ziggurat.exponentials, forms.count(shape)).reshape(shape)
        return forms.result(scale * values, shape, scalar, python=True)

    def _floats(self, method: str, draw, size, dtype, out):
        """float64 or float32 draws of `shape` (or into `out`), a Python float for no size, as NumPy's
        double_fill and float_fill."""
        dtype = np.dtype(dtype)
        if dtype not in (np.float64, np.float32):
            raise TypeError(f"Unsupported dtype {dtype!r} for {method}")
        shape = forms.shape(size, out, dtype)
        values = self._draw(draw, forms.count(shape), dtype)
        scalar = size is None and out is None
        return forms.result(values.astype(np.float64) if scalar else values, shape, scalar, out, python=True)

    def integers(self, low, high=None, size=None, dtype=np.int64, endpoint=False):
        """Integers in [low, high) (or [low, high] with `endpoint`) by NumPy's bounded draws: Lemire's
        method on 32-bit words when the range fits in 32 bits, on 64-bit words otherwise, and on
        parts of 32-bit words for 8- and 16-bit dtypes (single bits for bool)."""
        dtype = np.dtype(dtype)
        if dtype not in _INTEGERS:
            raise UnsupportedError(f"Generator.integers with dtype={dtype} inside solvent.jit: solvent draws "
                                   "booleans and integers of 8 to 64 bits as NumPy does; draw one of those "
                                   "and convert")
        low, high = (0, low) if high is None else (low, high)
        if forms.no_draws(size):
            return np.zeros(forms.dimensions(size), dtype)
        if is_traced(low) or is_traced(high):
            return self._integers_between(low, high, size, dtype, endpoint)
        low, high = forms.integer(low, "Generator.integers", "low"), forms.integer(high, "Generator.integers", "high")
        last = high if endpoint else high - 1
        least, most = (0, 1) if dtype == np.bool_ else (np.iinfo(dtype).min, np.iinfo(dtype).max)
        if low < least:
            raise ValueError(f"low is out of bounds for {dtype}")
        if last > most:
            raise ValueError(f"high is out of bounds for {dtype}")
        if last < low:
            raise ValueError("low > high" if endpoint else "low >= high")
        shape, span = forms.shape(size, None, dtype), last - low
        n = forms.count(shape)
        width = 1 if dtype == np.bool_ else 8 * dtype.itemsize if dtype.itemsize < 4 else 64 if span > 0xFFFFFFFF else 32
        drawn = self._draw(streams.bounded, n, span, width) if span else np.zeros(n, np.uint64)
        values = (drawn + np.uint64(low % 2 ** 64)).astype(dtype)
        return forms.result(values, shape, size is None, python=dtype == np.bool_)  # NumPy gives a Python bool

    def _integers_between(self, low, high, size, dtype, endpoint):
        """`integers` with a bound known only when the program runs (`rng.integers(i + 1)` in a loop):
        NumPy's draws from 32-bit words where the span fits in 32 bits, else 64-bit words, both made
        and one taken; no word where the span is 0. Where NumPy raises (low >= high, a bound out of
        the dtype) the draws are unspecified."""
        if dtype.itemsize < 4:
            raise UnsupportedError(f"Generator.integers with a traced bound and dtype={dtype}: solvent draws "
                                   "those as NumPy does for 32- and 64-bit integers; draw int64 and convert")
        for bound, name in ((low, "low"), (high, "high")):
            if np.ndim(bound):
                raise UnsupportedError(f"Generator.integers with an array {name} inside solvent.jit: pass a number")
        low, high = (b.astype(np.uint64) if is_traced(b) else np.uint64(operator.index(b) % 2 ** 64)
                     for b in (low, high))
        span = high - low - np.uint64(0 if endpoint else 1)
        shape = forms.shape(size, None, dtype)
        n = forms.count(shape)
        most = np.uint64(0xFFFFFFFF)
        drawn, state = streams.bounded(self._state, n, np.minimum(span, most), 32)
        if dtype.itemsize == 8:
            wide, state_wide = streams.bounded(self._state, n, span, 64)
            drawn, state = np.where(span > most, wide, drawn), np.where(span > most, state_wide, state)
        self._state[...] = np.where(span == np.uint64(0), self._state, state)
        trace.current().draws += 1
        values = (np.where(span == np.uint64(0), np.uint64(0), drawn) + low).astype(dtype)
        return forms.result(values, shape, size is None)

    def choice(self, a, size=None, replace=True, p=None, axis=0, shuffle=True):
        """Elements of `a` (or of range(a)) drawn as NumPy draws them: with replacement bounded
        integers, or with `p` a search of uniform doubles in its normalised cumulative sums; without,
        Floyd's sample or the tail of a shuffle (`_sample`)."""
        p = forms.static(p, "Generator.choice", "p")
        a, population = forms.population(a, size, "Generator", axis)
        if is_traced(population) and (not replace or p is not None):
            raise UnsupportedError("Generator.choice from a number known only when the program runs, without "
                                   "replacement or with p=: solvent draws those from a population known when the "
                                   "function is compiled")
        shape = () if size is None else forms.dimensions(size)
        cdf = None if p is None else forms.cumulative(p, population, "Generator")
        if not replace and p is not None:
            if forms.count(shape) > population:
                raise ValueError("Cannot take a larger sample than population when replace is False")
            p = np.asarray(p, np.float64)
            index = self._draw(weighted.sample, p, forms.count(shape), _doubles).reshape(shape)
        elif not replace:
            index = self._sample(population, shape, shuffle)
        elif p is not None:
            index = np.searchsorted(cdf, self.random(shape), side="right").astype(np.int64)
        else:
            index = self.integers(0, population, size=shape, dtype=np.int64)
        if size is None:
            index = forms.result(index, (), True, python=True)  # NumPy's idx.item(0): a Python int
        if not np.ndim(a):
            return index
        a = a if is_traced(a) else traced_constant(a)  # (np.take looks at `a` alone for its dispatch)
        if size is not None and index.ndim == 0 and a.ndim == 1:
            return np.take(a, index.reshape(1), axis=0).reshape(())
        return np.take(a, index, axis=axis)

    def _sample(self, population: int, shape, shuffle: bool):
        """`size` distinct draws from range(population) by NumPy's choice: the tail of a shuffle of
        the whole range where the sample is a large part of a large population, else Floyd's
        algorithm, then (with `shuffle`) a shuffle of the sample; both by Lemire's bounded draws."""
        size = forms.count(shape)
        if size > population:
            raise ValueError("Cannot take a larger sample than population when replace is False")
        if population > 10000 and size > population // (50 if shuffle else 20):
            order = self._draw(shuffles.shuffled, population, max(population - size, 1), shuffles.lemire)
            return order[0, population - size:].reshape(shape)
        index = self._draw(shuffles.floyd, population, size)
        if shuffle:
            index = index[self._draw(shuffles.shuffled, size, 1, shuffles.lemire)[0]]
        return index.reshape(shape)

    def shuffle(self, x, axis=0):
        """x reordered in place along `axis` by NumPy's Fisher-Yates shuffle (no draws when x is empty)."""
        if not is_traced(x):
            raise UnsupportedError("Generator.shuffle of an array made outside the function: solvent shuffles "
                                   "arrays of the program in place (arguments and arrays made inside it)")
        axis = _normalize_axis(axis, x.ndim)
        if x.size:
            x[...] = np.take(x, self._draw(shuffles.shuffled, x.shape[axis], 1, shuffles.masked)[0], axis=axis)

    def permutation(self, x, axis=0):
        """A shuffled copy of x along `axis`, or of arange(x) for an integer, as NumPy draws it."""
        if not is_traced(x) and isinstance(x, (int, np.integer)):
            return self._draw(shuffles.shuffled, max(int(x), 0), 1, shuffles.masked)[0]
        x = x if is_traced(x) else traced_constant(np.asarray(x))
        axis = _normalize_axis(axis, x.ndim)
        return np.take(x, self._draw(shuffles.shuffled, x.shape[axis], 1, shuffles.masked)[0], axis=axis)

    def permuted(self, x, *, axis=None, out=None):
        """x with each 1-d slice along `axis` shuffled on its own (slices in C order, as NumPy takes
        them), or for axis None the whole of a 1-d x; written to `out` when given."""
        x = x if is_traced(x) else traced_constant(np.asarray(x))
        if axis is None:
            if x.ndim > 1:
                raise UnsupportedError("Generator.permuted of a 2-d or larger array with axis=None inside "
                                       "solvent.jit: NumPy shuffles it in its memory order, which a traced "
                                       "array has not; write rng.permuted(x.ravel()).reshape(x.shape) for a "
                                       "C-ordered x, or give an axis")
            if x.ndim == 0:
                raise TypeError("len() of unsized object")
            result = x[self._draw(shuffles.shuffled, x.size, 1, shuffles.masked)[0]]
        else:
            axis = _normalize_axis(axis, x.ndim)
            rows = np.moveaxis(x, axis, -1)
            n, lanes = x.shape[axis], forms.count(rows.shape[:-1])
            order = self._draw(shuffles.shuffled, n, 0, shuffles.masked, lanes)
            lanes_of = np.take_along_axis(rows.reshape(lanes, n), order, axis=1)
            result = np.moveaxis(lanes_of.reshape(rows.shape), -1, axis)
        if out is None:
            return result
        if tuple(out.shape) != tuple(x.shape):
            raise ValueError("out must have the same shape as x")
        if not np.can_cast(x.dtype, out.dtype, "safe"):
            raise TypeError(f"Cannot cast array data from dtype({str(x.dtype)!r}) to dtype({str(out.dtype)!r}) "
                            "according to the rule 'safe'")
        out[...] = result
        return out

    def __getattr__(self, name):
        raise forms.not_reproduced("Generator", name, SUPPORTED, "draw the others outside the function and pass "
                                   "them in as arrays")


def _doubles(state, count: int):
    """`count` doubles' 53-bit integers (the top bits of 64-bit words), and the state after k of them."""
    words, after = streams.candidates(state, count, 64)
    return words >> np.uint64(11), after
