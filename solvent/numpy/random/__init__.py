"""NumPy's random numbers inside compiled code, bit for bit: a `np.random.Generator` (PCG64) argument
is drawn from by NumPy's own algorithms on its traced state (argument, generator, streams, pcg64)."""

from solvent.numpy.random import argument  # noqa: F401  (registers np.random.Generator as an argument)
