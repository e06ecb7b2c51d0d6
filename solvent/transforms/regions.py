"""What every traced branch and loop shares: carried leaves by position, tracing into a region
(writes to outside arrays recorded and undone), erasing a half-built op, NumPy's errors met there."""

from __future__ import annotations

import contextlib

import numpy as np
from jaxlib.mlir import ir

from solvent.core import structure, trace
from solvent.core.aval import Aval
from solvent.core.session import Region
from solvent.core.traced import ScalarOrArray, TracedArray, TracedScalar
from solvent.errors import ControlFlowError, SolventError, is_users_file, raised_at
from solvent.ir.module import ops_where
from solvent.transforms import python_objects
from solvent.transforms.identity import roots
from solvent.numpy.values import value, wrap
from solvent.ops import elementwise as ew
from solvent.ops.base import dtype_of, shape_of
from solvent.ops.control import case_op


def _is_number(x) -> bool:
    return type(x) in (bool, int, float, complex) or isinstance(x, np.generic)


def _is_leaf(x) -> bool:
    return structure.is_array(x) or _is_number(x)


def leaves_of(tree) -> list:
    """The arrays and numbers of `tree` by position (one reached twice counts twice)."""
    return structure.flatten(tree, _is_leaf)


def rebuild(tree, leaves):
    return structure.unflatten(tree, leaves, _is_leaf)


_LEAF = object()


def skeleton(tree):
    """`tree` with its leaves left out: its containers' types and steps, and its Python objects
    (None, a string, a function, ...), which a traced branch or loop cannot choose at run time."""
    if _is_leaf(tree):
        return _LEAF
    kids = structure.children(tree)
    if kids is None:
        return ("object", tree)
    return (type(tree), tuple(step for step, _ in kids), tuple(skeleton(child) for _, child in kids))


def object_change(before, after) -> str | None:
    """How skeleton `after` holds another Python object than `before` where a name is neither an
    array nor a number ("'a', then 'b'"), or None where they hold the same."""
    if before is _LEAF or after is _LEAF:
        return None if before is after else f"{_shown(before)}, then {_shown(after)}"
    if before[0] == "object" or after[0] == "object":
        same = before[0] == after[0] == "object" and _same_object(before[1], after[1])
        return None if same else f"{_shown(before)}, then {_shown(after)}"
    if before[:2] != after[:2]:
        return f"{_shown(before)}, then {_shown(after)}"
    return next((c for c in map(object_change, before[2], after[2]) if c is not None), None)


def _same_object(a, b) -> bool:
    if a is b:
        return True
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:  # an object whose == raises or gives no truth value
        return False


def _shown(part) -> str:
    if part is _LEAF:
        return "an array"
    if part[0] == "object":
        obj = part[1]
        name = getattr(obj, "__name__", None)
        if isinstance(obj, np.ufunc):
            return f"np.{name}"
        if callable(obj) and isinstance(name, str):
            return "a lambda" if name == "<lambda>" else name
        return repr(obj) if len(repr(obj)) <= 60 else f"a {type(obj).__name__}"
    return f"a {part[0].__name__}"


def is_weak(x) -> bool:
    """A Python number, or a traced scalar standing for one: NumPy lets the other operands decide
    its dtype (NEP 50)."""
    return type(x) in (bool, int, float, complex) or (isinstance(x, TracedScalar) and x.weak)


def weakened(x, weak: bool):
    """`x`, a traced scalar standing for a Python number where `weak` (what a loop or branch gives a
    name that is a Python number on every path)."""
    if weak and isinstance(x, TracedScalar):
        x.weak = True
    return x


def is_scalar(x) -> bool:
    """A NumPy scalar or number, or one of several arrays whose own value is a NumPy scalar (see
    `identity.Either`): where it is not one of the arrays, it is that scalar."""
    alternatives = x.alternatives() if isinstance(x, TracedArray) else None
    return _is_number(x) or isinstance(x, TracedScalar) or (alternatives is not None and
                                                            isinstance(alternatives[2], TracedScalar))


#: The kind of a 0-d name that a traced loop or branch leaves a NumPy scalar on some paths, a new array on others.
MIXED = "scalar or array"


def scalar_kind(x) -> bool | str:
    """`is_scalar(x)`, or MIXED where `x` (or an `Either`'s own value) is a `ScalarOrArray`."""
    alternatives = x.alternatives() if isinstance(x, TracedArray) else None
    own = x if alternatives is None else alternatives[2]
    return MIXED if isinstance(own, ScalarOrArray) else is_scalar(x)


def joined(kind, other):
    """The kind of a name that has one kind or the other (None: no kind yet)."""
    return other if kind is None else kind if other is None or other == kind else MIXED


def of_kind(v: ir.Value, kind) -> TracedArray:
    """A fresh traced array holding `v`, of `scalar_kind` `kind` (None: an array)."""
    return ScalarOrArray(v, aval_of(v)) if kind == MIXED else wrap(v, scalar=bool(kind))


def aval_of(v: ir.Value) -> Aval:
    return Aval(shape_of(v), dtype_of(v))


def convert(v: ir.Value, aval: Aval, what: str) -> ir.Value:
    """`v` as a value of `aval` (NumPy's same-kind casts only), or a ControlFlowError."""
    if shape_of(v) != aval.shape or not np.can_cast(dtype_of(v), aval.dtype, "same_kind"):
        raise ControlFlowError(f"{what} changed a carried array from {aval.dtype}{list(aval.shape)} to "
                               f"{dtype_of(v)}{list(shape_of(v))}; keep shapes and dtypes fixed")
    return ew.convert(v, aval.dtype)


def padding(leaves) -> list:
    """Per leaf, where it was made if it is a slice of traced length (else None): after the branch
    or loop it is held padded, so that a later use raises instead of reading the padding."""
    return [vars(x).get("made_at", ()) if isinstance(x, TracedArray) and x.padded else None for x in leaves]


def outside_views(leaves, before) -> list:
    """Per leaf, the arrays from before a region that it is a view of, made in the region, or a
    copy of such a view stands for (NumPy's name still shares their memory after the region;
    solvent's holds a copy: see `held_copy`), or None."""
    def viewed(x):
        if not isinstance(x, TracedArray):
            return None
        if x.alternatives() is not None:  # (an Either from an inner branch: its own array is the copy)
            x = x.alternatives()[2]
        if x.views_of is not None:
            return tuple(root for root, _ in x.views_of)
        if x._parent is not None and not before(x) and all(before(root) for root in roots(x)):
            return tuple(roots(x))
        return None
    return [viewed(x) for x in leaves]


def held_copy(array: TracedArray, views) -> TracedArray:
    """`array` (a region's result, or a loop body's stand-in for one), marked as the copy of a view
    of the arrays `views`: writing it, or reading it after they change, raises
    (`core.traced.lost_view`) instead of losing the memory NumPy's view shares with them."""
    if views:
        alternatives = array.alternatives()
        target = array if alternatives is None else alternatives[2]  # an Either: its own array
        target.views_of = tuple((root, root.version) for root in views)
    return array


def padded_as(array: TracedArray, made_at) -> TracedArray:
    """`array`, marked padded when a region gave it a slice of traced length (`made_at` not None)."""
    if made_at is not None:
        array.padded, array.made_at = True, made_at
    return array


def ids_of(arrays) -> set:
    return {id(a) for a in arrays}


@contextlib.contextmanager
def traced_region(session, region, types, implicit, eraser):
    """Trace into a new block of `region` (its arguments of `types`).

    Yields (block, record); afterwards every outside array holds its value from
    before the region again, and `record.writes` lists what the region wrote, so the
    caller can carry what it did not carry yet and trace again. `eraser` learns the
    region, to retire its arrays if the op is thrown away.
    """
    block = region.blocks.append(*types)
    outer = [t.value for t in implicit]
    record = Region()
    try:
        with session.inside(block) as record:
            eraser.regions.append(record)
            yield block, record
    finally:
        for array, old in zip(implicit, outer):
            array.restore(old)
        known = ids_of(implicit)
        for key, (array, old) in record.writes.items():
            if key not in known:
                array.restore(old)


def new_writes(record: Region, implicit) -> list[TracedArray]:
    known = ids_of(implicit)
    return [array for key, (array, _) in record.writes.items() if key not in known]


@contextlib.contextmanager
def raised_in(what: str):
    """NumPy's errors (or the user's own) while tracing a branch or loop body, as errors saying why
    solvent met them: Python raises them only when that code runs, solvent compiles it whatever the data."""
    try:
        yield
    except Exception as error:
        if isinstance(error, (SolventError, RecursionError)):  # (a recursion on a traced test: `lower` says so)
            raise
        tb = error.__traceback__
        while tb.tb_next is not None:
            tb = tb.tb_next
        advice = ("a compiled program cannot raise on its data: test the condition before the call, or return a "
                  "flag (or NaN) and raise after it" if is_users_file(tb.tb_frame.f_code.co_filename) else
                  "each must be valid NumPy for these argument types")
        raise ControlFlowError(
            f"{what} raises {type(error).__name__} ({error}); solvent compiles every branch and loop body "
            f"whose running depends on traced values, so {advice}", raised_at(error)) from error


class Eraser:
    """Context for building an op with regions: if tracing fails, the half-built op is
    erased and the arrays made in its regions are retired (so no Python object can
    hand out a value of an erased op)."""

    def __init__(self, op):
        self.op = op
        self.regions: list[Region] = []

    def __enter__(self):
        return self

    def __exit__(self, kind, error, tb):
        if kind is not None:
            self.erase()
        return False

    def erase(self):
        for record in self.regions:
            record.discard()
        self.op.erase()


def predicate(pred) -> ir.Value:
    v = value(pred)
    if shape_of(v) != ():
        raise ControlFlowError(f"a condition must be a scalar, got shape {shape_of(v)}")
    if dtype_of(v) != np.bool_:
        v = ew.compare("NE", v, value(np.zeros((), dtype_of(v))))
    return v


def probe(fn):
    """`fn()` traced once into a throwaway region, to learn what it returns; its writes are undone.

    The result's arrays are only good for their shapes and dtypes; what it changed in the Python
    objects it reaches is undone too.
    """
    return _traced_apart(fn)


def writes(fn, objects: bool = False) -> bool:
    """Whether `fn()`, traced once into a throwaway region (its writes undone), writes an array from
    outside it (a random generator's state, an array updated in place), or with `objects` changes a
    Python object it reaches (`c.bump()` setting an attribute)."""
    written = []
    _traced_apart(fn, written=written, objects=objects)
    return bool(written)


def takes_branch(fn) -> bool:
    """Whether `fn()`, traced once into a throwaway region (its writes undone), takes a traced
    branch (emits a `stablehlo.case`, in its loops too)."""
    found = []
    _traced_apart(fn, lambda block: found.extend(
        case for op in block.operations for case in ops_where(op.operation, lambda o: o.name == "stablehlo.case")))
    return bool(found)


def _traced_apart(fn, look=lambda block: None, written=None, objects=False):
    """What `fn()` returns, traced into a block that `look` sees before it is erased; the writes made
    there, to arrays and to Python objects, are undone (the arrays listed in `written`, and with
    `objects` the names of the objects changed)."""
    session = trace.current()
    with session.emitting():
        scratch = case_op(value(np.int32(0)), [], 1)
        block = scratch.regions[0].blocks.append()
        record = Region()
        try:
            with (session.inside(block) as record, raised_in("the body of a traced loop"),
                  python_objects.unchanged(fn, None) as changed):
                result = fn()
            look(block)
            if objects:
                written += changed
        finally:
            for array, old in record.writes.values():
                array.restore(old)
                if written is not None:
                    written.append(array)
            record.discard()
            scratch.erase()
    return result


