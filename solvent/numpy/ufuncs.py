"""NumPy ufuncs on traced values: one table row per ufunc, and the ufunc methods.

NumPy itself decides each call's loop dtypes (`ufunc.resolve_dtypes`, which
implements NEP 50 with Python scalars as weak types); the table supplies the
StableHLO body.
"""

from __future__ import annotations

import numpy as np

from solvent.errors import UnsupportedError
from solvent.numpy import math as m
from solvent.numpy.registry import implements
from solvent.numpy.values import (broadcast_value, dtype_key, full, is_traced,
                                  normalize_axes, probe_array, shape, value, wrap, write_out)
from solvent.ops import elementwise as ew
from solvent.ops.base import dtype_of, one, shape_of
from solvent.ops.reduction import reduce as reduce_op, reduce_window
from solvent.ops.scatter import scatter

u = lambda name: (lambda x: ew.unary(name, x))
b = lambda name: (lambda x, y: ew.binary(name, x, y))
cmp = lambda direction: (lambda x, y: ew.compare(direction, x, y))

#: ufunc -> body on values cast to its loop dtypes.
TABLE = {
    np.add: m.add, np.subtract: b("subtract"), np.multiply: m.multiply, np.true_divide: b("divide"),
    np.floor_divide: m.floor_divide, np.remainder: m.remainder, np.fmod: m.fmod, np.power: m.power,
    np.float_power: m.power, np.maximum: m.maximum, np.minimum: m.minimum, np.fmax: m.fmax,
    np.fmin: m.fmin, np.arctan2: b("atan2"), np.hypot: m.hypot, np.copysign: m.copysign,
    np.logaddexp: m.logaddexp, np.logaddexp2: lambda x, y: m.logaddexp(x, y, base=2),
    np.heaviside: m.heaviside, np.ldexp: m.ldexp,
    np.equal: cmp("EQ"), np.not_equal: cmp("NE"), np.less: cmp("LT"), np.less_equal: cmp("LE"),
    np.greater: cmp("GT"), np.greater_equal: cmp("GE"),
    np.logical_and: m.logical("and"), np.logical_or: m.logical("or"), np.logical_xor: m.logical("xor"),
    np.logical_not: m.logical_not, np.bitwise_and: b("and"), np.bitwise_or: b("or"),
    np.bitwise_xor: b("xor"), np.invert: u("not"), np.left_shift: b("shift_left"),
    np.right_shift: lambda x, y: ew.binary(
        "shift_right_logical" if np.issubdtype(dtype_of(x), np.unsignedinteger) else "shift_right_arithmetic", x, y),
    np.negative: m.negative, np.positive: lambda x: x, np.absolute: m.absolute, np.fabs: m.absolute,
    np.sign: m.sign, np.signbit: m.signbit, np.sqrt: u("sqrt"), np.cbrt: m.cbrt, np.square: m.square,
    np.reciprocal: m.reciprocal, np.conjugate: m.conjugate, np.exp: u("exponential"),
    np.exp2: m.exp2, np.expm1: u("exponential_minus_one"), np.log: u("log"), np.log2: m.log_base(2),
    np.log10: m.log_base(10), np.log1p: u("log_plus_one"), np.sin: u("sine"), np.cos: u("cosine"),
    np.tan: u("tan"), np.arcsin: m.chlo_unary("asin"), np.arccos: m.chlo_unary("acos"),
    np.arctan: m.chlo_unary("atan"), np.sinh: m.chlo_unary("sinh"), np.cosh: m.chlo_unary("cosh"),
    np.tanh: u("tanh"), np.arcsinh: m.chlo_unary("asinh"), np.arccosh: m.chlo_unary("acosh"),
    np.arctanh: m.chlo_unary("atanh"), np.deg2rad: m.scale(np.pi / 180), np.rad2deg: m.scale(180 / np.pi),
    np.floor: m.rounding("floor"), np.ceil: m.rounding("ceil"), np.trunc: m.trunc,
    np.rint: m.rounding("round_nearest_even"), np.isnan: m.isnan, np.isinf: m.isinf,
    np.isfinite: m.isfinite,
}
#: ufuncs that NumPy exposes under two names (np.abs is np.absolute, ...), for completeness.
ALIASES = {np.radians: np.deg2rad, np.degrees: np.rad2deg}


def loop_dtypes(ufunc, operands, dtype=None):
    """(input dtypes, output dtype) that NumPy would use for this call."""
    keys = tuple(dtype_key(x) for x in operands)
    outputs = (np.dtype(dtype),) if dtype is not None else (None,) * ufunc.nout
    resolved = ufunc.resolve_dtypes(keys + outputs)
    return resolved[:ufunc.nin], resolved[ufunc.nin]


def apply(ufunc, operands, dtype=None):
    """Call the table body on operands promoted and broadcast as NumPy would."""
    body = TABLE[ALIASES.get(ufunc, ufunc)]
    in_dtypes, out_dtype = loop_dtypes(ufunc, operands, dtype)
    out_shape = np.broadcast_shapes(*(shape(x) for x in operands))
    values = [value(x, d, out_shape) for x, d in zip(operands, in_dtypes)]
    return ew.convert(body(*values), out_dtype)


def call(ufunc, *operands, out=None, dtype=None, where=True, casting="same_kind", **unsupported):
    """`ufunc(*operands, out=..., dtype=..., where=...)`."""
    if unsupported:
        raise UnsupportedError(f"np.{ufunc.__name__} with {', '.join(unsupported)}=")
    result = wrap(apply(ufunc, operands, dtype))
    if where is not True:
        if out is None:
            raise UnsupportedError(f"np.{ufunc.__name__} with where= but no out= (uninitialised memory)")
        target = out[0] if isinstance(out, tuple) else out
        mask = value(where, np.bool_, result.shape)
        kept = broadcast_value(ew.convert(result.value, target.dtype), target.shape)
        result = wrap(ew.select(broadcast_value(mask, target.shape), kept, target.value))
    if out is not None:
        return write_out(out, result, casting, f"ufunc '{ufunc.__name__}'")
    return result


def reduce(ufunc, array, axis=0, dtype=None, out=None, keepdims=False, initial=np._NoValue,
           where=True):
    """`ufunc.reduce`: fold the table body over `axis`."""
    if where is not True:
        raise UnsupportedError(f"np.{ufunc.__name__}.reduce with where=")
    x = array if is_traced(array) else np.asarray(array)
    axes = normalize_axes(axis, x.ndim)
    probe = ufunc.reduce(probe_array(x), axis=axis, dtype=dtype)
    out_dtype = np.asarray(probe).dtype
    loop = ufunc.resolve_dtypes((out_dtype, out_dtype, None))[0]
    if initial is np._NoValue:
        initial = ufunc.identity
        if initial is None:
            if any(x.shape[a] == 0 for a in axes):
                raise ValueError(f"zero-size array to reduction operation {ufunc.__name__} which has no identity")
            initial = _lowest(loop) if ufunc in (np.maximum, np.fmax) else _highest(loop)
    body = TABLE[ufunc]
    init = full(initial, (), loop)
    (v,) = reduce_op([value(x, loop)], [init], axes, lambda acc, e: [body(acc, e)])
    v = ew.convert(v, out_dtype)
    if keepdims:
        v = one("stablehlo.reshape", [v], [1 if i in axes else n for i, n in enumerate(x.shape)], out_dtype)
    result = wrap(v)
    return write_out(out, result) if out is not None else result


def _lowest(dtype):
    if np.issubdtype(dtype, np.floating):
        return -np.inf
    return np.iinfo(dtype).min if dtype != np.bool_ else False


def _highest(dtype):
    if np.issubdtype(dtype, np.floating):
        return np.inf
    return np.iinfo(dtype).max if dtype != np.bool_ else True


def accumulate(ufunc, array, axis=0, dtype=None, out=None):
    """`ufunc.accumulate` as a prefix reduce_window along `axis`."""
    if ufunc.identity is None and ufunc not in (np.maximum, np.minimum):
        raise UnsupportedError(f"np.{ufunc.__name__}.accumulate")
    x = array if is_traced(array) else np.asarray(array)
    axis = normalize_axes(axis, x.ndim)[0]
    out_dtype = ufunc.accumulate(probe_array(x), axis=axis, dtype=dtype).dtype
    n = x.shape[axis]
    window = [n if i == axis else 1 for i in range(x.ndim)]
    padding = [(n - 1, 0) if i == axis else (0, 0) for i in range(x.ndim)]
    initial = ufunc.identity if ufunc.identity is not None else (
        _lowest(out_dtype) if ufunc is np.maximum else _highest(out_dtype))
    body = TABLE[ufunc]
    v = reduce_window(value(x, out_dtype), full(initial, (), out_dtype), window, padding,
                      lambda acc, e: [body(acc, e)])
    result = wrap(v, scalar=False)
    return write_out(out, result) if out is not None else result


def outer(ufunc, a, b, **kwargs):
    """`ufunc.outer(a, b)`: every pair, result shape a.shape + b.shape."""
    from solvent.numpy.shape import reshape
    a_shape, b_shape = shape(a), shape(b)
    left = reshape(a, a_shape + (1,) * len(b_shape)) if is_traced(a) else np.reshape(a, a_shape + (1,) * len(b_shape))
    return call(ufunc, left, b, **kwargs)


def at(ufunc, array, indices, values=None):
    """`ufunc.at(a, indices, b)`: unbuffered in place, repeated indices all apply."""
    if not is_traced(array):
        raise UnsupportedError("ufunc.at on an array that solvent does not trace")
    if isinstance(indices, tuple) or is_traced(indices) and indices.ndim != 1 or array.ndim < 1:
        raise UnsupportedError(f"np.{ufunc.__name__}.at with indices other than one integer array")
    idx = value(indices, np.int64) if is_traced(indices) else value(np.asarray(indices, dtype=np.int64))
    idx_shape = shape_of(idx)
    if idx_shape == ():
        idx = one("stablehlo.reshape", [idx], [1], np.int64)
        idx_shape = (1,)
    n = array.shape[0]
    idx = ew.select(ew.compare("LT", idx, full(0, idx_shape, np.int64)),
                    ew.binary("add", idx, full(n, idx_shape, np.int64)), idx)
    idx = one("stablehlo.reshape", [idx], [idx_shape[0], 1], np.int64)
    loop = loop_dtypes(ufunc, [array] + ([] if values is None else [values]))[0][0]
    if values is None:
        raise UnsupportedError(f"np.{ufunc.__name__}.at without values")
    updates = value(values, array.dtype, (idx_shape[0],) + array.shape[1:])
    body = TABLE[ufunc]
    array.assign(scatter(array.value, idx, updates, [0],
                         lambda old, new: [ew.convert(body(ew.convert(old, loop), ew.convert(new, loop)), array.dtype)]))


METHODS = {"__call__": call, "reduce": reduce, "accumulate": accumulate, "outer": outer, "at": at}


def _register(ufunc):
    @implements(ufunc)
    def traced_ufunc(method, *inputs, **kwargs):
        if method not in METHODS:
            raise UnsupportedError(f"np.{ufunc.__name__}.{method}")
        return METHODS[method](ufunc, *inputs, **kwargs)
    return traced_ufunc


for _ufunc in [*TABLE, *ALIASES]:
    _register(_ufunc)
