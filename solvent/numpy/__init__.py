"""NumPy semantics on traced values: importing this fills the dispatch table (each module below
registers the NumPy functions it implements). Nothing here is public; the Array API namespace built
on it is `solvent.array_api`."""

from solvent.numpy import (creation, dtypes, fourier, functional, indexing, linear_algebra,  # noqa: F401
                           manipulation, methods, numeric, products, protocol, reductions, selection, sets,
                           shape, sorting, statistics, ufuncs)
from solvent.numpy import vectorize  # noqa: F401  (np.vectorize on traced values)
