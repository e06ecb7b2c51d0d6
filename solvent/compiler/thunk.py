"""Generated per-signature Python: flatten arguments, execute, rebuild results, write back.

The code is generated once per signature (as Reactant's codegen_flatten! and
codegen_unflatten! do) so a call does no structure walking: each input is one
attribute/item access, each write-back one assignment.
"""

from __future__ import annotations

import functools
import itertools

import numpy as np

from jax.errors import JaxRuntimeError

from solvent.core import spec, structure
from solvent.core.session import ACTIVE
from solvent.errors import ExecutionError, LayoutError, ReadOnlyError, SignatureError
from solvent.runtime import devices, host_views, interrupts, memory
from solvent.runtime.array import BUFFERS, Array, Scalar, array_key, asarray
from solvent.runtime.dispatch import fast_executor, x64_on, x64_restore
from solvent.runtime.sharding import SingleDeviceSharding, host_value, result_handlers
from solvent.tracing import IMPLICIT, Signature

_counter = itertools.count()


class _Namespace(dict):
    """Constants the generated code refers to by name."""

    def name(self, obj, hint="c") -> str:
        for key, value in self.items():
            if value is obj and key.startswith("_k_"):
                return key
        key = f"_k_{hint}{len(self)}"
        self[key] = obj
        return key


def _new_object(kind, attributes: dict):
    obj = kind.__new__(kind)
    for name, value in attributes.items():
        object.__setattr__(obj, name, value)
    return obj


def _choose(which, choices, own):
    """The caller's object a result is, when a traced branch or loop decided which (see `identity`)."""
    k = int(which)
    return choices[k] if k >= 0 else own


def _host_copy(buffer):
    """A result as a NumPy array: one copy out of the device buffer, writable like NumPy's own."""
    if buffer.is_fully_addressable:
        try:
            return np.array(buffer)
        except JaxRuntimeError as error:
            raise ExecutionError(f"the computation that made this array failed: {str(error).strip()}") from None
    return np.array(host_value(buffer))


def _input(signature: Signature, i: int, placement, ns: _Namespace) -> str:
    """Source of input `i`'s device buffer, placed as the program expects it."""
    host = f"_native(x{i})" if i in signature.byteswapped else f"x{i}"
    stateful = structure.STATEFUL.get(signature.input_kinds[i])
    if stateful is not None:  # a random generator: its state
        host = f"{ns.name(stateful.read, 'read')}(x{i})"
    if placement is None:  # host arrays go to the C++ path as they are: it copies them in
        return f"x{i}.buffer" if issubclass(signature.input_kinds[i], Array) else host
    wanted = ns.name(placement.inputs[i], "sharding")
    if not issubclass(signature.input_kinds[i], Array):
        return f"_put({host}, {wanted})"  # sliced over the mesh, each device its part
    if signature.input_shardings[i] == placement.inputs[i]:
        return f"x{i}.buffer"
    return f"_put(x{i}.buffer, {wanted})"  # a device array of another layout: resharded on the devices


def _write_back(signature: Signature, out_shardings, ns: _Namespace) -> list[str]:
    """Lines giving each mutated argument its new value (an Array its new buffer and layout)."""
    lines = []
    for i, k in signature.mutated.items():
        kind = signature.input_kinds[i]
        if kind in structure.STATEFUL:
            lines.append(f"{ns.name(structure.STATEFUL[kind].write, 'write')}(x{i}, outs[{k}])")
        elif i in signature.reshaped:  # `x.shape = ...`: the data, then the shape (`_checks` saw it fits)
            lines.append(f"_write(x{i}, ..., _np_asarray(outs[{k}]).reshape({signature.input_avals[i].shape!r}))")
            lines.append(f"x{i}.shape = {signature.output_avals[k].shape!r}")
        elif not issubclass(kind, Array):
            lines.append(f"_write(x{i}, ..., outs[{k}])")  # one copy out of the device buffer (np.copyto's costs more)
        elif out_shardings is None or out_shardings[k] == signature.input_shardings[i]:
            lines.append(f"x{i}.buffer = outs[{k}]")
        else:
            key = array_key(kind, signature.input_avals[i], out_shardings[k])
            lines.append(f"x{i}.buffer, x{i}.key = outs[{k}], {ns.name(key, 'key')}")
    return lines


def _wrap_outputs(signature: Signature, out_shardings, ns: _Namespace, executable, device) -> list[str]:
    """Lines naming each result `o{k}`: a solvent.Array when an input was one, else host values
    (on one device, a large array a view of XLA's buffer, a small one a copy)."""
    device_results = any(issubclass(k, Array) for k in signature.input_kinds)
    layouts = None if device_results or out_shardings else executable.get_output_layouts()
    written = set(signature.mutated.values())
    lines = []
    for k, (aval, scalar) in enumerate(zip(signature.output_avals, signature.output_scalar)):
        if k in written:
            continue
        if device_results:  # (`Array.from_buffer`, inlined)
            kind = Scalar if scalar else Array
            key = array_key(kind, aval, out_shardings[k] if out_shardings else SingleDeviceSharding(device))
            lines += [f"o{k} = _new({ns.name(kind, 'type')})", f"o{k}.buffer, o{k}.key = outs[{k}], {ns.name(key, 'key')}"]
            continue
        if not scalar:  # over a mesh, the result may have to be gathered first; on one device, a view or a copy
            view = None if out_shardings else host_views.viewer(aval, layouts[k], device)
            convert = "_host_copy" if out_shardings else ns.name(view, "view") if view else "_np_array"
            wrapped = f"{convert}(outs[{k}])"
        else:  # a NumPy scalar, or where NumPy gives a Python float, int or bool, that
            item = ".item()" if k in signature.output_python else "[()]"
            wrapped = f"{'_asarray' if out_shardings else '_np_asarray'}(outs[{k}]){item}"
        lines.append(f"o{k} = {wrapped}")
    return lines


def _one_run_at_a_time(placement) -> bool:
    """Whether each call waits for its results: XLA's in-process CPU collectives can deadlock when
    many SPMD runs are queued on few cores (seen with jax.jit too), so CPU SPMD programs run one by one."""
    mesh = placement.mesh if placement is not None else None
    return mesh is not None and mesh.size > 1 and mesh.devices.flat[0].platform == "cpu"


def _reach(path, constant) -> str:
    """Source reaching `path` in (args, kwargs, IMPLICIT) from the thunk's parameters."""
    root = ("args", "kwargs")[path.part] if path.part < 2 else constant(IMPLICIT)
    return path[1:].expression(root, constant)


def _builder(ns: _Namespace):
    """`build(spec)`: source rebuilding a result or reassigned value from its spec (see `core.spec`)."""

    def build(node: spec.Spec) -> str:
        if isinstance(node, spec.Input):
            return f"x{node.index}"
        if isinstance(node, spec.Output):
            return f"o{node.index}"
        if isinstance(node, spec.Argument):
            return _reach(node.path, ns.name) if node.path else "(args, kwargs)"
        if isinstance(node, spec.Static):
            return ns.name(node.value, "s")
        if isinstance(node, spec.Either):
            choices = "".join(build(c) + ", " for c in node.choices)
            return f"_choose({build(node.which)}, ({choices}), {build(node.own)})"
        if isinstance(node, spec.Matrix):
            return f"_asmatrix({build(node.data)})"
        if isinstance(node, spec.Row):  # (a NumPy scalar, or a Python number, where the rows are 0-d)
            return f"{build(node.data)}[{node.index}]" + (".item()" if node.python else "")
        if isinstance(node, spec.Cut):
            lengths = "".join(f"({axis}, {build(n)}), " for axis, n in node.lengths)
            return f"_cut({build(node.data)}, ({lengths}))"
        kind, kids = node.kind, node.children
        items = [build(s) for _, s in kids]
        if kind is tuple:
            return f"({''.join(i + ', ' for i in items)})"
        if kind is list:
            return f"[{', '.join(items)}]"
        if kind is dict:
            return "{" + ", ".join(f"{ns.name(step[1], 'key')}: {i}" for (step, _), i in zip(kids, items)) + "}"
        if issubclass(kind, tuple):
            return f"{ns.name(kind, 'type')}(*({''.join(i + ', ' for i in items)}))"
        fields = ", ".join(f"{step[1]!r}: {i}" for (step, _), i in zip(kids, items))
        return f"_new_object({ns.name(kind, 'type')}, {{{fields}}})"

    return build


def _cut(x, lengths):
    """A result whose length the program computed (x[mask], x[:k]): cut from its static bound to
    NumPy's shape, a new array as NumPy's is."""
    key = [slice(None)] * len(x.shape)  # (not np.ndim: a device array would run a program for it)
    for axis, n in lengths:
        key[axis] = slice(0, int(np.asarray(n)))
    if isinstance(x, Array):
        return asarray(np.asarray(x)[tuple(key)], device=x.device)
    return x[tuple(key)].copy()


def generate(signature: Signature, executable, device=None, sync: bool = False, placement=None,
             name: str = "the function", undonated=None, example=None):
    """Python function `thunk(args, kwargs)` running one compiled signature, and as `thunk.fast`
    the same call for arguments of exactly the signature of `example` (see `_fast`).

    With a `placement` (an SPMD program) each input is placed as XLA asked: host arrays
    sliced over the mesh, device arrays of another layout resharded.

    Nothing that can fail happens after an argument's buffer is donated: ndarrays to be
    written back are checked writable first, a call that may not fit in memory runs
    `undonated` (the same program without donation) instead, and Ctrl-C waits for the
    write-back (see `_exchange` for threads).
    """
    device = devices.resolve(device)
    ns = _Namespace(_ndarray=np.ndarray, _active=ACTIVE, _np_array=np.array, _np_asarray=np.asarray, _put=devices.put,
                    _device=device, _write=np.ndarray.__setitem__, _native=devices.native,
                    _asarray=host_value, _host_copy=_host_copy, _new_object=_new_object, _asmatrix=np.asmatrix,
                    _set=structure.set_child, _delete=structure.delete_child, _choose=_choose, _cut=_cut,
                    _new=object.__new__, _lock=BUFFERS,
                    _HostBuffer=structure.HostBuffer, _XlaError=(JaxRuntimeError, ExecutionError),
                    _pending=interrupts.PENDING, _deliver=interrupts.deliver, _x64_on=x64_on, _x64_restore=x64_restore,
                    _failed=lambda error: _failed(error, name, executable))
    body = [f"x{i} = {_reach(path, ns.name)}" for i, path in enumerate(signature.input_paths)]
    body += _checks(signature, executable, device, name, undonated, ns)
    body += _exchange(signature, executable, device, sync, placement, ns)
    build = _builder(ns)
    for path, step, new in signature.setters:
        body.append(f"_set({_reach(path, ns.name)}, {ns.name(step, 'step')}, {build(new)})")
    for path, step in signature.deleted:
        body.append(f"_delete({_reach(path, ns.name)}, {ns.name(step, 'step')})")
    body.append(f"return {build(signature.result)}")
    mutates = bool(signature.mutated or signature.setters or signature.deleted)
    if mutates:  # Ctrl-C is delivered once every argument has its new value
        body = ["try:"] + _indented(body) + ["finally:", "    if _pending: _deliver()"]
    source = "def thunk(args, kwargs):\n" + "".join(f"    {line}\n" for line in body) + \
        _fast(example, body, ns, bool(signature.layouts), not mutates)
    filename = f"<solvent thunk {next(_counter)}>"
    ns = dict(ns)  # (globals of an exact dict: CPython caches their lookups, not a subclass's)
    exec(compile(source, filename, "exec"), ns)
    thunk = ns["thunk"]
    thunk.source, thunk.fast = source, ns.get("fast", no_fast_path)
    if mutates:
        interrupts.protect(thunk.__code__)
        interrupts.protect(thunk.fast.__code__)
    return thunk


def _exchange(signature: Signature, executable, device, sync: bool, placement, ns: _Namespace) -> list[str]:
    """Lines running the program and handing its results back (written into arguments, `o{k}`).

    A call that donates Arrays' buffers reads, donates and replaces them under one lock, so a
    thread never hands XLA a buffer another thread's call has just donated; a call that
    donates nothing runs without it, and again under it if its run failed (a buffer it read
    may have been donated meanwhile).
    """
    single = SingleDeviceSharding(device)
    out_shardings = placement.outputs if placement else None
    lines = _run(signature, executable, placement, single, ns)
    donates = any(issubclass(signature.input_kinds[i], Array) for i in signature.mutated)
    if not donates and any(issubclass(kind, Array) for kind in signature.input_kinds):
        lines = ["try:", *_indented(lines), "except _XlaError:", "    with _lock:", *_indented(_indented(lines))]
    if sync or _one_run_at_a_time(placement):
        lines.append("for out in outs: out.block_until_ready()")
    lines += _write_back(signature, out_shardings, ns)
    lines += _wrap_outputs(signature, out_shardings, ns, executable, device)
    # XLA's errors surface at the run, or where a host copy waits for it (then nothing is written yet)
    lines = ["try:"] + _indented(lines) + ["except _XlaError as error:", "    raise _failed(error) from None"]
    return ["with _lock:"] + _indented(lines) if donates else lines


def no_fast_path(owner, *args, **kwargs):
    """`thunk.fast` of a signature `_guard` cannot check: every call is `owner.miss`'s."""
    return owner.miss(args, kwargs)


_STATIC_TYPES = (int, float, bool, complex, str, type(None))


def _guard(example, ns: _Namespace, layouts: bool = False, pure: bool = False) -> str | None:
    """A test that positional `args` have the signature of the `example` call (arrays of the same
    type, shape and dtype, and with `layouts` the same strides, random generators of the same
    kind, equal static values, and unless the program is `pure` no array or generator twice),
    or None if it is not that simple (an example whose arrays alias among them). A call that
    passes it needs no call key.

    (A program that writes into no argument gives the same results whether or not its arrays
    share memory, so its calls need not be told apart by how they alias.)
    """
    if example is None or example[1] or len(example[0]) > 8:
        return None
    args = example[0]
    tests, arrays = [], []
    for i, a in enumerate(args):
        kind, x = type(a), f"a{i}"
        if kind is np.ndarray:  # (a dtype equal but not identical to NumPy's own instance takes the slow path)
            dtype = ns.name(a.dtype, "dtype")
            tests.append(f"type({x}) is _ndarray and {x}.shape == {a.shape!r} and {x}.dtype is {dtype}")
            if layouts:
                tests.append(f"{x}.strides == {a.strides!r}")
            arrays.append(i)
        elif kind in (Array, Scalar):
            key = ns.name(a.key, "key")  # (`array_key` interns keys: mostly the same object)
            tests.append(f"type({x}) is {ns.name(kind, 'type')} and ({x}.key is {key} or {x}.key == {key})")
            arrays.append(i)
        elif kind in structure.STATEFUL:  # a random generator: of the same bit generator
            key = structure.STATEFUL[kind].key
            tests.append(f"type({x}) is {ns.name(kind, 'type')} and "
                         f"{ns.name(key, 'key_of')}({x}) == {ns.name(key(a), 'key')}")
            arrays.append(i)
        elif (kind in _STATIC_TYPES or isinstance(a, np.generic)) and a == a:  # (a NaN is never equal)
            tests.append(f"type({x}) is {ns.name(kind, 'type')} and {x} == {ns.name(a, 's')}")
            if isinstance(a, (float, complex, np.inexact)) and a == 0:  # -0.0 == 0.0: the sign too
                tests.append(f"{ns.name(np.signbit, 'signbit')}({x}) == {bool(np.signbit(np.real(a)))}")
                if np.iscomplexobj(a):
                    return None
        else:
            return None
    host = [i for i in arrays if type(args[i]) is np.ndarray]
    pairs = list(itertools.combinations(arrays, 2))
    if any(args[i] is args[j] for i, j in pairs) or structure.shared_memory([args[i] for i in host]):
        return None  # (compiled for arrays that alias, one input for both: the test would let separate arrays in)
    if len(arrays) > 1 and not pure:  # views of one array, or one array twice, alias: the call key says how
        tests += [f"(a{i}.base is None or type(a{i}.base) is _HostBuffer)" for i in host]  # owns_memory, inlined
        tests += [f"a{i} is not a{j}" for i, j in pairs]
    elif not pure:  # a view whose own elements overlap is written as such (the call key says so)
        ns["_written_alone"] = structure.written_alone
        tests += [f"(a{i}.base is None or type(a{i}.base) is _HostBuffer or not _written_alone(a{i}))" for i in host]
    return " and ".join(tests) or "True"


def _run(signature: Signature, executable, placement, single, ns: _Namespace) -> list[str]:
    """Lines running the executable on the inputs. Host arrays on one device go through the C++
    path, which copies them in faster than Python can; device arrays (and host arrays laid out
    over a mesh, each device's part placed from Python) through `execute_sharded`, which skips
    the C++ path's check of every argument's signature (2.7 against 3.1 µs a call)."""
    buffers = ", ".join(_input(signature, i, placement, ns) for i in range(len(signature.input_kinds)))
    out_shardings = placement.outputs if placement else [single] * len(signature.output_avals)
    if placement is not None or all(issubclass(kind, Array) for kind in signature.input_kinds):
        ns["_execute"] = executable.execute_sharded
        ns["_handlers"] = result_handlers(signature.output_avals, out_shardings)
        return [f"outs = _execute([{buffers}]).consume_with_handlers(_handlers)"]
    ns["_run"] = fast_executor(executable, [single] * len(signature.input_avals), out_shardings,
                               signature.output_avals)
    return ["_previous = _x64_on()", "try:", f"    outs = _run({buffers})", "finally:", "    _x64_restore(_previous)"]


def _fast(example, body: list[str], ns: _Namespace, layouts: bool = False, pure: bool = False) -> str:
    """Source of `fast(owner, *args, **kwargs)`, the `__call__` of the object that runs this signature
    (see `api.Entry`): the same call, for positional arguments of exactly the signature of
    `example` (checked by `_guard`) outside a trace; any other call is `owner.miss(args, kwargs)`."""
    guard = _guard(example, ns, layouts, pure)
    if guard is None:
        return ""
    count = len(example[0])
    unpack = f"    {''.join(f'a{i}, ' for i in range(count))}= args\n" if count else ""
    return (f"\n\ndef fast(owner, *args, **kwargs):\n    if kwargs or _active[0] or len(args) != {count}:\n"
            f"        return owner.miss(args, kwargs)\n{unpack}"
            f"    if not ({guard}):\n        return owner.miss(args, kwargs)\n"
            + "".join(f"    {line}\n" for line in body))


def _indented(lines: list[str]) -> list[str]:
    return [f"    {line}" for line in lines]


def _checks(signature: Signature, executable, device, name: str, undonated, ns: _Namespace) -> list[str]:
    """Lines run before anything is donated: what would make the write-back or the run fail."""
    lines = []
    for i in signature.mutated:
        kind = signature.input_kinds[i]
        if not issubclass(kind, Array) and kind not in structure.STATEFUL:
            path = describe_path(signature.input_paths[i])
            ns[f"_read_only{i}"] = lambda path=path: ReadOnlyError(
                f"{name} writes into {path}, but that array is read-only (flags.writeable is False, as for a "
                "np.broadcast_to view); pass a writable copy (x.copy())")
            lines.append(f"if not x{i}.flags.writeable: raise _read_only{i}()")
    for i, strides in signature.layouts.items():
        ns[f"_layout{i}"] = lambda path=describe_path(signature.input_paths[i]), strides=strides: SignatureError(
            f"{name} was compiled for {path} of strides {strides}, on which the program depends (NumPy's "
            "reshape or ravel gives a view or a copy by them); call solvent.compile again for this array")
        lines.append(f"if x{i}.strides != {strides!r}: raise _layout{i}()")
    for i, where in signature.reshaped.items():
        shape = signature.output_avals[signature.mutated[i]].shape
        ns[f"_reshape{i}"] = functools.partial(_reshapes_in_place, shape=shape, message=(
            f"{name} sets the shape of {describe_path(signature.input_paths[i])} to {shape} at {where[0]}:{where[1]}, "
            "but that array's memory cannot take it in place (NumPy: \"Incompatible shape for in-place "
            "modification\"); pass a contiguous array (np.ascontiguousarray), or write x = x.reshape(...)"))
        lines.append(f"_reshape{i}(x{i})")
    donates = any(issubclass(signature.input_kinds[i], Array) for i in signature.mutated)
    size = memory.needed(executable)
    if undonated is not None and donates and size > memory.CHECKED_ABOVE:
        ns["_undonated"], ns["_may_not_fit"] = undonated, lambda: memory.may_not_fit(size, device)
        lines.append("if _may_not_fit(): return _undonated(args, kwargs)")
    return lines


def _reshapes_in_place(x, shape, message) -> None:
    """Raise `LayoutError(message)` unless NumPy can give `x` the `shape` without copying it."""
    try:
        x.view().shape = shape
    except AttributeError:
        raise LayoutError(message) from None


def _failed(error, name: str, executable) -> ExecutionError:
    first = str(error).strip().splitlines()[0].rstrip(".") if str(error).strip() else type(error).__name__
    size = memory.needed(executable)
    hint = (f"; the call needs about {memory.describe(size)} beyond its arguments: use smaller arrays, "
            "or free memory" if "RESOURCE_EXHAUSTED" in str(error) or "memory" in str(error).lower() else "")
    return ExecutionError(f"XLA failed running {name}: {first}{hint}. The arguments are unchanged.")


def describe_path(path) -> str:
    """`args[0].x` for a path in (args, kwargs, IMPLICIT): how the user passed an argument."""
    return path[1:].expression(("args", "kwargs", "np.random's global state")[path.part], repr)
