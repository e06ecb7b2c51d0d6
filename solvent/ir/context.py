"""The MLIR context solvent builds every module in, with the dialects it needs."""

from __future__ import annotations

import threading

from jaxlib.mlir import ir
from jaxlib.mlir._mlir_libs import _jax_mlir_ext
from jaxlib.mlir.dialects import chlo, sdy, stablehlo

_local = threading.local()


def context() -> ir.Context:
    """This thread's MLIR context (one per thread: MLIR contexts are not shared across threads)."""
    ctx = getattr(_local, "context", None)
    if ctx is None:
        registry = ir.DialectRegistry()
        _jax_mlir_ext.register_dialects(registry)
        ctx = ir.Context()
        ctx.append_dialect_registry(registry)
        ctx.load_all_available_dialects()
        stablehlo.register_dialect(ctx)
        chlo.register_dialect(ctx)
        sdy.register_dialect(ctx)
        ctx.allow_unregistered_dialects = True  # enzyme ops are parsed by enzyme_ad, not here
        _local.context = ctx
    return ctx
