"""solvent: compile ordinary NumPy functions to XLA through StableHLO, Enzyme-JAX and PJRT.

    import numpy as np, solvent

    @solvent.jit
    def step(u, dt):
        u[1:-1] += dt * (u[2:] - 2 * u[1:-1] + u[:-2])
        return np.sum(u)
"""

import jax  # noqa: F401  (before jaxlib.mlir: otherwise PJRT logs its start-up on stderr)

from solvent import array_api, distributed, sharding
from solvent.api import Compiled, Loaded, ShapeDtype, code_hlo, code_mhlo, code_xla, compile, export, jit, load
from solvent.errors import (CompileError, ControlFlowError, ExecutionError, LayoutError, LoadError, ReadOnlyError,
                            RecompileWarning, SignatureError, SolventError, TracerConversionError, UnsupportedError)
from solvent.numpy.registry import supported
from solvent.runtime.array import Array, Scalar, asarray
from solvent.eager import fori_loop, grad, hessian, jacfwd, jacrev, jvp, scan, value_and_grad, vjp, vmap, while_loop
from solvent.transforms.control_flow import cond, switch

__all__ = ["Array", "array_api", "asarray", "code_hlo", "code_mhlo", "code_xla", "compile", "Compiled", "CompileError",
           "cond", "ControlFlowError", "distributed", "ExecutionError", "export", "fori_loop", "grad", "hessian",
           "jacfwd", "jacrev", "jit", "jvp", "LayoutError", "load", "Loaded", "LoadError", "ReadOnlyError", "RecompileWarning", "Scalar", "ShapeDtype", "scan", "sharding", "SignatureError", "SolventError", "supported", "switch",
           "TracerConversionError", "UnsupportedError", "value_and_grad", "vjp", "vmap", "while_loop"]
__version__ = "0.1.0"
