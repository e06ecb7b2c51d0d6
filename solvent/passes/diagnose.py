"""Pass pipeline failures as errors at the user's line: the op Enzyme cannot differentiate, or
the loop whose trip count reverse mode would need."""

from __future__ import annotations

import re

from jaxlib.mlir import ir

from solvent.errors import CompileError
from solvent.ir.module import parse


#: Enzyme ops in a traced module; XLA knows none of them, so every level lowers them.
ENZYME_OPS = re.compile(r'"enzyme\.(autodiff|fwddiff|batch)"')

#: Enzyme's messages for an op it cannot differentiate; the op's name is the last group.
_NO_DERIVATIVE = [re.compile(r'could not compute the adjoint for this operation\s+%\S+ = "([\w.]+)"'),
                  re.compile(r'Unsupported ([\w ]+) autodiff[^\n]*\n\s*%\S+ = "([\w.]+)"')]


def explained(message: str, module_text: str, level: str) -> CompileError:
    """A pipeline failure as an error naming the op and the user's line, where Enzyme says which."""
    for pattern in _NO_DERIVATIVE:
        found = pattern.search(message)
        if found:
            name, text = found.groups()[-1], _normalized(message[found.start(len(found.groups())) - 1:])
            where = (_location_of(module_text, lambda op: text.startswith(_normalized(_generic(op))))
                     or _location_of(module_text, lambda op: op.name == name))
            return CompileError(f"Enzyme has no derivative for `{name}` (used at {_describe(where)}); "
                                "differentiate around it, or express it with other NumPy functions", where)
    if "enzyme.autodiff" in module_text:
        where = _location_of(module_text, _uncounted_loop)
        if where is not None:
            return CompileError(
                f"reverse mode (grad, vjp, jacrev) cannot go through the `while` loop at {_describe(where)}: "
                "its trip count depends on traced values, and the reverse pass must know how many steps to "
                "store. Use forward mode (solvent.jvp, solvent.jacfwd), or a loop with a static trip count "
                f"(Enzyme said: {message.strip().splitlines()[-1]})", where)
    said = [line.strip() for line in message.strip().splitlines() if line.strip()]
    advice = ("every level runs the passes that lower its grad or vmap, so optimize=False does not avoid them; "
              "take the failing transform out to run the rest" if ENZYME_OPS.search(module_text)
              else "compile with solvent.jit(f, optimize=False) to run it unoptimized")
    return Undiagnosed(f"the {level!r} pass pipeline (Enzyme-JAX) failed on this program, which is a bug in "
                       f"solvent or Enzyme-JAX rather than in the program ({said[-1] if said else 'no message'}); "
                       f"{advice}, and report it")


class Undiagnosed(CompileError):
    """A pipeline failure that names no op of the program: the passes themselves went wrong."""


def _generic(op) -> str:
    text = op.get_asm(print_generic_op_form=True, enable_debug_info=False)
    return text.split(" = ", 1)[-1] if text.startswith("%") else text


def _normalized(text: str) -> str:
    """Op text without value names and spacing, to compare an op Enzyme printed with ours."""
    return re.sub(r"\s+", "", re.sub(r"[%^][\w#:]+", "%", text))


def _describe(where) -> str:
    return f"{where[0]}:{where[1]}" if where else "an unknown line"


def _location_of(module_text: str, matches):
    """(file, line) of the first op for which `matches(op)`, or None."""
    found = []

    def visit(op):
        if not found and matches(op):
            place = re.search(r'"([^"]+)":(\d+)', str(op.location))
            found.append((place.group(1), int(place.group(2))) if place else None)
        return ir.WalkResult.ADVANCE
    parse(module_text).operation.walk(visit)
    return found[0] if found else None


def _uncounted_loop(op) -> bool:
    """A `stablehlo.while` carrying floats whose condition is not `counter < constant limit`."""
    if op.name != "stablehlo.while" or not any("f" in str(v.type).split("x")[-1] for v in op.operands):
        return False
    cond, body = op.regions[0].blocks[0], op.regions[1].blocks[0]
    predicate = list(cond.operations)[-1].operands[0]
    compare = _defining(predicate)
    if compare is None or compare.name != "stablehlo.compare":
        return True
    inits, arguments = list(op.operands), list(body.arguments)
    returned = list(list(body.operations)[-1].operands)

    def argument(v):
        v = v.maybe_downcast()
        return v.arg_number if isinstance(v, ir.BlockArgument) and v.owner == cond else None

    def fixed(v):
        j = argument(v)
        return _constant(v) if j is None else returned[j] == arguments[j] and _constant(inits[j])

    def counter(v):
        j = argument(v)
        step = _defining(returned[j]) if j is not None else None
        return (step is not None and step.name in ("stablehlo.add", "stablehlo.subtract") and _constant(inits[j])
                and arguments[j] in list(step.operands) and any(_constant(x) for x in step.operands))
    a, b = compare.operands
    return not ((counter(a) and fixed(b)) or (counter(b) and fixed(a)))


def _defining(v):
    v = v.maybe_downcast()
    return None if isinstance(v, ir.BlockArgument) else v.owner


def _constant(v) -> bool:
    op = _defining(v)
    if op is None:
        return False
    if op.name in ("stablehlo.convert", "stablehlo.broadcast_in_dim", "stablehlo.reshape"):
        return _constant(op.operands[0])
    return op.name == "stablehlo.constant"
