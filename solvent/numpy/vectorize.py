"""`np.vectorize` on traced values: the Python function mapped over the elements with one `enzyme.batch`.

NumPy's `vectorize.__call__` converts its arguments with `np.asarray`, which a
traced array refuses. Solvent wraps the method: when an argument holds traced
values, the arguments are broadcast (NumPy's rules, `signature=` core
dimensions included), the loop dimensions flattened into one, and the function
mapped over it by the batching transform, which `solvent.transforms.batching`
puts in `dispatch.HOOKS.vmap` (it lives above this layer). Calls without
traced arguments run NumPy's own method, unchanged.
"""

from __future__ import annotations

import functools
import re

import numpy as np

from solvent.core import dispatch
from solvent.errors import UnsupportedError
from solvent.numpy.registry import implements
from solvent.numpy.values import holds_traced, is_traced, value, wrap

_numpy_call = np.vectorize.__call__


def _call(self, *args, **kwargs):
    if not any(holds_traced(a) for a in (*args, *kwargs.values())):
        return _numpy_call(self, *args, **kwargs)
    return vectorized(self, args, kwargs)


def _array(x):
    if is_traced(x):
        return x
    return wrap(value(x), scalar=False) if holds_traced(x) else np.asarray(x)


def _core_dimensions(signature: str | None, count: int):
    """([core dimension names per input], [per output] or None for one plain output)."""
    if signature is None:
        return [[] for _ in range(count)], None
    inputs, outputs = [[[n for n in group.split(",") if n] for group in re.findall(r"\(([^)]*)\)", part)]
                       for part in signature.replace(" ", "").split("->")]
    if len(inputs) != count:
        raise TypeError(f"wrong number of positional arguments: expected {len(inputs)}, got {count}")
    return inputs, outputs


def vectorized(self, args, kwargs):
    """`self(*args, **kwargs)` for an `np.vectorize` object, some arguments traced."""
    mapped_names = [k for k in kwargs if k not in self.excluded]
    positions = [i for i in range(len(args)) if i not in self.excluded]
    values = [_array(args[i]) for i in positions] + [_array(kwargs[k]) for k in mapped_names]
    cores, out_cores = _core_dimensions(self.signature, len(values))
    loop_shapes, sizes = [], {}
    for v, core in zip(values, cores):
        if v.ndim < len(core):
            raise ValueError(f"an input has {v.ndim} dimensions, fewer than its {len(core)} core dimensions")
        loop_shapes.append(v.shape[:v.ndim - len(core)])
        for name, n in zip(core, v.shape[v.ndim - len(core):]):
            if sizes.setdefault(name, n) != n:
                raise ValueError(f"inconsistent size for core dimension {name!r}: {n} vs {sizes[name]}")
    loop = np.broadcast_shapes(*loop_shapes)
    count = int(np.prod(loop, dtype=np.int64))
    if count == 0:
        raise UnsupportedError("np.vectorize over an empty array in traced code")
    flat = [np.reshape(np.broadcast_to(v, loop + v.shape[v.ndim - len(c):]), (count,) + v.shape[v.ndim - len(c):])
            for v, c in zip(values, cores)]

    vmap = dispatch.HOOKS.vmap
    if vmap is None:
        raise UnsupportedError("np.vectorize in traced code needs solvent's batching (import solvent)")
    call_args = list(args)
    for i, item in zip(positions, flat):
        call_args[i] = item
    fixed = {k: v for k, v in kwargs.items() if k not in mapped_names}
    axes = tuple(0 if i in positions else None for i in range(len(args)))
    result = vmap(functools.partial(self.pyfunc, **fixed) if fixed else self.pyfunc, in_axes=axes)(
        *call_args, **dict(zip(mapped_names, flat[len(positions):])))
    several = isinstance(result, tuple) if out_cores is None else len(out_cores) != 1
    results = list(result) if several else [result]
    shaped = [np.reshape(np.broadcast_to(r, (count,) + np.shape(r)[1:]) if not is_traced(r) else r,
                         loop + np.shape(r)[1:]) for r in results]
    if self.otypes:
        shaped = [np.asarray(r).astype(t) if not is_traced(r) else r.astype(t) for r, t in zip(shaped, self.otypes)]
    return tuple(shaped) if several else shaped[0]


np.vectorize.__call__ = _call
implements(np.vectorize)(vectorized)  # listed by solvent.supported(); the call itself goes through _call
