"""Tracing a function into a pure `func.func` that Enzyme's ops can name: `fn = @name`.

`enzyme.autodiff`, `enzyme.fwddiff` and `enzyme.batch` take a symbol, so the
function they transform has to be a function of its inputs alone. The body is
traced inside the enclosing trace (so NumPy semantics, fresh arrays and
control flow work as anywhere else); afterwards every value it read from the
enclosing function (a traced array captured by a closure, a global, an
attribute) becomes an extra input, passed at the call site. Arguments the body
mutates come back as outputs and are written back by `Lifted.finish`.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import func

from solvent.core import structure, trace
from solvent.core.traced import TracedArray, TracedScalar
from solvent.errors import UnsupportedError
from solvent.numpy.values import value, wrap
from solvent.tracing import Built, build_function
from solvent.transforms import equivalents
from solvent.transforms.source import rewrite
from solvent.transforms.outline import build_result

@dataclass
class Lifted:
    """One traced function: its inputs are the caller's array leaves, then the captured values."""

    built: Built
    tree: tuple                 # (args, kwargs) as the caller passed them
    leaves: list                # the caller's arrays, one per leading input of the function
    operands: list[ir.Value]    # the call's operands: the leaves' values at the call, then the
                                # values of the enclosing function the body read (captures)
    called: tuple = ()          # (args, kwargs) as they were at the call, before `finish` wrote the
                                # items and attributes the body reassigned

    @property
    def name(self) -> str:
        return self.built.function.sym_name.value

    @property
    def signature(self):
        return self.built.signature

    def reached(self) -> list:
        """This function and every function of the module it names (calls, Enzyme ops), transitively."""
        functions = {op.sym_name.value: op for op in self.built.session.module.body.operations
                     if isinstance(op, func.FuncOp)}
        seen, todo = [], [self.name]
        while todo:
            name = todo.pop()
            if name in seen or name not in functions:
                continue
            seen.append(name)
            todo += re.findall(r"@([\w$.-]+)", str(functions[name]))
        return [functions[name] for name in seen]

    def output_values(self) -> list[ir.Value]:
        """The function's return values (to learn their types)."""
        return list(self.built.function.regions[0].blocks[0].operations[-1].operands)

    def finish(self, outputs: list, effects: bool = True):
        """The caller's result from one traced array per output; arguments the body mutated
        (and containers it reassigned) take their new values first when `effects`."""
        signature = self.signature
        if effects:
            for i, k in signature.mutated.items():
                if isinstance(self.leaves[i], TracedArray):
                    self.leaves[i].assign(value(outputs[k]))
            for path, step, spec in signature.setters:
                structure.set_child(path.reach(self.tree), step, build_result(spec, self.leaves, outputs, self.tree))
            for path, step in signature.deleted:
                structure.delete_child(path.reach(self.tree), step)
        return build_result(signature.result, self.leaves, outputs, self.tree)


def lift(fn, args: tuple, kwargs: dict, purpose: str, operand=value) -> Lifted:
    """Trace `fn(*args, **kwargs)` into a private function of the module being traced.

    `purpose` names the transformation in error messages ("solvent.grad");
    `operand(leaf)` is the value passed for an array leaf (default: its value now).
    """
    session = trace.current()
    fn = rewritten(fn)
    name = f"{re.sub(r'[^a-zA-Z0-9_]', '_', getattr(fn, '__name__', 'fn'))}_{purpose.split('.')[-1]}"
    (args, kwargs), apart = separated((args, kwargs))
    built = build_function(session.module, name, _returning_copies(fn), (args, kwargs), within=session)
    if apart and built.signature.mutated:  # written through: one array passed twice stays one, as in NumPy
        for array, old in built.outside_writes.values():
            array.restore(old)
        built.function.operation.erase()
        args, kwargs = structure.unflatten((args, kwargs), [apart.get(id(x), x) for x in structure.flatten((args, kwargs))])
        built = build_function(session.module, name, _returning_copies(fn), (args, kwargs), within=session)
    if built.padded:
        built.function.operation.erase()
        raise UnsupportedError(f"the function given to {purpose} returns an array whose length depends on "
                               "traced values (x[mask], np.nonzero): its length differs between calls; reduce it "
                               "inside the function")
    own = {id(t) for t in built.copied.tracers}
    outside = [array for key, (array, _) in built.outside_writes.items() if key not in own]
    for array, old in built.outside_writes.values():
        if id(array) not in own:
            array.restore(old)
    if outside:
        built.function.operation.erase()
        if any(getattr(array, "generator", False) for array in outside):
            raise UnsupportedError(f"the function given to {purpose} draws random numbers, which would change "
                                   "its generator's state from inside it; draw them outside the function and "
                                   "pass them in as an argument")
        raise UnsupportedError(f"the function given to {purpose} assigns to an array from outside it "
                               f"({outside[0].aval}); pass that array as an argument, or return its new value")
    with built.function.context:
        captured = _lift_captured(built.function)
    leaves = built.copied.leaves
    with session.emitting():
        operands = [operand(leaf) for leaf in leaves] + captured
    lifted = Lifted(built, (args, kwargs), leaves, operands,
                    structure.copy_structure((args, kwargs), lambda leaf, _: leaf).tree)
    with built.function.context:
        equivalents.rewrite(lifted.reached(), "batch" if purpose == "solvent.vmap" else "derivative")
    return lifted


def separated(tree):
    """`tree` with each traced array that shares memory with an earlier one (one array passed twice,
    or a view of it) a new traced array of its value, and {new array's id: the array}: arguments of
    a transformation have their own roles (`vmap(f, in_axes=(0, None))(X, X)` maps one of them,
    `grad(f)(x, x)` differentiates one), which one input for both would merge."""
    roots, apart, leaves = set(), {}, []
    for leaf in structure.flatten(tree):
        if isinstance(leaf, TracedArray) and id(leaf.root()) in roots:
            with trace.current().emitting():
                new = wrap(value(leaf), scalar=isinstance(leaf, TracedScalar))
            new.weak, apart[id(new)], leaf = leaf.weak, leaf, new
        elif isinstance(leaf, TracedArray):
            roots.add(id(leaf.root()))
        leaves.append(leaf)
    return (structure.unflatten(tree, leaves) if apart else tree), apart


def rewritten(fn):
    """`fn` with its control flow rewritten (see `rewrite`), through `functools.partial` too."""
    if isinstance(fn, functools.partial):
        return functools.partial(rewritten(fn.func), *fn.args, **fn.keywords)
    if rewrite.HELPER in getattr(getattr(fn, "__code__", None), "co_freevars", ()):
        return fn  # defined inside rewritten code: rewritten with it already
    return rewrite.convert(fn)


def _returning_copies(fn):
    """`fn` whose result holds fresh arrays: an argument returned as itself becomes an output too,
    so every transformed result is a program output (transformations return new arrays, as JAX)."""
    def run(*args, **kwargs):
        result = fn(*args, **kwargs)
        with trace.current().emitting():  # (a view's value is read here: its slice is emitted)
            return structure.copy_structure(result, _fresh).tree
    return run


def _fresh(leaf, index):
    return wrap(value(leaf), scalar=isinstance(leaf, TracedScalar))


def _lift_captured(function) -> list[ir.Value]:
    """Make every value the body uses but does not define an input of `function`; returns them."""
    defined: set = set()
    uses: list = []

    def visit(op):
        for region in op.regions:
            for block in region.blocks:
                defined.update(block.arguments)
        defined.update(op.results)
        uses.append(op)
        return ir.WalkResult.ADVANCE

    function.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
    entry = function.regions[0].blocks[0]
    captured: list[ir.Value] = []
    arguments: dict = {}
    for op in uses:
        for i, operand in enumerate(list(op.operands)):
            if operand in defined:
                continue
            if operand not in arguments:
                captured.append(operand)
                arguments[operand] = entry.add_argument(operand.type, ir.Location.unknown(function.context))
            op.operands[i] = arguments[operand]
    if captured:
        kind = ir.FunctionType(ir.TypeAttr(function.attributes["function_type"]).value)
        inputs = list(kind.inputs) + [v.type for v in captured]
        function.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(inputs, list(kind.results)))
    return captured
