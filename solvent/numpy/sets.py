"""Sets of traced arrays: membership (np.isin), a static-shaped comparison against every test
element, and the set operations as NumPy computes them, whose results have as many elements as
the data gives (selections, see `indexing.packed`)."""

from __future__ import annotations

import warnings

import numpy as np

from solvent.errors import user_stacklevel
from solvent.numpy.indexing.functions import first_of_runs, sorted_distinct
from solvent.numpy.registry import implements
from solvent.numpy.values import result_type, value, wrap


#: Pairs of elements and test elements beyond which np.isin sorts the test elements and looks each
#: element up (n log m) rather than comparing every pair (100k elements in 50k: 2 s -> 0.02 s).
SORTED_AT = 1 << 16


@implements(np.isin)
def isin(element, test_elements, assume_unique=False, invert=False, *, kind=None):
    """Membership by a search of the sorted tests, or by comparing with each; `kind` only checked."""
    tests = np.ravel(test_elements)
    if kind not in (None, "sort", "table"):
        raise ValueError(f"Invalid kind: '{kind}'. Please use None, 'sort' or 'table'.")
    if kind == "table" and any(np.dtype(result_type(a)).kind not in "biu" for a in (element, tests)):
        raise ValueError("The 'table' method is only supported for boolean or integer arrays. Please select "
                         "'sort' or None for kind.")
    if np.size(element) * tests.size > SORTED_AT and result_type(element, tests).kind in "biuf":
        common = result_type(element, tests)
        ordered = np.sort(tests.astype(common))
        at = np.minimum(np.searchsorted(ordered, element), tests.size - 1)
        found = ordered[at] == element
    else:
        found = np.any(np.expand_dims(element, -1) == tests, axis=-1)
    found = np.logical_not(found) if invert else found
    return wrap(value(found), scalar=False) if np.ndim(found) == 0 else found  # (an array for a scalar, as NumPy's)


@implements(np.in1d)
def in1d(ar1, ar2, assume_unique=False, invert=False, *, kind=None):
    warnings.warn("`in1d` is deprecated. Use `np.isin` instead.", DeprecationWarning, stacklevel=user_stacklevel())
    return isin(np.ravel(ar1), ar2, invert=invert, kind=kind)


@implements(np.union1d)
def union1d(ar1, ar2):
    return np.unique(np.concatenate((np.ravel(ar1), np.ravel(ar2))))


@implements(np.intersect1d)
def intersect1d(ar1, ar2, assume_unique=False, return_indices=False):
    """The sorted values in both; with `assume_unique` NumPy's pairs of equal neighbours in both
    inputs sorted together, as NumPy takes them."""
    if return_indices:
        return _intersection_with_indices(np.ravel(ar1), np.ravel(ar2), assume_unique)
    if not assume_unique:
        s, first = sorted_distinct(np.ravel(ar1).astype(result_type(ar1, ar2)))  # (NumPy joins both: promoted)
        return s[first & isin(s, ar2)]
    aux = np.sort(np.concatenate((np.ravel(ar1), np.ravel(ar2))))
    return aux[:-1][aux[1:] == aux[:-1]]


def _intersection_with_indices(a, b, assume_unique):
    """intersect1d's values and the indices of each in `a` and in `b` (the first occurrence, as
    NumPy's unique gives it; with `assume_unique` NumPy's pairs of equal neighbours once both are
    sorted together, stably)."""
    a = a.astype(result_type(a, b))  # (NumPy joins both: promoted)
    if a.size == 0 or b.size == 0:  # nothing in common
        none = np.zeros(0, np.int64)
        return np.zeros(0, a.dtype), none, none
    if assume_unique:
        both = np.concatenate((a, b))
        order = np.argsort(both, kind="stable")
        aux = both[order]
        pair = aux[1:] == aux[:-1]
        return aux[:-1][pair], order[:-1][pair], order[1:][pair] - a.size
    order_a, order_b = np.argsort(a, kind="stable"), np.argsort(b, kind="stable")
    sorted_a, sorted_b = a[order_a], b[order_b]
    common = first_of_runs(sorted_a, True) & isin(sorted_a, b)
    at_b = np.minimum(np.searchsorted(sorted_b, sorted_a), b.size - 1)  # each value's first place in b
    return sorted_a[common], order_a[common], order_b[at_b][common]


@implements(np.setdiff1d)
def setdiff1d(ar1, ar2, assume_unique=False):
    """The sorted distinct values of `ar1` not in `ar2` (with `assume_unique`, `ar1` as it is)."""
    if assume_unique:
        ar1 = np.ravel(ar1)
        return ar1[isin(ar1, ar2, invert=True)]
    s, first = sorted_distinct(ar1)
    return s[first & isin(s, ar2, invert=True)]


@implements(np.setxor1d)
def setxor1d(ar1, ar2, assume_unique=False):
    """The sorted values in exactly one input: with `assume_unique` the values alone in their run
    once both inputs are sorted together; otherwise the distinct values of each not in the other
    (a NaN in both counts for each, as in NumPy, where NaN != NaN)."""
    both = np.concatenate((np.ravel(ar1), np.ravel(ar2)))
    if assume_unique:
        aux = np.sort(both)
        if aux.size == 0:
            return aux
        differs = aux[1:] != aux[:-1]
        alone = np.concatenate([np.ones(1, np.bool_), differs]) & np.concatenate([differs, np.ones(1, np.bool_)])
        return aux[alone]
    (s1, first1), (s2, first2) = sorted_distinct(ar1), sorted_distinct(ar2)
    keep = np.concatenate([first1 & isin(s1, ar2, invert=True), first2 & isin(s2, ar1, invert=True)])
    values = np.concatenate([s1, s2]).astype(both.dtype)
    order = np.argsort(values, kind="stable")
    return values[order][keep[order]]
