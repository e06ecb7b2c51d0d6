"""Random generator arguments, a `np.random.Generator` (PCG64) or a legacy `np.random.RandomState`
(MT19937): the generator's state is a program input, read at call time, and the state the program
leaves is written back after the call, like an array changed in place."""

from __future__ import annotations

import numpy as np

from solvent.core import structure
from solvent.errors import UnsupportedError
from solvent.numpy import creation
from solvent.numpy.folding import traced_constant
from solvent.numpy.random import forms, legacy
from solvent.numpy.values import is_traced
from solvent.numpy.random.generator import TracedGenerator

_LOW64 = (1 << 64) - 1


class GeneratorArgument(structure.Stateful):
    def key(self, x) -> tuple:
        kind = type(x.bit_generator).__name__
        if kind != "PCG64":
            raise UnsupportedError(
                f"a Generator over {kind}: solvent reproduces NumPy's default bit generator, PCG64, bit for bit "
                "(np.random.default_rng(seed)), and no other; pass a PCG64 Generator or draw outside the function")
        return (np.random.Generator, kind)

    def read(self, x) -> np.ndarray:
        """[state high, state low, inc high, inc low, has_uint32, uinteger], as uint64."""
        state = x.bit_generator.state
        s, inc = state["state"]["state"], state["state"]["inc"]
        return np.array([s >> 64, s & _LOW64, inc >> 64, inc & _LOW64, state["has_uint32"], state["uinteger"]],
                        dtype=np.uint64)

    def write(self, x, state) -> None:
        high, low, inc_high, inc_low, has, uinteger = (int(v) for v in np.asarray(state))
        x.bit_generator.state = {"bit_generator": "PCG64",
                                 "state": {"state": high << 64 | low, "inc": inc_high << 64 | inc_low},
                                 "has_uint32": has, "uinteger": uinteger}

    def stand_in(self, state):
        return TracedGenerator(state)


structure.STATEFUL[np.random.Generator] = GeneratorArgument()


def default_rng(seed=None):
    """np.random.default_rng(seed) inside a trace: a generator of the program, its PCG64 state what
    NumPy's seeding gives `seed` (known when the function is compiled)."""
    if isinstance(seed, TracedGenerator):
        return seed  # as NumPy returns a Generator given
    if seed is None or is_traced(seed) or isinstance(seed, (np.random.Generator, np.random.BitGenerator)):
        given = "no seed" if seed is None else "a traced seed" if is_traced(seed) else "a generator from outside"
        raise UnsupportedError(f"np.random.default_rng with {given} inside solvent.jit: solvent seeds with a "
                               "value known when the function is compiled (a Python int, a list of them, a "
                               "SeedSequence); pass a seed, or draw from a np.random.Generator argument")
    generator = GeneratorArgument()
    return TracedGenerator(traced_constant(forms.on_host(lambda: generator.read(np.random.default_rng(seed)))))


creation.MADE_INSIDE["default_rng"] = default_rng


class RandomStateArgument(structure.Stateful):
    """A legacy `np.random.RandomState` argument (MT19937): its key, position and cached Gaussian."""

    def key(self, x) -> tuple:
        kind = type(x._bit_generator).__name__
        if kind != "MT19937":
            raise UnsupportedError(legacy.other_bit_generator(kind))
        return (np.random.RandomState,)

    def read(self, x) -> np.ndarray:
        return legacy.host_state(x)

    def write(self, x, state) -> None:
        legacy.set_host_state(x, state)

    def stand_in(self, state):
        return legacy.TracedRandomState(state)


structure.STATEFUL[np.random.RandomState] = RandomStateArgument()
