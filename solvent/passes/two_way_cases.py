"""Two-branch `stablehlo.case` ops on scalars as `stablehlo.if`, before the Enzyme-JAX pipeline.

A traced Python `if` (or `a if c else b`) is traced as a case on the index `not c`. The
pipeline turns an `if` of cheap branches into a select (`if_to_select`), but matches no case:
`stddev[j] = 1.0 if stddev[j] <= eps else stddev[j]` stayed a conditional per iteration, and
its loop could not become one array op (correlation: 121 -> 90 us). `case(i) {b0} {b1}` runs b0
when i == 0 and b1 for every other index (a case runs its last branch when the index is out of
range), which is `if (i == 0) {b0} else {b1}`.

Only cases that compute scalars (values of one element) change: with array work in a
branch, the pipeline moves some of it out of the `if`, where it runs on every path (nussinov's
split search: 12.7 -> 18.6 ms), and running one branch only is the point of the conditional.
"""

from __future__ import annotations

import math

from jaxlib.mlir import ir

from solvent.ir.context import context
from solvent.ir.module import ops_where, parse, to_text
from solvent.ops import elementwise as ew
from solvent.ops.base import create, shape_of


def as_ifs(module_text: str) -> str:
    """`module_text` with every two-branch `stablehlo.case` on scalars an equivalent
    `stablehlo.if` (the text itself when there is none)."""
    if '"stablehlo.case"' not in module_text:
        return module_text
    module = parse(module_text)
    found = ops_where(module, lambda op: op.name == "stablehlo.case" and len(op.regions) == 2 and _on_scalars(op))
    if not found:
        return module_text
    with context():
        for case in found:
            with ir.InsertionPoint(case), case.location:
                index = case.operands[0]
                first = ew.compare("EQ", index, ew.const(index, 0))
                branch = create("stablehlo.if", [first], [r.type for r in case.results], regions=2)
            for region, block in zip(branch.regions, [r.blocks[0] for r in case.regions]):
                block.append_to(region)
            for old, new in zip(case.results, branch.results):
                old.replace_all_uses_with(new)
            case.erase()
    return to_text(module)


def _on_scalars(case) -> bool:
    """Whether the case and every op in its branches make values of one element at most."""
    return not ops_where(case, lambda op: any(
        isinstance(r.type, ir.RankedTensorType) and math.prod(shape_of(r)) > 1 for r in op.results))
