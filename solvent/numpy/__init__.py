"""NumPy semantics on traced values: importing this fills the dispatch table (each module below
registers the NumPy functions it implements). Nothing here is public; the Array API namespace built
on it is `solvent.array_api`."""

from solvent.numpy import (calculus, creation, dtypes, fft, functional, linalg, manipulation,  # noqa: F401
                           matrices, matrix_type, methods, polynomials, products, protocol, reductions, rounding, sets,
                           shape, sorting, statistics, vectorize, windows)
from solvent.numpy.elementwise import ufuncs  # noqa: F401
from solvent.numpy.indexing import bounded_functions, bounded_orders, functions, strided, subscripts  # noqa: F401
from solvent.numpy.random import argument  # noqa: F401
