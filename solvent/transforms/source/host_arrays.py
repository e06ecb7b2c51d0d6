"""Host NumPy arrays of the user's function that a traced branch or rolled loop body could change in
place (`counts = np.concatenate([[0], [0]])`, then `if x[0] > 0: counts[0] += 1`): NumPy's own
in-place ops would run on the host each time a body is traced, so both branches' changes would
stay. Before such a region is traced they become traced arrays (constants, their values known)."""

from __future__ import annotations

import itertools
import sys
import types

import numpy as np

from jaxlib.mlir import ir

from solvent.core import trace
from solvent.core.session import SESSION
from solvent.errors import UnsupportedError, is_library_file, is_users_file, user_location
from solvent.ir.context import context
from solvent.ir.module import location
from solvent.numpy.folding import as_known
from solvent.numpy.values import NDARRAY


def traced_first(fns, values, names) -> tuple:
    """`values` (what a region carries, as `names`) with host arrays made traced, and the same for the
    names of the user's function that the region's functions `fns` read (cells of the frames of this
    trace, not of enclosing scopes, whose arrays outlive the call); one traced array per host array,
    so that names sharing one still share it. Another name for one, or for a view of one, cannot be
    rebound: an error names it."""
    frames = _user_frames()
    cells = _own_cells(fns, {(name, id(f.f_locals.get(name))) for f in frames for name in f.f_code.co_cellvars})
    if not cells and not any(_changeable(v) for v in values):
        return tuple(values)
    made: dict[int, object] = {}

    def traced(v):
        if not _changeable(v):
            return v
        if id(v) not in made:
            made[id(v)] = (v, _constant(v))
        return made[id(v)][1]
    for cell in cells:
        cell.cell_contents = traced(cell.cell_contents)
    values = tuple(traced(v) for v in values)
    originals = [original for original, _ in made.values()]
    for k, frame in enumerate(frames):
        for name, v in frame.f_locals.items():
            if not name.startswith("__solvent") and not (k == 0 and name in names) and _reaches(v, originals):
                raise UnsupportedError(
                    f"`{name}` is (or views, or holds) a NumPy array made on the host (not from the function's "
                    "traced arguments) that a traced `if` or loop may change in place under another name: solvent "
                    "makes that name's array a traced one, but cannot put it here; make the array with "
                    "np.array(...) or np.zeros(...), or copy it (np.array(a)), before the `if` or loop, and take "
                    "views of it, or put it in lists, after")
    return values


def _reaches(v, originals, depth: int = 3) -> bool:
    """Whether `v` is one of `originals`, views one, or holds one (in a list, tuple, dict, an object's
    attributes, a function's default arguments)."""
    if type(v) is NDARRAY:
        return any(v is original or np.may_share_memory(v, original) for original in originals)
    if isinstance(v, (list, tuple, set)):
        items = v
    elif isinstance(v, dict):
        items = v.values()
    elif isinstance(v, types.FunctionType):
        items = v.__defaults__ or ()
    elif isinstance(getattr(v, "__dict__", None), dict) and is_users_file(getattr(sys.modules.get(
            type(v).__module__), "__file__", None)):
        items = vars(v).values()
    else:
        return False
    return depth > 0 and any(_reaches(x, originals, depth - 1) for x in itertools.islice(items, 1000))


def _constant(v):
    """`v` as a traced constant made at the start of the function being traced, outside every region
    (a probe of a loop's body can be first to meet it; the array outlives the probe)."""
    session, regions = trace.current(), list(SESSION.regions)
    SESSION.regions.clear()
    try:
        with context(), ir.InsertionPoint.at_block_begin(session.blocks[0]), location(user_location()):
            return as_known(v.copy())
    finally:
        SESSION.regions[:] = regions


def _changeable(v) -> bool:
    return type(v) is NDARRAY and v.dtype.kind in "biufc"


def _user_frames() -> list:
    """The frames of the user's code running in this trace, innermost first."""
    frames, frame = [], sys._getframe(2)
    while frame is not None and not (frame.f_code.co_name == "build_function" and
                                     frame.f_globals.get("__name__") == "solvent.tracing"):
        if not is_library_file(frame.f_code.co_filename):
            frames.append(frame)
        frame = frame.f_back
    return frames


def _own_cells(fns, cellvars: set, depth: int = 3) -> list:
    """The closure cells of `fns` (and of the functions they hold, as a loop over rows wraps its
    body) that hold host arrays and are `cellvars`, (name, id of the array) of the user's frames in
    this trace: not cells of enclosing scopes, whose arrays outlive the call."""
    cells = []
    for fn in fns:
        for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
            try:
                held = cell.cell_contents
            except ValueError:  # (not bound yet)
                continue
            if (name, id(held)) in cellvars and _changeable(held):
                cells.append(cell)
            elif isinstance(held, types.FunctionType) and depth:
                cells += _own_cells((held,), cellvars, depth - 1)
    return cells
