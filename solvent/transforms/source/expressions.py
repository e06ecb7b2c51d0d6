"""What rewritten expressions call: `x if c else y`, `and`, `or`, `not`, chained comparisons, `in` and
`is`: on static values Python's own, on traced ones their traced forms, with Python's values."""

from __future__ import annotations

import functools

import numpy as np

from solvent.core import trace
from solvent.core.traced import users_hash
from solvent.numpy.values import is_traced, wrap
from solvent.ops import elementwise as ew
from solvent.transforms import control_flow, regions
from solvent.transforms.identity import Either
from solvent.transforms.source.builtins import python_bool
from solvent.transforms.source.refusals import unknown as _traced


def ifexp(test, if_true, if_false):
    """`if_true() if test else if_false()`."""
    if not _traced(test):
        return if_true() if test else if_false()
    return control_flow.cond(test, if_true, if_false)


def and_(first, *operands):
    """Python's `and` of `first` and thunks; once a value is traced, Python's value traced (`_short_circuit`:
    an operand that writes, a draw say, runs only where the values before it are true, as in Python)."""
    result = first
    for operand in operands:
        if _traced(result):
            result = _short_circuit(result, operand, np.logical_and, skip_if=False)
        elif not result:
            return result
        else:
            result = operand()
    return result


def or_(first, *operands):
    """Python's `or` of `first` and thunks, as `and_`."""
    result = first
    for operand in operands:
        if _traced(result):
            result = _short_circuit(result, operand, np.logical_or, skip_if=True)
        elif result:
            return result
        else:
            result = operand()
    return result


def chained(first, compare, second, *links):
    """`a < f() < b`: each operand evaluated once, in Python's order, the comparisons after the first
    (`links` of (compare, operand thunk)) joined as `and_` joins them."""
    held = [first, second] + [None] * len(links)

    def pair(k, compare, operand):
        def run():  # (traced apart first where `and_` asks whether it writes: the real run sets it again)
            held[k + 2] = operand()
            return compare(held[k + 1], held[k + 2])
        return run
    return and_(compare(first, second), *[pair(k, compare, operand) for k, (compare, operand) in enumerate(links)])


def _short_circuit(result, operand, combine, skip_if: bool):
    """Python's `result and operand()` (`or`: `skip_if`) for a traced `result`: the operand's value
    where `result` is true (false), else `result`, promoted as a traced `if`'s branches are (scalar
    bools: NumPy's `combine`). Where `operand` writes or changes a Python object (regions.writes),
    it runs in that branch alone, so its writes happen only there (and a change to an object is
    refused as in any traced branch)."""
    kept = lambda: result  # noqa: E731
    if regions.writes(operand, objects=True):
        return control_flow.cond(result, kept, operand) if skip_if else control_flow.cond(result, operand, kept)
    other = operand()
    if np.ndim(result) == 0 and _is_bool(result) and _is_bool(other):
        return combine(result, other)
    given = lambda: other  # noqa: E731
    return control_flow.cond(result, kept, given) if skip_if else control_flow.cond(result, given, kept)


def _is_bool(x) -> bool:
    return isinstance(x, (bool, np.bool_)) or getattr(x, "dtype", None) == np.bool_


def contains(item, container):
    """`item in container`: of a traced array, NumPy's `(container == item).any()`; of a list or tuple
    holding traced values, Python's `any(x is item or x == item ...)`, traced."""
    if _traced(container):
        return python_bool(np.any(container == item))
    if isinstance(container, (list, tuple)) and (_traced(item) or any(_traced(x) for x in container)):
        tests = [(lambda x=x: x is item or x == item) for x in container]
        return python_bool(or_(tests[0](), *tests[1:])) if container else False
    if is_traced(item) and isinstance(container, (set, frozenset, dict)):
        users_hash(item)  # (raises, as hash() in the user's own code does)
    return item in container


def traced_truth(test):
    """A traced test's truth, as a traced bool."""
    with trace.current().emitting():
        return wrap(regions.predicate(test), scalar=True)


def truth(value):
    """The truth of an operand of an `and`/`or` that only a test reads (`if a or b:`): Python's bool,
    or for a traced value a traced one, as an `if` would take it."""
    return python_bool(traced_truth(value)) if _traced(value) else bool(value)


def not_(value):
    """Python's `not`: a Python bool, of a traced value too."""
    return python_bool(np.logical_not(value)) if _traced(value) else not value


def identical(x, y) -> bool:
    """`x is y`; where one is an array a traced branch or loop chose (`b = a` on one path, a new array on
    the other), whether it is the other, traced."""
    for one, other in ((x, y), (y, x)):
        if isinstance(one, Either) and any(choice is other for choice in one.choices):
            with trace.current().emitting():
                chosen = [one.chooses(k) for k, choice in enumerate(one.choices) if choice is other]
                return python_bool(wrap(functools.reduce(lambda a, b: ew.binary("or", a, b), chosen), scalar=True))
    return x is y
