"""Dtype questions on traced arrays against NumPy: result_type, can_cast, common_type, np.astype."""

from __future__ import annotations

import numpy as np
import pytest

import solvent
from numpy_samples import ALL_DTYPES, check, check_or_raises, sample


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_result_type_and_can_cast_answer_from_the_traced_dtype(dtype):
    others = [np.float32, np.int16, np.uint8, np.complex64, np.bool_]

    def answers(x, found):
        found += [np.result_type(x, d) for d in others] + [np.result_type(x, 1), np.result_type(x, 1.5),
                                                            np.result_type(x, x[0])]
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


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_min_scalar_type_of_arrays_and_refused_for_0d(dtype):
    found = []
    solvent.jit(lambda x: found.append(np.min_scalar_type(x)))(sample(dtype, (3,)))
    assert found == [np.min_scalar_type(sample(dtype, (3,)))]
    with pytest.raises(solvent.UnsupportedError, match="min_scalar_type"):
        solvent.jit(lambda x: np.min_scalar_type(x))(np.asarray(sample(dtype, ())))
