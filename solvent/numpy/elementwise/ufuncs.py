"""NumPy ufuncs on traced values: one table row per ufunc, and the ufunc methods.

NumPy itself decides each call's loop dtypes (`ufunc.resolve_dtypes`, which
implements NEP 50 with Python scalars as weak types); the table supplies the
StableHLO body.
"""

from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir

from solvent.core import trace
from solvent.core.session import SESSION
from solvent.errors import UnsupportedError
from solvent.numpy import folding
from solvent.numpy.elementwise import bodies as m, powers, trigonometric as trig
from solvent.numpy.indexing import affine
from solvent.numpy.registry import implements
from solvent.numpy.values import (as_array, broadcast_value, dtype_key, full, holds_traced, is_traced,
                                  normalize_axis, normalize_axes, probe_array, shape, value, wrap, write_out)
from solvent.ops import elementwise as ew, scan
from solvent.ops.base import dtype_of, one, shape_of
from solvent.ops.reduction import reduce as reduce_op
from solvent.ops.shape import concatenate, slice as slice_op

u = lambda name: (lambda x: ew.unary(name, x))
b = lambda name: (lambda x, y: ew.binary(name, x, y))

#: ufunc -> body on values cast to its loop dtypes.
TABLE = {
    np.add: m.add, np.subtract: b("subtract"), np.multiply: m.multiply, np.true_divide: m.divide,
    np.floor_divide: m.floor_divide, np.remainder: m.remainder, np.fmod: m.fmod, np.power: powers.power,
    np.float_power: powers.power, np.maximum: m.maximum, np.minimum: m.minimum, np.fmax: m.fmax,
    np.fmin: m.fmin, np.arctan2: b("atan2"), np.hypot: m.hypot, np.copysign: m.copysign,
    np.logaddexp: m.logaddexp, np.logaddexp2: lambda x, y: m.logaddexp(x, y, base=2),
    np.heaviside: m.heaviside, np.ldexp: m.ldexp, np.divmod: m.divmod,
    np.equal: m.compare("EQ"), np.not_equal: m.compare("NE"), np.less: m.compare("LT"),
    np.less_equal: m.compare("LE"), np.greater: m.compare("GT"), np.greater_equal: m.compare("GE"),
    np.logical_and: m.logical("and"), np.logical_or: m.logical("or"), np.logical_xor: m.logical("xor"),
    np.logical_not: m.logical_not, np.bitwise_and: b("and"), np.bitwise_or: b("or"),
    np.bitwise_xor: b("xor"), np.invert: u("not"), np.left_shift: b("shift_left"),
    np.right_shift: lambda x, y: ew.binary(
        "shift_right_logical" if np.issubdtype(dtype_of(x), np.unsignedinteger) else "shift_right_arithmetic", x, y),
    np.negative: m.negative, np.positive: lambda x: x, np.absolute: m.absolute, np.fabs: m.absolute,
    np.sign: m.sign, np.signbit: m.signbit, np.sqrt: m.sqrt, np.cbrt: m.cbrt, np.square: m.square,
    np.reciprocal: m.reciprocal, np.conjugate: m.conjugate, np.exp: m.exp,
    np.exp2: m.exp2, np.expm1: u("exponential_minus_one"), np.log: m.log, np.log2: m.log_base(2),
    np.log10: m.log_base(10), np.log1p: u("log_plus_one"), np.sin: trig.sin, np.cos: trig.cos,
    np.tan: trig.tan, np.arcsin: m.branch_cut(m.chlo_unary("asin")),
    np.arccos: m.branch_cut(m.chlo_unary("acos"), imag_sign=-1),
    np.arctan: m.chlo_unary("atan"), np.sinh: trig.sinh, np.cosh: trig.cosh,
    np.tanh: trig.tanh, np.arcsinh: m.branch_cut(m.chlo_unary("asinh"), real_sign="input"),
    np.arccosh: trig.arccosh, np.arctanh: trig.arctanh,
    np.deg2rad: m.scale(np.pi / 180), np.rad2deg: m.scale(180 / np.pi),
    np.floor: m.rounding("floor"), np.ceil: m.rounding("ceil"), np.trunc: m.trunc,
    np.rint: m.rounding("round_nearest_even"), np.isnan: m.isnan, np.isinf: m.isinf,
    np.isfinite: m.isfinite, np.gcd: m.gcd, np.lcm: m.lcm, np.bitwise_count: m.bitwise_count,
    np.frexp: m.frexp, np.modf: m.modf, np.nextafter: m.nextafter, np.spacing: m.spacing,
    np.isnat: lambda x: _no_datetime(),
}
#: ufuncs that NumPy exposes under two names (np.abs is np.absolute, ...), for completeness.
ALIASES = {np.radians: np.deg2rad, np.degrees: np.rad2deg}


def _no_datetime():
    raise UnsupportedError("np.isnat: solvent traces no datetime64 or timedelta64 arrays")


def loop_dtypes(ufunc, operands, dtype=None, casting="same_kind"):
    """(input dtypes, output dtypes) that NumPy would use for this call (its inputs cast by `casting`)."""
    keys = tuple(dtype_key(x) for x in operands)
    if all(isinstance(k, type) for k in keys):  # Python numbers only (a loop index, int(x)): as Python
        keys = tuple(np.dtype(k) for k in keys)  # computes them, not NumPy's object loops for comparisons
    # dtype= fixes the loop's output type, whose loop then takes its inputs cast (NumPy's signature)
    signature = {} if dtype is None else {"signature": (None,) * ufunc.nin + (np.dtype(dtype),) * ufunc.nout}
    resolved = ufunc.resolve_dtypes(keys + (None,) * ufunc.nout, **signature, casting=casting)
    return resolved[:ufunc.nin], resolved[ufunc.nin:]


def apply(ufunc, operands, dtype=None, casting="same_kind") -> list:
    """Call the table body on operands promoted and broadcast as NumPy would; one value per output."""
    body = TABLE[ALIASES.get(ufunc, ufunc)]
    if len(operands) != ufunc.nin:
        raise TypeError(f"{ufunc.__name__}() takes {ufunc.nin} positional arguments, got {len(operands)}")
    out_shape = np.broadcast_shapes(*(shape(x) for x in operands))
    beyond = _beyond_range(ufunc, operands)
    if beyond is not None:
        return [full(beyond, out_shape, np.bool_)]
    in_dtypes, out_dtypes = loop_dtypes(ufunc, operands, dtype if dtype is not None else _python_power(ufunc, operands),
                                        casting)
    in_dtypes = _exact_comparison(ufunc, operands, in_dtypes)
    _check_static_exponent(ufunc, operands, in_dtypes)
    values = [_in_loop(ufunc, value(x, d, out_shape)) for x, d in zip(operands, in_dtypes)]
    results = body(*values)
    results = results if isinstance(results, tuple) else (results,)
    return [ew.convert(v, d) for v, d in zip(results, out_dtypes)]


#: ufuncs whose float16 loops work on the half's own bits; NumPy's others compute in float32.
_HALF_BITS = frozenset({np.nextafter, np.spacing})


def _in_loop(ufunc, v: ir.Value) -> ir.Value:
    """An operand as NumPy's loop computes with it: a float16 as a float32 (rounded once, at the end)."""
    return ew.convert(v, np.float32) if dtype_of(v) == np.float16 and ufunc not in _HALF_BITS else v


def _check_static_exponent(ufunc, operands, in_dtypes):
    """NumPy's ValueError for integers to a negative integer power, where the exponent is static
    (a traced exponent cannot raise: its negative entries give XLA's integer power)."""
    if ufunc is not np.power or in_dtypes[0].kind not in "iu" or is_traced(operands[1]):
        return
    if np.any(np.asarray(operands[1]) < 0):
        raise ValueError("Integers to negative integer powers are not allowed.")


def _python_power(ufunc, operands):
    """Python's int ** int is a float where the exponent is negative: float64 for a traced exponent
    known to be negative (`2 ** -k` of a rolled loop's index), int64 for one known not to be; an
    error where its sign is not known while tracing."""
    if ufunc is not np.power or not is_traced(operands[1]) or any(dtype_key(x) is not int for x in operands):
        return None
    span = affine.interval(operands[1])
    if span is not None and (span[0] >= 0 or span[1] < 0):
        return None if span[0] >= 0 else np.float64
    raise UnsupportedError(
        "`n ** k` of Python ints with a traced k that may be negative: Python gives an int where k >= 0 and a "
        "float where k < 0, and the compiled program must know which while tracing; write a float base "
        "(2.0 ** k) for a float, or a NumPy integer (np.int64(2) ** k) for NumPy's integer power")


COMPARISONS = {np.equal, np.not_equal, np.less, np.less_equal, np.greater, np.greater_equal}


def _beyond_range(ufunc, operands):
    """NumPy 2 compares integers with a Python int outside their dtype's range exactly: every
    element lies on one side, so the answer is that of the nearest extreme (or None)."""
    ints = [x for x in operands if type(x) is int]
    if ufunc not in COMPARISONS or len(ints) != 1 or len(operands) != 2:
        return None
    array = operands[1] if type(operands[0]) is int else operands[0]
    dtype = np.dtype(dtype_key(array))
    if dtype.kind not in "iu" or np.iinfo(dtype).min <= ints[0] <= np.iinfo(dtype).max:
        return None
    extreme = np.array(np.iinfo(dtype).min if ints[0] < 0 else np.iinfo(dtype).max, dtype)
    return bool(ufunc(*[x if type(x) is int else extreme for x in operands]))


def _exact_comparison(ufunc, operands, in_dtypes):
    """The same for a traced Python int (a loop's index, `int(x)`), whose value is not known while
    tracing: integers narrower than 64 bits are compared with it as int64, not wrapped into their dtype."""
    if ufunc not in COMPARISONS or in_dtypes[0].kind not in "iu" or in_dtypes[0].itemsize == 8:
        return in_dtypes
    if not any(is_traced(x) and dtype_key(x) is int for x in operands):
        return in_dtypes
    return (np.dtype(np.int64),) * len(in_dtypes)


def call(ufunc, *operands, out=None, dtype=None, where=True, casting="same_kind", **unsupported):
    """`ufunc(*operands, out=..., dtype=..., where=...)`; a tuple for several outputs (np.divmod)."""
    if unsupported:
        raise UnsupportedError(f"np.{ufunc.__name__} with {', '.join(unsupported)}=")
    outs = out if isinstance(out, tuple) else (out,) if out is not None else (None,) * ufunc.nout
    if len(outs) != ufunc.nout:
        raise ValueError(f"The 'out' tuple must have exactly {ufunc.nout} entries: one per ufunc output")
    roots = [o.root() for o in outs if is_traced(o)]
    if len({id(r) for r in roots}) < len(roots):
        raise UnsupportedError(f"np.{ufunc.__name__} with outputs that are one array or views of one (out=(a, a)): "
                               "which value NumPy leaves depends on its loop order; pass separate arrays")
    # a list holding traced values is the array NumPy makes of it (x[:2] + [x[0], x[1]])
    operands = [as_array(x) if isinstance(x, (list, tuple)) and holds_traced(x) else x for x in operands]
    results = [_store(ufunc, wrap(v), target, where, casting)
               for v, target in zip(apply(ufunc, operands, dtype, casting), outs)]
    if out is None and (ufunc in (np.remainder, np.absolute) or
                        any(getattr(x, "affine", None) or getattr(x, "interval", None) for x in operands)):
        affine.propagate(ufunc, operands, results[0])  # loop index arithmetic, for static-length slices
    return tuple(results) if ufunc.nout > 1 else results[0]


def _store(ufunc, result, out, where, casting):
    """`result` written into `out` where `where` holds (NumPy's out= and where=)."""
    if where is not True:
        if out is None:
            raise UnsupportedError(f"np.{ufunc.__name__} with where= but no out= (uninitialised memory)")
        mask = value(where, np.bool_, result.shape)
        kept = broadcast_value(ew.convert(result.value, out.dtype), out.shape)
        result = wrap(ew.select(broadcast_value(mask, out.shape), kept, out.value))
    if out is not None:
        return write_out(out, result, casting, ufunc)
    return result


#: ufuncs whose reductions XLA may evaluate in any order (associative and commutative).
REORDERABLE = {np.add, np.multiply, np.maximum, np.minimum, np.fmax, np.fmin, np.logical_and,
               np.logical_or, np.logical_xor, np.bitwise_and, np.bitwise_or, np.bitwise_xor,
               np.logaddexp, np.logaddexp2, np.hypot, np.gcd, np.lcm}


def reduce(ufunc, array, axis=0, dtype=None, out=None, keepdims=False, initial=np._NoValue,
           where=True):
    """`ufunc.reduce`: fold the table body over `axis`, starting from the ufunc's identity;
    elements outside `where` count as the identity."""
    if ufunc not in REORDERABLE:
        raise UnsupportedError(f"np.{ufunc.__name__}.reduce")
    if where is not True and initial is np._NoValue and ufunc.identity is None:
        raise ValueError(f"reduction operation '{ufunc.__name__}' does not have an identity, "
                         "so to use a where mask one has to specify 'initial'")
    x = array if is_traced(array) else np.asarray(array)
    axes = normalize_axes(axis, x.ndim)
    out_dtype = np.asarray(ufunc.reduce(probe_array(x), axis=axis, dtype=dtype)).dtype
    loop = ufunc.resolve_dtypes((out_dtype, out_dtype, None))[0]
    if loop == np.float16 and ufunc in (np.add, np.multiply) and x.ndim - 1 in axes:
        # NumPy reduces along the last axis in one inner loop, which keeps a half sum or product
        # in float and rounds once; over other axes it rounds every step, as the half body does
        loop = np.dtype(np.float32)
    loop = _into(out, dtype, ufunc, loop)
    if initial is np._NoValue and ufunc.identity is None and any(x.shape[a] == 0 for a in axes):
        raise ValueError(f"zero-size array to reduction operation {ufunc.__name__} which has no identity")
    body = TABLE[ufunc]
    elements = value(x, loop)
    if where is not True:
        elements = ew.select(value(where, np.bool_, x.shape), elements, full(identity_of(ufunc, loop), x.shape, loop))
    if ufunc in (np.fmax, np.fmin) and loop.kind == "f" and (trace.current().differentiated or SESSION.mesh):
        v = _skipping_nan(ufunc, elements, axes)
    else:
        (v,) = reduce_op([elements], [full(identity_of(ufunc, loop), (), loop)], axes, lambda acc, e: [body(acc, e)])
    if initial is not np._NoValue:  # folded in once: XLA may apply a reduce's init more than once
        v = body(v, full(initial, shape_of(v), loop))
    v = ew.convert(v, out_dtype if out is None else loop)
    if keepdims:
        v = one("stablehlo.reshape", [v], [1 if i in axes else n for i, n in enumerate(x.shape)], dtype_of(v))
    result = wrap(v)
    return write_out(out, result, "unsafe") if out is not None else result


def _into(out, dtype, ufunc, loop: np.dtype) -> np.dtype:
    """The dtype a sum or product runs in given `out=`: NumPy promotes the loop's with out's when
    no dtype= is given (float32 summed into a float64 out sums in float64)."""
    target = out[0] if isinstance(out, tuple) else out
    if dtype is not None or ufunc not in (np.add, np.multiply) or not hasattr(target, "dtype"):
        return loop
    return np.promote_types(loop, target.dtype)


def _skipping_nan(ufunc, elements, axes):
    """fmax's (fmin's) reduction as the maximum of the numbers, NaN where there are none: reducers
    Enzyme differentiates and XLA's partitioner all-reduces, which fmax's select is neither (taken
    only for those: elsewhere fmax's one reduction is one pass over the data, not two)."""
    plain = np.maximum if ufunc is np.fmax else np.minimum
    dtype, shape = dtype_of(elements), shape_of(elements)
    limit = identity_of(plain, dtype)
    numbers = ew.compare("EQ", elements, elements)
    (extremum,) = reduce_op([ew.select(numbers, elements, full(limit, shape, dtype))], [full(limit, (), dtype)], axes,
                            lambda acc, e: [TABLE[plain](acc, e)])
    (some,) = reduce_op([numbers], [full(False, (), np.bool_)], axes, lambda acc, e: [ew.binary("or", acc, e)])
    return ew.select(some, extremum, full(np.nan, shape_of(extremum), dtype))


def identity_of(ufunc, dtype):
    """The neutral element of `ufunc` in `dtype` (the lowest value for maximum, ...)."""
    dtype = np.dtype(dtype)
    if ufunc is np.bitwise_and:
        return np.invert(np.zeros((), dtype))  # all bits set, for unsigned types too
    if ufunc is np.lcm:
        return 1
    if ufunc in (np.fmax, np.fmin) and dtype.kind in "fc":
        return np.nan  # skipped by every element, and the answer for an all-NaN slice
    if ufunc.identity is not None:
        return ufunc.identity
    lowest = ufunc in (np.maximum, np.fmax)
    if dtype.kind == "b":
        return not lowest
    if dtype.kind in "iu":
        return np.iinfo(dtype).min if lowest else np.iinfo(dtype).max
    limit = -np.inf if lowest else np.inf
    return complex(limit, limit) if dtype.kind == "c" else limit


def accumulate(ufunc, array, axis=0, dtype=None, out=None):
    """`ufunc.accumulate` as an inclusive scan along `axis`."""
    if ufunc not in REORDERABLE:
        raise UnsupportedError(f"np.{ufunc.__name__}.accumulate")
    x = array if is_traced(array) else np.asarray(array)
    axis = normalize_axis(axis, x.ndim)
    out_dtype = _into(out, dtype, ufunc, ufunc.accumulate(probe_array(x), axis=axis, dtype=dtype).dtype)
    if 0 in x.shape:
        result = wrap(full(0, x.shape, out_dtype), scalar=False)
        return write_out(out, result, "unsafe") if out is not None else result
    v = scan.inclusive(value(x, out_dtype), axis, TABLE[ufunc], full(identity_of(ufunc, out_dtype), (), out_dtype))
    result = wrap(v, scalar=False)
    return write_out(out, result, "unsafe") if out is not None else result


def reduceat(ufunc, array, indices, axis=0, dtype=None, out=None):
    """`ufunc.reduceat` with static indices: a reduce of each slice [indices[i], indices[i+1]),
    or the element at indices[i] where the next index is not larger."""
    indices = folding.static(indices)
    if is_traced(indices):
        raise UnsupportedError(f"np.{ufunc.__name__}.reduceat with traced indices (pass a list or host array)")
    x = array if is_traced(array) else np.asarray(array)
    axis = normalize_axis(axis, x.ndim)
    starts = [int(i) for i in np.asarray(indices).ravel()]
    n = x.shape[axis]
    for i in starts:
        if not 0 <= i < n:
            raise IndexError(f"index {i} out-of-bounds in {ufunc.__name__}.reduceat [0, {n})")
    out_dtype = np.asarray(ufunc.reduce(probe_array(x), axis=axis, dtype=dtype)).dtype
    v = value(x)
    pieces = []
    for start, stop in zip(starts, starts[1:] + [n]):
        stop = stop if stop > start else start + 1
        lo = [start if d == axis else 0 for d in range(x.ndim)]
        hi = [stop if d == axis else size for d, size in enumerate(x.shape)]
        piece = wrap(slice_op(v, lo, hi, [1] * x.ndim), scalar=False)
        pieces.append(reduce(ufunc, piece, axis, out_dtype, keepdims=True).value)
    result = wrap(concatenate(pieces, axis), scalar=False)
    return write_out(out, result, "unsafe") if out is not None else result


def outer(ufunc, a, b, **kwargs):
    """`ufunc.outer(a, b)`: every pair, result shape a.shape + b.shape (scalars count as arrays)."""
    from solvent.numpy.shape import reshape
    a, b = (x if is_traced(x) else np.asarray(x) for x in (a, b))
    left = reshape(a, a.shape + (1,) * b.ndim) if is_traced(a) else a.reshape(a.shape + (1,) * b.ndim)
    return call(ufunc, left, b, **kwargs)


#: ufunc methods; "at" is added by solvent.numpy.indexing.functions, which builds on indexing.
METHODS = {"__call__": call, "reduce": reduce, "accumulate": accumulate, "reduceat": reduceat, "outer": outer}


def _register(ufunc):
    @implements(ufunc)
    def traced_ufunc(method, *inputs, **kwargs):
        if method not in METHODS:
            raise UnsupportedError(f"np.{ufunc.__name__}.{method}")
        return METHODS[method](ufunc, *inputs, **kwargs)
    return traced_ufunc


for _ufunc in [*TABLE, *ALIASES]:
    _register(_ufunc)
