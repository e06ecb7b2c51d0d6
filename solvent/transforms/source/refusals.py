"""What rewritten statements that solvent cannot capture on traced values call: their tests are
fine while static (plain Python), an error naming the line once traced."""

from __future__ import annotations

import contextlib

import numpy as np

from solvent.core.session import SESSION
from solvent.errors import RANDOM, UnsupportedError
from solvent.numpy.values import is_traced


def unknown(x) -> bool:
    """Whether `x` is traced and its value is not known at trace time (see `numpy.folding`)."""
    return is_traced(x) and x.known is None


@contextlib.contextmanager
def catching(kind: str, where):
    """The body of a `try` that catches LinAlgError ("linalg"), FloatingPointError ("float") or
    IndexError ("index"): NumPy's calls that raise it are errors in it (see `numpy.protocol`), since
    compiled they give nan or inf, or clamp the index, where NumPy raises, and the handler would
    silently never run."""
    SESSION.catching[kind].append(where)
    try:
        yield
    finally:
        SESSION.catching[kind].pop()


def asserted(test, where):
    """The test of an `assert`, checked by Python while static; traced, an error: the compiled program
    cannot stop part way (nor leave the caller's arrays as they were at that point)."""
    if unknown(test):
        raise UnsupportedError(
            f"`assert` at {where[0]}:{where[1]} tests a traced value, which the compiled program cannot stop on; "
            "check it on the arguments before the call or on the results after it", location=where)
    return test


def refuse(test, construct, where, advice=None):
    """The test of a statement solvent cannot capture: fine while static, an error if traced."""
    if unknown(test):
        raise UnsupportedError(
            f"{construct} at {where[0]}:{where[1]} depends on a traced value and cannot be captured; "
            f"{advice or 'assign results to variables in the branches and return after the statement'}", location=where)
    return test


#: NumPy's random number generators as the host holds them (an argument's is traced in its place).
_HOST_GENERATORS = (np.random.Generator, np.random.RandomState, np.random.BitGenerator)


def no_host_draws(fn) -> None:
    """Refuses a method of a generator the function holds from outside (a global's, a closure's): its
    draw would run once, while tracing, and be a constant of the program."""
    owner = getattr(fn, "__self__", None)
    if isinstance(owner, _HOST_GENERATORS):
        raise UnsupportedError(f"{type(owner).__name__}.{fn.__name__} of a generator that is not an argument: "
                               f"{RANDOM}")
