"""Dtype questions about traced arrays, answered at trace time from their dtypes; and np.astype."""

from __future__ import annotations

import numpy as np

from solvent.core.traced import TracedScalar
from solvent.errors import UnsupportedError
from solvent.numpy.registry import UNDISPATCHED, implements
from solvent.numpy.values import PYTHON_TYPES, is_traced, probe_array


def _probe(x):
    """A host stand-in with `x`'s dtype and rank when `x` is traced, else `x` itself."""
    return probe_array(x) if is_traced(x) else x


@implements(np.isscalar)
def isscalar(element):
    """A traced scalar is one (NumPy's function asks isinstance(element, np.generic), which a traced
    value is not); a traced array is not."""
    return isinstance(element, TracedScalar) or (not is_traced(element) and np.isscalar(element))


UNDISPATCHED.add(np.isscalar)  # (NumPy does not dispatch it: rewritten code calls this one)


@implements(np.result_type)
def result_type(*arrays_and_dtypes):
    """Of traced values, their dtypes; a traced stand-in for a Python number (float(x[0])) is weak, as the number."""
    return np.result_type(*[(PYTHON_TYPES[x.dtype.kind](0) if getattr(x, "weak", False) else x.dtype)
                            if is_traced(x) else x for x in arrays_and_dtypes])


@implements(np.can_cast)
def can_cast(from_, to, casting="safe"):
    return np.can_cast(from_.dtype if is_traced(from_) else from_, to, casting)


@implements(np.common_type)
def common_type(*arrays):
    return np.common_type(*[_probe(a) for a in arrays])


@implements(np.astype)
def astype(x, dtype, /, *, copy=True, device=None):
    if not is_traced(x):
        raise TypeError(f"Input should be a NumPy array. It is a {type(x)} instead.")
    return x.astype(dtype, copy=copy)


@implements(np.min_scalar_type)
def min_scalar_type(a, /):
    """An array keeps its dtype; a 0-d array's answer depends on its value, unknown while tracing."""
    if a.ndim == 0:
        raise UnsupportedError("np.min_scalar_type of a traced 0-d array depends on its value, which is only "
                               "known when the compiled program runs; use its dtype (a.dtype) instead")
    return np.min_scalar_type(probe_array(a))
