"""Sets of traced arrays: membership (np.isin), a static-shaped comparison against every test
element, and the set operations as NumPy computes them, whose results have as many elements as
the data gives (selections, see `indexing.packed`)."""

from __future__ import annotations

import warnings

import numpy as np

from solvent.errors import UnsupportedError
from solvent.numpy.indexing.functions import sorted_distinct
from solvent.numpy.registry import implements


@implements(np.isin)
def isin(element, test_elements, assume_unique=False, invert=False, *, kind=None):
    tests = np.ravel(test_elements)
    found = np.any(np.expand_dims(element, -1) == tests, axis=-1)
    return np.logical_not(found) if invert else found


@implements(np.in1d)
def in1d(ar1, ar2, assume_unique=False, invert=False, *, kind=None):
    warnings.warn("`in1d` is deprecated. Use `np.isin` instead.", DeprecationWarning, stacklevel=2)
    return isin(np.ravel(ar1), ar2, invert=invert)


@implements(np.union1d)
def union1d(ar1, ar2):
    return np.unique(np.concatenate((np.ravel(ar1), np.ravel(ar2))))


@implements(np.intersect1d)
def intersect1d(ar1, ar2, assume_unique=False, return_indices=False):
    """The sorted values in both; with `assume_unique` NumPy's pairs of equal neighbours in both
    inputs sorted together, as NumPy takes them."""
    if return_indices:
        raise UnsupportedError("np.intersect1d with return_indices=True inside solvent.jit: the indices have a "
                               "data-dependent number; compute them outside, or from np.isin masks")
    if not assume_unique:
        s, first = sorted_distinct(ar1)
        return s[first & isin(s, ar2)]
    aux = np.sort(np.concatenate((np.ravel(ar1), np.ravel(ar2))))
    return aux[:-1][aux[1:] == aux[:-1]]


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
