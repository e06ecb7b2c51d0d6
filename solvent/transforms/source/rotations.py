"""Loops whose bodies take turns with buffers (`u, v = v, u` after writing `v` from `u`).

Rolled one step an iteration, each name would be one of the buffers by the parity of the trip
count, known only at run time: every read of it a select between them and every write one
to each, over the whole arrays (a Jacobi sweep slower than NumPy's). Rolled `period` steps an
iteration, the steps that bring each buffer back to its name, every name is one array throughout
the body, written in place; the steps left over run after the loop, unrolled.
"""

from __future__ import annotations

from solvent.transforms import control_flow, python_objects
from solvent.transforms.identity import has_identity

#: The longest rotation unrolled: each step of it is a copy of the body in the program.
PERIOD_AT_MOST = 4


def period(body, index, values) -> int:
    """How many steps of `body(index(), *values)` bring every array among `values` back to the
    position it started at, when the body only moves arrays between positions (2 for a swap);
    1 where it does not move them, or makes a name share or drop an array another held."""
    try:
        result = tuple(control_flow.probe(lambda: body(index(), *values)))
    except python_objects.LostIterator:
        raise
    except Exception:  # noqa: BLE001  the loop traced for real raises it again, or unrolls
        return 1
    arrays = [k for k, v in enumerate(values) if has_identity(v)]
    if len({id(values[k]) for k in arrays}) < len(arrays) or len(result) != len(values):
        return 1
    moves = {}  # position -> the position whose array the step leaves there
    for k, new in enumerate(result):
        source = next((j for j in arrays if new is values[j]), None)
        if source is not None and source != k:
            moves[k] = source
    if not moves or sorted(moves.values()) != sorted(moves):
        return 1
    order, positions = 1, dict(moves)
    while any(k != j for k, j in positions.items()):
        order, positions = order + 1, {k: moves[j] for k, j in positions.items()}
        if order > PERIOD_AT_MOST:
            return 1
    return order
