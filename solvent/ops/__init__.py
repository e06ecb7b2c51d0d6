"""Strict StableHLO builders: check shapes and dtypes, then emit one located op.

Names follow the StableHLO specification. Every builder takes and returns
`jaxlib.mlir.ir.Value`s and must run inside an MLIR insertion point and
location (the tracer provides both).
"""
