"""NumPy's index iterators over traced arrays: `np.ndindex` and `np.ndenumerate` as `Rows` whose
k-th item a traced k can read, so that a loop over them rolls as a loop over `range` does (unrolled,
a 50x50 `ndindex` took 8 s to compile); `np.nditer`, which writes back through buffers, refused.

Rewritten code calls these in place of the NumPy classes (`rewrite.converted`).
"""

from __future__ import annotations

import math

import numpy as np

from solvent.errors import UnsupportedError
from solvent.numpy.registry import builtin
from solvent.numpy.values import is_traced
from solvent.transforms.source.builtins import Rows


def _index(k, shape: tuple[int, ...]) -> tuple:
    """The k-th index of `shape` in C order (Python ints for a static k, traced ones for a traced k)."""
    index, stride = [], math.prod(shape)
    for n in shape:
        stride //= n
        index.append(k // stride % n)
    return tuple(index)


@builtin(np.ndindex)
def ndindex(*shape):
    shape = tuple(shape[0]) if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape
    return Rows(math.prod(shape), lambda k: _index(k, shape))


@builtin(np.ndenumerate)
def ndenumerate(arr):
    if not is_traced(arr):
        return np.ndenumerate(arr)
    shape = arr.shape
    return Rows(arr.size, lambda k: (index := _index(k, shape), arr[index]))


@builtin(np.nditer)
def nditer(*args, **kwargs):
    raise UnsupportedError("np.nditer is not supported by solvent.jit (it reads and writes through buffers); "
                           "loop over np.ndindex(x.shape) and index x[idx], or over np.ndenumerate(x)")
