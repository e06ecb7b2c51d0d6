"""`solvent.array_api`: the Array API standard's (2023.12) namespace, with its `linalg` and `fft`
extensions; also `x.__array_namespace__()` of a `solvent.Array`, or of a traced array inside
`solvent.jit`. Every function is written with NumPy calls (see `common`)."""

import sys

from solvent.array_api.common import (__array_api_version__, __array_namespace_info__, astype,  # noqa: F401
                                      bool, can_cast, complex64, complex128, e, finfo, float32, float64,
                                      iinfo, inf, int8, int16, int32, int64, isdtype, nan, newaxis, pi,
                                      result_type, uint8, uint16, uint32, uint64)
from solvent.array_api.creation import *  # noqa: F401,F403
from solvent.array_api.elementwise import *  # noqa: F401,F403
from solvent.array_api.functions import *  # noqa: F401,F403
from solvent.array_api.sets import *  # noqa: F401,F403
from solvent.array_api import fft, linalg  # noqa: E402,F401  (the Array API extensions)
from solvent.core import dispatch


def _namespace(api_version=None):
    """`x.__array_namespace__(api_version=...)`: this module, for any version up to 2023.12."""
    if api_version not in (None, "2021.12", "2022.12", "2023.12"):
        raise ValueError(f"solvent.array_api implements the Array API up to 2023.12, not {api_version!r}")
    return sys.modules[__name__]


dispatch.HOOKS.array_namespace = _namespace
