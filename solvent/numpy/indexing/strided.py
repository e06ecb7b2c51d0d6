"""Views by strides: `sliding_window_view` and `as_strided`, and `ndarray.strides` itself.

Both views read elements of their array by a pattern of memory offsets. The elements each
window reaches are computed at trace time by NumPy itself on an array of indices (the same
view of `np.arange(x.size)`), and the view gathers them from the array's current values, so
it sees later writes to the array as NumPy's does. Writing through them raises: NumPy's
sliding windows are read-only, and as_strided's overlapping elements have no order of writes
that XLA could keep (a write through an as_strided view without overlap goes back).
"""

from __future__ import annotations

import numpy as np

from solvent.errors import UnsupportedError
from solvent.numpy import layout
from solvent.numpy.indexing.advanced import parse_fancy, read_fancy, write_fancy
from solvent.numpy.registry import UNDISPATCHED, implements, method
from solvent.numpy.shape import static_int, view
from solvent.numpy.values import is_traced
from solvent.ops import shape as ops


def flat_positions(offset: int, strides: tuple, shape: tuple) -> np.ndarray:
    """The C-order flat index, in an array, of each element of a view of it at element `offset`
    with element `strides` and `shape`."""
    positions = np.full(shape, offset, dtype=np.int64)
    for axis, (stride, n) in enumerate(zip(strides, shape)):
        positions += stride * np.arange(n, dtype=np.int64).reshape([n if a == axis else 1 for a in range(len(shape))])
    return positions


def gathered(x, indices: np.ndarray, refusal: Exception | None = None, memory=None):
    """A view of `x` holding its elements at the C-order flat `indices` (in their shape), which
    raises `refusal` on a write, or writes them back when there is none (distinct indices);
    `memory` its layout (see `layout`)."""
    size = (int(np.prod(x.shape, dtype=np.int64)),)
    fancy = parse_fancy((np.ascontiguousarray(indices),), size)

    def read(v):
        return read_fancy(ops.reshape(v, size), fancy)

    def write(parent, new):
        if refusal is not None:
            raise refusal
        return ops.reshape(write_fancy(ops.reshape(parent, size), fancy, new), x.shape)
    return view(x, indices.shape, read, write, memory=memory)


@implements(np.lib.stride_tricks.sliding_window_view)
def sliding_window_view(x, window_shape, axis=None, *, subok=False, writeable=False):
    """NumPy's windows of `x`: a read-only view."""
    if writeable:
        raise UnsupportedError("sliding_window_view(..., writeable=True): its windows overlap in memory, which "
                               "a compiled program does not have; write into `x` itself")
    sizes = window_shape if np.iterable(window_shape) else (window_shape,)
    window_shape = tuple(static_int(w, "sliding_window_view's window_shape") for w in sizes)
    positions = np.arange(int(np.prod(x.shape, dtype=np.int64))).reshape(x.shape)
    windows = np.lib.stride_tricks.sliding_window_view(positions, window_shape, axis)  # NumPy's checks, too
    return gathered(x, windows, ValueError("assignment destination is read-only"))


@implements(np.lib.stride_tricks.as_strided)
def as_strided(x, shape=None, strides=None, subok=False, writeable=True):
    """NumPy's view of `x`'s memory at byte `strides`, for a C-contiguous `x` (whose memory is its
    elements in order) and offsets inside it."""
    found = layout.consulted(x) if is_traced(x) else np.asarray(x).strides
    itemsize = np.dtype(x.dtype).itemsize
    if found is None or not layout.contiguous(x.shape, found, itemsize):
        raise UnsupportedError("np.lib.stride_tricks.as_strided of an array that is not C-contiguous in NumPy: "
                               "its memory is not its elements in order; pass np.ascontiguousarray(x)")
    shape = tuple(static_int(n, "as_strided's shape") for n in (x.shape if shape is None else shape))
    strides = tuple(static_int(n, "as_strided's strides") for n in (found if strides is None else strides))
    if len(strides) != len(shape) or any(s % itemsize for s in strides):
        raise UnsupportedError(f"as_strided with strides {strides} for shape {shape}: each must be a whole "
                               f"number of {itemsize}-byte elements")
    offsets = flat_positions(0, tuple(s // itemsize for s in strides), shape)
    size = int(np.prod(x.shape, dtype=np.int64))
    if offsets.size and (offsets.min() < 0 or offsets.max() >= size):
        raise UnsupportedError(f"as_strided with shape {shape} and strides {strides} reaches outside the "
                               f"{size} elements of its array (NumPy would read other memory there)")
    refusal = (ValueError("assignment destination is read-only") if not writeable
               else None if np.unique(offsets).size == offsets.size
               else UnsupportedError("writing through np.lib.stride_tricks.as_strided: its elements overlap; "
                                     "write into the array itself"))
    return gathered(x, offsets, refusal)


UNDISPATCHED.add(np.lib.stride_tricks.as_strided)


@method("strides")
def strides(self):
    """`a.strides`: NumPy's byte strides, where solvent follows them (see `layout`)."""
    found = layout.consulted(self)
    if found is None:
        raise UnsupportedError("the strides of an array NumPy lays out by rules solvent does not model (a result "
                               "computed from strided or transposed arrays); take them of np.ascontiguousarray(x)")
    return found
