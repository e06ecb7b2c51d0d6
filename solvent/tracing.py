"""Function + arguments -> verified StableHLO module + the signature the thunk needs.

The function runs once on a traced copy of its arguments. Afterwards the copy is
compared with the original: an input tracer with a new value was mutated in
place, a container whose child is another object had it reassigned. Both
become extra program outputs that the thunk writes back to the caller's objects.
"""

from __future__ import annotations

import collections
import itertools
import re
from dataclasses import dataclass, field
from types import GeneratorType

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import func

import solvent.numpy  # noqa: F401  (fills the dispatch table)
from solvent.core import spec, structure
from solvent.core.aval import Aval
from solvent.core.spec import Argument, Cut, Deleted, Either, Input, Matrix, Node, Output, Row, Setter, Static
from solvent.core.structure import KEYED_TYPES, Path
from solvent.core.trace import NeedsGlobalRandom, Trace, tracing
from solvent.core.traced import TRACED_TEXT, TracedArray, TracedScalar, padded
from solvent.errors import EscapedValueError, TracerConversionError, UnsupportedError
from solvent.ir.context import context
from solvent.ir.module import new_module, verify
from solvent.ir.types import SUPPORTED_DTYPES, tensor_type
from solvent.numpy.aliasing import view_of_owner
from solvent.numpy.creation import fresh_arrays
from solvent.numpy.matrix_type import TracedMatrix
from solvent.ops import shape as shape_ops
from solvent.runtime.sharding import spans_devices


@dataclass
class Signature:
    """What a traced program needs from and gives back to the caller."""

    input_paths: list[Path]    # path of each program input in (args, kwargs, IMPLICIT)
    input_avals: list[Aval]
    input_kinds: list[type]    # type of the caller's object for each input
    output_avals: list[Aval] = field(default_factory=list)
    output_scalar: list[bool] = field(default_factory=list)
    output_python: set = field(default_factory=set)  # scalar outputs NumPy gives as Python's (float(), a loop index)
    result: spec.Spec = None   # how the thunk rebuilds the result
    mutated: dict = field(default_factory=dict)   # input index -> output index (in-place)
    setters: list[Setter] = field(default_factory=list)   # containers' children reassigned
    deleted: list[Deleted] = field(default_factory=list)  # containers' children removed
    input_shardings: list = field(default_factory=list)  # per input: its sharding if over several devices
    byteswapped: set = field(default_factory=set)  # inputs given in the other byte order (converted in)
    reshaped: dict = field(default_factory=dict)  # input index -> (file, line) of its `x.shape = ...`
    layouts: dict = field(default_factory=dict)   # input index -> the strides the program depends on


#: How many new arrays of one shape and dtype a returned list, tuple or dict holds before they are one output.
PACKED = 16

#: Inputs a program may take beyond its arguments, at path (2, i) of its inputs' tree (args, kwargs,
#: IMPLICIT): the global RandomState, for a function that calls np.random.rand & co.
IMPLICIT = (np.random.mtrand._rand,)


@dataclass
class Traced:
    module: ir.Module
    signature: Signature


def trace(fn, args: tuple, kwargs: dict, static_argnames=(), unroll: int | None = None, pack: bool = True) -> Traced:
    """Run `fn` on traced copies of its arguments and build the module `main` (`pack`: many results of
    one type in a list, tuple or dict may be one output, see `Row`)."""
    traced_kwargs = {k: v for k, v in kwargs.items() if k not in static_argnames}
    static_kwargs = {k: v for k, v in kwargs.items() if k in static_argnames}
    try:
        module = new_module()
        built = build_function(module, "main", fn, (args, traced_kwargs), static_kwargs, unroll=unroll, pack=pack)
    except NeedsGlobalRandom:  # np.random.rand & co.: the global RandomState's state is an input too
        module = new_module()
        built = build_function(module, "main", fn, (args, traced_kwargs, IMPLICIT), static_kwargs, unroll=unroll,
                               pack=pack)
    try:
        verify(module)
    except ir.MLIRError as error:
        if "does not dominate" in str(error):
            raise EscapedValueError(
                "a value computed inside a traced loop or branch escaped it through a Python object "
                "(a list, an attribute, a global) and is used after it; return it from the loop or "
                "branch instead", location=_defined_at(str(error)), rolled=built.session.rolled) from None
        raise
    return Traced(module, built.signature)


@dataclass
class Built:
    """A function traced into a `func.func` of a module."""

    function: func.FuncOp
    signature: Signature
    copied: structure.Copied
    session: Trace
    result: object = None
    outside_writes: dict = field(default_factory=dict)  # arrays of an enclosing trace assigned inside
    outputs: list = field(default_factory=list)         # the traced array behind each output
    padded: bool = False  # its result has a length known only at run time: to be inlined, not called


def _free_name(module, base: str) -> str:
    """`base_k` for the least k no symbol of `module` has: a module's text then depends on the
    module alone, not on what the process traced before (the persistent cache's key)."""
    taken = {op.attributes["sym_name"].value for op in (o.operation for o in module.body.operations)
             if "sym_name" in op.attributes}
    return next(f"{base}_{k}" for k in itertools.count() if f"{base}_{k}" not in taken)


def build_function(module, name, fn, tree, static_kwargs=None, *, within: Trace | None = None,
                   unroll: int | None = None, pack: bool = False) -> Built:
    """Trace `fn(*args, **kwargs)` for `tree = (args, kwargs)` into a new `func.func @name`
    (for a name other than "main", `@name_k` with the least k free in `module`).

    Outside any trace this starts a new one; `within` an enclosing trace (call
    outlining) the body is traced as a region of it, so writes to its arrays are seen.
    """
    layout = structure.copy_structure(tree, lambda leaf, index: leaf)
    inputs = _Inputs(layout, structure.shared_memory(layout.leaves) if within is None else {})
    copied = structure.copy_structure(tree, inputs.tracer)
    pending = inputs.tracers
    avals = [t.aval for t in pending]  # (`x.shape = ...` may give an argument another)
    function, block = _new_function(module, name, avals)
    arguments = list(block.arguments)
    types = [a.type for a in arguments]
    for tracer, argument in zip(pending, arguments):
        tracer._value = argument
    call_args, call_kwargs = copied.tree[:2]
    if within is None:
        session = Trace(module, block, unroll)
        if len(tree) > 2:
            session.global_random = copied.tree[2][0]
            session.global_random.name = "np.random"
        try:
            with tracing(session), fresh_arrays():
                result = fn(*call_args, **call_kwargs, **(static_kwargs or {}))
                if isinstance(result, GeneratorType):
                    result.close()
                    raise UnsupportedError(f"{getattr(fn, '__qualname__', 'the function')} is a generator: its body "
                                           "runs only as it is iterated, after the trace; return a list or an array")
        except EscapedValueError as error:
            error.rolled = list(session.rolled)
            raise
        writes = {}
    else:
        session = within
        result, writes = _traced_inside(session, block, function, fn, call_args,
                                        {**call_kwargs, **(static_kwargs or {})})
    signature = Signature(inputs.paths, avals, [type(x) for x in inputs.objects])
    if within is not None and any(t.padded for t in structure.flatten(result) if isinstance(t, TracedArray)):
        return Built(function, signature, copied, session, result, writes, padded=True)
    signature.input_shardings = [_sharding_of(x) for x in inputs.objects]
    signature.byteswapped = inputs.swapped
    with context(), ir.InsertionPoint(block), ir.Location.unknown():  # views may still emit their reads
        outputs = _Outputs(signature, copied, inputs, cuts=within is None, pack=pack)
        signature.result = outputs.spec(result)
        for i, tracer in enumerate(pending):
            if tracer._value != arguments[i]:
                signature.mutated[i] = outputs.add(tracer)
            if tracer.reshaped_at is not None:
                signature.reshaped[i] = tracer.reshaped_at
            if tracer.layout_read:
                signature.layouts[i] = tuple(inputs.objects[i].strides)
        _find_reassignments(copied, outputs, signature)
        func.ReturnOp(outputs.values)
        function.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(
            types, [v.type for v in outputs.values]))
    return Built(function, signature, copied, session, result, writes, outputs.keep)


def _traced_inside(session, block, function, fn, args, kwargs):
    """`fn(*args, **kwargs)` traced into `block`, the body of `function`, within `session` (a call
    outlined): its result and its writes to arrays from outside. Where it raises, nothing of the
    attempt stays: its writes are undone and the function is erased."""
    with session.inside(block) as region:
        try:
            return fn(*args, **kwargs), dict(region.writes)
        except BaseException:
            for array, old in region.writes.values():
                array.restore(old)
            region.discard()
            function.operation.erase()
            raise


def _new_function(module, name: str, avals: list):
    """A new `func.func` in `module` taking arrays of `avals` (private, and named `name_k`, unless
    "main"), and its entry block."""
    with context(), ir.Location.unknown():
        types = [tensor_type(a.shape, a.dtype) for a in avals]
        if name != "main":
            name = _free_name(module, name)
        with ir.InsertionPoint(module.body):
            function = func.FuncOp(name, ir.FunctionType.get(types, []))
        if name != "main":
            function.attributes["sym_visibility"] = ir.StringAttr.get("private")
        return function, function.add_entry_block()


class _Inputs:
    """The program's inputs: one per distinct argument array, except that arrays sharing memory
    (`f(a, a[1:])`) are views of one input, the array owning that memory (see `numpy.aliasing`)."""

    def __init__(self, layout: structure.Copied, shared: dict):
        self.layout, self.shared = layout, shared
        self.tracers, self.objects, self.paths, self.swapped = [], [], [], set()
        self.of_leaf: dict[int, int] = {}   # leaf index -> its input, for leaves that are inputs
        self.owners: dict[int, int] = {}    # group of shared memory -> its owner's input

    def tracer(self, leaf, index: int) -> TracedArray:
        path, shared = self.layout.paths[index], self.shared.get(index)
        if shared is None:
            self.of_leaf[index] = len(self.tracers)
            return self._add(leaf, path)
        if shared.group not in self.owners:
            self.owners[shared.group] = len(self.tracers)
            self._add(structure.memory_owner(leaf)[0], path + tuple(structure.Step(structure.ATTR, step)
                                                                    for step in shared.steps))
        owner = self.tracers[self.owners[shared.group]]
        if not shared.steps:  # the owner itself
            self.of_leaf[index] = self.owners[shared.group]
            return owner
        return view_of_owner(owner, shared, Aval(tuple(leaf.shape), owner.aval.dtype))

    def _add(self, leaf, path):
        stateful = structure.STATEFUL.get(type(leaf))
        if stateful is not None:  # a random generator: its state is the input, a stand-in the argument
            state = TracedArray(None, Aval.of(stateful.read(leaf)))
            state.generator = True  # (what a transform that refuses writes from inside says it is)
            self._keep(state, leaf, path)
            return stateful.stand_in(state)
        aval = _argument_aval(leaf)
        if not aval.dtype.isnative:
            aval = Aval(aval.shape, aval.dtype.newbyteorder("="))
            self.swapped.add(len(self.tracers))
        if aval.dtype not in SUPPORTED_DTYPES:
            raise UnsupportedError(f"argument of dtype {aval.dtype} cannot be compiled")
        scalar = getattr(leaf, "is_scalar", False) or isinstance(leaf, TracedScalar)
        tracer = (TracedScalar if scalar else TracedArray)(None, aval)
        tracer.host_array = isinstance(leaf, np.ndarray)
        tracer.memory = _memory(leaf)
        if isinstance(leaf, TracedArray):
            tracer.stands_for, tracer.weak = leaf, leaf.weak  # (an outlined helper's: a Python number stays one)
        return self._keep(tracer, leaf, path)

    def _keep(self, tracer: TracedArray, leaf, path) -> TracedArray:
        tracer.argument = True
        self.tracers.append(tracer)
        self.objects.append(leaf)
        self.paths.append(path)
        return tracer


def _memory(leaf):
    """NumPy's layout of an argument (see `numpy.layout`): a caller's ndarray's strides unless it is
    C-contiguous, the layout a traced array has in the enclosing trace (outlining, transforms)."""
    if isinstance(leaf, np.ndarray):
        return "C" if leaf.flags.c_contiguous else tuple(leaf.strides)
    return leaf.memory if isinstance(leaf, TracedArray) else "C"


def _argument_aval(leaf) -> Aval:
    """An array argument's shape and dtype; subclasses whose operators are not NumPy's are refused."""
    if isinstance(leaf, np.ma.MaskedArray):
        raise UnsupportedError("a masked array (np.ma) argument: solvent compiles plain arrays; pass "
                               "its data and mask as two arrays (np.ma.getdata(a), np.ma.getmaskarray(a))")
    if isinstance(leaf, np.matrix):
        raise UnsupportedError("an np.matrix argument: its * is a matrix product, not NumPy's elementwise "
                               "one; pass np.asarray(m) (and write m @ n for its products)")
    return Aval.of(leaf)


def _sharding_of(leaf):
    """The sharding of a `solvent.Array` laid out over several devices (its key says), else None."""
    key = leaf.key if isinstance(leaf, tuple(structure.KEYED_TYPES)) else ()
    return key[2] if len(key) > 2 and spans_devices(key[2]) else None


def _defined_at(mlir_error: str):
    """(file, line) of the op MLIR's dominance error says defined the escaped value."""
    match = re.search(r'"([^"]+)":(\d+):\d+: operand defined here', mlir_error)
    return (match.group(1), int(match.group(2))) if match else None


class _Outputs:
    """Collects program outputs (one per distinct traced array) and result specs."""

    def __init__(self, signature: Signature, copied: structure.Copied, inputs: _Inputs, cuts: bool = False,
                 pack: bool = False):
        self.signature, self.copied, self.cuts = signature, copied, cuts
        # (not where the results are solvent.Arrays, which a row would have to be sliced from on the device)
        self.pack = pack and not any(issubclass(k, tuple(KEYED_TYPES)) for k in signature.input_kinds)
        self.lengths: dict[ir.Value, int] = {}  # traced length -> its output (see `_cut`)
        self.values: list[ir.Value] = []
        self.index: dict[int, int] = {}
        self.keep: list = []
        # an argument array returned as itself: the caller's input, or (a view sharing memory) its path
        self.returned = {id(leaf): Input(inputs.of_leaf[i]) if i in inputs.of_leaf else Argument(path)
                         for i, (leaf, path) in enumerate(zip(copied.leaves, copied.paths))}

    def add(self, tracer: TracedArray, padding: bool = False) -> int:
        if tracer.padded and not padding:  # its length is only known at run time
            raise padded(tracer, ", returned or stored on an argument,")
        if id(tracer) not in self.index:
            self.index[id(tracer)] = len(self.values)
            self.keep.append(tracer)
            self.values.append(tracer.value)
            self.signature.output_avals.append(tracer.aval)
            self.signature.output_scalar.append(isinstance(tracer, TracedScalar))
            if isinstance(tracer, TracedScalar) and tracer.weak:
                self.signature.output_python.add(len(self.values) - 1)
        return self.index[id(tracer)]

    def spec(self, x) -> spec.Spec:
        """How the thunk rebuilds `x` from the program's outputs and the caller's objects."""
        original = self.copied.originals.get(id(x))
        alternatives = x.alternatives() if isinstance(x, TracedArray) else None
        if alternatives is not None:
            which, choices, own = alternatives
            return Either(self.spec(TracedScalar(which, Aval((), np.dtype(np.int32)))),
                          tuple(self.spec(c) for c in choices), self.spec(own))
        if isinstance(x, TracedMatrix):
            return Matrix(Output(self.add(x)))
        if isinstance(x, TracedArray):
            if original is not None:  # an argument array returned: the caller's own object
                return self.returned[id(original)]
            if x.padded and self.cuts and getattr(x, "lengths", None):
                return self._cut(x)
            return Output(self.add(x))
        if original is not None and type(original) in structure.STATEFUL:  # a generator returned: itself
            return self.returned[id(original)]
        if original is not None and not structure.is_array(original):
            return Argument(self.copied.container_paths[id(x)])
        kids = structure.children(x)
        if kids is None:
            if isinstance(x, str) and TRACED_TEXT.search(x):
                raise TracerConversionError(
                    f"the result holds text made from a traced value ({x!r}): its value is only known when the "
                    "compiled program runs; return the value and format it after the call")
            return Static(x)
        rows = self._rows([v for _, v in kids]) if self.pack and type(x) in (list, tuple, dict) else {}
        return Node(type(x), tuple((step, rows.get(k) or self.spec(v)) for k, (step, v) in enumerate(kids)))

    def _rows(self, items: list) -> dict[int, Row]:
        """Of a container's items, the new arrays and scalars of one type that are many (PACKED or
        more), each a `Row` of one output stacking them: {item's position: its Row}."""
        groups: dict = {}
        counts = collections.Counter(map(id, items))
        for k, v in enumerate(items):
            if (type(v) in (TracedArray, TracedScalar) and counts[id(v)] == 1 and id(v) not in self.index
                    and id(v) not in self.copied.originals and not v.padded and v.alternatives() is None):
                groups.setdefault((v.aval, type(v), v.weak), []).append(k)
        rows = {}
        for (aval, kind, weak), positions in groups.items():
            if len(positions) >= PACKED:
                parts = [shape_ops.reshape(items[k].value, (1, *aval.shape)) for k in positions]
                stacked = Output(self.add(TracedArray(shape_ops.concatenate(parts, 0), Aval((len(parts), *aval.shape),
                                                                                           aval.dtype))))
                rows.update((k, Row(stacked, i, weak)) for i, k in enumerate(positions))
        return rows

    def _cut(self, x) -> Cut:
        """A result of traced length (x[mask], x[:k]): its data at full size and each traced length
        are outputs (one per length, however many results share it), and the thunk cuts it to
        NumPy's shape."""
        lengths = []
        for axis, n in enumerate(x.lengths):
            if n is not None:
                if n not in self.lengths:
                    self.lengths[n] = self.add(TracedScalar(n, Aval((), np.dtype(np.int64))))
                lengths.append((axis, Output(self.lengths[n])))
        return Cut(Output(self.add(x, padding=True)), tuple(lengths))


def _find_reassignments(copied: structure.Copied, outputs: _Outputs, signature: Signature) -> None:
    for copy in copied.keep:
        if isinstance(copy, tuple):
            continue
        before = dict(copied.snapshot[id(copy)])
        now = structure.children(copy) or []
        path = copied.container_paths[id(copy)]
        if isinstance(copy, list):  # append/pop/insert: replace the contents wholesale
            if len(now) != len(before) or any(before[s] is not c for s, c in now):
                signature.setters.append(Setter(path, structure.ALL, Node(list, tuple((s, outputs.spec(c)) for s, c in now))))
            continue
        for step, child in now:
            if step not in before or before[step] is not child:
                signature.setters.append(Setter(path, step, outputs.spec(child)))
        steps_now = {step for step, _ in now}
        signature.deleted += [Deleted(path, step) for step in before if step not in steps_now]
