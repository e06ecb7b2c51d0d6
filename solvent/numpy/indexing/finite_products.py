"""A product summed over an axis of traced length (`A[i, :i] @ A[:i, i:]`) with only the smaller
factor zeroed outside the valid part of that axis, checked.

Both factors are held at full extent. NumPy sums only the valid part; zeroing one factor outside
it makes every other term 0 * x, which is exactly zero (so the sum is NumPy's bit for bit) unless
some x there is infinite or NaN. Then 0 * x is NaN, and it reaches the result: so where the
valid part of the result is all finite, it is exact; where not, the product is taken again with
both factors zeroed, in a branch that runs only then. Zeroing the larger factor was a select
over a whole matrix per loop iteration: LU by rows at n=400 paid 30 ms of its 95 ms for it.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from jaxlib.mlir import ir

from solvent.numpy.elementwise.bodies import isfinite
from solvent.numpy.repeat import branch
from solvent.ops import elementwise as ew, reduction
from solvent.ops.base import shape_of
from solvent.ops.constant import constant


def exact_unless_finite(fast: ir.Value, valid: ir.Value, exact: Callable[[], ir.Value]) -> ir.Value:
    """`fast` where it is finite on `valid` (a boolean of its shape), else `exact()`, emitted in
    a branch taken only then."""
    finite = ew.binary("or", isfinite(fast), ew.unary("not", valid))
    true = constant(np.array(True))
    everywhere = reduction.reduce([finite], [true], range(len(shape_of(fast))),
                                  lambda x, y: [ew.binary("and", x, y)])[0]
    return branch(everywhere, lambda: fast, exact, fast.type)
