"""solvent: compile ordinary NumPy functions to XLA through StableHLO, Enzyme-JAX and PJRT.

    import numpy as np, solvent

    @solvent.jit
    def step(u, dt):
        u[1:-1] += dt * (u[2:] - 2 * u[1:-1] + u[:-2])
        return np.sum(u)
"""

import jax  # noqa: F401  (before jaxlib.mlir: otherwise PJRT logs its start-up on stderr)

from solvent.api import Compiled, code_hlo, code_mhlo, code_xla, compile, jit
from solvent.errors import (CompileError, SignatureError, SolventError, TracerConversionError,
                            UnsupportedError)
from solvent.numpy.registry import supported
from solvent.runtime.array import Array, Scalar, asarray
from solvent.transforms.control_flow import cond, fori_loop, scan, switch, while_loop

__all__ = ["Array", "Compiled", "CompileError", "Scalar", "SignatureError", "SolventError",
           "TracerConversionError", "UnsupportedError", "asarray", "code_hlo", "code_mhlo", "code_xla",
           "compile", "cond", "fori_loop", "jit", "scan", "supported", "switch", "while_loop"]
__version__ = "0.1.0"
