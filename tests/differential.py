"""Differential testing against NumPy: same inputs, same outputs, dtypes and in-place effects."""

import copy
import warnings

import numpy as np

import solvent


def assert_same(actual, expected, rtol=1e-12, atol=1e-12):
    """Same values, dtype and shape as NumPy produced (recursing into tuples and lists)."""
    if isinstance(expected, (tuple, list)):
        assert type(actual) is type(expected) and len(actual) == len(expected)
        for a, e in zip(actual, expected):
            assert_same(a, e, rtol, atol)
        return
    a, e = np.asarray(actual), np.asarray(expected)
    assert a.dtype == e.dtype, f"dtype {a.dtype} != NumPy's {e.dtype}"
    assert a.shape == e.shape, f"shape {a.shape} != NumPy's {e.shape}"
    if e.dtype.kind in "fc":
        np.testing.assert_allclose(a, e, rtol=rtol, atol=atol, equal_nan=True)
    else:
        np.testing.assert_array_equal(a, e)


def check_like_numpy(fn, *args, rtol=1e-12, atol=1e-12, **kwargs):
    """Run `fn` with NumPy and with solvent.jit on copies; compare results and argument effects."""
    numpy_args = copy.deepcopy(args)
    solvent_args = copy.deepcopy(args)
    expected = fn(*numpy_args, **kwargs)
    actual = solvent.jit(fn)(*solvent_args, **kwargs)
    assert_same(actual, expected, rtol, atol)
    for a, e in zip(solvent_args, numpy_args):
        if isinstance(e, np.ndarray):
            assert_same(a, e, rtol, atol)
    return actual


def assert_same_types(actual, expected):
    """The Python types NumPy gives (a NumPy scalar or a 0-d array, a Python number), recursing into
    tuples and lists."""
    if isinstance(expected, (tuple, list)):
        for a, e in zip(actual, expected):
            assert_same_types(a, e)
        return
    assert type(actual) is type(expected), f"{type(actual).__name__} where NumPy gives {type(expected).__name__}"


def check_types_like_numpy(fn, *args):
    """`check_like_numpy`, and each result of NumPy's Python type."""
    assert_same_types(check_like_numpy(fn, *args), fn(*copy.deepcopy(args)))


def rolled_like_numpy(fn, *args):
    """`check_like_numpy`, and every static loop rolled: a body that could not run on a traced index
    would unroll with a warning, made an error here."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_like_numpy(fn, *args)


def with_nans(x, at=(3, 11)):
    """A copy of `x` with NaNs at positions `at`."""
    x = x.copy()
    x[list(at)] = np.nan
    return x
