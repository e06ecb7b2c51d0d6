"""Traced boolean masks: they select a data-dependent number of elements, so they can only
be written through (`a[mask] = v`, `a[mask] += v`), as a select.
"""

from __future__ import annotations

import dis
import sys
from dataclasses import dataclass

import numpy as np
from jaxlib.mlir import ir

from solvent.core.traced import TracedArray
from solvent.errors import UnsupportedError, is_library_file
from solvent.numpy.indexing.advanced import STATIC_SHAPES, basic_part, expand, layout
from solvent.numpy.indexing.basic import Index, read, write
from solvent.numpy.values import broadcast_value
from solvent.ops import elementwise as ew, shape as ops
from solvent.ops.base import shape_of

# -- traced boolean masks: written through as a select -----------------------------------------

@dataclass
class Masked:
    """An index with one traced boolean mask (and slices or integers): a select over the basic read."""

    basic: Index            # slices and integers, the mask's dimensions kept whole
    mask: object            # the traced boolean array
    at: int                 # the mask's first dimension in the basic read
    before: int             # where NumPy's result has its dimension of selected elements
    counted: tuple          # NumPy's result shape with that dimension 1


def parse_masked(key, shape) -> Masked | None:
    """The traced-mask form of an index, or None when it has no traced mask."""
    expanded = expand(key, shape)
    masks = [k for kind, _, k in expanded if kind == "mask"]
    if not masks:
        return None
    if len(masks) > 1 or any(kind == "none" or (kind == "index" and k.ndim) for kind, _, k in expanded):
        raise UnsupportedError(f"a traced boolean mask together with another mask, integer arrays or None: "
                               f"{STATIC_SHAPES}; write np.where(mask, new, a) instead")
    basic = basic_part(expanded, shape, keep=("slice", "index"))
    before, counted = layout(expanded, basic, (1,))
    at = sum(1 for kind, _, _ in expanded[:next(i for i, e in enumerate(expanded) if e[0] == "mask")]
             if kind == "slice")
    return Masked(basic, masks[0], at, before, counted)


def _mask_order(m: Masked, rank: int) -> list[int]:
    """Permutation of the basic read that brings the mask's dimensions to NumPy's result position."""
    dims = list(range(m.at, m.at + m.mask.ndim))
    if m.before == m.at:
        return list(range(rank))
    return dims + [d for d in range(rank) if d not in dims]


def selected_shape(m: Masked) -> list[int]:
    """NumPy's result shape with one slot per mask element in place of the count of True ones."""
    return [*m.counted[:m.before], m.mask.size, *m.counted[m.before + 1:]]


def read_selected(v: ir.Value, m: Masked) -> ir.Value:
    """Every element the mask could select, laid out as NumPy's result (for `a[mask] op= v`)."""
    sub = read(v, m.basic)
    return ops.reshape(ops.transpose(sub, _mask_order(m, len(shape_of(sub)))), selected_shape(m))


def write_selected(v: ir.Value, m: Masked, selected: ir.Value) -> ir.Value:
    """`v` with the masked elements taken from `selected` (laid out as `read_selected` gives)."""
    sub = read(v, m.basic)
    order = _mask_order(m, len(shape_of(sub)))
    selected = ops.reshape(selected, [shape_of(sub)[p] for p in order])
    selected = ops.transpose(selected, np.argsort(order))
    hit = ops.broadcast_in_dim(m.mask.value, shape_of(sub), range(m.at, m.at + m.mask.ndim))
    return write(v, m.basic, ew.select(hit, selected, sub))


def check_count_free(m: Masked, new_shape) -> None:
    """A value stored at a traced mask must not have a dimension for the number of True elements."""
    axis = m.before - (len(m.counted) - len(new_shape))
    if 0 <= axis < len(new_shape) and new_shape[axis] != 1:
        raise UnsupportedError(f"storing an array of shape {tuple(new_shape)} at a traced boolean mask: its "
                               f"length must equal the number of True elements, and {STATIC_SHAPES}; store "
                               f"a scalar or a value broadcast along the masked elements, or write "
                               f"np.where(mask, new, a)")


def broadcast_selected(m: Masked, new: ir.Value) -> ir.Value:
    """A value for the masked elements, broadcast as NumPy would over however many are selected."""
    check_count_free(m, shape_of(new))
    return broadcast_value(broadcast_value(new, m.counted), selected_shape(m))


class Selected(TracedArray):
    """`a[mask]` for a traced mask, read only by `a[mask] op= v`: one slot per mask element, so
    the in-place operation and the store back are selects and the count is never needed (its
    in-place operators are `packed`'s, which knows selections)."""

    target: tuple = ()      # (array, key, Masked) it was read from

    def __repr__(self) -> str:
        return f"Selected({self.aval}, for a[mask] op= value)"


def in_augmented_assignment() -> bool:
    """Whether user code indexed a traced array only to write it straight back, as `a[key] op= v`
    does (Python's bytecode duplicates the array and the key before the read: COPY 2, COPY 2)."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_code is not TracedArray.__getitem__.__code__:
        frame = frame.f_back
    caller = frame.f_back if frame is not None else None
    if caller is None or is_library_file(caller.f_code.co_filename):
        return False  # solvent's own code (an eager call) or NumPy's
    instructions = list(dis.get_instructions(caller.f_code))
    at = next((i for i, ins in enumerate(instructions) if ins.offset == caller.f_lasti), None)
    return at is not None and at >= 2 and all(ins.opname == "COPY" and ins.arg == 2
                                              for ins in instructions[at - 2:at])
