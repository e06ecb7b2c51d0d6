"""NumPy semantics on traced values; importing this fills the dispatch table."""

from solvent.numpy import (creation, indexing, methods, products, protocol, reductions, shape,  # noqa: F401
                           ufuncs)
from solvent.numpy import vectorize  # noqa: F401  (np.vectorize on traced values)
from solvent.numpy.registry import supported  # noqa: F401
