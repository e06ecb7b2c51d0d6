"""Products: matmul (and `@`), dot, inner, vdot, tensordot, einsum (any number of operands), kron, cross,
trace, the vecdot/matvec/vecmat gufuncs, and the np.linalg spellings of products; contractions are
`stablehlo.dot_general`."""

from __future__ import annotations

import operator
import string
import warnings

import numpy as np

from solvent.errors import UnsupportedError, user_stacklevel
from solvent.numpy.indexing import strided
from solvent.numpy.registry import implements
from solvent.numpy.values import (as_array, is_traced, broadcast_value, cast, full, result_type, shape, strong, value,
                                  wrap, write_out)
from solvent.ops import elementwise as ew, shape as ops
from solvent.ops.base import dtype_of, is_complex, shape_of
from solvent.ops.linalg import dot_general
from solvent.ops.reduction import reduce as reduce_op


def product_operands(a, b):
    """Both operands as values of their promoted dtype (int64 for bool: XLA has no boolean dot), and that dtype."""
    dtype = result_type(a, b)
    compute = np.dtype(np.int64) if dtype == np.bool_ else dtype  # no boolean dot in XLA
    return value(a, compute), value(b, compute), dtype


def finish_product(v, dtype, scalar=None):
    """A contraction's result as a traced array of `dtype` (bool: any non-zero term)."""
    if dtype == np.bool_:
        v = ew.compare("NE", v, full(0, shape_of(v), np.int64))
    return wrap(v, scalar)


MATMUL_HINT = "cast the operands instead (a.astype(t) @ b.astype(t))"


@implements(np.matmul)
def matmul(method, a, b, out=None, **kwargs):
    if method != "__call__":
        raise UnsupportedError(f"np.matmul.{method}")
    if kwargs:
        raise UnsupportedError(f"np.matmul with {', '.join(kwargs)}=: {MATMUL_HINT}")
    x, y, dtype = product_operands(a, b)
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
    result = finish_product(ops.reshape(v, final), dtype)
    return write_out(out, result) if out is not None else result


@implements(np.outer)
def outer(a, b, out=None):
    """Every product a[i] * b[j] of the flattened operands."""
    return np.multiply(np.reshape(a, (-1, 1)), np.reshape(b, (1, -1)), out=out)


@implements(np.dot)
def dot(a, b, out=None):
    a, b = strong(a), strong(b)  # (NumPy's asarray)
    if not shape(a) or not shape(b):
        return np.multiply(a, b, out=out)
    x, y, dtype = product_operands(a, b)
    contract_b = len(shape(b)) - 2 if len(shape(b)) > 1 else 0
    if shape(a)[-1] != shape(b)[contract_b]:
        raise ValueError(f"shapes {shape(a)} and {shape(b)} not aligned")
    result = finish_product(dot_general(x, y, ([len(shape(a)) - 1], [contract_b])), dtype)
    if out is None:
        return result
    if is_traced(out) and (out.dtype != result.dtype or out.shape != result.shape):
        raise ValueError("output array is not acceptable (must have the right datatype, number of dimensions, "
                         "and be a C-Array)")
    return write_out(out, result)


def diagonal_value(v, offset: int = 0):
    """The `offset` diagonal of the last two dimensions, as a new last dimension.

    A strided slice of the flattened matrix: consecutive diagonal entries are n + 1 apart.
    """
    *batch, m, n = shape_of(v)
    start = offset if offset >= 0 else -offset * n
    count = max(0, min(m, n - offset) if offset >= 0 else min(m + offset, n))
    flat = ops.reshape(v, (*batch, m * n))
    if count == 0:
        return ops.slice(flat, [0] * (len(batch) + 1), [*batch, 0], [1] * (len(batch) + 1))
    limit = start + (count - 1) * (n + 1) + 1
    return ops.slice(flat, [0] * len(batch) + [start], [*batch, limit], [1] * len(batch) + [n + 1])


def conjugate_value(v):
    """Complex conjugate (real values unchanged)."""
    if not is_complex(dtype_of(v)):
        return v
    return ew.binary("complex", ew.unary("real", v), ew.unary("negate", ew.unary("imag", v)))


def as_traced(x):
    """`x` as a traced array (host operands become constants), so NumPy calls on it dispatch to solvent."""
    return wrap(value(x), scalar=False)


@implements(np.inner)
def inner(a, b):
    """Sum over the last axes of both operands."""
    a, b = strong(a), strong(b)  # (NumPy's asarray)
    if not shape(a) or not shape(b):
        return np.multiply(a, b)
    if shape(a)[-1] != shape(b)[-1]:
        raise ValueError(f"shapes {shape(a)} and {shape(b)} not aligned: {shape(a)[-1]} (dim {len(shape(a)) - 1}) "
                         f"!= {shape(b)[-1]} (dim {len(shape(b)) - 1})")
    x, y, dtype = product_operands(a, b)
    return finish_product(dot_general(x, y, ([len(shape(a)) - 1], [len(shape(b)) - 1])), dtype)


def tensordot_axes(axes, ndim_a: int, ndim_b: int):
    try:
        axes_a, axes_b = axes
    except TypeError:
        axes_a, axes_b = list(range(-axes, 0)), list(range(axes))
    axes_a = [axes_a] if isinstance(axes_a, (int, np.integer)) else list(axes_a)
    axes_b = [axes_b] if isinstance(axes_b, (int, np.integer)) else list(axes_b)
    return [a % ndim_a if ndim_a else a for a in axes_a], [b % ndim_b if ndim_b else b for b in axes_b]


@implements(np.tensordot)
def tensordot(a, b, axes=2):
    """Contract axes_a of a with axes_b of b; free axes of a, then of b, in order."""
    a, b = strong(a), strong(b)  # (NumPy's asarray)
    axes_a, axes_b = tensordot_axes(axes, len(shape(a)), len(shape(b)))
    if len(axes_a) != len(axes_b) or any(shape(a)[i] != shape(b)[j] for i, j in zip(axes_a, axes_b)):
        raise ValueError("shape-mismatch for sum")
    x, y, dtype = product_operands(a, b)
    return finish_product(dot_general(x, y, (axes_a, axes_b)), dtype, scalar=False)


@implements(np.vdot)
def vdot(a, b):
    """Dot product of the flattened operands, the first conjugated."""
    a, b = strong(a), strong(b)  # (NumPy's asarray)
    x, y, dtype = product_operands(a, b)
    size_a, size_b = int(np.prod(shape(a))), int(np.prod(shape(b)))
    if size_a != size_b:
        raise ValueError("vectors have different lengths")
    x, y = conjugate_value(ops.reshape(x, (size_a,))), ops.reshape(y, (size_b,))
    return finish_product(dot_general(x, y, ([0], [0])), dtype)


@implements(np.kron)
def kron(a, b):
    """Kronecker product: every a[i] * b as blocks, as a broadcast product and one reshape."""
    a, b = as_traced(a), as_traced(b)
    if a.ndim == 0 or b.ndim == 0:
        return np.multiply(a, b)
    ndim = max(a.ndim, b.ndim)
    a_shape, b_shape = (1,) * (ndim - a.ndim) + a.shape, (1,) * (ndim - b.ndim) + b.shape
    a_spread = np.reshape(a, [n for size in a_shape for n in (size, 1)])
    b_spread = np.reshape(b, [n for size in b_shape for n in (1, size)])
    return np.reshape(np.multiply(a_spread, b_spread), [m * n for m, n in zip(a_shape, b_shape)])


def _cross_components(a, b):
    """The cross product's components from vectors of 2 or 3 entries (a missing z is 0)."""
    a0, a1, b0, b1 = a[..., 0], a[..., 1], b[..., 0], b[..., 1]
    z = a0 * b1 - a1 * b0
    if a.shape[-1] == 2 and b.shape[-1] == 2:
        return z
    if a.shape[-1] == 2:
        b2 = b[..., 2]
        return [a1 * b2, np.negative(a0 * b2), z]
    a2 = a[..., 2]
    if b.shape[-1] == 2:
        return [np.negative(a2 * b1), a2 * b0, z]
    b2 = b[..., 2]
    return [a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, z]


@implements(np.cross)
def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """Cross product of 3-vectors (or 2-vectors, z taken as 0) along the given axes."""
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = as_traced(a), as_traced(b)
    if a.ndim < 1 or b.ndim < 1:
        raise ValueError("At least one array has zero dimension")
    a = np.moveaxis(a, np.lib.array_utils.normalize_axis_index(axisa, a.ndim, "axisa"), -1)
    b = np.moveaxis(b, np.lib.array_utils.normalize_axis_index(axisb, b.ndim, "axisb"), -1)
    if a.shape[-1] not in (2, 3) or b.shape[-1] not in (2, 3):
        raise ValueError("incompatible dimensions for cross product\n(dimension must be 2 or 3)")
    if a.shape[-1] == 2 or b.shape[-1] == 2:
        warnings.warn("Arrays of 2-dimensional vectors are deprecated. Use arrays of 3-dimensional vectors "
                      "instead. (deprecated in NumPy 2.0)", DeprecationWarning, stacklevel=user_stacklevel())
    dtype = np.promote_types(a.dtype, b.dtype)
    batch = np.broadcast_shapes(a.shape[:-1], b.shape[:-1])
    components = _cross_components(a, b)
    if not isinstance(components, list):
        return wrap(value(components, dtype, batch), scalar=False)
    axisc = np.lib.array_utils.normalize_axis_index(axisc, len(batch) + 1, "axisc")
    stacked = np.stack([wrap(value(c, dtype, batch), scalar=False) for c in components], axis=-1)
    return np.moveaxis(stacked, -1, axisc)


@implements(np.trace)
def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    """Sum of the `offset` diagonal over axis1 and axis2 (NumPy's sum dtype rules)."""
    a = as_traced(a)
    if a.ndim < 2:
        raise ValueError("diag requires an array of at least two dimensions")
    axis1, axis2 = (np.lib.array_utils.normalize_axis_index(x, a.ndim) for x in (axis1, axis2))
    if axis1 == axis2:
        raise ValueError("axis1 and axis2 cannot be the same")
    diagonal = diagonal_value(value(np.moveaxis(a, (axis1, axis2), (-2, -1))), offset)
    result = np.sum(wrap(diagonal, scalar=False), axis=-1, dtype=dtype)
    return write_out(out, result, "unsafe") if out is not None else result  # NumPy's trace casts unsafely


# einsum: subscripts are parsed to one letter per dimension (ellipsis dimensions get
# letters of their own), then operands are contracted pairwise in the order NumPy's
# own greedy `einsum_path` picks from the shapes.

_ELLIPSIS_LETTERS = "".join(chr(0x100 + i) for i in range(64))  # not ASCII: never a user's subscript


def _sublist_letters(sublist) -> str:
    """The interleaved form's list of ints (and Ellipsis) as a subscripts string."""
    letters = string.ascii_uppercase + string.ascii_lowercase
    return "".join("..." if s is Ellipsis else letters[operator.index(s)] for s in sublist)


def _einsum_arguments(subscripts, operands):
    """(subscripts string, operands) from either calling form of np.einsum."""
    if isinstance(subscripts, str):
        return subscripts.replace(" ", ""), list(operands)
    items = [subscripts, *operands]
    output = "->" + _sublist_letters(items.pop()) if len(items) % 2 else ""  # a trailing output sublist
    return ",".join(map(_sublist_letters, items[1::2])) + output, items[0::2]


def _expand_ellipsis(term: str, ndim: int, which: int) -> str:
    if "..." not in term:
        if len(term) != ndim:
            raise ValueError(f"operand has more dimensions than subscripts given in einstein sum, but no '...' "
                             f"ellipsis provided to broadcast the extra dimensions (operand {which})"
                             if ndim > len(term) else
                             f"einstein sum subscripts string contains too many subscripts for operand {which}")
        return term
    count = ndim - (len(term) - 3)
    if count < 0:
        raise ValueError(f"einstein sum subscripts string contains too many subscripts for operand {which}")
    return term.replace("...", _ELLIPSIS_LETTERS[len(_ELLIPSIS_LETTERS) - count:] if count else "")


def _parse_einsum(subscripts: str, shapes):
    """(one term per operand, output term, size of each letter), with NumPy's checks."""
    inputs, arrow, output = subscripts.partition("->")
    for c in (inputs + output).replace("...", "").replace(",", ""):
        if not (c.isascii() and c.isalpha()):
            raise ValueError(f"invalid subscript '{c}' in einstein sum subscripts string, subscripts must be letters")
    terms = inputs.split(",")
    if len(terms) != len(shapes):
        raise ValueError("more operands were provided than specified in the subscripts string"
                         if len(shapes) > len(terms) else "fewer operands provided to einstein sum function than "
                         "specified in the subscripts string")
    terms = [_expand_ellipsis(t, len(s), i) for i, (t, s) in enumerate(zip(terms, shapes))]
    sizes = {}
    for term, s in zip(terms, shapes):
        for letter, n in zip(term, s):
            if sizes.get(letter, 1) not in (1, n) and n != 1:
                raise ValueError(f"operands could not be broadcast together with remapped shapes: "
                                 f"dimension for subscript '{letter}' is {n} and {sizes[letter]}")
            if sizes.get(letter, 1) == 1:  # (a length of 1 spreads; 0 is a length like any other)
                sizes[letter] = n
    letters = "".join(terms)
    ellipsis = "".join(c for c in _ELLIPSIS_LETTERS if c in letters)
    if not arrow:
        once = sorted(c for c in set(letters) - set(ellipsis) if letters.count(c) == 1)
        return terms, ellipsis + "".join(once), sizes
    output = output.replace("...", ellipsis)
    for c in output:
        if c not in letters:
            raise ValueError(f"einstein sum subscripts string included output subscript '{c}' which never "
                             f"appeared in an input")
    if len(set(output)) != len(output):
        raise ValueError("einstein sum subscripts string includes output subscript more than once")
    return terms, output, sizes


def _take_diagonals(v, term: str):
    """Operand `v` with each repeated letter of `term` reduced to its diagonal (`ii` -> `i`)."""
    while len(set(term)) != len(term):
        letter = next(c for c in term if term.count(c) > 1)
        first, second = term.index(letter), term.index(letter, term.index(letter) + 1)
        rest = [i for i in range(len(term)) if i not in (first, second)]
        v = diagonal_value(ops.transpose(v, rest + [first, second]))
        term = "".join(term[i] for i in rest) + letter
    return v, term


def _sum_out(v, term: str, keep: str):
    """Sum away the letters of `term` not in `keep`; returns (value, remaining term)."""
    drop = [i for i, c in enumerate(term) if c not in keep]
    if not drop:
        return v, term
    zero = full(0, (), dtype_of(v))
    (v,) = reduce_op([v], [zero], drop, lambda acc, e: [ew.binary("add", acc, e)])
    return v, "".join(c for c in term if c in keep)


def _contract(left, right, keep: str):
    """Two (value, term) operands contracted over the letters they share that `keep` lacks."""
    (v0, t0), (v1, t1) = _sum_out(*left, keep + right[1]), _sum_out(*right, keep + left[1])
    batch = [c for c in t0 if c in t1 and c in keep]
    summed = [c for c in t0 if c in t1 and c not in keep]
    v = dot_general(v0, v1, ([t0.index(c) for c in summed], [t1.index(c) for c in summed]),
                    ([t0.index(c) for c in batch], [t1.index(c) for c in batch]))
    return v, "".join(batch) + "".join(c for c in t0 if c not in t1) + "".join(c for c in t1 if c not in t0)


def _einsum_order(subscripts, arrays, optimize):
    """The pairwise contraction path: an explicit one from `optimize`, else NumPy's greedy choice."""
    if isinstance(optimize, (list, tuple)) and optimize and optimize[0] == "einsum_path":
        return [tuple(step) for step in optimize[1:]]
    if len(arrays) <= 2:
        return [tuple(range(len(arrays)))]
    stand_ins = [np.broadcast_to(np.zeros((), a.dtype), a.shape) for a in arrays]
    return np.einsum_path(subscripts, *stand_ins, optimize="greedy")[0][1:]


@implements(np.einsum)
def einsum(subscripts, *operands, out=None, dtype=None, order="K", casting="safe", optimize=False):
    """Einstein summation over any number of operands, with ellipses and repeated (diagonal) subscripts."""
    subscripts, given = _einsum_arguments(subscripts, operands)
    arrays = [as_traced(a) for a in given]
    terms, output, sizes = _parse_einsum(subscripts, [a.shape for a in arrays])
    result_dtype = result_type(*arrays) if dtype is None else np.dtype(dtype)
    for a in arrays:
        if not np.can_cast(a.dtype, result_dtype, casting):
            raise TypeError(f"Cannot cast array data from {a.dtype!r} to {result_dtype!r} according to the rule "
                            f"{casting!r}")
    if len(arrays) == 1 and out is None and dtype is None and set(terms[0]) == set(output) and is_traced(given[0]):
        return _einsum_view(given[0], terms[0], output)
    compute = np.dtype(np.int64) if result_dtype == np.bool_ else result_dtype
    pending = []
    for a, term in zip(arrays, terms):
        v, term = _take_diagonals(value(a, compute), term)
        pending.append((broadcast_value(v, [sizes[c] for c in term]), term))
    for step in _einsum_order(subscripts, arrays, optimize):
        chosen = [pending[i] for i in step]
        pending = [p for i, p in enumerate(pending) if i not in step]
        keep = output + "".join(t for _, t in pending)
        combined = chosen[0]
        for position, other in enumerate(chosen[1:], start=2):
            combined = _contract(combined, other, keep + "".join(t for _, t in chosen[position:]))
        pending.append(_sum_out(*combined, keep))
    v, term = pending[0]
    result = finish_product(ops.transpose(v, [term.index(c) for c in output]), result_dtype)
    if out is not None:
        return write_out(out, result, casting)
    if optimize is not False and not output:  # (NumPy's optimized path gives an array, not a scalar)
        return wrap(value(result), scalar=False)
    return result


def _einsum_view(a, term: str, output: str):
    """NumPy's einsum of one operand that sums nothing: a view of it that writes through, an axis
    permutation, or where a letter repeats a diagonal (its elements found by NumPy's own einsum
    of their positions)."""
    if len(set(term)) == len(term):
        return np.transpose(a, [term.index(c) for c in output])
    letters = dict(zip(dict.fromkeys(term), string.ascii_letters))  # (ellipsis letters are not NumPy's)
    subscripts = "".join(letters[c] for c in term) + "->" + "".join(letters[c] for c in output)
    positions = np.einsum(subscripts, np.arange(int(np.prod(a.shape))).reshape(a.shape))
    return strided.gathered(a, positions)


@implements(np.einsum_path)
def einsum_path(*operands, optimize="greedy", einsum_call=False):
    """NumPy's own path search, run on stand-ins of the operands' shapes and dtypes (no data needed)."""
    stand_ins = [np.broadcast_to(np.zeros((), o.dtype), o.shape) if hasattr(o, "dtype") and hasattr(o, "shape")
                 and not isinstance(o, np.ndarray) else o for o in operands]
    return np.einsum_path(*stand_ins, optimize=optimize, einsum_call=einsum_call)


@implements(np.linalg.outer)
def linalg_outer(x1, x2, /):
    if np.ndim(x1) != 1 or np.ndim(x2) != 1:
        raise ValueError(f"Input arrays must be one-dimensional, but they are x1.ndim={np.ndim(x1)} and "
                         f"x2.ndim={np.ndim(x2)}.")
    return np.outer(x1, x2)


@implements(np.linalg.cross)
def linalg_cross(x1, x2, /, *, axis=-1):
    if shape(x1)[axis] != 3 or shape(x2)[axis] != 3:
        raise ValueError(f"Both input arrays must be (arrays of) 3-dimensional vectors, but they are "
                         f"{shape(x1)[axis]} and {shape(x2)[axis]} dimensional instead.")
    return np.cross(x1, x2, axis=axis)


@implements(np.linalg.trace)
def linalg_trace(x, /, *, offset=0, dtype=None):
    return np.trace(x, offset, axis1=-2, axis2=-1, dtype=dtype)


@implements(np.linalg.diagonal)
def linalg_diagonal(x, /, *, offset=0):
    if len(shape(x)) < 2:
        raise ValueError("diag requires an array of at least two dimensions")
    return wrap(diagonal_value(value(x), offset), scalar=False)


@implements(np.linalg.matmul)
def linalg_matmul(x1, x2, /):
    return np.matmul(x1, x2)


@implements(np.linalg.tensordot)
def linalg_tensordot(x1, x2, /, *, axes=2):
    return np.tensordot(x1, x2, axes=axes)


@implements(np.linalg.matrix_transpose)
def linalg_matrix_transpose(x, /):
    if len(shape(x)) < 2:
        raise ValueError("Input array must be at least 2-dimensional")
    return np.swapaxes(x, -1, -2)


@implements(np.linalg.vecdot)
def linalg_vecdot(x1, x2, /, *, axis=-1):
    """Sum over `axis` of conj(x1) * x2, broadcasting the other dimensions."""
    x, y, dtype = product_operands(x1, x2)
    x, y = wrap(conjugate_value(x), scalar=False), wrap(y, scalar=False)
    if x.shape[axis] != y.shape[axis]:
        raise ValueError(f"vecdot: Input operand 1 has a mismatch in its core dimension 0 "
                         f"(size {y.shape[axis]} is different from {x.shape[axis]})")
    x, y = np.moveaxis(x, axis, -1), np.moveaxis(y, axis, -1)
    batch = np.broadcast_shapes(x.shape[:-1], y.shape[:-1])
    dims = list(range(len(batch)))
    v = dot_general(value(x, to_shape=batch + x.shape[-1:]), value(y, to_shape=batch + y.shape[-1:]),
                    ([len(batch)], [len(batch)]), (dims, dims))
    return finish_product(v, dtype)


# -- the vector gufuncs (np.matmul lives in products.py) -------------------------------------------

#: Operand shapes with the core dimensions of each gufunc, for asking NumPy its result dtype.
_CORE = {"vecdot": ((1,), (1,)), "matvec": ((1, 1), (1,)), "vecmat": ((1,), (1, 1))}


def _gufunc(name, contract):
    """vecdot, matvec, vecmat: products summed over the core dimension, in the ufunc's loop dtype."""
    ufunc = getattr(np, name)

    def apply(method, x1, x2, out=None, axes=None, axis=None, dtype=None, **kwargs):
        if method != "__call__" or kwargs or axes is not None or (axis is not None and name != "vecdot"):
            raise UnsupportedError(f"np.{name}.{method} or with axes=/{', '.join(kwargs)}")
        probes = [np.ones(core, result_type(x)) for core, x in zip(_CORE[name], (x1, x2))]
        loop = ufunc(*probes, dtype=dtype).dtype
        x1, x2 = cast(as_array(x1), loop), cast(as_array(x2), loop)
        result = contract(x1, x2, -1 if axis is None else axis)
        result = cast(result, loop)
        return write_out(out, result) if out is not None else result
    return apply


def _vecdot(x1, x2, axis):
    return np.add.reduce(np.multiply(np.conjugate(x1), x2), axis=axis, dtype=x1.dtype)


def _matvec(a, v, axis):
    return np.add.reduce(np.multiply(a, np.expand_dims(v, -2)), axis=-1, dtype=a.dtype)


def _vecmat(v, a, axis):
    return np.add.reduce(np.multiply(np.expand_dims(np.conjugate(v), -1), a), axis=-2, dtype=a.dtype)


implements(np.vecdot)(_gufunc("vecdot", _vecdot))
implements(np.matvec)(_gufunc("matvec", _matvec))
implements(np.vecmat)(_gufunc("vecmat", _vecmat))
