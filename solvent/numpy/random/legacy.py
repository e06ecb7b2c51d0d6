"""What a traced function sees for NumPy's legacy `np.random.RandomState`, an argument or the global
one behind `np.random.rand` & co.: its methods, drawing NumPy's bits from the traced MT19937 state
(`mt19937`) and replacing it in place, so that loops and branches carry it."""

from __future__ import annotations

import concurrent.futures
import math
import operator

import numpy as np

from solvent.errors import UnsupportedError
from solvent.numpy.folding import traced_constant
from solvent.numpy.random import forms, mt19937, polar, shuffles, streams
from solvent.numpy.random.libm import rounded
from solvent.numpy.values import is_traced

SUPPORTED = ("seed", "random_sample", "random", "ranf", "sample", "rand", "randint", "uniform", "standard_normal",
             "randn", "normal", "choice", "shuffle", "permutation")
_TYPES = {np.dtype(t) for t in (np.int64, np.uint64, np.int32, np.uint32)}
_normalize_axis = np.lib.array_utils.normalize_axis_index


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


class TracedRandomState:
    """A `RandomState` (MT19937) while tracing: an argument, or the global one (`np.random.rand`)."""

    def __init__(self, state):
        self._state = state       # the traced uint64 state (`host_state`'s form)
        self.name = "RandomState"  # how messages call it ("np.random" for the global one)

    def _draw(self, draw, *args):
        values, state = draw(self._state, *args)
        self._state[...] = state
        return values

    def seed(self, seed=None):
        """The state NumPy's seeding gives `seed` (known when the function is compiled)."""
        if seed is None or is_traced(seed):
            raise UnsupportedError(f"{self.name}.seed({'' if seed is None else 'a traced value'}) inside "
                                   "solvent.jit: solvent seeds with a number known when the function is "
                                   "compiled; pass a Python int, or seed outside the function")
        # NumPy seeds on another thread: on this one, tracing, np.random's C code may not allocate
        with concurrent.futures.ThreadPoolExecutor(1) as seeding:
            state = seeding.submit(lambda: host_state(np.random.RandomState(seed))).result()
        self._state[...] = traced_constant(state)

    def random_sample(self, size=None):
        """Doubles in [0, 1) from 53 bits of two words, a Python float for no size."""
        shape = forms.shape(size, None, np.float64)
        values = self._draw(mt19937.doubles, forms.count(shape)).astype(np.float64) * (1.0 / 9007199254740992.0)
        return forms.result(values, shape, size is None, python=True)

    random = ranf = sample = random_sample

    def rand(self, *dimensions):
        """`random_sample` of shape `dimensions` (a Python float for none)."""
        return self.random_sample(dimensions or None)

    def randint(self, low, high=None, size=None, dtype=int):
        """Integers in [low, high) as the legacy generator draws them: a 32- or 64-bit word under
        the smallest all-ones mask covering the range, drawn again while it is above the range."""
        python, dtype = dtype is int, np.dtype(dtype)  # NumPy gives a Python int for dtype=int and no size
        if dtype not in _TYPES:
            raise UnsupportedError(f"{self.name}.randint with dtype={dtype} inside solvent.jit: solvent draws "
                                   "32- and 64-bit integers as NumPy does; draw int64 and convert")
        method = f"{self.name}.randint"
        low, high = (forms.static(b, method, name) for b, name in ((low, "low"), (high, "high")))
        low, high = (0, low) if high is None else (low, high)
        low, high = forms.integer(low, method, "low"), forms.integer(high, method, "high")
        info = np.iinfo(dtype)
        if low < info.min:
            raise ValueError(f"low is out of bounds for {dtype}")
        if high - 1 > info.max:
            raise ValueError(f"high is out of bounds for {dtype}")
        if high <= low:
            raise ValueError("low >= high")
        shape = forms.shape(size, None, dtype)
        drawn = _masked(self, forms.count(shape), high - 1 - low)
        values = (drawn + np.uint64(low % 2 ** 64)).astype(dtype)
        return forms.result(values, shape, size is None, python=python)

    def uniform(self, low=0.0, high=1.0, size=None):
        """low + (high - low) * a double, over the bounds broadcast (to `size` if given)."""
        method = f"{self.name}.uniform"
        (low, high), shape, scalar = forms.parameters(method, size, low=low, high=high)
        span = high - low
        if not np.all(np.isfinite(span)):
            raise OverflowError("Range exceeds valid bounds")
        top = self._draw(mt19937.doubles, forms.count(shape)).astype(np.float64).reshape(shape)
        return forms.result(low + forms.product(span, top, method), shape, scalar, python=True)

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

    def choice(self, a, size=None, replace=True, p=None):
        """Elements of a 1-d `a` (or of range(a)) as the legacy generator draws them: `randint`, or with
        `p` a search of doubles in its normalised cumulative sums; without replacement the head of a
        `permutation`."""
        method = f"{self.name}.choice"
        if not replace and p is not None:
            raise UnsupportedError(f"{method} without replacement and with p= inside solvent.jit; draw the "
                                   "sample outside the function")
        p = forms.static(p, method, "p")
        if is_traced(a) or np.ndim(a):
            a = a if is_traced(a) else np.asarray(a)
            if a.ndim != 1:
                raise ValueError("a must be 1-dimensional")
            population = a.shape[0]
            if population == 0 and np.prod(size) != 0:
                raise ValueError("'a' cannot be empty unless no samples are taken")
        else:
            population = operator.index(np.asarray(a).item())
            if population <= 0 and np.prod(size) != 0:
                raise ValueError("a must be greater than 0 unless no samples are taken")
        shape = () if size is None else forms.dimensions(size)
        if not replace:
            if forms.count(shape) > population:
                raise ValueError("Cannot take a larger sample than population when 'replace=False'")
            index = self.permutation(population)[:forms.count(shape)].reshape(shape)
        elif p is not None:
            cdf = forms.cumulative(p, population, "RandomState")
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

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise UnsupportedError(
            f"{self.name}.{name} inside solvent.jit: solvent reproduces the legacy streams of "
            f"{', '.join(self.name + '.' + m for m in SUPPORTED)} so far; draw the others outside the "
            "function and pass them in as arrays, or draw from a np.random.Generator argument")


def _masked(generator: TracedRandomState, n: int, span: int):
    """n integers in [0, span] by NumPy's masked rejection (bounded_masked_uint32/64): 32-bit words
    for spans below 2^32 - 1, else 64-bit ones, each under the all-ones mask covering span."""
    if n == 0 or span == 0:
        return np.zeros(n, np.uint64)
    width = 32 if span <= 0xFFFFFFFF else 64
    mask = np.uint64((1 << span.bit_length()) - 1)
    words = mt19937.words32_and_after if width == 32 else _words64_and_after
    if span == 2 ** width - 1:
        return generator._draw(mt19937.words32 if width == 32 else mt19937.words64, n)

    def judge(drawn):
        value = drawn & mask
        return value, value <= np.uint64(span)

    # Half or more of the words are kept: each round draws enough for all n, but rarely.
    chunk = math.ceil(n * (int(mask) + 1) / (span + 1) * 1.05) + 64
    return generator._draw(lambda state: streams.accepted(state, n, words, judge, chunk, rare=False))


def _words64_and_after(state, n: int):
    """n 64-bit words (two 32-bit ones each, the first high) and the state after the first k."""
    words, after = mt19937.words32_and_after(state, 2 * n)
    pairs = words.reshape(n, 2)
    return (pairs[:, 0] << np.uint64(32)) | pairs[:, 1], lambda k: after(2 * k)
