"""Derivatives through Enzyme: `grad`, `value_and_grad`, `vjp`, `jvp`, `jacfwd`, `jacrev`, `hessian`.

Each transformation traces the user's function once into a private
`func.func` (see `lifting`) and emits one Enzyme op that names it: reverse
mode is `enzyme.autodiff`, forward mode `enzyme.fwddiff`, with one activity
per input (`enzyme_active`/`enzyme_dup` for the differentiated float arrays,
`enzyme_const` for the rest and for values the body captured) and one per
output. Jacobians batch one such op over every unit direction with
`enzyme.batch` (see `batching`). The `enzyme` pass in `passes.py` turns the
ops into plain StableHLO, so nesting (`grad` of `grad`, `jacfwd` of `jacrev`)
is nesting of ops. Outside `jit`, each transformation runs as a small jitted
program. Ops Enzyme has no rule for are first rewritten (see `equivalents`);
where none exists, the pipeline's error names the op and the user's line.

Gradients come back in the structure of the differentiated arguments (a
dict of parameters gives a dict, a dataclass a dataclass); integer arrays
inside such a structure get zero gradients. Arguments the function mutates
in place are written back once, as a call of the function would.
"""

from __future__ import annotations

import functools

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import func

from solvent.core import spec, structure, trace
from solvent.core.traced import TracedScalar
from solvent.errors import SignatureError, UnsupportedError
from solvent.numpy.values import full, value, wrap
from solvent.ops import elementwise as ew, enzyme, shape as shape_ops
from solvent.ops.base import shape_of
from solvent.ops.constant import iota
from solvent.transforms import batching, regions
from solvent.transforms.lifting import Lifted, lift
from solvent.transforms.outline import build_result


# -- Enzyme ops ----------------------------------------------------------------------------


def _reverse(lifted: Lifted, active: list[bool], seeds: dict, keep):
    """`enzyme.autodiff` of `lifted`: seeds[k] is output k's cotangent; `keep` the outputs whose
    primal values are wanted (True: all). Returns ({k: primal}, {i: gradient of input i})."""
    outputs = lifted.output_values()
    operands = lifted.operands
    activity = ["active" if i < len(active) and active[i] else "const" for i in range(len(operands))]
    returns, types = [], []
    for k, out in enumerate(outputs):
        need = keep is True or k in keep
        returns.append(("active" if k in seeds else "const") + ("" if need else "noneed"))
        types += [out.type] if need else []
    wanted = [k for k in range(len(outputs)) if keep is True or k in keep]
    differentiated = [i for i, a in enumerate(active) if a]
    results = enzyme.autodiff(lifted.name, operands + [seeds[k] for k in sorted(seeds)],
                              types + [operands[i].type for i in differentiated], activity, returns)
    return dict(zip(wanted, results)), dict(zip(differentiated, results[len(wanted):]))


def _forward(lifted: Lifted, tangents: dict, differentiate: set, keep):
    """`enzyme.fwddiff` of `lifted`: tangents[i] is input i's tangent, `differentiate` the outputs
    whose tangents are wanted. Returns ({k: primal}, {k: tangent})."""
    operands, activity = [], []
    for i, operand in enumerate(lifted.operands):
        operands.append(operand)
        if i in tangents:
            operands.append(tangents[i])
        activity.append("dup" if i in tangents else "const")
    returns, types, slots = [], [], []
    for k, out in enumerate(lifted.output_values()):
        need = keep is True or k in keep
        kind = "dup" if k in differentiate else "const"
        returns.append(kind + ("" if need else "noneed"))
        if need:
            types.append(out.type)
            slots.append(("primal", k))
        if k in differentiate:
            types.append(out.type)
            slots.append(("tangent", k))
    primals, derivatives = {}, {}
    for (slot, k), result in zip(slots, enzyme.fwddiff(lifted.name, operands, types, activity, returns)):
        (primals if slot == "primal" else derivatives)[k] = result
    return primals, derivatives


# -- arguments and results ------------------------------------------------------------------


def argument_numbers(argnums, count: int) -> tuple[int, ...]:
    numbers = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    for k in numbers:
        if not -count <= k < count:
            raise ValueError(f"argnums {argnums} names argument {k}, but the function was called with "
                             f"{count} positional arguments")
    return tuple(k % count for k in numbers)


def _is_float(dtype) -> bool:
    return np.issubdtype(dtype, np.floating)


def _traced_scalars(args: tuple, numbers, purpose: str, integers: bool = False) -> tuple:
    """Python and NumPy floats among the differentiated arguments, or inside their structures,
    become traced scalars (Python scalars are otherwise compile-time constants, which have no
    derivative); an integer argument is an error, as an integer array is, unless `integers`
    (forward mode and vjp take them as constants)."""
    def convert(x):
        if isinstance(x, (float, np.floating)):
            return wrap(value(np.float64(x) if isinstance(x, float) else x), scalar=True)
        return x

    def converted(k, x):
        if k not in numbers:
            return x
        if _is_integer(x) and not integers:
            raise SignatureError(f"{purpose} differentiates floats; argument {k} is the integer {x!r}. Pass a "
                            "float, or leave it out of argnums")
        leaves = regions.leaves_of(x)
        if not any(isinstance(leaf, (float, np.floating)) for leaf in leaves):
            return x
        return regions.rebuild(x, [convert(leaf) for leaf in leaves])
    with trace.current().emitting():
        return tuple(converted(k, x) for k, x in enumerate(args))


def _is_integer(x) -> bool:
    """A Python or NumPy integer or bool (not an array)."""
    return type(x) in (bool, int) or isinstance(x, (np.bool_, np.integer))


def _active(lifted: Lifted, numbers, purpose: str) -> list[bool]:
    """Which inputs are differentiated: float arrays inside the arguments `numbers`."""
    active = []
    for leaf, path in zip(lifted.leaves, lifted.built.copied.paths):
        inside = path.part == 0 and path.argument in numbers
        if inside and len(path) == 2 and not _is_float(leaf.dtype):
            raise SignatureError(f"{purpose} differentiates float arrays; argument {path.argument} is "
                            f"{leaf.dtype}. Convert it with .astype(float), or leave it out of argnums")
        if inside and np.issubdtype(leaf.dtype, np.complexfloating):
            raise UnsupportedError(f"{purpose} of a function of complex arrays")
        active.append(inside and _is_float(leaf.dtype))
    return active


def _like_arguments(lifted: Lifted, argnums, derivative):
    """The arguments `argnums`, as they were at the call, rebuilt with `derivative(i, leaf)` for each
    array leaf i (and a zero of its type for each integer inside them, as integer arrays get zeros)."""
    index = {id(leaf): i for i, leaf in enumerate(lifted.leaves)}

    def rebuilt(x):
        x = structure.copy_structure(x, lambda leaf, _: derivative(index[id(leaf)], leaf)).tree
        leaves = regions.leaves_of(x)
        if not any(_is_integer(leaf) for leaf in leaves):
            return x
        return regions.rebuild(x, [type(leaf)(0) if _is_integer(leaf) else leaf for leaf in leaves])
    args = lifted.called[0]
    trees = [rebuilt(args[k]) for k in argument_numbers(argnums, len(args))]
    return trees[0] if isinstance(argnums, int) else tuple(trees)


def _is_scalar(leaf) -> bool:
    return isinstance(leaf, TracedScalar) or getattr(leaf, "is_scalar", False)


def _wrap_outputs(lifted: Lifted, primals: dict) -> list:
    signature = lifted.signature
    return [wrap(primals[k], scalar=signature.output_scalar[k]) if k in primals else None
            for k in range(len(signature.output_avals))]


def _split_aux(result: spec.Spec, has_aux: bool, purpose: str):
    """(spec of the differentiated result, spec of aux or None)."""
    if not has_aux:
        return result, None
    if not isinstance(result, spec.Node) or result.kind not in (tuple, list) or len(result.children) != 2:
        raise SignatureError(f"{purpose}(..., has_aux=True) needs a function returning a pair (output, aux)")
    return result.children[0][1], result.children[1][1]


def _returned(node: spec.Spec) -> str:
    """What a function returned instead of a traced array, for an error message."""
    if isinstance(node, spec.Static):
        return repr(node.value)
    if isinstance(node, spec.Node):
        return f"a {node.kind.__name__}"
    return "an argument returned as itself"


def _output_indices(result: spec.Spec) -> list[int]:
    """Output indices under a result spec, in the order the structure lists them."""
    return list(result.outputs())


def _ones(shape, dtype) -> ir.Value:
    return full(1, shape, dtype)


def _identity(n: int, dtype) -> ir.Value:
    rows, columns = iota((n, n), np.int64, 0), iota((n, n), np.int64, 1)
    return ew.convert(ew.compare("EQ", rows, columns), dtype)


def _columns(matrix: ir.Value, start: int, stop: int) -> ir.Value:
    n = shape_of(matrix)[0]
    return shape_ops.slice(matrix, [0, start], [n, stop], [1, 1])


def _rows(matrix: ir.Value, start: int, stop: int) -> ir.Value:
    shape = shape_of(matrix)
    return shape_ops.slice(matrix, [start] + [0] * (len(shape) - 1), [stop, *shape[1:]], [1] * len(shape))


def _lift(fn, args, kwargs, purpose: str) -> Lifted:
    """`fn` lifted for Enzyme to differentiate (traced in the forms it has rules for)."""
    with _session(purpose).differentiating():
        return lift(fn, args, kwargs, purpose)


def _session(purpose: str):
    session = trace.current()
    if session is None:
        raise UnsupportedError(f"{purpose} outside solvent.jit needs the function form")
    return session


# -- reverse mode ---------------------------------------------------------------------------


def value_and_grad(fn, argnums=0, has_aux=False, *, checkpoint=None):
    """`fn`'s value and its gradient with respect to the arguments `argnums`.

    `fn` returns a float scalar (or `(scalar, aux)` with `has_aux`). The gradient
    has the structure of the argument (a dict of parameters gives a dict).
    `checkpoint=k` stores the loops' state only every k iterations and recomputes
    the rest in the reverse pass (Enzyme's loop checkpointing): memory for a long
    loop drops from one copy per iteration to about n/k + k.

    Example::

        loss, g = solvent.value_and_grad(lambda w, x: np.sum((x @ w) ** 2))(w, x)
    """
    _checked_period(checkpoint)

    @functools.wraps(fn)
    def run(*args, **kwargs):
        return _value_and_grad(fn, args, kwargs, argnums, has_aux, checkpoint)
    return run


def grad(fn, argnums=0, has_aux=False, *, checkpoint=None):
    """The gradient of the float-scalar function `fn` with respect to the arguments `argnums`.

    Example::

        @solvent.jit
        def step(params, x, y):
            g = solvent.grad(loss)(params, x, y)   # a dict, like params
            return {name: p - 0.1 * g[name] for name, p in params.items()}
    """
    both = value_and_grad(fn, argnums, has_aux, checkpoint=checkpoint)

    @functools.wraps(fn)
    def run(*args, **kwargs):
        value_, gradient = both(*args, **kwargs)
        return (gradient, value_[1]) if has_aux else gradient
    return run


def _value_and_grad(fn, args, kwargs, argnums, has_aux, checkpoint):
    purpose = "solvent.grad"
    session = _session(purpose)
    numbers = argument_numbers(argnums, len(args))
    args = _traced_scalars(args, numbers, purpose)
    lifted = _lift(fn, args, kwargs, purpose)
    loss_spec, _ = _split_aux(lifted.signature.result, has_aux, purpose)
    if not isinstance(loss_spec, spec.Output):
        raise SignatureError(f"{purpose} needs a function returning a float scalar array, got {_returned(loss_spec)}")
    k = loss_spec.index
    aval = lifted.signature.output_avals[k]
    if aval.shape != () or not _is_float(aval.dtype):
        raise SignatureError(f"{purpose} needs a function returning a float scalar, got {aval}; "
                        "reduce it (np.sum) or use solvent.jacrev / solvent.vjp")
    active = _active(lifted, numbers, purpose)
    _checkpoint(lifted, checkpoint)
    with session.emitting():
        primals, gradients = _reverse(lifted, active, {k: _ones((), aval.dtype)}, keep=True)
    result = lifted.finish(_wrap_outputs(lifted, primals))

    def derivative(i, leaf):
        if i in gradients:
            return wrap(gradients[i], scalar=_is_scalar(leaf))
        return wrap(full(0, leaf.shape, leaf.dtype), scalar=_is_scalar(leaf))
    with session.emitting():
        return result, _like_arguments(lifted, argnums, derivative)


def vjp(fn, *primals, has_aux=False, checkpoint=None):
    """`(fn(*primals), pullback)`; `pullback(cotangent)` is the tuple of cotangents of `primals`.

    Example::

        y, pullback = solvent.vjp(np.sin, x)
        (dx,) = pullback(np.ones_like(y))
    """
    _checked_period(checkpoint)
    purpose = "solvent.vjp"
    session = _session(purpose)
    primals = _traced_scalars(tuple(primals), range(len(primals)), purpose, integers=True)
    lifted = _lift(fn, primals, {}, purpose)
    out_spec, _ = _split_aux(lifted.signature.result, has_aux, purpose)
    active = _active(lifted, range(len(primals)), purpose)
    _checkpoint(lifted, checkpoint)
    with session.emitting():
        results = list(func.CallOp(lifted.built.function, lifted.operands).results)
    everything = lifted.finish(_wrap_outputs(lifted, dict(enumerate(results))))
    out = everything[0] if has_aux else everything

    def pullback(cotangent):
        with _session(purpose).emitting():
            seeds = _seeds(lifted, out_spec, cotangent)
            gradients = _reverse(lifted, active, seeds, keep=set())[1] if seeds else {}

            def derivative(i, leaf):
                if i in gradients:
                    return wrap(gradients[i], scalar=_is_scalar(leaf))
                return wrap(full(0, leaf.shape, leaf.dtype), scalar=_is_scalar(leaf))
            return _like_arguments(lifted, tuple(range(len(primals))), derivative)
    return (out, pullback, everything[1]) if has_aux else (out, pullback)


def _seeds(lifted: Lifted, result: spec.Spec, cotangent) -> dict:
    """Output index -> its cotangent value, pairing `cotangent` with the result's structure."""
    seeds: dict = {}
    signature = lifted.signature

    def pair(node, ct):
        if isinstance(node, spec.Output):
            k, aval = node.index, signature.output_avals[node.index]
            if _is_float(aval.dtype) and ct is not None:
                _same_shape(ct, aval, f"the cotangent of output {k}")
                v = value(ct, aval.dtype, aval.shape)
                seeds[k] = ew.binary("add", seeds[k], v) if k in seeds else v
        elif isinstance(node, spec.Node):
            kids = structure.children(ct) or []
            if len(kids) != len(node.children):
                raise SignatureError(f"the cotangent has {len(kids)} parts where the output has {len(node.children)}")
            for (_, child_spec), (_, child) in zip(node.children, kids):
                pair(child_spec, child)
    pair(result, cotangent)
    return seeds


# -- forward mode ---------------------------------------------------------------------------


def jvp(fn, primals, tangents):
    """`(fn(*primals), tangent of the output)` for tangents of `primals` (same structures).

    Example::

        y, dy = solvent.jvp(np.sin, (x,), (np.ones_like(x),))
    """
    purpose = "solvent.jvp"
    session = _session(purpose)
    check_pairs(primals, tangents)
    primals = _traced_scalars(tuple(primals), range(len(primals)), purpose, integers=True)
    lifted = _lift(fn, primals, {}, purpose)
    active = _active(lifted, range(len(primals)), purpose)
    tree = (tuple(tangents), {})
    signature = lifted.signature
    differentiate = {k for k in _output_indices(signature.result) if _is_float(signature.output_avals[k].dtype)}
    with session.emitting():
        given = {}
        for i, (leaf, path) in enumerate(zip(lifted.leaves, lifted.built.copied.paths)):
            if active[i]:
                tangent = _reach(tree, path)
                _same_shape(tangent, leaf, f"tangent {path.argument}" + path[2:].expression("", repr))
                given[i] = value(tangent, leaf.dtype, leaf.shape)
        primal_values, tangent_values = _forward(lifted, given, differentiate, keep=True)
        out = lifted.finish(_wrap_outputs(lifted, primal_values))
        tangent_outputs = [wrap(tangent_values[k], scalar=signature.output_scalar[k]) if k in tangent_values
                           else wrap(full(0, aval.shape, aval.dtype), scalar=signature.output_scalar[k])
                           for k, aval in enumerate(signature.output_avals)]
        return out, build_result(signature.result, lifted.leaves, tangent_outputs, lifted.tree)


def check_pairs(primals, tangents) -> None:
    """jvp's primals and tangents: tuples (or lists) of one length."""
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise SignatureError("solvent.jvp takes the primals and the tangents as tuples: jvp(f, (x,), (t,))")
    if len(primals) != len(tangents):
        raise SignatureError(f"solvent.jvp was given {len(primals)} primals and {len(tangents)} tangents")


def _same_shape(given, aval, what: str) -> None:
    if np.shape(given) != tuple(aval.shape):
        raise SignatureError(f"{what} has shape {np.shape(given)} where it needs {tuple(aval.shape)}")


def _reach(tree, path):
    try:
        return path.reach(tree)
    except (KeyError, IndexError, AttributeError, TypeError):
        raise SignatureError("the tangents do not have the structure of the primals") from None


# -- Jacobians ------------------------------------------------------------------------------


def jacfwd(fn, argnums=0, has_aux=False):
    """The Jacobian of `fn` by forward mode: one `enzyme.fwddiff`, batched over the unit tangents.

    For an output of shape S and an argument of shape T the block has shape S + T;
    structures nest as JAX's: the output's structure, each leaf the argument's structure.

    Example::

        J = solvent.jacfwd(lambda x: np.sin(x) * x[0])(x)    # J[i, j] = d out[i] / d x[j]
    """
    return _jacobian(fn, argnums, has_aux, "jacfwd")


def jacrev(fn, argnums=0, has_aux=False):
    """The Jacobian of `fn` by reverse mode: one `enzyme.autodiff`, batched over the unit
    cotangents of the outputs; shaped as `jacfwd`'s."""
    return _jacobian(fn, argnums, has_aux, "jacrev")


def hessian(fn, argnums=0, has_aux=False):
    """The Hessian of a float-scalar function: `jacfwd(jacrev(fn))`.

    Example::

        H = solvent.hessian(lambda x: np.sum(x ** 3))(x)      # np.diag(6 * x)
    """
    return jacfwd(jacrev(fn, argnums, has_aux), argnums, has_aux)


def _jacobian(fn, argnums, has_aux, mode):
    @functools.wraps(fn)
    def run(*args, **kwargs):
        numbers = argument_numbers(argnums, len(args))
        purpose = f"solvent.{mode}"
        session = _session(purpose)
        args = _traced_scalars(args, numbers, purpose)
        lifted = _lift(fn, args, kwargs, purpose)
        out_spec, _ = _split_aux(lifted.signature.result, has_aux, purpose)
        active = _active(lifted, numbers, purpose)
        with session.emitting():
            blocks = _jacobian_blocks(lifted, active, out_spec, mode)
            everything = lifted.finish(_wrap_outputs(lifted, _primals(lifted, has_aux)))
            jacobians = _jacobian_structure(lifted, argnums, out_spec, blocks)
        return (jacobians, everything[1]) if has_aux else jacobians
    return run


def _layout(shapes) -> list[tuple[int, int]]:
    """(start, stop) of each flattened shape in their concatenation."""
    spans, start = [], 0
    for shape in shapes:
        size = int(np.prod(shape, dtype=np.int64))
        spans.append((start, start + size))
        start += size
    return spans


def _basis(shapes, dtypes) -> list:
    """The unit vectors of the concatenated flattened `shapes`, one batch of them per shape:
    for shape j an array (n, *shape_j), n the total size."""
    spans = _layout(shapes)
    n = spans[-1][1]
    eye = _identity(n, np.float64)
    return [wrap(shape_ops.reshape(ew.convert(_columns(eye, start, stop), dtype), (n, *shape)), scalar=False)
            for shape, dtype, (start, stop) in zip(shapes, dtypes, spans)]


def _jacobian_blocks(lifted, active, out_spec, mode):
    """{(k, i): d output k / d input i} for float outputs k under `out_spec` and active inputs i.

    Forward mode pushes every unit tangent of the inputs through one `enzyme.fwddiff`,
    reverse mode pulls every unit cotangent of the outputs through one `enzyme.autodiff`;
    either is batched over the unit vectors with `enzyme.batch`. (Enzyme's own vector
    mode, `width`, aborts the process in enzyme-ad 0.0.16 on slices and nested derivatives.)
    """
    dtypes = {i: lifted.leaves[i].dtype for i in range(len(active))}
    avals = lifted.signature.output_avals
    outputs = _float_outputs(lifted, out_spec)
    inputs = [i for i, a in enumerate(active) if a]
    in_shapes = [tuple(lifted.leaves[i].shape) for i in inputs]
    out_shapes = [avals[k].shape for k in outputs]
    if not outputs or not inputs or not sum(int(np.prod(s)) for s in in_shapes + out_shapes):
        return {}
    if mode == "jacfwd":
        def pushforward(*tangent):
            derivatives = _forward(lifted, {i: value(t) for i, t in zip(inputs, tangent)}, set(outputs),
                                   keep=set())[1]
            return [wrap(derivatives[k], scalar=False) for k in outputs]
        columns = batching.vmap(pushforward)(*_basis(in_shapes, [dtypes[i] for i in inputs]))
        spans = _layout(in_shapes)
        return {(k, i): _moved(_rows(value(column), *span), shape, out_shape)
                for k, column, out_shape in zip(outputs, columns, out_shapes)
                for i, shape, span in zip(inputs, in_shapes, spans)}

    def pullback(*seed):
        gradients = _reverse(lifted, active, {k: value(s) for k, s in zip(outputs, seed)}, keep=set())[1]
        return [wrap(gradients[i], scalar=False) for i in inputs]
    rows = batching.vmap(pullback)(*_basis(out_shapes, [avals[k].dtype for k in outputs]))
    spans = _layout(out_shapes)
    return {(k, i): shape_ops.reshape(_rows(value(row), *span), (*out_shape, *shape))
            for i, row, shape in zip(inputs, rows, in_shapes)
            for k, out_shape, span in zip(outputs, out_shapes, spans)}


def _moved(rows: ir.Value, in_shape, out_shape) -> ir.Value:
    """Rows (in_size, *out_shape) as the block (*out_shape, *in_shape)."""
    block = shape_ops.reshape(rows, (*in_shape, *out_shape))
    return shape_ops.transpose(block, [len(in_shape) + a for a in range(len(out_shape))] + list(range(len(in_shape))))


def _checked_period(period) -> None:
    """`checkpoint=` is None (or False), True (Enzyme's choice of period) or a number of steps, at least 1."""
    if not (period is None or isinstance(period, bool) or type(period) is int and period >= 1):
        raise ValueError(f"checkpoint={period!r}: give a number of loop steps (an int, at least 1), True to let "
                         "Enzyme choose, or None")


def _checkpoint(lifted: Lifted, period) -> None:
    """Mark every loop the function runs for Enzyme's checkpointing (state kept every `period` steps)."""
    if not period:
        return
    with lifted.built.function.context:
        _mark_loops(lifted, period)


def _mark_loops(lifted: Lifted, period) -> None:
    attributes = {"enzyme.enable_checkpointing": ir.BoolAttr.get(True)}
    if period is not True:
        attributes["enzyme.checkpoint_period"] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), int(period))

    def mark(op):
        if op.name == "stablehlo.while":
            for name, attribute in attributes.items():
                op.attributes[name] = attribute
        return ir.WalkResult.ADVANCE
    for function in lifted.reached():
        function.operation.walk(mark, ir.WalkOrder.PRE_ORDER)


def _primals(lifted, wanted: bool = True) -> dict:
    """The function's outputs by a plain call, when they are `wanted` or it has effects to apply."""
    signature = lifted.signature
    if not (wanted or signature.mutated or signature.setters or signature.deleted):
        return {}
    return dict(enumerate(func.CallOp(lifted.built.function, lifted.operands).results))


def _float_outputs(lifted, spec) -> list[int]:
    avals = lifted.signature.output_avals
    return list(dict.fromkeys(k for k in _output_indices(spec) if _is_float(avals[k].dtype)))


def _jacobian_structure(lifted, argnums, out_spec, blocks):
    """The output's structure; at each output leaf, the arguments' structure of Jacobian blocks."""
    avals = lifted.signature.output_avals

    def for_output(k):
        def block(i, leaf):
            if (k, i) in blocks:
                return wrap(blocks[(k, i)], scalar=False)
            dtype = np.result_type(avals[k].dtype, leaf.dtype, np.float64)
            return wrap(full(0, (*avals[k].shape, *leaf.shape), dtype), scalar=False)
        return _like_arguments(lifted, argnums, block)
    per_output = [for_output(k) if k in _output_indices(out_spec) else None for k in range(len(avals))]
    return build_result(out_spec, lifted.leaves, per_output, lifted.tree)
