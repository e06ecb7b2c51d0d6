"""`x[key]` and `x[key] = v` on traced arrays: the entry points, which send each key to the
indexing it needs (basic, advanced, traced masks, slices with traced bounds).
"""

from __future__ import annotations

import numpy as np

from solvent.core.aval import Aval
from solvent.core.traced import padded
from solvent.errors import UnsupportedError
from solvent.numpy import layout
from solvent.numpy.indexing import masked_keys, packed, stepped, traced_bounds
from solvent.numpy.indexing.advanced import parse_fancy, read_fancy, write_fancy
from solvent.numpy.indexing.key import is_advanced
from solvent.numpy.indexing.basic import Index, parse, read, write
from solvent.numpy.indexing.masks import (Selected, broadcast_selected, in_augmented_assignment, parse_masked,
                                          read_selected, selected_shape, write_selected)
from solvent.numpy.shape import view
from solvent.numpy.values import assigned_value, is_traced, value, wrap
from solvent.ops import elementwise as ew
from solvent.ops.base import shape_of

# -- entry points -----------------------------------------------------------------------------

def _is_traced_flag(key) -> bool:
    """A traced 0-d boolean as the whole index: NumPy reads `a[m]` as `a[None][[m]]`."""
    return is_traced(key) and key.dtype == np.bool_ and key.shape == ()


def _flag_as_mask(array, key):
    """`a[m]` for a 0-d traced `m` as a mask over a new leading axis of one element (a view of `a`)."""
    return getitem(array, None), np.reshape(key, (1,))


def getitem(array, key):
    _check_not_padded(array)
    if isinstance(array, traced_bounds.MaskedArray):
        for rule in (masked_keys.element, masked_keys.sliced, masked_keys.expanded, masked_keys.taken,
                     packed.reselect):
            found = rule(array, key)
            if found is not None:
                return found
    if _is_traced_flag(key):
        return getitem(*_flag_as_mask(array, key))
    if traced_bounds.applies(key, array.shape):  # a slice of traced length (bounds from a rolled loop's index)
        return traced_bounds.getitem(array, key)
    if is_advanced(key):
        return _getitem_advanced(array, key)
    index = parse(key, array.shape)
    if _is_element(key, index):
        return wrap(read(array.value, index))  # an element: a NumPy scalar, not a view
    base = layout.strides_of(array) if is_traced(array) else None
    return view(array, index.result_shape, lambda v: read(v, index), lambda parent, new: write(parent, index, new),
                memory=None if base is None else index.strides(base))


def _check_not_padded(array) -> None:
    """A slice of traced length that a branch or loop gave back without its length (held padded):
    an index into it would read or write its padding."""
    if getattr(array, "padded", False) and not isinstance(array, traced_bounds.MaskedArray):
        raise padded(array, ", indexed after the traced `if` or loop that made it,")


def _getitem_advanced(array, key):
    """A copy (never a view), as NumPy gives for advanced indices."""
    m = parse_masked(key, array.shape)
    if m is not None and in_augmented_assignment():
        selected = Selected(read_selected(array.value, m), Aval(tuple(selected_shape(m)), array.dtype))
        selected.target = (array, key, m)
        return selected
    if m is not None:
        return packed.select(array, m)  # as many elements as the mask has True ones
    if packed.has_packed(key):
        return packed.take(array, key)
    f = parse_fancy(key, array.shape)
    element = f.result_shape == () and not any(k is Ellipsis for k in (key if isinstance(key, tuple) else (key,)))
    result = wrap(read_fancy(array.value, f), scalar=element)  # 0-d integer arrays index as integers
    if len(f.result_shape) > 1:
        base = layout.strides_of(array) if is_traced(array) else np.asarray(array).strides
        result.memory = None if base is None else f.strides(base, array.dtype.itemsize)
        result.layout_from = (array,) if is_traced(array) else ()
    return result


def _is_element(key, index: Index) -> bool:
    """NumPy returns a scalar when every dimension has an integer index and there is no `...`."""
    keys = key if isinstance(key, tuple) else (key,)
    integers_only = index.result_shape == () and not any(a.keep for a in index.axes)
    return integers_only and not any(k is Ellipsis for k in keys)


def setitem(array, key, new):
    _check_not_padded(array)
    if isinstance(array, traced_bounds.MaskedArray):
        key = masked_keys.from_the_end(array, key)
    if _is_traced_flag(key):
        return setitem(*_flag_as_mask(array, key), new)
    if stepped.applies(key, array.shape) and not isinstance(array, traced_bounds.MaskedArray):
        return stepped.setitem(array, key, new)  # (`is_prime[i * i::i] = False`)
    if traced_bounds.applies(key, array.shape):
        return traced_bounds.setitem(array, key, new)
    if _masks_alike(array, key) and np.ndim(new) == 0:  # (`s[s > 2] = 0`: both packed at the front, alike)
        array.assign(ew.select(key.value, value(new, array.dtype, array.shape), array.value))
        return
    if is_advanced(key):
        return _setitem_advanced(array, key, new)
    index = parse(key, array.shape)
    array.assign(write(array.value, index, _assigned(array, new, index.result_shape)))


def _masks_alike(array, key) -> bool:
    """A boolean key of data-dependent length for an array of the same: element by element."""
    return isinstance(array, traced_bounds.MaskedArray) and isinstance(key, traced_bounds.MaskedArray) and \
        key.dtype == np.bool_ and key.shape == array.shape


def _setitem_advanced(array, key, new):
    if packed.has_packed(key):
        return packed.put(array, key, new)
    if isinstance(new, Selected) and new.target[0] is array and new.target[1] is key:
        array.assign(write_selected(array.value, new.target[2], new.value))  # the end of a[mask] op= v
        return
    m = parse_masked(key, array.shape)
    if m is not None and isinstance(new, traced_bounds.MaskedArray):
        return packed.store(array, m, new)
    if m is not None:
        array.assign(write_selected(array.value, m, broadcast_selected(m, value(new, array.dtype))))
        return
    f = parse_fancy(key, array.shape)
    array.assign(write_fancy(array.value, f, _assigned(array, new, f.result_shape)))


def _assigned(array, new, shape):
    """`new` broadcast to the `shape` it is written into. Into an array whose length depends on traced
    values (held at its full extent), a value of another static length is refused: NumPy writes it
    only where the lengths are equal, which only the data decide."""
    update = value(new, array.dtype)
    if isinstance(array, traced_bounds.MaskedArray):
        try:
            np.broadcast_shapes(shape_of(update), tuple(shape))
        except ValueError:
            raise UnsupportedError(
                f"a value of shape {shape_of(update)} written into an array whose length depends on traced values "
                "(x[:k], x[mask]): NumPy writes it only when the lengths are equal, which is known only when the "
                "program runs; select both the same way, or write into the array it came from") from None
    return assigned_value(update, shape)
