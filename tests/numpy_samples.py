"""Sample inputs, dtype lists and tolerances shared by the NumPy differential tests.

Tolerances follow the result dtype: transcendental functions on XLA and in
NumPy's own loops may differ by a few units in the last place, which is far
below these bounds for float64 and float32 alike.
"""

from __future__ import annotations

import copy
import warnings

import numpy as np
from hypothesis import strategies as st

from differential import check_like_numpy

BOOL = [np.dtype(np.bool_)]
SIGNED = [np.dtype(t) for t in (np.int8, np.int16, np.int32, np.int64)]
UNSIGNED = [np.dtype(t) for t in (np.uint8, np.uint32, np.uint64)]
INTEGER = SIGNED + UNSIGNED
FLOAT = [np.dtype(np.float32), np.dtype(np.float64)]
COMPLEX = [np.dtype(np.complex128)]
ALL_DTYPES = BOOL + INTEGER + FLOAT + COMPLEX
NUMERIC = INTEGER + FLOAT + COMPLEX

#: (rtol, atol) by the least precise inexact dtype among the results.
TOLERANCE = {"e": (2e-3, 2e-3), "f": (2e-5, 2e-6), "F": (2e-5, 2e-6), "d": (1e-12, 1e-12), "D": (1e-12, 1e-12)}


def sample(dtype, shape=(7,), low=-4.0, high=4.0, seed=0, halves=False) -> np.ndarray:
    """Deterministic values of `dtype` in [low, high] (clipped to the dtype's range).

    `halves=True` makes floats multiples of 0.5, to exercise rounding ties.
    """
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        lo, hi = max(int(np.ceil(low)), info.min), min(int(np.floor(high)), info.max)
        return rng.integers(lo, max(lo, hi), size=shape, endpoint=True).astype(dtype)
    real = rng.uniform(low, high, shape)
    if halves:
        real = np.round(real * 2) / 2
    if dtype.kind == "c":
        return (real + 1j * rng.uniform(low, high, shape)).astype(dtype)
    return real.astype(dtype)


def tolerance(result) -> dict:
    """rtol/atol fitting the least precise inexact dtype found in `result`."""
    found = []

    def walk(x):
        if isinstance(x, (tuple, list)):
            for v in x:
                walk(v)
        elif np.asarray(x).dtype.char in TOLERANCE:
            found.append(TOLERANCE[np.asarray(x).dtype.char])
    walk(result)
    rtol, atol = max(found, default=TOLERANCE["d"])
    return {"rtol": rtol, "atol": atol}


def check(fn, *args, scale=1.0):
    """`check_like_numpy` with a tolerance chosen from NumPy's result dtype (times `scale`)."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's "mean of empty slice" & co.
        expected = fn(*copy.deepcopy(args))
        tol = {k: v * scale for k, v in tolerance(expected).items()}
        return check_like_numpy(fn, *args, **tol)


def numpy_raises(fn, *args):
    """The exception type NumPy raises for `fn(*args)`, or None."""
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            fn(*copy.deepcopy(args))
    except Exception as error:  # noqa: BLE001 - any NumPy error is what we compare against
        return type(error)
    return None


def check_or_raises(fn, *args, scale=1.0):
    """Like `check`, but where NumPy raises, solvent must raise an instance of the same family."""
    import pytest

    import solvent
    error = numpy_raises(fn, *args)
    if error is None:
        return check(fn, *args, scale=scale)
    family = next(e for e in (TypeError, ValueError, IndexError, OverflowError, ArithmeticError, Exception)
                  if issubclass(error, e))
    with pytest.raises(family):
        solvent.jit(fn)(*copy.deepcopy(args))
    return None


def elements(dtype, bound):
    """Hypothesis elements of `dtype` in [-bound, bound] (no NaN, infinities or subnormals)."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return st.booleans()
    if dtype.kind == "u":
        return st.integers(0, bound)
    if dtype.kind == "i":
        return st.integers(-bound, bound)
    if dtype.kind == "c":
        return st.complex_numbers(max_magnitude=bound, allow_nan=False, allow_infinity=False,
                                  allow_subnormal=False)
    return st.floats(-bound, bound, width=dtype.itemsize * 8, allow_subnormal=False)


#: The dtypes the lists above leave out, for tests that cover every dtype NumPy has.
EXTRA_DTYPES = [np.dtype(t) for t in (np.uint16, np.float16, np.complex64)]
EVERY_DTYPE = ALL_DTYPES + EXTRA_DTYPES


def elements_with_specials(dtype, bound):
    """`elements`, plus NaN and infinities for inexact dtypes (for NaN-aware functions)."""
    dtype = np.dtype(dtype)
    if dtype.kind not in "fc":
        return elements(dtype, bound)
    specials = st.sampled_from([np.nan, np.inf, -np.inf]).map(lambda v: dtype.type(v))
    return st.one_of(elements(dtype, bound), specials)
