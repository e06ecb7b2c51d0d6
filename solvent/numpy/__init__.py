"""NumPy semantics on traced values: importing this fills the dispatch table (each module below
registers the NumPy functions it implements). Nothing here is public; the Array API namespace built
on it is `solvent.array_api`."""

from solvent.numpy import (  # noqa: F401
                           creation,
                           dtypes,
                           fourier,
                           functional,
                           linear_algebra,
                           manipulation,
                           methods,
                           numeric,
                           products,
                           protocol,
                           reductions,
                           sets,
                           shape,
                           sorting,
                           statistics,
                           ufuncs,
                           vectorize,  # noqa: F401  (np.vectorize on traced values)
)
from solvent.numpy.indexing import functions, subscripts  # noqa: F401
