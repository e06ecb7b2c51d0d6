"""Products: matmul (and `@`), dot, einsum, all as `stablehlo.dot_general`."""

from __future__ import annotations

import numpy as np

from solvent.errors import UnsupportedError
from solvent.numpy.registry import implements
from solvent.numpy.values import broadcast_value, full, result_type, shape, value, wrap, write_out
from solvent.ops import elementwise as ew, shape as ops
from solvent.numpy.math import add
from solvent.ops.base import dtype_of, shape_of
from solvent.ops.linalg import dot_general
from solvent.ops.reduction import reduce as reduce_op


def _operands(a, b):
    dtype = result_type(a, b)
    compute = np.dtype(np.int64) if dtype == np.bool_ else dtype  # no boolean dot in XLA
    return value(a, compute), value(b, compute), dtype


def _finish(v, dtype, scalar=None):
    if dtype == np.bool_:
        v = ew.compare("NE", v, full(0, shape_of(v), np.int64))
    return wrap(v, scalar)


@implements(np.matmul)
def matmul(method, a, b, out=None, **kwargs):
    if method != "__call__" or kwargs:
        raise UnsupportedError(f"np.matmul.{method} or with {', '.join(kwargs)}=")
    x, y, dtype = _operands(a, b)
    xs, ys = shape_of(x), shape_of(y)
    if not xs or not ys:
        raise ValueError("matmul: Input operand does not have enough dimensions")
    if len(xs) == 1:
        x = ops.reshape(x, (1,) + xs)
    if len(ys) == 1:
        y = ops.reshape(y, ys + (1,))
    xs, ys = shape_of(x), shape_of(y)
    if xs[-1] != ys[-2]:
        raise ValueError(f"matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc "
                         f"signature (n?,k),(k,m?)->(n?,m?) (size {ys[-2]} is different from {xs[-1]})")
    batch = np.broadcast_shapes(xs[:-2], ys[:-2])
    x = broadcast_value(x, batch + xs[-2:])
    y = broadcast_value(y, batch + ys[-2:])
    dims = list(range(len(batch)))
    v = dot_general(x, y, ([len(batch) + 1], [len(batch)]), (dims, dims))
    final = batch + (shape(a)[-2:-1] if len(shape(a)) > 1 else ()) + (shape(b)[-1:] if len(shape(b)) > 1 else ())
    result = _finish(ops.reshape(v, final), dtype)
    return write_out(out, result) if out is not None else result


@implements(np.outer)
def outer(a, b, out=None):
    """Every product a[i] * b[j] of the flattened operands."""
    return np.multiply(np.reshape(a, (-1, 1)), np.reshape(b, (1, -1)), out=out)


@implements(np.dot)
def dot(a, b, out=None):
    if not shape(a) or not shape(b):
        return np.multiply(a, b, out=out)
    x, y, dtype = _operands(a, b)
    contract_b = len(shape(b)) - 2 if len(shape(b)) > 1 else 0
    if shape(a)[-1] != shape(b)[contract_b]:
        raise ValueError(f"shapes {shape(a)} and {shape(b)} not aligned")
    result = _finish(dot_general(x, y, ([len(shape(a)) - 1], [contract_b])), dtype)
    return write_out(out, result) if out is not None else result


def _parse_einsum(subscripts: str, count: int):
    subscripts = subscripts.replace(" ", "")
    if "." in subscripts:
        raise UnsupportedError("np.einsum with '...'")
    inputs, arrow, output = subscripts.partition("->")
    terms = inputs.split(",")
    if len(terms) != count:
        raise ValueError("more operands were provided than specified in the subscripts string"
                         if count > len(terms) else "fewer operands provided than specified")
    if not arrow:
        letters = "".join(terms)
        output = "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    return terms, output


def _sum_out(v, term: str, keep: set):
    """Sum away the letters of `term` not in `keep`; returns (value, remaining term)."""
    if len(set(term)) != len(term):
        raise UnsupportedError("np.einsum with a repeated index in one operand (a diagonal)")
    drop = [i for i, c in enumerate(term) if c not in keep]
    if not drop:
        return v, term
    zero = full(0, (), dtype_of(v))
    (v,) = reduce_op([v], [zero], drop, lambda acc, e: [add(acc, e)])
    return v, "".join(c for c in term if c in keep)


@implements(np.einsum)
def einsum(subscripts, *operands, out=None, dtype=None, order="K", casting="safe", optimize=False):
    if not isinstance(subscripts, str) or len(operands) not in (1, 2):
        raise UnsupportedError("np.einsum with other than one or two operands in subscripts form")
    terms, output = _parse_einsum(subscripts, len(operands))
    result_dtype = result_type(*operands)
    if dtype is not None:
        result_dtype = np.dtype(dtype)
    values = [value(x, result_dtype) for x in operands]
    if len(values) == 1:
        v, term = _sum_out(values[0], terms[0], set(output))
    else:
        (v0, t0), (v1, t1) = (_sum_out(values[0], terms[0], set(output) | set(terms[1])),
                              _sum_out(values[1], terms[1], set(output) | set(terms[0])))
        batch = [c for c in t0 if c in t1 and c in output]
        contract = [c for c in t0 if c in t1 and c not in output]
        v = dot_general(v0, v1, ([t0.index(c) for c in contract], [t1.index(c) for c in contract]),
                        ([t0.index(c) for c in batch], [t1.index(c) for c in batch]))
        term = "".join(batch) + "".join(c for c in t0 if c not in t1) + "".join(c for c in t1 if c not in t0)
    v = ops.transpose(v, [term.index(c) for c in output])
    result = wrap(v)
    return write_out(out, result, casting) if out is not None else result
