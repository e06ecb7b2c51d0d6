"""Loops that slice an array where data says, at a fixed offset in another dimension
(`m[idx[i], 1:3]`, a wrapped `m[i - 1, 2]`), which enzyme-ad 0.0.16's
`greedy_while_loop_batch_fission` gets wrong: it gathers the slices of every iteration at once
but drops the fixed offsets, so `m[idx[i], 2]` read column 0. A loop gathering at fixed indices
from what each iteration reads (`np.interp(xq, xp, fp[t])`) it rewrites without end, until the
process runs out of memory. `pipelines.run` leaves the pattern out for a module holding either."""

from __future__ import annotations

from jaxlib.mlir import ir

from solvent.ir.module import ancestors, constant_integer, defining_op
from solvent.passes.reads_after_writes import _affine, _counters


def sliced_by_data(module: ir.Module) -> bool:
    """Whether a loop of `module` takes a dynamic slice at a start that changes with its iterations
    other than as an affine function of its counters, beside a fixed start other than 0 in another
    dimension (or a slice of the block at such an offset), or gathers at fixed indices from an
    operand that changes with them."""
    found, counters = [], {}

    def visit(op):
        if op.name == "stablehlo.dynamic_slice" and len(op.operands) > 2:
            loop = next((parent for parent in ancestors(op) if parent.name == "stablehlo.while"), None)
            kinds = []
            if loop is not None:
                if loop.operation not in counters:
                    counters[loop.operation] = _counters(loop)
                kinds = [_kind(start, loop, counters[loop.operation]) for start in op.operands[1:]]
            sliced = any(user.name == "stablehlo.slice" and any(_starts(user)) for user in _users(op))
            if "data" in kinds and ("fixed" in kinds or sliced):
                found.append(op)
        elif op.name == "stablehlo.gather":
            loop = next((parent for parent in ancestors(op) if parent.name == "stablehlo.while"), None)
            if loop is not None and _fixed(op.operands[1], loop) and not _fixed(op.operands[0], loop):
                found.append(op)  # (fixed indices into what each iteration reads: the rewrites never end)
        return ir.WalkResult.ADVANCE
    module.operation.walk(visit)
    return bool(found)


def _kind(start, loop, counters) -> str:
    """"zero", "fixed" (the same at every iteration), "affine" (in the loop's `counters`) or "data"."""
    if _fixed(start, loop):
        return "zero" if defining_op(start) is not None and constant_integer(start) == 0 else "fixed"
    return "data" if _affine(start, loop.regions[1].blocks[0], counters) is None else "affine"


def _fixed(value, loop, known=None) -> bool:
    """Whether `value` is made outside `loop`, or inside it from such values only (`c[0]` of an
    array the loop does not change, `i % 4` of an outer loop's index), or is what the loop carries
    unchanged (`known`: the answers so far, as the values they were computed from are shared)."""
    known = {} if known is None else known
    if value in known:
        return known[value]
    known[value] = False  # (while its operands are asked)
    op = defining_op(value)
    owner = (op if op is not None else ir.BlockArgument(value).owner.owner).operation
    if owner != loop.operation and loop.operation not in [parent.operation for parent in ancestors(owner)]:
        found = True
    elif op is None:
        argument, body = ir.BlockArgument(value), loop.regions[1].blocks[0]
        found = argument.owner == body and list(body.operations)[-1].operands[argument.arg_number] == value
    else:
        found = not op.regions and all(_fixed(x, loop, known) for x in op.operands)
    known[value] = found
    return found


def _users(op):
    return [use.owner for use in op.results[0].uses]


def _starts(op) -> list[int]:
    return list(ir.DenseI64ArrayAttr(op.attributes["start_indices"]))
