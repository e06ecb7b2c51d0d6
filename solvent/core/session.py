"""The one trace state of a thread (`SESSION`): the traces running, innermost last; the
control-flow regions being traced, with the epoch that changes as one opens or closes; and the
mesh of the program being traced. A trace's own state (its module, blocks, rolled loops,
outlined calls) is its `core.trace.Trace`.
"""

from __future__ import annotations

import threading


class Region:
    """What happened while one region was traced.

    `writes` maps each array from outside the region that was assigned inside
    to (array, value before), so a loop or branch can carry it; `created` lists
    the arrays made inside, so they can be retired if the region is thrown away.
    """

    def __init__(self):
        self.writes: dict = {}
        self.created: list = []

    def discard(self) -> None:
        """The region's ops are gone: its arrays must never be used again."""
        for array in self.created:
            array._value, array._parent = DEAD, None


class _Dead:
    """The value of an array whose region was thrown away (a probe, a failed attempt)."""


DEAD = _Dead()


class Session(threading.local):
    """This thread's trace state (see the module docstring).

    `epoch` changes on entering and leaving a region, so views re-read values
    that were read inside one.
    """

    epoch = 0
    mesh = None  # the mesh of the program being traced, once known (`sharding.placement`)

    def __init__(self):
        self.traces: list = []
        self.regions: list[Region] = []
        #: where each `try` being traced that catches LinAlgError ("linalg"), FloatingPointError ("float") or
        #: IndexError ("index") is
        self.catching: dict[str, list] = {"linalg": [], "float": [], "index": []}
        #: how many of the user's print, log or warning calls, or raises, run now (text of a traced value
        #: there says what it is: `TracedArray._text`)
        self.printing = 0


SESSION = Session()

#: How many traces run now, on any thread: a jitted call checks this one number first.
ACTIVE = [0]
