"""Dtype questions on traced arrays against NumPy: result_type, can_cast, common_type, np.astype."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import solvent
from numpy_samples import ALL_DTYPES, check, check_or_raises, sample


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_result_type_and_can_cast_answer_from_the_traced_dtype(dtype):
    others = [np.float32, np.int16, np.uint8, np.complex64, np.bool_]

    def answers(x, found):
        found += [np.result_type(x, d) for d in others] + [np.result_type(x, 1), np.result_type(x, 1.5),
                                                            np.result_type(x, x[0])]
        k = np.abs(x[0])  # Python numbers made of traced values are weak as any: float32 with float(k) is float32
        found += [np.result_type(x, float(k)), np.result_type(x, int(k)), np.result_type(x, bool(k))]
        found += [np.can_cast(x, d, c) for d in others for c in ("safe", "same_kind")]
        return x

    expected, traced = [], []
    answers(sample(dtype), expected)
    solvent.jit(lambda x: answers(x, traced))(sample(dtype))
    assert traced == expected


@pytest.mark.parametrize("dtypes", [(np.float32,), (np.int8, np.float32), (np.float16, np.complex64),
                                    (np.int64,), (np.float64, np.complex64)], ids=str)
def test_common_type(dtypes):
    arrays = [sample(d, (2,)) for d in dtypes]
    check(lambda *xs: np.zeros(2, np.common_type(*xs)), *arrays)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_astype_function(dtype):
    check(lambda x: (np.astype(x, np.float32), np.astype(x, dtype), np.astype(x, np.int64)), np.abs(sample(np.float64)) * 3)
    check_or_raises(lambda x: np.astype(x, "no such dtype"), sample(dtype))


INTEGERS = (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64)
EDGES = [np.nan, np.inf, -np.inf, -0.0, 0.5, -0.5, 300.7, -3.7, -129.5, 255.9, 256.0, 65536.0, -32769.0,
         2.0 ** 31, -2.0 ** 31, -2.0 ** 31 - 1, 2.0 ** 32 + 5, 2.0 ** 63, -2.0 ** 63, -2.0 ** 63 - 2048, 2.0 ** 64,
         1e20, -1e300]


def _to_integers(x):
    """x cast to every integer dtype, by astype and by assignment into an integer array. For uint32,
    not NaN or values below -2^31: NumPy's own result there depends on where the element lies in the
    array (its SIMD loop and its scalar tail differ)."""
    casts = [(np.where(np.isnan(x) | (x < -2.0 ** 31), 0, x) if t is np.uint32 else x).astype(t) for t in INTEGERS]
    assigned = np.zeros(x.shape, np.uint8)
    assigned[:] = x * 2
    return tuple(casts) + (assigned,)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16], ids=str)
@settings(max_examples=4, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(EDGES), st.floats(-1e4, 1e4), st.floats(-2.0 ** 70, 2.0 ** 70)),
                min_size=40, max_size=40))
def test_floats_cast_to_integers_as_numpy_on_this_machine(dtype, values):
    """C's conversion on x86-64, which NumPy's loops use: out-of-range values wrap through a 32- or
    64-bit integer (300.7 as uint8 is 44, -3.7 is 253), NaN and overflow give its most negative
    value (XLA's own convert saturates: 255 and 0)."""
    with np.errstate(all="ignore"):
        x = np.array(values).astype(dtype)
    check(_to_integers, x)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_min_scalar_type_of_arrays_and_refused_for_0d(dtype):
    found = []
    solvent.jit(lambda x: found.append(np.min_scalar_type(x)))(sample(dtype, (3,)))
    assert found == [np.min_scalar_type(sample(dtype, (3,)))]
    with pytest.raises(solvent.UnsupportedError, match="min_scalar_type"):
        solvent.jit(lambda x: np.min_scalar_type(x))(np.asarray(sample(dtype, ())))


_COMPLEX_STORES = {
    "astype": lambda z, r: z.astype(np.int32),
    "setitem": lambda z, r: r.__setitem__(slice(None), z),
    "setitem of an element": lambda z, r: r.__setitem__(0, z[1]),
    "copyto": lambda z, r: np.copyto(r, z, casting="unsafe"),
    "asarray": lambda z, r: np.asarray(z, dtype=np.float32),
    "array of a list": lambda z, r: np.array([z[0], z[1]], dtype=float),
    "out": lambda z, r: np.multiply(z, 2, out=r, casting="unsafe"),
    "fill": lambda z, r: r.fill(z[0]),
    "put": lambda z, r: np.put(r, [1, 0], z),
    "to bool": lambda z, r: z.astype(bool),
    "real part": lambda z, r: r.__setitem__(slice(None), z.real),
}


@pytest.mark.parametrize("store", _COMPLEX_STORES.values(), ids=_COMPLEX_STORES.keys())
def test_complex_values_cast_to_real_numbers_warn_as_numpy_does(store):
    def run(f):
        z, r = np.array([1 + 2j, 3 - 1j]), np.zeros(2)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = f(z, r)
        return r, result, caught

    expected, found = run(store), run(solvent.jit(store))
    np.testing.assert_array_equal(found[0], expected[0])
    np.testing.assert_array_equal(found[1], expected[1])
    assert {w.category for w in found[2]} == {w.category for w in expected[2]}  # (NumPy's per element of a list)
    assert {w.filename for w in found[2]} <= {__file__}  # the user's line (NumPy's np.put names fromnumeric.py)
