"""Thin helpers over jaxlib.mlir: context, types, constants, functions, verification."""
