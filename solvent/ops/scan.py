"""Inclusive scans (`np.cumsum`, `np.maximum.accumulate`, ...) along one axis.

XLA's CPU code for a cumulative `reduce_window` reads every element once per window slot (it
splits the axis into windows of 16 a level) in a loop it does not vectorize: `np.cumsum` of 10^6
doubles took 1.1-1.9x NumPy's time, of 10^6 int64 10-16x, `np.maximum.accumulate` 1.8x. Long
axes are scanned instead by the pairwise recursion (Ladner and Fischer): combine neighbours, scan
the half as long array of pairs, and fill in the elements between; every step is a vectorized
slice or elementwise op, and the work is twice the axis, not sixteen times.
"""

from __future__ import annotations

from collections.abc import Callable

from jaxlib.mlir import ir

from solvent.ops.base import create, shape_of
from solvent.ops.reduction import reduce_window
from solvent.ops.shape import concatenate, reshape, slice as slice_op

#: Axes at least this long are scanned pairwise; shorter ones (and the recursion's last array) by
#: the cumulative reduce_window, which needs fewer kernels. (Measured from 100 to 10^6 elements:
#: from here up pairwise was as fast or faster; below, both cost about a call's dispatch.)
PAIRWISE_FROM = 512


#: The attribute naming, on the barrier around a pairwise scan, its axis and combining op, so that
#: autodiff can put a log-step scan of the same input in its place (`transforms.equivalents`):
#: Enzyme has no derivative for the barriers inside.
SCAN_ATTRIBUTE = "solvent.scan"


def inclusive(x: ir.Value, axis: int, combine: Callable, identity: ir.Value) -> ir.Value:
    """x's inclusive scan along `axis` by `combine(a, b)` (elementwise on tensors; associative and
    commutative, as the ufuncs NumPy lets accumulate in any order), `identity` its 0-d identity."""
    if shape_of(x)[axis] < PAIRWISE_FROM:
        return _windowed(x, axis, combine, identity)
    probe = combine(identity, identity)  # the combining op's name, for autodiff's replacement
    name = probe.owner.name.removeprefix("stablehlo.") if probe.owner.operands[0] == identity else None
    probe.owner.erase()
    scanned = _pairwise(x, axis, combine, identity)
    if name is None:
        return scanned
    marked = create("stablehlo.optimization_barrier", [scanned, x, identity], [scanned.type, x.type, identity.type],
                    {SCAN_ATTRIBUTE: ir.StringAttr.get(f"{name} {axis}")})
    return marked.results[0]


def _pairwise(x: ir.Value, axis: int, combine: Callable, identity: ir.Value) -> ir.Value:
    n = shape_of(x)[axis]
    if n < PAIRWISE_FROM:
        return _windowed(x, axis, combine, identity)
    evens, odds = _along(x, axis, 0, n, 2), _along(x, axis, 1, n, 2)
    half = n // 2
    through_odds = _pairwise(_once(combine(_along(evens, axis, 0, half), odds)), axis, combine, identity)
    # element 2i (i >= 1) is the scan through element 2i - 1 combined with it
    through_evens = combine(_along(through_odds, axis, 0, (n - 1) // 2), _along(evens, axis, 1, (n + 1) // 2))
    through_evens = concatenate([_along(x, axis, 0, 1), through_evens], axis)
    if n % 2:  # the last element is even: give the odd ones a spare last entry to interleave with
        through_odds = concatenate([through_odds, _along(x, axis, 0, 1)], axis)
    return _once(_along(_interleaved(through_evens, through_odds, axis), axis, 0, n))


def _once(x: ir.Value) -> ir.Value:
    """x computed once: each level's pairs and scan. Slices of them pushed through into the level
    below by the pass pipeline's rewrites would double its ops with each level."""
    return create("stablehlo.optimization_barrier", [x], [x.type]).result


def _windowed(x: ir.Value, axis: int, combine: Callable, identity: ir.Value) -> ir.Value:
    shape = shape_of(x)
    window = [shape[axis] if i == axis else 1 for i in range(len(shape))]
    padding = [(shape[axis] - 1, 0) if i == axis else (0, 0) for i in range(len(shape))]
    return reduce_window(x, identity, window, padding, lambda acc, e: [combine(acc, e)])


def _along(x: ir.Value, axis: int, start: int, stop: int, step: int = 1) -> ir.Value:
    """x[start:stop:step] along `axis`."""
    shape = shape_of(x)
    starts = [start if i == axis else 0 for i in range(len(shape))]
    limits = [stop if i == axis else n for i, n in enumerate(shape)]
    return slice_op(x, starts, limits, [step if i == axis else 1 for i in range(len(shape))])


def _interleaved(first: ir.Value, second: ir.Value, axis: int) -> ir.Value:
    """first[0], second[0], first[1], second[1], ... along `axis` (both as long along it)."""
    shape = list(shape_of(first))
    paired = [*shape[:axis + 1], 1, *shape[axis + 1:]]
    both = concatenate([reshape(first, paired), reshape(second, paired)], axis + 1)
    shape[axis] *= 2
    return reshape(both, shape)
