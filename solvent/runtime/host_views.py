"""Large results handed back as NumPy arrays over the CPU buffer XLA wrote, without a copy out.

Copying a result out costs a pass over its memory; a view costs a fixed 2-3 µs, so results of
at least `VIEWED_FROM` bytes are viewed and smaller ones copied (the two cost the same at about
32 KiB on this machine). XLA's buffers are 64-byte aligned, so a viewed result given to a later
call is also read in place by PJRT, where a NumPy array of that size usually is not aligned and
is copied in first.

Nothing else holds the buffer: a view's memory is written only through the array itself (host
results are never donated), and it is freed with the array.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from solvent.core.structure import HostBuffer

VIEWED_FROM = 32 << 10


def viewer(aval, layout, device):
    """`view(buffer) -> ndarray` for a one-device result of `aval` laid out as `layout` (a PJRT
    layout), or None where a copy is better or a view is not possible (memory not on the host,
    a layout other than C order)."""
    dtype = np.dtype(aval.dtype)
    c_order = "{" + ",".join(str(axis) for axis in reversed(range(len(aval.shape)))) + "}"
    if device.platform != "cpu" or str(layout) != c_order or math.prod(aval.shape) * dtype.itemsize < VIEWED_FROM:
        return None
    return functools.partial(view, shape=tuple(aval.shape), typestr=dtype.str)


def view(buffer, shape: tuple, typestr: str) -> np.ndarray:
    """A writable NumPy array over `buffer` (a CPU `jax.Array`), once the computation has written it."""
    buffer.block_until_ready()  # raises the computation's error, if it failed
    holder = HostBuffer()
    holder.buffer = buffer
    holder.__array_interface__ = {"shape": shape, "typestr": typestr, "version": 3,
                                  "data": (buffer.unsafe_buffer_pointer(), False)}
    array = np.asarray(holder)
    del holder.__array_interface__  # no second array over this memory: `array` owns it (`memory_owner`)
    return array
