"""Products of arrays with traced bounds (`traced_bounds.MaskedArray`) summed over an axis of
traced length: np.dot, np.matmul and the like of slices such as `A[i, :i] @ A[:i, i:]`, with the
padding zero so that it adds nothing, chunk by chunk where the axes are long."""

from __future__ import annotations

import numpy as np

from solvent.errors import UnsupportedError
from solvent.numpy.indexing import chunked_products
from solvent.numpy.indexing.finite_products import exact_unless_finite
from solvent.numpy.indexing.traced_bounds import (FUNCTIONS, MaskedArray, aligned_starts, elementwise, is_sliced,
                                                  masked_result, operand_form, same_key, to_zero)
from solvent.numpy.indexing.traced_lengths import mask, one_extent
from solvent.numpy.products import MATMUL_HINT
from solvent.numpy.values import wrap
from solvent.ops.base import shape_of


def _product(a, b, b_axis, zeroed=(True, True)):
    """The factors of a product summed over a's last axis and b's `b_axis`, lined up along it (and
    zero outside the valid part there, each where `zeroed` says), with each one's (lengths, starts,
    keys) per axis."""
    fa = operand_form(a, len(a.shape), zeroed[0] and _summed_masked(a, -1))
    fb = operand_form(b, len(b.shape), zeroed[1] and _summed_masked(b, b_axis))
    if fa is None or fb is None or not same_key(fa[2][-1], fb[2][b_axis]):
        to_zero(fa, len(a.shape) - 1, len(a.shape))
        to_zero(fb, b_axis % len(b.shape), len(b.shape))
    if fa is not None and fb is not None and fa[3][-1] is not None and fb[3][b_axis] is not None:
        fa[0], fb[0] = one_extent([fa[0], fb[0]], [len(a.shape) - 1, b_axis % len(b.shape)])  # (bases' may differ)
    factors = [x if f is None else wrap(f[0], scalar=False) for x, f in ((a, fa), (b, fb))]
    parts = [[list(f[k]) for k in (3, 1, 2)] if f is not None else [[None] * len(x.shape)] * 3
             for x, f in ((a, fa), (b, fb))]
    return factors, parts


#: Result types whose dot of two vectors is np.sum of their products, in type and value (np.sum
#: widens integers and booleans, and NumPy accumulates float16 dots in float32).
_SUMMED_PRODUCTS = frozenset(map(np.dtype, (np.float32, np.float64, np.complex64, np.complex128)))


def _summed_masked(x, axis) -> bool:
    return isinstance(x, MaskedArray) and x.lengths[axis] is not None


def contracted(numpy_function, a, b, b_axis, result_parts):
    """`numpy_function(a, b)` (np.matmul or np.dot) summed over a's last axis and b's `b_axis`:
    a vector and a matrix that both have a traced length there with only the vector zeroed (see
    `finite_products`). Two vectors make a sum of products zeroed once (not each factor: zeroing
    a row of a matrix read in a loop let the optimizer zero the whole matrix before the loop).
    Elsewhere zeroing costs little beside the product itself. Slices of long axes of their bases
    are summed chunk by chunk instead: a vector with a matrix here (`chunked_products`), two
    vectors as the sum of their products (`chunked_reductions`)."""
    dtype = np.result_type(a.dtype, b.dtype)
    summed = _summed_masked(a, -1) and _summed_masked(b, b_axis)  # both of traced length where summed
    if (summed and dtype in _SUMMED_PRODUCTS and min(len(a.shape), len(b.shape)) == 1
            and a._axes is not None and b._axes is not None):
        keys = [[ax[3] for ax in x._axes if is_sliced(ax)] for x in (a, b)]
        v = chunked_products.product((a._parent.value, a._axes, -1), (b._parent.value, b._axes, b_axis), dtype,
                                     same_key(keys[0][-1], keys[1][b_axis]))
        if v is not None:
            parts = [[list(x.lengths), aligned_starts(x._axes), k] for x, k in zip((a, b), keys)]
            return masked_result(v, *[result_parts(x, y) for x, y in zip(*parts)])
    if summed and len(a.shape) == len(b.shape) == 1 and dtype in _SUMMED_PRODUCTS:
        return np.sum(elementwise(np.multiply, [a, b], {}))
    zeroed = (True, True)
    if summed and dtype.kind in "fc" and min(len(a.shape), len(b.shape)) == 1 and max(len(a.shape), len(b.shape)) > 1:
        zeroed = (len(a.shape) == 1, len(b.shape) == 1)
    (pa, pb), parts = _product(a, b, b_axis, zeroed)
    parts = [result_parts(x, y) for x, y in zip(*parts)]
    v = numpy_function(pa, pb).value
    if all(zeroed):
        return masked_result(v, *parts)

    def exact():
        (pa, pb), _ = _product(a, b, b_axis)
        return numpy_function(pa, pb).value
    return masked_result(exact_unless_finite(v, mask(shape_of(v), parts[0], parts[1]), exact), *parts)


def matmul(a, b, **kwargs):
    if kwargs:
        raise UnsupportedError(f"np.matmul with {', '.join(kwargs)}=: {MATMUL_HINT}")
    return contracted(np.matmul, a, b, -2 if len(b.shape) > 1 else -1,
                       lambda x, y: (x[:-1] if len(x) > 1 else []) + (y[-1:] if len(y) > 1 else []))


FUNCTIONS[np.matmul] = matmul  # (a ufunc: `traced_bounds.ufunc_on_masked` looks it up here)
