"""Batching through Enzyme: `vmap`, one `enzyme.batch` op lowered by the `enzyme-batch` pass.

The function is traced once for one example (see `lifting`); the op runs it
over a leading batch dimension of every input. Inputs not mapped
(`in_axes=None`) and values the body captured are broadcast along it, since
`enzyme.batch` maps all its operands. Mapped arguments the function mutates
get the new values of every example, as the Python loop over the examples
would leave them.
"""

from __future__ import annotations

import functools

import numpy as np
from jaxlib.mlir import ir

from solvent.core import dispatch, spec, structure, trace
from solvent.core.aval import Aval
from solvent.core.traced import TracedArray, TracedScalar
from solvent.errors import SignatureError, UnsupportedError
from solvent.numpy.values import value, wrap
from solvent.ops import enzyme, shape as shape_ops
from solvent.ops.base import shape_of
from solvent.transforms.lifting import lift, rewritten, separated


def vmap(fn, in_axes=0, out_axes=0, axis_size=None):
    """`fn` mapped over an axis of its arguments: `vmap(f)(xs)[i] == f(xs[i])`.

    `in_axes` is one axis (or None: not mapped) for every argument, or a tuple with
    one entry per positional argument, each an axis or a structure of axes matching
    the argument; keyword arguments are mapped over axis 0. `out_axes` places the
    batch axis in the results the same way.

    Example::

        per_example = solvent.vmap(solvent.grad(loss), in_axes=(None, 0, 0))(params, xs, ys)
    """
    @functools.wraps(fn)
    def run(*args, **kwargs):
        with trace.current().emitting():
            return _batch(fn, args, kwargs, in_axes, out_axes, axis_size)
    return run


def _batch(fn, args, kwargs, in_axes, out_axes, axis_size):
    (args, kwargs), _ = separated((args, kwargs))  # one array passed twice is mapped by each position's axis
    copied = structure.copy_structure((args, kwargs), lambda leaf, i: leaf)
    axes = [_axis_of(leaf, _spec_at(in_axes, path, len(args))) for leaf, path in zip(copied.leaves, copied.paths)]
    size = _size(copied.leaves, axes, axis_size)
    examples = {}
    for leaf, axis in zip(copied.leaves, axes):
        if axis is not None:
            shape = tuple(n for d, n in enumerate(leaf.shape) if d != axis)
            examples[id(leaf)] = (TracedScalar if not shape else TracedArray)(None, Aval(shape, np.dtype(leaf.dtype)))
    batched = {id(examples[id(leaf)]): _to_front(value(leaf), axis)
               for leaf, axis in zip(copied.leaves, axes) if axis is not None}
    tree = structure.copy_structure((args, kwargs), lambda leaf, i: examples.get(id(leaf), leaf)).tree
    lifted = lift(_numbers_traced(fn), tree[0], tree[1], "solvent.vmap",
                  operand=lambda leaf: batched[id(leaf)] if id(leaf) in batched else _spread(value(leaf), size))
    signature = lifted.signature
    count = len(lifted.leaves)
    operands = lifted.operands[:count] + [_spread(v, size) for v in lifted.operands[count:]]
    types = [ir.RankedTensorType.get([size, *ir.RankedTensorType(v.type).shape],
                                     ir.RankedTensorType(v.type).element_type) for v in lifted.output_values()]
    results = enzyme.batch(lifted.name, operands, types, size)
    if signature.setters or signature.deleted:
        raise UnsupportedError("a function mapped by solvent.vmap reassigns attributes or items of its "
                               "arguments; return the new values instead")
    originals = {id(examples[id(leaf)]): (leaf, axis) for leaf, axis in zip(copied.leaves, axes) if axis is not None}
    for i, k in signature.mutated.items():
        leaf, axis = originals.get(id(lifted.leaves[i]), (None, None))
        if axis is None:
            raise UnsupportedError("a function mapped by solvent.vmap mutates an argument that is not mapped "
                                   "(in_axes=None); map it, or return the new value")
        if isinstance(leaf, TracedArray):
            leaf.assign(_from_front(results[k], axis))
    placed = _out_axes(signature.result, out_axes)
    unmapped = [k for k in range(len(results)) if placed.get(k, 0) is None]
    if unmapped:
        mapped = [i for i, leaf in enumerate(lifted.leaves) if id(leaf) in batched]
        varying = _depending(lifted, mapped, unmapped)
        if varying:
            raise SignatureError(f"vmap out_axes={out_axes!r} leaves output {varying[0]} unmapped (None), but it "
                                 "depends on the mapped arguments; give it an axis")
    outputs = []
    for k, result in enumerate(results):
        axis = placed.get(k, 0)
        if axis is None:
            example = shape_ops.slice(result, [0] * len(shape_of(result)), [1, *shape_of(result)[1:]],
                                      [1] * len(shape_of(result)))
            outputs.append(wrap(shape_ops.reshape(example, shape_of(result)[1:]), scalar=signature.output_scalar[k]))
        else:
            outputs.append(wrap(_from_front(result, _normalize(axis, len(shape_of(result)))), scalar=False))
    return lifted.finish(outputs, effects=False)


def _numbers_traced(fn):
    """`fn` whose result's constants (numbers and NumPy arrays, anywhere in its structure) are traced:
    outputs, which the map stacks as NumPy's loop over the examples would (`lambda v: 2.0` gives one
    2.0 per example)."""
    fn = rewritten(fn)  # (`lift` would rewrite `run`, not the user's function)

    @functools.wraps(fn)
    def run(*args, **kwargs):
        result = fn(*args, **kwargs)
        leaves = structure.flatten(result, _constant_or_array)
        return structure.unflatten(result, [wrap(value(x), scalar=np.ndim(x) == 0) if _constant(x) else x
                                            for x in leaves], _constant_or_array)
    return run


def _constant(x) -> bool:
    return isinstance(x, (int, float, complex, np.generic, np.ndarray))


def _constant_or_array(x) -> bool:
    return _constant(x) or structure.is_array(x)


def _depending(lifted, arguments: list[int], outputs: list[int]) -> list[int]:
    """Those of `outputs` of the lifted function that depend on its `arguments` (through any op,
    and through the ops inside its regions: an output of a loop depends on all it reads)."""
    block = lifted.built.function.regions[0].blocks[0]
    sources = {block.arguments[i] for i in arguments}
    returned = list(block.operations[-1].operands)

    def depends(v) -> bool:
        seen, values = set(), [v]
        while values:
            v = values.pop()
            if v in sources:
                return True
            owner = v.owner
            op = owner.owner if isinstance(owner, ir.Block) else owner  # (a region's argument: its op's)
            if isinstance(owner, ir.Block) and owner == block or op is None or op in seen:
                continue
            seen.add(op)
            values += _read_by(op)
        return False
    return [k for k in outputs if depends(returned[k])]


def _read_by(op) -> list:
    """The values `op` and the ops in its regions read."""
    read, ops = [], [op]
    while ops:
        o = ops.pop()
        read += list(o.operands)
        ops += [inner for region in o.regions for b in region.blocks for inner in b.operations]
    return read


def _spec_at(in_axes, path, count: int):
    """The entry of `in_axes` (a prefix of the arguments' structure) that covers `path`."""
    if path.part == 1:  # keyword arguments: mapped over their first axis
        return 0
    spec = in_axes
    if isinstance(spec, (tuple, list)) and len(spec) != count:
        raise ValueError(f"vmap in_axes has {len(spec)} entries for {count} positional arguments")
    for key in (step.key for step in path[1:]):
        if spec is None or isinstance(spec, int):
            return spec
        try:
            spec = spec[key]
        except (KeyError, IndexError, TypeError):
            raise ValueError(f"vmap in_axes {in_axes!r} does not match the arguments' structure") from None
    return spec


def _axis_of(leaf, axis):
    if axis is None:
        return None
    if not isinstance(axis, (int, np.integer)):
        raise ValueError(f"vmap in_axes entries are axes or None, got {axis!r}")
    return _normalize(int(axis), len(leaf.shape))


def _normalize(axis: int, ndim: int) -> int:
    if not -ndim <= axis < ndim:
        raise ValueError(f"vmap axis {axis} is out of range for an array of {ndim} dimensions")
    return axis % ndim


def _size(leaves, axes, axis_size) -> int:
    sizes = {leaf.shape[axis] for leaf, axis in zip(leaves, axes) if axis is not None}
    if axis_size is not None:
        sizes.add(axis_size)
    if len(sizes) != 1:
        raise ValueError("vmap needs one size along the mapped axes, got "
                         f"{sorted(sizes) if sizes else 'no mapped argument (pass axis_size=)'}")
    return sizes.pop()


def _to_front(v: ir.Value, axis: int) -> ir.Value:
    rank = len(shape_of(v))
    return shape_ops.transpose(v, [axis] + [d for d in range(rank) if d != axis])


def _from_front(v: ir.Value, axis: int) -> ir.Value:
    rank = len(shape_of(v))
    order = list(range(1, rank))
    order.insert(axis, 0)
    return shape_ops.transpose(v, order)


def _spread(v: ir.Value, size: int) -> ir.Value:
    """`v` repeated along a new leading axis."""
    shape = shape_of(v)
    return shape_ops.broadcast_in_dim(v, (size, *shape), range(1, len(shape) + 1))


def _out_axes(result, out_axes) -> dict:
    """Output index -> the batch axis `out_axes` (a prefix of the result's structure) gives it."""
    placed = {}

    def walk(node, axes):
        if isinstance(node, spec.Output):
            if axes is not None and not isinstance(axes, (int, np.integer)):
                raise ValueError(f"vmap out_axes {out_axes!r} does not match the result's structure")
            placed[node.index] = axes
        elif isinstance(node, spec.Node):
            for (_, key), child in node.children:
                try:
                    walk(child, axes if axes is None or isinstance(axes, int) else axes[key])
                except (KeyError, IndexError, TypeError):
                    raise ValueError(f"vmap out_axes {out_axes!r} does not match the result's structure") from None
    walk(result, out_axes)
    return placed


dispatch.HOOKS.vmap = vmap  # np.vectorize on traced values (solvent.numpy.vectorize) maps through it
