"""One tracing of one function (`Trace`): the module being built and where the next op goes; the
traces running on a thread are `core.session.SESSION.traces`."""

from __future__ import annotations

import contextlib

from jaxlib.mlir import ir

from solvent.core.session import ACTIVE, SESSION, Region
from solvent.errors import user_location
from solvent.ir.context import context
from solvent.ir.module import location

class Trace:
    """One tracing of one function: its module and the block ops go into now."""

    def __init__(self, module: ir.Module, block: ir.Block, unroll: int | None = None):
        self.module = module
        self.blocks = [block]  # entry block, then the region bodies being traced
        self.unroll = unroll   # static loops longer than this become stablehlo.while
        self.rolled: list = []  # (file, line) of each static loop rolled so
        self.branching: set = set()  # (file, line) of static loops seen taking a traced branch: rolled whole
        self.copies = 1         # copies of the code being traced now, from the static loops unrolled around it
        self.draws = 0          # random draws traced so far (a short loop whose first step draws rolls the rest)
        self.shared = [[]]      # per block in `blocks`: (kind, value, what was made of it) for later ops to reuse
        self.global_random = None  # what np.random's global functions draw from, once an input (NeedsGlobalRandom)
        self.outlined: dict = {}   # (function, signature key) -> its outlined function (`transforms.outline`)
        self.differentiated = 0    # derivatives (`transforms.autodiff`) whose function is being traced now: ops
        #                            take the forms Enzyme has rules for (a float sort as argsort and gather)

    @property
    def insertion(self) -> ir.InsertionPoint:
        return ir.InsertionPoint(self.blocks[-1])

    @contextlib.contextmanager
    def emitting(self, where=None):
        """Emit ops at the end of the current block, located at the user's line."""
        with context(), self.insertion, location(where if where is not None else user_location()):
            yield

    @contextlib.contextmanager
    def differentiating(self):
        """Trace a function Enzyme will differentiate for the duration."""
        self.differentiated += 1
        try:
            yield
        finally:
            self.differentiated -= 1

    @contextlib.contextmanager
    def inside(self, block: ir.Block):
        """Trace into `block` (a region of a control-flow op) for the duration.

        Yields the `Region` record: arrays from outside it assigned inside, and
        arrays created inside.
        """
        self.blocks.append(block)
        self.shared.append([])
        SESSION.epoch += 1
        region = Region()
        SESSION.regions.append(region)
        try:
            with self.insertion:
                yield region
        finally:
            SESSION.regions.pop()
            SESSION.epoch += 1
            self.blocks.pop()
            self.shared.pop()


class NeedsGlobalRandom(BaseException):
    """Raised by np.random's global functions in a trace that has not taken the global RandomState's
    state as an input: the trace starts again with it. (A BaseException, so that no handler of the
    user's or of a transform mistakes it for the program's own failure.)"""


def current() -> Trace | None:
    """The trace running on this thread, or None outside `jit`."""
    traces = SESSION.traces
    return traces[-1] if traces else None


def is_tracing() -> bool:
    return bool(ACTIVE[0]) and bool(SESSION.traces)


@contextlib.contextmanager
def tracing(trace: Trace):
    """Make `trace` current on this thread for the duration of the block."""
    stack = SESSION.traces
    stack.append(trace)
    ACTIVE[0] += 1
    try:
        yield trace
    finally:
        ACTIVE[0] -= 1
        stack.pop()
