"""The op registry: the coverage list and docs/supported.md come from it, and every NumPy function
that is not registered raises UnsupportedError naming it (never a host fallback)."""

from __future__ import annotations

import inspect
import pathlib

import numpy as np
import pytest

import solvent
from solvent.numpy.registry import coverage_markdown, supported, unsupported

DOCS = pathlib.Path(__file__).parents[2] / "docs" / "supported.md"

#: Positional arity of the C functions that inspect.signature cannot read.
ARITY = {"busday_count": 2, "busday_offset": 2, "can_cast": 2, "inner": 2, "vdot": 2, "may_share_memory": 2,
         "shares_memory": 2, "putmask": 3, "ravel_multi_index": 2, "savez": 2, "savez_compressed": 2}
#: Valid leading arguments of the C creation functions that dispatch on their `like=` argument only.
LIKE = {"arange": (3,), "empty": (3,), "zeros": (3,), "frombuffer": (bytes(8),), "fromiter": (range(3), float),
        "fromstring": ("1 2", float, -1, " "), "fromfile": (__file__,)}


def test_docs_table_is_generated_from_the_registry():
    assert DOCS.read_text() == coverage_markdown(), "docs/supported.md is stale: run `make docs`"


def test_supported_lists_public_names_of_registered_functions():
    names = supported()
    assert names == solvent.supported() and names == sorted(set(names))
    assert {"np.sum", "np.add", "np.abs", "np.absolute", "np.einsum"} <= set(names)
    assert not set(names) & set(unsupported())


def _call_with_traced(name):
    """The NumPy function `name` (looked up when called: tracing patches some) applied to a traced
    3x3 array in every required positional slot, or as `like=` for creation functions."""
    prefix, short = name.rsplit(".", 1)
    namespace = {"np": np, "np.linalg": np.linalg, "np.fft": np.fft}[prefix]
    fn = getattr(namespace, short)
    if isinstance(fn, np.ufunc):
        return lambda x: fn(*[x] * fn.nin)
    try:
        parameters = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        if short in LIKE:
            return lambda x: getattr(namespace, short)(*LIKE[short], like=x)
        return lambda x: getattr(namespace, short)(*[x] * ARITY.get(short, 1))
    if any(p.name == "like" for p in parameters):
        count = sum(p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
                    for p in parameters)
        return lambda x: getattr(namespace, short)(*[3] * count, like=x)
    required = sum(p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
                   for p in parameters)
    return lambda x: getattr(namespace, short)(*[x] * max(required, ARITY.get(short, 1)))


@pytest.mark.parametrize("name", unsupported())
def test_unregistered_function_raises_unsupported_naming_it(name):
    with pytest.raises(solvent.UnsupportedError, match=name.replace(".", r"\.")):
        solvent.jit(_call_with_traced(name))(np.ones((3, 3)))


def test_numpy_function_converting_its_input_names_itself():
    # np.asarray_chkfinite does not dispatch: NumPy converts the traced array to host values.
    with pytest.raises(solvent.UnsupportedError, match=r"np\.asarray_chkfinite is not supported") as error:
        solvent.jit(lambda x: np.asarray_chkfinite(x))(np.ones(3))
    assert __file__ in str(error.value)
