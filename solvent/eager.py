"""Everything that runs outside `jit`: NumPy on `solvent.Array`, and solvent's transformations and
control flow called on concrete values.

Each runs as a small compiled program. The programs live in one cache, keyed on the functions
they run and held weakly, so a cached program never keeps a user's function (or what it closes
over) alive; a program reads the function it runs from the call (`_RUNNING`), never holds it.
Inside a trace the same public functions call the trace-time transformation directly.
"""

from __future__ import annotations

import contextvars
import functools
import types
import warnings
import weakref

import numpy as np

from solvent import eager_keys
from solvent.api import jit
from solvent.core import structure, trace
from solvent.errors import RecompileWarning, user_stacklevel
from solvent.numpy.indexing.key import ARRAY, INTEGER, MASK, Entry, normalize
from solvent.runtime import array as runtime_array
from solvent.transforms import autodiff, batching, control_flow

#: Eager programs hold one or a few ops: the optimization pipeline would cost as much as XLA's
#: own compile (about 20 of the 45 ms a new signature takes) and find nothing to improve.
OPTIONS = {"optimize": False}

#: The functions the program being called runs (read when it traces).
_RUNNING = contextvars.ContextVar("solvent_eager_functions")


class _Node:
    """One level of the program cache: the levels under each function, held weakly where the
    function can be (NumPy's ufuncs and dispatchers cannot; they live as long as the process)."""

    __slots__ = ("weak", "static", "programs")

    def __init__(self):
        self.weak, self.static, self.programs = weakref.WeakKeyDictionary(), {}, {}

    def under(self, owner) -> _Node:
        try:
            return self.weak.setdefault(owner, _Node())
        except TypeError:
            return self.static.setdefault(owner, _Node())


_ROOT = _Node()

#: Programs kept a function (its values changing on every call, a new minibatch, makes a new one each).
_KEPT = 16


def _owners(fn) -> tuple[list, tuple | None]:
    """What a program running `fn` is cached under (held weakly), and the key of what it reads besides
    its arguments (`eager_keys`; None: it cannot be keyed, so the program is not kept): a plain function
    by its code (a lambda made afresh on every call then reuses one program), a bound method by its
    function's code, NumPy's functions by themselves, another callable by its class."""
    if isinstance(fn, types.FunctionType):
        return [fn.__code__], eager_keys.of_function(fn)
    if isinstance(fn, types.MethodType) and isinstance(fn.__func__, types.FunctionType):
        return [fn.__func__.__code__], eager_keys.of(fn)  # (its object by its attributes: it may be unhashable)
    if isinstance(fn, eager_keys.LIBRARY_CALLABLES):
        return [fn], ()
    return [type(fn)], eager_keys.of(fn)


def _node(functions: tuple) -> tuple[_Node, tuple | None]:
    """The cache level of programs running `functions`, and what they read that may change."""
    node, captured = _ROOT, []
    for fn in functions:
        owners, values = _owners(fn)
        for owner in owners:
            node = node.under(owner)
        captured.append(values)
    return node, None if any(v is None for v in captured) else tuple(captured)


def programs_of(*functions) -> dict:
    """The cached programs running `functions`, by form and options (to inspect, as tests do)."""
    return _node(functions)[0].programs


def _program(functions: tuple, key, traced, options=None):
    """The cached program running `traced(*functions)`; `key` names the form and its options. One for
    functions that read what may change unseen (`key` None where a function passed does) is made for
    this call alone, with a warning."""
    node, captured = _node(functions)
    program = node.programs.pop((key, captured), None) if captured is not None and key is not None else None
    if program is not None:
        node.programs[(key, captured)] = program  # (the most recently used last: the first goes when full)
    else:
        program = jit(lambda *args, **kwargs: traced(*_RUNNING.get())(*args, **kwargs), **(options or {}))
        if captured is None or key is None:
            _warn_uncached(functions)
            return program
        node.programs[(key, captured)] = program
        if len(node.programs) > _KEPT:
            del node.programs[next(iter(node.programs))]
    return program


def _warn_uncached(functions: tuple) -> None:
    names = ", ".join(getattr(f, "__qualname__", repr(f)) for f in functions)
    warnings.warn(f"{names} reads an object solvent cannot tell has changed (through a global, closure or "
                  "attribute): outside solvent.jit every call compiles it anew; pass it as an argument, or "
                  "call the transformation inside a solvent.jit function", RecompileWarning,
                  stacklevel=user_stacklevel())


def _call(program, functions: tuple, args, kwargs=None):
    """`program(*args, **kwargs)`, running `functions`."""
    running = _RUNNING.set(functions)
    try:
        return program(*args, **(kwargs or {}))
    finally:
        _RUNNING.reset(running)


def _run(functions: tuple, key, traced, args, kwargs=None, options=None):
    """`traced(*functions)(*args, **kwargs)` as a cached compiled program."""
    return _call(_program(functions, key, traced, options), functions, args, kwargs)


def _index(array, key):
    return array[key]


def _assign(array, key, value):
    array[key] = value


def dynamic_key(key, shape: tuple):
    """`key` with its integers checked against `shape` and passed as device scalars.

    A Python integer in an index is a compile-time constant, so `a[i]` for every
    `i` would compile one program per `i`; as a `solvent.Scalar` it is an input,
    and all of them share one program. Keys with arrays are returned unchanged.
    """
    normalized = normalize(key, shape)
    if not normalized.has(INTEGER) or normalized.has(ARRAY, MASK):
        return key
    return normalized.rebuilt([
        Entry(e.kind, e.dim, runtime_array.Scalar(np.int64(e.value % shape[e.dim]))) if e.kind == INTEGER else e
        for e in normalized.entries])


def _is_mask(e: Entry) -> bool:
    return e.kind == MASK and isinstance(e.value, runtime_array.Array) and e.value.ndim > 0


def masks_as_indices(key, shape: tuple):
    """`key` with each boolean `solvent.Array` replaced by the index arrays of its True elements.

    NumPy's own rule (`a[mask]` is `a[mask.nonzero()]`); outside `jit` the mask's
    values exist, so a masked read is two programs: count the True elements, then
    gather that many.
    """
    normalized = normalize(key, shape)
    if not any(_is_mask(e) for e in normalized.entries):
        return key
    entries = []
    for e in normalized.entries:
        entries += [Entry(ARRAY, e.dim + i, k) for i, k in enumerate(nonzero(e.value))] if _is_mask(e) else [e]
    return normalized.rebuilt(entries)


def _count_nonzero(x):
    return np.sum(x != 0)


def _nonzero_indices(x, size):
    position = np.argsort(np.ravel(x == 0), kind="stable")[:size]
    indices = []
    for n in reversed(x.shape):
        indices.append(position % n)
        position = position // n
    return tuple(reversed(indices))


def nonzero(x) -> tuple:
    """The index arrays of `x`'s nonzero elements in row-major order: one program counts them, a
    second gathers that many (its size is then static)."""
    return function(_nonzero_indices, (x, int(function(_count_nonzero, (x,), {}))), {})


def ufunc(ufunc, method, inputs, kwargs):
    return _run((ufunc,), method, lambda u: lambda inputs, kwargs: getattr(u, method)(*inputs, **kwargs),
                (inputs, kwargs), options=OPTIONS)


#: NumPy functions and ndarray methods that only read values out (to a file, bytes or a string): run
#: by NumPy on host copies outside jit, as there is nothing to compile.
_HOST_FUNCTIONS = {np.save, np.savez, np.savez_compressed, np.savetxt, np.array2string, np.array_repr, np.array_str}
_HOST_METHODS = {"tobytes", "tofile", "dump", "dumps"}


def _on_host(x):
    """`x` with its Arrays (also in lists, tuples and dicts) as host copies."""
    if isinstance(x, runtime_array.Array):
        return np.asarray(x)
    if isinstance(x, (list, tuple)):
        return type(x)(_on_host(v) for v in x)
    return {k: _on_host(v) for k, v in x.items()} if isinstance(x, dict) else x


def function(func, args, kwargs):
    """`func(*args, **kwargs)`; a function among the arguments (np.apply_along_axis's) is traced
    into the program, so what it reads is part of the program's key."""
    if func in _HOST_FUNCTIONS:
        return func(*_on_host(args), **_on_host(kwargs))
    passed = tuple(_owners(f)[1] for f in _functions_in(args, kwargs))
    key = None if any(p is None for p in passed) else ("function", passed)
    return _run((func,), key, lambda f: lambda args, kwargs: f(*args, **kwargs), (args, kwargs),
                options=OPTIONS)


def _functions_in(args, kwargs):
    """The functions among the arguments, and in lists and tuples of them (np.piecewise's)."""
    for x in (*args, *kwargs.values()):
        for item in x if isinstance(x, (list, tuple)) else (x,):
            if callable(item) and not isinstance(item, (type, runtime_array.Array)):
                yield item


def _is_flag(key) -> bool:
    """A boolean scalar as the whole index: `a[True]` is `a[None]`, `a[False]` that, emptied."""
    return isinstance(key, (bool, np.bool_)) or (isinstance(key, runtime_array.Array)
                                                 and key.dtype == np.bool_ and key.ndim == 0)


def getitem(array, key):
    if _is_flag(key):
        expanded = function(_index, (array, None), {})
        return expanded if key else expanded[0:0]
    key = dynamic_key(masks_as_indices(key, array.shape), array.shape)
    return function(_index, (array, key), {})


def setitem(array, key, value):
    if _is_flag(key):
        if not key:
            return
        key = Ellipsis
    key = dynamic_key(masks_as_indices(key, array.shape), array.shape)
    function(_assign, (array, key, value), {})


def method(array, name):
    if not hasattr(np.ndarray, name):
        raise AttributeError(f"'solvent.Array' object has no attribute {name!r}")
    if name in _HOST_METHODS:
        return getattr(np.asarray(array), name)
    if not callable(getattr(np.ndarray, name)):  # flags, strides, base, data, ctypes, flat: of host memory
        raise AttributeError(f"a solvent.Array has no host memory, so no {name!r}; np.asarray(a).{name} is "
                             "that of a host copy")
    return lambda *args, **kwargs: _run((), ("method", name), lambda: lambda a, args, kwargs: getattr(a, name)(
        *args, **kwargs), (array, args, kwargs), options=OPTIONS)


# -- transformations and control flow, called outside jit ----------------------------------


def _transformed(transform, fn, options: dict, numbers=None, after=None):
    """`transform(fn, **options)` usable anywhere: traced inside `jit`, a cached program outside.
    Outside, Python floats among the arguments `numbers(len(args))` picks are passed as 0-d arrays
    (inputs a derivative can be taken by, not constants), and `after(result, args)` finishes."""
    inside = transform(fn, **options)
    key = (transform.__name__, repr(sorted(options.items())))

    @functools.wraps(fn)
    def run(*args, **kwargs):
        if trace.is_tracing():
            return inside(*args, **kwargs)
        chosen = numbers(len(args)) if numbers else ()
        given = tuple(np.asarray(x) if k in chosen and isinstance(x, (float, np.floating)) else x
                      for k, x in enumerate(args))
        result = _run((fn,), key, lambda f: transform(f, **options), given, kwargs)
        return after(result, args) if after else result
    return run


def _as_floats(gradient, args, argnums):
    """Gradients of Python and NumPy float arguments as NumPy floats of their dtype, as the argument
    was a scalar."""
    kinds = [np.float64 if isinstance(args[k], float) else type(args[k]) if isinstance(args[k], np.floating) else None
             for k in autodiff.argument_numbers(argnums, len(args))]
    if isinstance(argnums, int):
        return kinds[0](gradient) if kinds[0] else gradient
    return tuple(kind(g) if kind else g for g, kind in zip(gradient, kinds))


def _argnums(argnums):
    return argnums if isinstance(argnums, int) else tuple(argnums)


@functools.wraps(autodiff.value_and_grad)
def value_and_grad(fn, argnums=0, has_aux=False, *, checkpoint=None):
    argnums = _argnums(argnums)
    return _transformed(autodiff.value_and_grad, fn, dict(argnums=argnums, has_aux=has_aux, checkpoint=checkpoint),
                        numbers=lambda count: autodiff.argument_numbers(argnums, count),
                        after=lambda both, args: (both[0], _as_floats(both[1], args, argnums)))


@functools.wraps(autodiff.grad)
def grad(fn, argnums=0, has_aux=False, *, checkpoint=None):
    argnums = _argnums(argnums)

    def after(result, args):
        gradient = _as_floats(result[0] if has_aux else result, args, argnums)
        return (gradient, result[1]) if has_aux else gradient
    return _transformed(autodiff.grad, fn, dict(argnums=argnums, has_aux=has_aux, checkpoint=checkpoint),
                        numbers=lambda count: autodiff.argument_numbers(argnums, count), after=after)


def _jacobian(transform):
    @functools.wraps(transform)
    def public(fn, argnums=0, has_aux=False):
        argnums = _argnums(argnums)
        return _transformed(transform, fn, dict(argnums=argnums, has_aux=has_aux),
                            numbers=lambda count: autodiff.argument_numbers(argnums, count))
    return public


jacfwd, jacrev, hessian = _jacobian(autodiff.jacfwd), _jacobian(autodiff.jacrev), _jacobian(autodiff.hessian)


@functools.wraps(autodiff.jvp)
def jvp(fn, primals, tangents):
    if trace.is_tracing():
        return autodiff.jvp(fn, primals, tangents)
    autodiff.check_pairs(primals, tangents)
    return _run((fn,), "jvp", lambda f: lambda p, t: autodiff.jvp(f, p, t), (tuple(primals), tuple(tangents)))


@functools.wraps(autodiff.vjp)
def vjp(fn, *primals, has_aux=False, checkpoint=None):
    if trace.is_tracing():
        return autodiff.vjp(fn, *primals, has_aux=has_aux, checkpoint=checkpoint)
    options = dict(has_aux=has_aux, checkpoint=checkpoint)

    def primal(f):
        def run(*primals):
            both = autodiff.vjp(f, *primals, **options)
            return (both[0], both[2]) if has_aux else both[0]
        return run

    at_call = structure.copy_structure(primals, lambda leaf, _: leaf.copy() if type(leaf) is np.ndarray else leaf).tree
    result = _run((fn,), ("vjp", has_aux, checkpoint), primal, primals)  # (which writes back what fn changes)
    pullback_program = _program((fn,), ("vjp pullback", has_aux, checkpoint),
                                lambda f: lambda p, cotangent: autodiff.vjp(f, *p, **options)[1](cotangent))

    def pullback(cotangent):
        return _call(pullback_program, (fn,), (at_call, cotangent))
    return (result[0], pullback, result[1]) if has_aux else (result, pullback)


@functools.wraps(batching.vmap)
def vmap(fn, in_axes=0, out_axes=0, axis_size=None):
    return _transformed(batching.vmap, fn, dict(in_axes=in_axes, out_axes=out_axes, axis_size=axis_size))


@functools.wraps(control_flow.while_loop)
def while_loop(cond_fn, body_fn, init):
    if trace.is_tracing():
        return control_flow.while_loop(cond_fn, body_fn, init)
    return _run((cond_fn, body_fn), "while_loop", lambda c, b: lambda init: control_flow.while_loop(c, b, init),
                (init,))


@functools.wraps(control_flow.fori_loop)
def fori_loop(lower, upper, body_fn, init):
    if trace.is_tracing():
        return control_flow.fori_loop(lower, upper, body_fn, init)
    return _run((body_fn,), "fori_loop", lambda b: lambda lo, hi, init: control_flow.fori_loop(lo, hi, b, init),
                (np.int64(lower), np.int64(upper), init))  # NumPy scalars: bounds are inputs, not constants


@functools.wraps(control_flow.scan)
def scan(f, init, xs=None, length=None):
    if trace.is_tracing():
        return control_flow.scan(f, init, xs, length)
    return _run((f,), "scan", lambda g: lambda init, xs, length: control_flow.scan(g, init, xs, length),
                (init, xs, length))


_HOOKS = runtime_array.EAGER
_HOOKS.ufunc, _HOOKS.function, _HOOKS.getitem, _HOOKS.setitem, _HOOKS.method = ufunc, function, getitem, setitem, method
