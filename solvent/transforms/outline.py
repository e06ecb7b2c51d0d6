"""Call outlining: a function called repeatedly with one signature is traced once as a `func.func`.

Reactant's call cache. Every later call with the same argument structure,
shapes, dtypes and static values becomes a `func.call`, so a layer applied 100
times is traced once. Calls that cannot be expressed as a pure function of
their arguments (they write arrays from outside, read traced values from a
closure, change Python objects or rebind globals and `nonlocal` names, return
views of their arguments, or return selections of data-dependent length) are
inlined as plain calls instead, and remembered as such.
"""

from __future__ import annotations

import functools

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import func

from solvent.core import spec, structure, trace
from solvent.core.traced import TracedArray
from solvent.numpy.matrix_type import as_matrix
from solvent.numpy.values import value, wrap
from solvent.tracing import build_function
from solvent.transforms import python_objects
from solvent.transforms.identity import Either

_INLINE = object()
def outlined(fn, key=None):
    """`fn`, called as an outlined function while tracing (and as itself otherwise).

    `key` identifies the function in the per-trace cache (default: `fn` itself).
    """
    identity = fn if key is None else key

    @functools.wraps(fn)
    def call(*args, **kwargs):
        session = trace.current()
        if session is None or _closure_holds_traced(fn) or _holds_traced((args, kwargs), padded=True) or \
                _holds_traced((args, kwargs), iterator=True):
            return fn(*args, **kwargs)  # a slice of traced length has no parameter type: inlined, it keeps its mask
            # (and an iterator gives each call other items)
        cache = session.outlined
        leaves = structure.copy_structure((args, kwargs), lambda leaf, i: leaf).leaves
        weak = tuple(getattr(leaf, "weak", False) for leaf in leaves)  # (Python numbers' stand-ins stay such)
        key = (identity, structure.signature_key((args, kwargs)), weak, session.differentiated > 0)
        entry = cache.get(key)
        if entry is None:
            entry = cache[key] = _outline(session, fn, args, kwargs)
        if entry is _INLINE:
            return fn(*args, **kwargs)
        return _call(session, entry, args, kwargs)
    call.__solvent_outlined__ = True
    return call


def _closure_holds_traced(fn) -> bool:
    return _holds_traced(fn, depth=1)


def _holds_traced(obj, depth: int = 4, padded: bool = False, iterator: bool = False) -> bool:
    """Whether a value the function returns as a Python object (a closure, a partial, an object)
    reaches a traced array (`padded`: one of traced length; `iterator`: an iterator instead) through
    its closure, arguments or attributes, `depth` steps down."""
    if isinstance(obj, TracedArray):
        return not iterator and (obj.padded or not padded)
    if depth == 0 or obj is None or isinstance(obj, (bool, int, float, complex, str, bytes, type)):
        return False
    if hasattr(obj, "__next__"):  # a generator or iterator runs its code later, in the caller
        return not padded
    if isinstance(obj, functools.partial):
        parts = [obj.func, *obj.args, *obj.keywords.values()]
    elif hasattr(obj, "__code__"):  # a function: its closure and defaults
        parts = [c.cell_contents for c in (obj.__closure__ or ()) if _filled(c)]
        parts += [*(obj.__defaults__ or ()), *(obj.__kwdefaults__ or {}).values()]
    elif hasattr(obj, "__self__") and hasattr(obj, "__func__"):  # a bound method
        parts = [obj.__self__]
    elif isinstance(obj, (list, tuple, set, frozenset)):
        parts = list(obj)
    elif isinstance(obj, slice):  # bounds traced inside (`slice(None, i)` of the helper's argument i)
        parts = [obj.start, obj.stop, obj.step]
    elif isinstance(obj, dict):
        parts = list(obj.values())
    else:
        parts = list(getattr(obj, "__dict__", {}).values())
    return any(_holds_traced(part, depth - 1, padded, iterator) for part in parts)


def _statics(node):
    """The static values of a result spec (see `core.spec`)."""
    if isinstance(node, spec.Static):
        yield node.value
    elif isinstance(node, (spec.Spec, tuple)):
        for part in (node if isinstance(node, tuple) else vars(node).values()):
            if isinstance(part, (spec.Spec, tuple)):
                yield from _statics(part)


def _filled(cell) -> bool:
    try:
        cell.cell_contents
    except ValueError:
        return False
    return True


def _outline(session, fn, args, kwargs):
    try:
        with python_objects.unchanged(fn, None) as changed:  # (put back: the call inlined makes the changes)
            built = build_function(session.module, getattr(fn, "__name__", "fn"), fn, (args, kwargs), within=session)
    except python_objects.LostIterator:
        raise
    except Exception:  # (inlined, the call raises again, its changes made as NumPy's run makes them)
        return _INLINE
    arguments = set(map(id, built.copied.tracers))
    returns_view = any(t._parent is not None and id(t.root()) in arguments for t in built.outputs)
    # a closure returned that holds a value traced inside would use it from the caller's function
    leaks = any(_holds_traced(value) for value in _statics(built.signature.result))
    pure = not (built.outside_writes or built.signature.setters or built.signature.deleted or returns_view
                or built.padded or leaks or changed)
    if pure:
        try:
            built.function.operation.verify()  # a closure's traced value would be used across functions
        except ir.MLIRError:
            pure = False
    for array, old in built.outside_writes.values():
        array.restore(old)
    if not pure:
        built.function.operation.erase()
        return _INLINE
    return built


def _call(session, built, args, kwargs):
    """Emit `func.call` and rebuild the results; arguments mutated inside take their new values."""
    signature = built.signature
    leaves = structure.copy_structure((args, kwargs), lambda leaf, i: leaf).leaves
    with session.emitting():
        operands = [value(leaf) for leaf in leaves]
        results = list(func.CallOp(built.function, operands).results)
    for i, k in signature.mutated.items():
        leaves[i].assign(results[k])
    outputs = [wrap(r, scalar=s) for r, s in zip(results, signature.output_scalar)]
    for k in signature.output_python:
        outputs[k].weak = True
    return build_result(signature.result, leaves, outputs, (args, kwargs))


def build_result(node: spec.Spec, leaves, outputs, root):
    """Rebuild a traced function's result from its spec (see `core.spec`)."""
    if isinstance(node, spec.Input):
        return leaves[node.index]
    if isinstance(node, spec.Output):
        return outputs[node.index]
    if isinstance(node, spec.Static):
        return node.value
    if isinstance(node, spec.Either):
        return Either(value(build_result(node.which, leaves, outputs, root)),
                      [build_result(c, leaves, outputs, root) for c in node.choices],
                      build_result(node.own, leaves, outputs, root))
    if isinstance(node, spec.Argument):
        return node.path.reach(root)
    if isinstance(node, spec.Matrix):
        return as_matrix(build_result(node.data, leaves, outputs, root))
    return node.build([build_result(child, leaves, outputs, root) for _, child in node.children])
