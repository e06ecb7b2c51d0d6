"""LAPACK custom calls that jaxlib registers for XLA's CPU client (typed FFI), one builder per routine.

Each routine works on a batch of column-major matrices: the leading dimensions
are the batch, the last two the matrix. Element types: float32, float64,
complex64, complex128. Results are exactly LAPACK's (factors packed as LAPACK
leaves them, 1-based pivots, an `info` status per matrix); the NumPy layer
unpacks them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo

from solvent.ir.types import tensor_type
from solvent.ops import elementwise
from solvent.ops.base import check, create, dtype_of, is_complex, shape_of

_PREFIX = {np.dtype(np.float32): "s", np.dtype(np.float64): "d",
           np.dtype(np.complex64): "c", np.dtype(np.complex128): "z"}
INT32 = np.dtype(np.int32)


def real_dtype(dtype) -> np.dtype:
    """The real part's dtype of a LAPACK element type."""
    return np.dtype(np.float32 if np.dtype(dtype) in (np.float32, np.complex64) else np.float64)


def _layout(rank: int, matrix: bool) -> ir.Attribute:
    """Minor-to-major order: column-major in the last two dimensions for matrices, else row-major."""
    order = [rank - 2, rank - 1] + list(range(rank - 3, -1, -1)) if matrix else list(range(rank - 1, -1, -1))
    return ir.DenseIntElementsAttr.get(np.array(order, dtype=np.int64), type=ir.IndexType.get())


def _char(c: str) -> ir.Attribute:
    return ir.IntegerAttr.get(ir.IntegerType.get_unsigned(8), ord(c))


def _call(routine: str, operands: Sequence[ir.Value], results: Sequence[tuple], config: dict[str, str],
          aliases: dict[int, int]) -> list[ir.Value]:
    """Emit `lapack_<t><routine>_ffi`; `results` are (shape, dtype); `aliases` map operand to result."""
    dtype = dtype_of(operands[0])
    check(dtype in _PREFIX, f"LAPACK {routine}: unsupported dtype {dtype}")
    rank = max(len(shape_of(v)) for v in operands)
    alias_attrs = [stablehlo.OutputOperandAlias.get(output_tuple_indices=[out] if len(results) > 1 else [],
                                                    operand_index=operand, operand_tuple_indices=[])
                   for operand, out in aliases.items()]
    attributes = {
        "call_target_name": ir.StringAttr.get(f"lapack_{_PREFIX[dtype]}{routine}_ffi"),
        "api_version": ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 1),  # with a dict config: typed FFI
        "backend_config": ir.StringAttr.get(""),
        "has_side_effect": ir.BoolAttr.get(False),
        "operand_layouts": ir.ArrayAttr.get([_layout(len(shape_of(v)), len(shape_of(v)) == rank)
                                             for v in operands]),
        "result_layouts": ir.ArrayAttr.get([_layout(len(s), len(s) == rank) for s, _ in results]),
        "output_operand_aliases": ir.ArrayAttr.get(alias_attrs),
        "mhlo.backend_config": ir.DictAttr.get({k: _char(v) for k, v in config.items()}),
        "mhlo.frontend_attributes": ir.DictAttr.get({"num_batch_dims": ir.StringAttr.get(str(rank - 2))}),
    }
    op = create("stablehlo.custom_call", operands, [tensor_type(s, d) for s, d in results], attributes)
    return list(op.results)


def getrf(a: ir.Value) -> tuple[ir.Value, ir.Value, ir.Value]:
    """LU with partial pivoting: (packed L\\U, 1-based row swaps (int32), info)."""
    *batch, m, n = shape_of(a)
    lu, pivots, info = _call("getrf", [a], [(shape_of(a), dtype_of(a)), ((*batch, min(m, n)), INT32),
                                            (tuple(batch), INT32)], {}, {0: 0})
    return lu, pivots, info


def potrf(a: ir.Value, lower: bool) -> tuple[ir.Value, ir.Value]:
    """Cholesky factor in the `lower` (or upper) triangle; the other triangle keeps `a`'s values."""
    batch = shape_of(a)[:-2]
    factor, info = _call("potrf", [a], [(shape_of(a), dtype_of(a)), (batch, INT32)],
                         {"uplo": "L" if lower else "U"}, {0: 0})
    return factor, info


def syevd(a: ir.Value, lower: bool, vectors: bool) -> tuple[ir.Value, ir.Value, ir.Value]:
    """Hermitian eigen-decomposition: (eigenvectors as columns, ascending real eigenvalues, info)."""
    *batch, n, _ = shape_of(a)
    routine = "heevd" if is_complex(dtype_of(a)) else "syevd"
    v, w, info = _call(routine, [a], [(shape_of(a), dtype_of(a)), ((*batch, n), real_dtype(dtype_of(a))),
                                      (tuple(batch), INT32)],
                       {"mode": "V" if vectors else "N", "uplo": "L" if lower else "U"}, {0: 0})
    return v, w, info


def gesdd(a: ir.Value, mode: str) -> tuple[ir.Value, ir.Value, ir.Value, ir.Value]:
    """SVD by divide and conquer, `mode` 'A' (full), 'S' (reduced) or 'N' (values): (s, u, vh, info)."""
    *batch, m, n = shape_of(a)
    k = min(m, n)
    u_cols, vh_rows = (m, n) if mode == "A" else (k, k)
    dtype = dtype_of(a)
    _, s, u, vh, info = _call("gesdd", [a], [(shape_of(a), dtype), ((*batch, k), real_dtype(dtype)),
                                             ((*batch, m, u_cols), dtype), ((*batch, vh_rows, n), dtype),
                                             (tuple(batch), INT32)], {"mode": mode}, {0: 0})
    return s, u, vh, info


def geqrf(a: ir.Value) -> tuple[ir.Value, ir.Value]:
    """Householder QR: (R above the diagonal and reflectors below, their scale factors tau)."""
    *batch, m, n = shape_of(a)
    packed, taus = _call("geqrf", [a], [(shape_of(a), dtype_of(a)), ((*batch, min(m, n)), dtype_of(a))],
                         {}, {0: 0})
    return packed, taus


def orgqr(a: ir.Value, taus: ir.Value) -> ir.Value:
    """The first columns of Q from `geqrf`'s reflectors (the columns of `a` it is given)."""
    routine = "ungqr" if is_complex(dtype_of(a)) else "orgqr"
    return _call(routine, [a, taus], [(shape_of(a), dtype_of(a))], {}, {0: 0})[0]


def geev(a: ir.Value) -> tuple[ir.Value, ir.Value, ir.Value]:
    """General eigen-decomposition: (complex eigenvalues, complex right eigenvectors, info)."""
    *batch, n, _ = shape_of(a)
    dtype = dtype_of(a)
    complex_dtype = np.dtype(np.complex64 if real_dtype(dtype) == np.float32 else np.complex128)
    vectors = ((*batch, n, n), complex_dtype)
    config = {"compute_left": "N", "compute_right": "V"}
    if is_complex(dtype):
        w, _, vr, info = _call("geev", [a], [((*batch, n), dtype), vectors, vectors, (tuple(batch), INT32)],
                               config, {})
        return w, vr, info
    values = ((*batch, n), dtype)
    wr, wi, _, vr, info = _call("geev", [a], [values, values, vectors, vectors, (tuple(batch), INT32)], config, {})
    return elementwise.binary("complex", wr, wi), vr, info


def trsm(a: ir.Value, b: ir.Value, lower: bool, transpose: str = "N", unit_diagonal: bool = False) -> ir.Value:
    """Solve op(a) x = b for triangular `a`, `transpose` 'N', 'T' or 'C'; a and b share batch dims."""
    check(shape_of(a)[:-2] == shape_of(b)[:-2], "trsm: batch dimensions differ")
    config = {"side": "L", "uplo": "L" if lower else "U", "trans_x": transpose,
              "diag": "U" if unit_diagonal else "N"}
    return _call("trsm", [a, b], [(shape_of(b), dtype_of(b))], config, {1: 0})[0]
