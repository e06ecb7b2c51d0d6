"""NumPy functions called with Python lists or tuples of traced numbers (`np.argmax([a, b, c])`), and
the few NumPy functions that do not dispatch on their arguments (`as_strided`).

NumPy dispatches to solvent only through an argument that is traced itself; a list of traced
scalars it converts on the host, which cannot be done. Rewritten code calls NumPy functions
through `with_lists`, which makes each such list one traced array first (as NumPy's conversion
would), so that NumPy's dispatch reaches solvent; in a sequence of arrays
(`np.concatenate([x, [a, 2.0]])`) each such list is, and the arrays are left as they are.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator

import numpy as np

from solvent.core import dispatch, trace
from solvent.numpy import creation
from solvent.numpy.registry import UNDISPATCHED
from solvent.numpy.values import as_array, holds_traced, is_traced, through_protocol

_WRAPPED: dict = {}


def registered(fn) -> bool:
    """Whether `fn` is a NumPy function or ufunc solvent compiles."""
    try:
        return fn in dispatch.FUNCTIONS
    except TypeError:  # unhashable callables
        return False


def stand_in(fn):
    """What np.zeros & co. are while tracing, for `fn` one of them as NumPy has it otherwise (held from
    before the trace: `from numpy import zeros`); else None."""
    try:
        return creation.STAND_INS.get(fn)
    except TypeError:  # unhashable callables
        return None


def with_lists(fn):
    """`fn` (registered), taking lists or tuples of traced numbers as one traced array each."""
    wrapper = _WRAPPED.get(fn)
    if wrapper is None:
        def wrapper(*args, **kwargs):
            args = tuple(through_protocol(a) for a in args)  # (NumPy's C code would refuse a traced __array__)
            if any(_holds_numbers(a) for a in (*args, *kwargs.values())):
                with trace.current().emitting():
                    args = tuple(_as_arrays(a) for a in args)
                    kwargs = {k: _as_arrays(a) for k, a in kwargs.items()}
            if not dispatched and (holds_traced((args, kwargs)) or any(isinstance(a, Iterator) for a in args)):
                # NumPy would not ask solvent (nor can it be told what an iterator will give)
                return dispatch.HOOKS.array_function(fn, args, kwargs)
            return fn(*args, **kwargs)
        dispatched = fn not in UNDISPATCHED
        wrapper = _WRAPPED[fn] = functools.wraps(fn)(wrapper)
    return wrapper


def _holds_numbers(x) -> bool:
    """A list of traced numbers, or a sequence of arrays holding one (`[x, [a, 2.0]]`)."""
    return _numbers(x) or (isinstance(x, (list, tuple)) and any(_numbers(v) for v in x))


def _as_arrays(x):
    if _numbers(x):
        return as_array(x)
    if isinstance(x, (list, tuple)) and any(_numbers(v) for v in x):
        return type(x)(as_array(v) if _numbers(v) else v for v in x)
    return x


def _numbers(x) -> bool:
    """A (nested) list or tuple of numbers, some of them traced."""
    return isinstance(x, (list, tuple)) and holds_traced(x) and _scalars(x)


def _scalars(x) -> bool:
    if isinstance(x, (list, tuple)):
        return all(_scalars(v) for v in x)
    return (np.ndim(x) == 0 if is_traced(x) else isinstance(x, (bool, int, float, complex, np.generic)))
