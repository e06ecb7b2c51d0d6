"""NumPy semantics on traced values, and the Array API namespace.

Importing this fills the dispatch table (the modules below register NumPy
functions). `solvent.numpy` itself is the Array API standard's (2023.12)
namespace, with its `linalg` and `fft` extensions: `x.__array_namespace__()` of
a `solvent.Array`, or of a traced array inside `solvent.jit`.
"""

import sys

from solvent.numpy import (creation, dtypes, fourier, functional, indexing, linear_algebra,  # noqa: F401
                           manipulation, methods, numeric, products, protocol, reductions, sets, shape,
                           sorting, statistics, ufuncs)
from solvent.numpy import vectorize  # noqa: F401  (np.vectorize on traced values)
from solvent.numpy.registry import supported  # noqa: F401
from solvent.core import dispatch
from solvent.numpy.array_api import (__array_api_version__, __array_namespace_info__, astype,  # noqa: F401
                                     bool, can_cast, complex64, complex128, e, finfo, float32, float64,
                                     iinfo, inf, int8, int16, int32, int64, isdtype, nan, newaxis, pi,
                                     result_type, uint8, uint16, uint32, uint64)
from solvent.numpy.array_api_creation import *  # noqa: F401,F403
from solvent.numpy.array_api_elementwise import *  # noqa: F401,F403
from solvent.numpy.array_api_functions import *  # noqa: F401,F403
from solvent.numpy.array_api_sets import *  # noqa: F401,F403
from solvent.numpy import fft, linalg  # noqa: E402,F401  (the Array API extensions)


def _namespace(api_version=None):
    """`x.__array_namespace__(api_version=...)`: this module, for any version up to 2023.12."""
    if api_version not in (None, "2021.12", "2022.12", "2023.12"):
        raise ValueError(f"solvent.numpy implements the Array API up to 2023.12, not {api_version!r}")
    return sys.modules[__name__]


dispatch.HOOKS["array_namespace"] = _namespace
