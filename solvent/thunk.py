"""Generated per-signature Python: flatten arguments, execute, rebuild results, write back.

The code is generated once per signature (as Reactant's codegen_flatten! and
codegen_unflatten! do) so a call does no structure walking: each input is one
attribute/item access, each write-back one assignment.
"""

from __future__ import annotations

import itertools

import numpy as np

from solvent.core import structure
from solvent.runtime import devices
from solvent.runtime.array import Array, Scalar, array_key
from solvent.runtime.dispatch import fast_executor, python_executor
from solvent.runtime.sharding import SingleDeviceSharding, host_value
from solvent.tracing import Signature

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


def _delete(container, step):
    kind, key = step
    if kind == structure.ATTR:
        object.__delattr__(container, key)
    else:
        del container[key]


def _set(container, step, value):
    if step == structure.ALL:
        container[:] = value
    else:
        structure.set_child(container, step, value)


def _choose(which, choices, own):
    """The caller's object a result is, when a traced branch or loop decided which (see `identity`)."""
    k = int(which)
    return choices[k] if k >= 0 else own


def _host_copy(buffer):
    return np.array(host_value(buffer))  # writable, like every array NumPy returns


def _input(signature: Signature, i: int, placement, ns: _Namespace) -> str:
    """Source of input `i`'s device buffer, placed as the program expects it."""
    if placement is None:
        return f"x{i}.buffer" if issubclass(signature.input_kinds[i], Array) else f"_put(x{i}, _device)"
    wanted = ns.name(placement.inputs[i], "sharding")
    if not issubclass(signature.input_kinds[i], Array):
        return f"_put(x{i}, {wanted})"  # sliced over the mesh, each device its part
    if signature.input_shardings[i] == placement.inputs[i]:
        return f"x{i}.buffer"
    return f"_put(x{i}.buffer, {wanted})"  # a device array of another layout: resharded on the devices


def _write_back(signature: Signature, out_shardings, ns: _Namespace) -> list[str]:
    """Lines giving each mutated argument its new value (an Array its new buffer and layout)."""
    lines = []
    for i, k in signature.mutated.items():
        kind = signature.input_kinds[i]
        if not issubclass(kind, Array):
            lines.append(f"    _copyto(x{i}, _asarray(outs[{k}]))")
        elif out_shardings is None or out_shardings[k] == signature.input_shardings[i]:
            lines.append(f"    x{i}.buffer = outs[{k}]")
        else:
            key = array_key(kind, signature.input_avals[i], out_shardings[k])
            lines.append(f"    x{i}.buffer, x{i}.key = outs[{k}], {ns.name(key, 'key')}")
    return lines


def _wrap_outputs(signature: Signature, out_shardings, ns: _Namespace) -> list[str]:
    """Lines naming each result `o{k}`: a solvent.Array when an input was one, else host values."""
    device_results = any(issubclass(k, Array) for k in signature.input_kinds)
    written = set(signature.mutated.values())
    lines = []
    for k, (aval, scalar) in enumerate(zip(signature.output_avals, signature.output_scalar)):
        if k in written:
            continue
        if device_results:
            kind = Scalar if scalar else Array
            key = array_key(kind, aval, out_shardings[k] if out_shardings else None)
            wrapped = f"_{kind.__name__}(outs[{k}], {ns.name(key, 'key')})"
        else:
            wrapped = f"_asarray(outs[{k}])[()]" if scalar else f"_host_copy(outs[{k}])"
        lines.append(f"    o{k} = {wrapped}")
    return lines


def _one_run_at_a_time(placement) -> bool:
    """Whether each call waits for its results: XLA's in-process CPU collectives can deadlock when
    many SPMD runs are queued on few cores (seen with jax.jit too), so CPU SPMD programs run one by one."""
    mesh = placement.mesh if placement is not None else None
    return mesh is not None and mesh.size > 1 and mesh.devices.flat[0].platform == "cpu"


def _reach(path, constant) -> str:
    """Source reaching `path` in (args, kwargs) from the thunk's parameters."""
    (_, which), rest = path[0], path[1:]
    return structure.path_expression("args" if which == 0 else "kwargs", rest, constant)


def _builder(ns: _Namespace):
    """`build(spec)`: source rebuilding a result or reassigned value from its spec (see tracing)."""

    def build(spec) -> str:
        tag = spec[0]
        if tag == "input":
            return f"x{spec[1]}"
        if tag == "output":
            return f"o{spec[1]}"
        if tag == "argument":
            return _reach(spec[1], ns.name) if spec[1] else "(args, kwargs)"
        if tag == "static":
            return ns.name(spec[1], "s")
        if tag == "either":
            _, which, choices, own = spec
            return f"_choose({build(which)}, ({''.join(build(c) + ', ' for c in choices)}), {build(own)})"
        kind, kids = spec
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


def generate(signature: Signature, executable, device=None, sync: bool = False, placement=None):
    """Python function `thunk(args, kwargs)` running one compiled signature.

    When every input is a `solvent.Array` the buffers go through jaxlib's C++
    dispatch path; otherwise (host arrays to copy in) through `execute_sharded`.
    With a `placement` (an SPMD program) each input is placed as XLA asked:
    host arrays sliced over the mesh, device arrays of another layout resharded.
    """
    device = devices.resolve(device)
    ns = _Namespace(_put=devices.put, _device=device, _copyto=np.copyto,
                    _asarray=host_value, _host_copy=_host_copy, _new_object=_new_object,
                    _set=_set, _delete=_delete, _choose=_choose, _Array=Array.from_buffer, _Scalar=Scalar.from_buffer)
    single = SingleDeviceSharding(device)
    in_shardings = placement.inputs if placement else [single] * len(signature.input_avals)
    out_shardings = placement.outputs if placement else [single] * len(signature.output_avals)
    lines = ["def thunk(args, kwargs):"]
    for i, path in enumerate(signature.input_paths):
        lines.append(f"    x{i} = {_reach(path, ns.name)}")
    buffers = ", ".join(_input(signature, i, placement, ns) for i in range(len(signature.input_kinds)))
    if all(issubclass(kind, Array) for kind in signature.input_kinds):
        ns["_run"] = fast_executor(executable, in_shardings, out_shardings, signature.output_avals)
        lines.append(f"    outs = _run({buffers})")
    elif placement is None:
        ns["_execute"] = executable.execute_sharded
        lines.append(f"    outs = [out[0] for out in _execute([{buffers}]).disassemble_into_single_device_arrays()]")
    else:
        ns["_execute"] = python_executor(executable, signature.output_avals, out_shardings)
        lines.append(f"    outs = _execute({buffers})")
    if sync or _one_run_at_a_time(placement):
        lines.append("    for out in outs: out.block_until_ready()")
    lines += _write_back(signature, out_shardings if placement else None, ns)
    lines += _wrap_outputs(signature, out_shardings if placement else None, ns)

    build = _builder(ns)
    for path, step, spec in signature.setters:
        lines.append(f"    _set({_reach(path, ns.name)}, {ns.name(step, 'step')}, {build(spec)})")
    for path, step in signature.deleted:
        lines.append(f"    _delete({_reach(path, ns.name)}, {ns.name(step, 'step')})")
    lines.append(f"    return {build(signature.result)}")
    source = "\n".join(lines) + "\n"
    filename = f"<solvent thunk {next(_counter)}>"
    exec(compile(source, filename, "exec"), ns)
    thunk = ns["thunk"]
    thunk.source = source
    return thunk
