"""NumPy semantics on traced values; importing this fills the dispatch table."""

from solvent.numpy import (creation, dtypes, fourier, indexing, linear_algebra, methods,  # noqa: F401
                           numeric, products, protocol, reductions, shape, sorting, statistics, ufuncs)
from solvent.numpy import vectorize  # noqa: F401  (np.vectorize on traced values)
from solvent.numpy.registry import supported  # noqa: F401
