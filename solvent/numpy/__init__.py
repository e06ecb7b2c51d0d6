"""NumPy semantics on traced values; importing this fills the dispatch table."""

from solvent.numpy import (creation, fourier, indexing, linear_algebra, methods, numeric, products,  # noqa: F401
                           protocol, reductions, shape, sorting, statistics, ufuncs)
from solvent.numpy import vectorize  # noqa: F401  (np.vectorize on traced values)
from solvent.numpy.registry import supported  # noqa: F401
