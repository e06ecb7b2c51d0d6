"""Set membership on traced arrays (np.isin): a static-shaped comparison against every test element."""

from __future__ import annotations

import warnings

import numpy as np

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
