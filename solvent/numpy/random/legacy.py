"""What a traced function sees for NumPy's legacy `np.random.RandomState`, an argument or the global
one behind `np.random.rand` & co.: its methods, drawing NumPy's bits from the traced MT19937 state
(`mt19937`) and replacing it in place, so that loops and branches carry it."""

from __future__ import annotations

import math

import numpy as np

from solvent.core import trace
from solvent.errors import UnsupportedError
from solvent.numpy.folding import traced_constant
from solvent.numpy.random import forms, libm, loop, mt19937, polar, shuffles, streams, weighted
from solvent.numpy.random.libm import rounded
from solvent.numpy.values import is_traced

SUPPORTED = ("seed", "random_sample", "random", "ranf", "sample", "rand", "randint", "uniform", "standard_normal",
             "randn", "normal", "standard_exponential", "exponential", "choice", "shuffle", "permutation")
_TYPES = {np.dtype(t) for t in (np.int64, np.uint64, np.int32, np.uint32, np.int16, np.uint16, np.int8, np.uint8,
                                 np.bool_)}


def host_state(generator: np.random.RandomState) -> np.ndarray:
    """A RandomState's state as the program takes it: [key[0..623], pos, has_gauss, gauss's bits]."""
    state = generator.get_state(legacy=False)
    if state["bit_generator"] != "MT19937":
        raise UnsupportedError(other_bit_generator(state["bit_generator"]))
    scalars = [state["state"]["pos"], state["has_gauss"], np.float64(state["gauss"]).view(np.uint64)]
    return np.concatenate([state["state"]["key"].astype(np.uint64), np.array(scalars, np.uint64)])


def other_bit_generator(kind: str) -> str:
    return (f"a RandomState over {kind}: solvent reproduces the legacy RandomState over MT19937 "
            "(np.random.RandomState(seed)) bit for bit, and no other")


def set_host_state(generator: np.random.RandomState, state) -> None:
    """Give a RandomState the state a program left (`host_state`'s form)."""
    state = np.asarray(state)
    generator.set_state({"bit_generator": "MT19937",
                         "state": {"key": state[:mt19937.N].astype(np.uint32), "pos": int(state[mt19937.N])},
                         "has_gauss": int(state[mt19937.N + 1]),
                         "gauss": float(state[mt19937.N + 2:].view(np.float64)[0])})


@forms.whole_arrays
class TracedRandomState:
    """A `RandomState` (MT19937) while tracing: an argument, or the global one (`np.random.rand`)."""

    def __init__(self, state):
        self._state = state       # the traced uint64 state (`host_state`'s form)
        self.name = "RandomState"  # how messages call it ("np.random" for the global one)

    def _draw(self, draw, *args):
        values, state = draw(self._state, *args)
        self._state[...] = state
        trace.current().draws += 1
        return values

    def seed(self, seed=None):
        """The state NumPy's seeding gives `seed` (known when the function is compiled)."""
        if seed is None or is_traced(seed):
            raise UnsupportedError(f"{self.name}.seed({'' if seed is None else 'a traced value'}) inside "
                                   "solvent.jit: solvent seeds with a number known when the function is "
                                   "compiled; pass a Python int, or seed outside the function")
        self._state[...] = traced_constant(forms.on_host(lambda: host_state(np.random.RandomState(seed))))

    def random_sample(self, size=None):
        """Doubles in [0, 1) from 53 bits of two words, a Python float for no size."""
        shape = forms.shape(size, None, np.float64)
        values = forms.double(self._draw(mt19937.doubles, forms.count(shape)))
        return forms.result(values, shape, size is None, python=True)

    random = ranf = sample = random_sample

    def rand(self, *dimensions):
        """`random_sample` of shape `dimensions` (a Python float for none)."""
        return self.random_sample(dimensions or None)

    def randint(self, low, high=None, size=None, dtype=int):
        """Integers in [low, high) as the legacy generator draws them: a word (or for 8- and 16-bit
        dtypes and bool a part of one) under the smallest all-ones mask covering the range, drawn
        again while it is above the range."""
        python, dtype = dtype in (int, bool), np.dtype(dtype)  # NumPy's Python int or bool for no size
        if dtype not in _TYPES:
            raise TypeError(f"Unsupported dtype {dtype!r} for randint")
        method = f"{self.name}.randint"
        if forms.no_draws(size):
            return np.zeros(forms.dimensions(size), dtype)
        low, high = (forms.static(b, method, name) for b, name in ((low, "low"), (high, "high")))
        low, high = (0, low) if high is None else (low, high)
        low, high = forms.integer(low, method, "low"), forms.integer(high, method, "high")
        least, most = (0, 1) if dtype == np.bool_ else (np.iinfo(dtype).min, np.iinfo(dtype).max)
        if low < least:
            raise ValueError(f"low is out of bounds for {dtype}")
        if high - 1 > most:
            raise ValueError(f"high is out of bounds for {dtype}")
        if high <= low:
            raise ValueError("low >= high")
        shape = forms.shape(size, None, dtype)
        width = 1 if dtype == np.bool_ else 8 * dtype.itemsize if dtype.itemsize < 4 else None
        drawn = _masked(self, forms.count(shape), high - 1 - low, width)
        values = (drawn + np.uint64(low % 2 ** 64)).astype(dtype)
        return forms.result(values, shape, size is None, python=python)

    def uniform(self, low=0.0, high=1.0, size=None):
        """low + (high - low) * a double, over the bounds broadcast (to `size` if given); they may be
        traced (`forms.product`)."""
        method = f"{self.name}.uniform"
        (low, high), shape, scalar = forms.parameters(method, size, traced=True, low=low, high=high)
        span = high - low
        if not is_traced(span) and not np.all(np.isfinite(span)):
            raise OverflowError("Range exceeds valid bounds")
        top = self._draw(mt19937.doubles, forms.count(shape)).astype(np.float64).reshape(shape)
        return forms.result(low + forms.product(span, top, method, ordered=False), shape, scalar, python=True)

    def standard_normal(self, size=None):
        """Standard normals by NumPy's legacy polar method (`polar`), a Python float for no size."""
        shape = forms.shape(size, None, np.float64)
        return forms.result(self._draw(polar.gaussians, forms.count(shape)), shape, size is None, python=True)

    def randn(self, *dimensions):
        """`standard_normal` of shape `dimensions` (a Python float for none)."""
        return self.standard_normal(dimensions or None)

    def normal(self, loc=0.0, scale=1.0, size=None):
        """loc + scale * a standard normal (the product rounded first, as in NumPy's C), over the
        parameters broadcast (to `size` if given); they may be traced."""
        method = f"{self.name}.normal"
        (loc, scale), shape, scalar = forms.parameters(method, size, traced=True, loc=loc, scale=scale)
        scale = forms.non_negative(scale, "scale")
        values = self._draw(polar.gaussians, forms.count(shape)).reshape(shape)
        return forms.result(loc + rounded(scale * values), shape, scalar, python=True)

    def standard_exponential(self, size=None):
        """-log(1 - u) of doubles u, glibc's log operation for operation (`libm.log`)."""
        shape = forms.shape(size, None, np.float64)
        return forms.result(self._draw(_exponentials, forms.count(shape)), shape, size is None, python=True)

    def exponential(self, scale=1.0, size=None):
        """scale * a standard exponential, over `scale` (maybe traced) broadcast to `size`."""
        (scale,), shape, scalar = forms.parameters(f"{self.name}.exponential", size, traced=True, scale=scale)
        scale = forms.non_negative(scale, "scale")
        values = self._draw(_exponentials, forms.count(shape)).reshape(shape)
        return forms.result(scale * values, shape, scalar, python=True)

    def choice(self, a, size=None, replace=True, p=None):
        """Elements of a 1-d `a` (or of range(a)) as the legacy generator draws them: `randint`, or with
        `p` a search of doubles in its normalised cumulative sums; without replacement the head of a
        `permutation`."""
        p = forms.static(p, f"{self.name}.choice", "p")
        a, population = forms.population(a, size, "RandomState")
        shape = () if size is None else forms.dimensions(size)
        cdf = None if p is None else forms.cumulative(p, population, "RandomState")
        if not replace and forms.count(shape) > population:
            raise ValueError("Cannot take a larger sample than population when 'replace=False'")
        if not replace and p is not None:
            p = np.asarray(p, np.float64)
            index = self._draw(weighted.sample, p, forms.count(shape), mt19937.doubles_and_after).reshape(shape)
        elif not replace:
            index = self.permutation(population)[:forms.count(shape)].reshape(shape)
        elif p is not None:
            index = np.searchsorted(cdf, self.random_sample(shape), side="right")
        else:
            index = self.randint(0, population, size=shape)
        if size is None:
            index = forms.result(index.astype(np.int64), (), True, python=True)
        if not (is_traced(a) or np.ndim(a)):
            return index
        return (a if is_traced(a) else traced_constant(a))[index]

    def shuffle(self, x):
        """x reordered in place along its first axis by the legacy Fisher-Yates shuffle."""
        if not is_traced(x):
            raise UnsupportedError(f"{self.name}.shuffle of an array made outside the function: solvent "
                                   "shuffles arrays of the program in place (arguments and arrays made inside it)")
        if x.ndim == 0:
            raise TypeError("len() of unsized object")
        if x.size:  # (NumPy draws nothing for an empty x, even of several rows; `permutation` does draw)
            x[...] = x[self._order(x.shape[0])]

    def permutation(self, x):
        """A shuffled copy of x along its first axis, or of arange(x) for an integer."""
        if not is_traced(x) and isinstance(x, (int, np.integer)):
            return self._order(int(x))
        x = x if is_traced(x) else traced_constant(np.asarray(x))
        if x.ndim < 1:
            raise IndexError("x must be an integer or at least 1-dimensional")
        return x[self._order(x.shape[0])]

    def _order(self, n: int):
        return self._draw(shuffles.shuffled, max(n, 0), 1, shuffles.masked, 1, mt19937.words32_and_after)[0]

    def __getattr__(self, name):  # (its name from __dict__: copy.copy probes a new instance that has none)
        raise forms.not_reproduced(self.__dict__.get("name", "RandomState"), name, SUPPORTED,
                                   "draw the others outside the function and pass them in as arrays, or draw "
                                   "from a np.random.Generator argument")


def _exponentials(state, n: int):
    """n of NumPy's legacy standard exponentials, -log(1 - u) (1 - u is exact), and the state after."""
    def draw(state, n):
        tops, state = mt19937.doubles(state, n)
        return -libm.log(1.0 - forms.double(tops), libm.fused("log")), state
    return loop.blocked(draw, state, n, np.float64)


def _masked(generator: TracedRandomState, n: int, span: int, width: int | None):
    """n integers in [0, span] by NumPy's masked rejection (bounded_masked_uint32/64, and the buffered
    ones of 8 and 16 bits and bools): `width`-bit parts of 32-bit words, low first, the rest of the
    last word dropped; for no width, 32-bit words for spans below 2^32 - 1, else 64-bit ones."""
    if n == 0 or span == 0:
        return np.zeros(n, np.uint64)
    width = width or (32 if span <= 0xFFFFFFFF else 64)
    if width >= 32:
        words = mt19937.words32_and_after if width == 32 else mt19937.words64_and_after
        return generator._draw(lambda state: loop.blocked(_rejecting, state, n, np.uint64, span, width, words))

    def parts(state, count):
        return streams.parts_of_words(state, count, width, mt19937.words32_and_after)

    def draw(state):  # the state gains a count of the parts of its next word used
        values, state = _rejecting(np.concatenate([state, np.zeros(1, np.uint64)]), n, span, width, parts)
        return values, streams.whole_words(state, mt19937.words32_and_after)
    return generator._draw(draw)


def _rejecting(state, n: int, span: int, width: int, words):
    """n draws of [0, span] from `width`-bit words (`words(state, count)`, and the state after k)."""
    if span == 2 ** width - 1:
        drawn, after = words(state, n)
        return drawn, after(n)
    mask = np.uint64((1 << span.bit_length()) - 1)

    def judge(drawn):
        value = drawn & mask
        return value, value <= np.uint64(span)

    # Half or more of the words are kept: each round draws enough for all n, but rarely.
    chunk = math.ceil(n * (int(mask) + 1) / (span + 1) * 1.05) + 64
    return streams.accepted(state, n, words, judge, chunk, rare=False)
