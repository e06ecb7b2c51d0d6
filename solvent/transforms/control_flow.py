"""Explicit control flow on traced values: `cond`, `switch`, `while_loop`, `fori_loop`, `scan`.

Each traces its Python functions into the regions of `stablehlo.case` or
`stablehlo.while`. Carries and results may be any structure the structure walker
supports; Python and NumPy scalars in them become traced NumPy scalars so they can
change from one iteration to the next. Mutation and identity are NumPy's: a body that
writes into an array from outside (an argument, a closure, a view, a carried name)
changes that array in place (such arrays are found by tracing once, then carried),
and a name bound to an existing array by a branch or loop stays that array afterwards
(see `identity`), so later in-place updates reach the caller.
"""

from __future__ import annotations

import contextlib
import functools
from dataclasses import dataclass, field

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo

from solvent.core import structure, trace
from solvent.core.aval import Aval
from solvent.core.traced import REGIONS, Region, TracedArray, TracedScalar
from solvent.errors import SolventError, raised_at
from solvent.numpy.values import is_traced, value, wrap
from solvent.ops import elementwise as ew
from solvent.ops.base import create, dtype_of, shape_of
from solvent.transforms.identity import FRESH, Binding, Either, as_value, bind, has_identity, made_before, roots


class ControlFlowError(SolventError, TypeError):
    """A branch or loop body returned another structure, shape or dtype than it must."""


def _is_number(x) -> bool:
    return type(x) in (bool, int, float, complex) or isinstance(x, np.generic)


def _is_leaf(x) -> bool:
    return structure.is_array(x) or _is_number(x)


def _leaves(tree) -> list:
    """The arrays and numbers of `tree` by position (one reached twice counts twice)."""
    return structure.flatten(tree, _is_leaf)


def _rebuild(tree, leaves):
    return structure.unflatten(tree, leaves, _is_leaf)


def _is_weak(x) -> bool:
    """A Python number: NumPy lets the other operands decide its dtype (NEP 50)."""
    return type(x) in (bool, int, float, complex)


def _is_scalar(x) -> bool:
    return _is_number(x) or isinstance(x, TracedScalar)


def _aval(v: ir.Value) -> Aval:
    return Aval(shape_of(v), dtype_of(v))


def _convert(v: ir.Value, aval: Aval, what: str) -> ir.Value:
    """`v` as a value of `aval` (NumPy's same-kind casts only), or a ControlFlowError."""
    if shape_of(v) != aval.shape or not np.can_cast(dtype_of(v), aval.dtype, "same_kind"):
        raise ControlFlowError(f"{what} changed a carried array from {aval.dtype}{list(aval.shape)} to "
                               f"{dtype_of(v)}{list(shape_of(v))}; keep shapes and dtypes fixed")
    return ew.convert(v, aval.dtype)


def _known(arrays) -> set:
    return {id(a) for a in arrays}


@contextlib.contextmanager
def _region(session, region, types, implicit, eraser):
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
        known = _known(implicit)
        for key, (array, old) in record.writes.items():
            if key not in known:
                array.restore(old)


def _new_writes(record: Region, implicit) -> list[TracedArray]:
    known = _known(implicit)
    return [array for key, (array, _) in record.writes.items() if key not in known]


@contextlib.contextmanager
def _raised_in(what: str):
    """NumPy's errors while tracing a branch or loop body, as errors saying why solvent met them:
    NumPy raises them only when that code runs, solvent compiles it whatever the data."""
    try:
        yield
    except (TypeError, ValueError, IndexError, ArithmeticError) as error:
        if isinstance(error, SolventError):
            raise
        raise ControlFlowError(
            f"{what} raises {type(error).__name__} ({error}); solvent compiles every branch and loop body "
            "whose running depends on traced values, so each must be valid NumPy for these argument types",
            raised_at(error)) from error


class _Eraser:
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


def _predicate(pred) -> ir.Value:
    v = value(pred)
    if shape_of(v) != ():
        raise ControlFlowError(f"a condition must be a scalar, got shape {shape_of(v)}")
    if dtype_of(v) != np.bool_:
        v = ew.compare("NE", v, value(np.zeros((), dtype_of(v))))
    return v


def probe(fn):
    """`fn()` traced once into a throwaway region, to learn what it returns; its writes are undone.

    The result's arrays are only good for their shapes and dtypes.
    """
    session = trace.current()
    with session.emitting():
        scratch = create("stablehlo.case", [value(np.int32(0))], [], regions=1)
        block = scratch.regions[0].blocks.append()
        record = Region()
        try:
            with session.inside(block) as record, _raised_in("the body of a traced loop"):
                result = fn()
        finally:
            for array, old in record.writes.values():
                array.restore(old)
            record.discard()
            scratch.erase()
    return result


@functools.lru_cache(maxsize=256)
def _eager_program(kind, functions):
    from solvent.api import jit  # noqa: PLC0415  (api sits above transforms; eager use only)
    return jit(lambda *args: _FORMS[kind](*functions, *args))


# -- loops ------------------------------------------------------------------------------------

FIXED, WRAPPED, EITHER = "fixed", "wrapped", "either"


@dataclass
class _Slot:
    """One carried leaf, by position.

    FIXED: the name is the same array from before the loop in every iteration (updated in
    place); nothing is carried for it but that array. WRAPPED: its value is carried, and
    inside the body it is a fresh array holding that value. EITHER: it may be one of
    `choices` (arrays from before the loop, written in the loop), tracked by a carried index.
    """

    leaf: object
    aval: Aval
    scalar: bool
    mode: str
    carries_which: bool                       # whether an index into `choices` is carried
    choices: list = field(default_factory=list)
    was_fixed: bool = False                   # never FIXED again once that failed
    retyped: bool = False                     # took the dtype the body gives it (once)

    def retype(self, dtype) -> None:
        """From now on carry `dtype`, the type NumPy's name has after the first iteration; the
        name is then a new array (so it cannot be an array from before the loop)."""
        self.aval, self.retyped = Aval(self.aval.shape, np.dtype(dtype)), True
        self.mode, self.carries_which, self.choices, self.was_fixed = WRAPPED, False, [], True


@dataclass
class _Pass:
    """One traced region of a loop: what it wrote, and what each carried name became."""

    record: Region
    new: list
    stand_ins: list = field(default_factory=list)
    bindings: list = field(default_factory=list)
    returned_itself: list = field(default_factory=list)
    retyped: dict = field(default_factory=dict)  # slot index -> the dtype the body gave it instead
    scalars: list = field(default_factory=list)  # per slot: the body returned a NumPy scalar


class _Loop:
    """The carried state of one `stablehlo.while`, refined by tracing until it is consistent."""

    def __init__(self, init, fixed=None, runs_once=False):
        self.tree, self.runs_once = init, runs_once
        self.implicit: list[TracedArray] = []  # outside arrays carried by value (written inside)
        self.slots: list[_Slot] = []
        for k, leaf in enumerate(_leaves(init)):
            v = value(leaf)
            identity = has_identity(leaf)
            mode = FIXED if identity and fixed is not None and fixed[k] else WRAPPED
            slot = _Slot(leaf, _aval(v), _is_scalar(leaf), mode, identity and mode != FIXED,
                         [leaf] if identity else [])
            self.slots.append(slot)
            if mode == FIXED:
                self._carry_roots(leaf)

    def _carry_roots(self, array):
        for root in roots(array):
            if id(root) not in _known(self.implicit):
                self.implicit.append(root)

    @property
    def moving(self) -> list[_Slot]:
        return [s for s in self.slots if s.mode != FIXED]

    def operands(self) -> list[ir.Value]:
        moving = self.moving
        initial = [ew.convert(value(s.leaf), s.aval.dtype) if s.retyped else value(s.leaf) for s in moving]
        which = [as_value(0 if has_identity(s.leaf) else FRESH) for s in moving if s.carries_which]
        return initial + which + [t.value for t in self.implicit]

    def trace(self, session, region, eraser, fn, types, condition=False) -> _Pass:
        with _region(session, region, types, self.implicit, eraser) as (block, record):
            stand_ins, carried = self._enter(list(block.arguments))
            with _raised_in("the condition of a traced loop" if condition else "the body of a traced loop"):
                result = fn(_rebuild(self.tree, stand_ins))
            if condition:
                stablehlo.ReturnOp([_predicate(result)])
                outcome = _Pass(record, [])
            else:
                outcome = self._end(result, stand_ins, carried)
        outcome.record, outcome.new = record, _new_writes(record, self.implicit)
        return outcome

    def _enter(self, arguments):
        """The body's stand-in for every carried name; outside arrays take their block arguments."""
        moving = self.moving
        values = iter(arguments[:len(moving)])
        which = iter(arguments[len(moving):])
        stand_ins, carried = [], {}
        for slot in self.slots:
            if slot.mode == FIXED:
                stand_ins.append(slot.leaf)
                continue
            v = next(values)
            w = next(which) if slot.carries_which else FRESH
            if slot.mode == EITHER:
                stand_in = Either(w, slot.choices, wrap(v, scalar=False))
            else:
                stand_in = wrap(v, scalar=slot.scalar)
                carried[id(stand_in)] = (tuple(slot.choices), w)
            stand_ins.append(stand_in)
        for array, argument in zip(self.implicit, arguments[len(arguments) - len(self.implicit):]):
            array.restore(argument)
        return stand_ins, carried

    def _end(self, result, stand_ins, carried) -> _Pass:
        """Return the carried values from the body: each name's value and which array it is."""
        leaves = _leaves(result)
        if len(leaves) != len(self.slots):
            raise ControlFlowError(f"the loop body returned {len(leaves)} arrays where "
                                   f"{len(self.slots)} are carried")
        before = made_before(len(REGIONS.stack))
        bindings = [bind(leaf, before, slot.aval, carried) for leaf, slot in zip(leaves, self.slots)]
        moving = [(slot, b) for slot, b in zip(self.slots, bindings) if slot.mode != FIXED]
        outcome = _Pass(Region(), [], stand_ins, bindings, [a is b for a, b in zip(leaves, stand_ins)],
                        scalars=[_is_scalar(x) for x in leaves])
        values = []
        for k, (slot, b) in enumerate(zip(self.slots, bindings)):
            if slot.mode == FIXED:
                continue
            if dtype_of(b.current) != slot.aval.dtype and shape_of(b.current) == slot.aval.shape:
                outcome.retyped[k] = dtype_of(b.current)  # decided in `settle`; trace again
                values.append(value(np.zeros(slot.aval.shape, slot.aval.dtype)))
            else:
                values.append(_convert(b.current, slot.aval, "the loop body"))
        which = [as_value(b.which_in(slot.choices)) for slot, b in moving if slot.carries_which]
        stablehlo.ReturnOp(values + which + [t.value for t in self.implicit])
        return outcome

    def settle(self, condition: _Pass, body: _Pass) -> bool:
        """Refine the carried state from one traced attempt; True when it was already right."""
        self.written = _known(a for p in (condition, body) for a, _ in p.record.writes.values())
        for k, dtype in body.retyped.items():
            self._retype(self.slots[k], dtype, body.stand_ins[k])
        changed = bool(condition.new or body.new or body.retyped)
        self.implicit += [a for a in condition.new + body.new if id(a) not in _known(self.implicit)]
        for slot, b, stand_in, itself in zip(self.slots, body.bindings, body.stand_ins, body.returned_itself):
            changed |= self._refine(slot, b, stand_in, itself)
        for slot in self.moving:
            if slot.mode == WRAPPED and slot.carries_which and any(
                    id(r) in self.written for c in slot.choices for r in roots(c)):
                slot.mode, changed = EITHER, True  # the array it may be changes: read it live
        return not changed

    def _retype(self, slot: _Slot, dtype, stand_in) -> None:
        """The body gives a carried name another dtype: NumPy's name has that dtype from the first
        iteration on. Take it when the loop surely runs and the old array was not written in place
        (or when the name held a Python number, whose type NumPy lets the operands decide)."""
        weak = type(slot.leaf) in (bool, int, float, complex) and not slot.retyped
        untouched = stand_in.version == 0 if slot.mode != FIXED else True
        untouched = untouched and not any(id(r) in self.written for r in roots(slot.leaf)) \
            if has_identity(slot.leaf) else untouched
        widens = np.result_type(slot.aval.dtype, dtype) == dtype
        if weak or (self.runs_once and widens and untouched and not slot.retyped):
            slot.retype(dtype)
            return
        raise ControlFlowError(
            f"the loop body changes a carried name from {slot.aval.dtype} to {np.dtype(dtype)}: NumPy's "
            "name would have a dtype that depends on how often the loop runs; give it its final dtype "
            "before the loop (x = x.astype(...))")

    def _refine(self, slot: _Slot, b: Binding, stand_in, itself: bool) -> bool:
        if slot.mode == FIXED:
            if b.static and b.which == 0 and b.choices[0] is slot.leaf:
                return False
            slot.mode, slot.was_fixed, slot.carries_which = WRAPPED, True, True
            return True
        changed = False
        for choice in b.choices:
            if not any(choice is c for c in slot.choices):
                slot.choices.append(choice)
                changed = True
        if not slot.carries_which and not (b.static and b.which == FRESH):
            slot.carries_which = changed = True
        if itself and has_identity(slot.leaf) and not slot.was_fixed and len(slot.choices) == 1:
            slot.mode = FIXED  # the body updates the array in place and keeps the name on it
            self._carry_roots(slot.leaf)
            return True
        if slot.mode == WRAPPED and slot.carries_which and stand_in.version:
            slot.mode, changed = EITHER, True  # written in place while it may be an outside array
        return changed

    def finish(self, results: list[ir.Value], body: _Pass):
        """After the op: written outside arrays take their new values; the carry is rebuilt."""
        for array, new in zip(self.implicit, results[len(results) - len(self.implicit):]):
            if id(array) in self.written:
                array.assign(new)
        moving = self.moving
        values = iter(results[:len(moving)])
        which = iter(results[len(moving):])
        out = []
        for slot, b, scalar in zip(self.slots, body.bindings, body.scalars):
            if slot.mode == FIXED:
                out.append(slot.leaf)
                continue
            v = next(values)
            if not slot.carries_which:
                out.append(wrap(v, scalar=scalar if self.runs_once else slot.scalar and scalar))
                continue
            w = next(which)
            after = b.which_in(slot.choices) if b.static else None
            start = 0 if has_identity(slot.leaf) else FRESH
            if after is not None and (self.runs_once or after == start):
                out.append(wrap(v, scalar=scalar) if after == FRESH else slot.choices[after])
            else:
                out.append(Either(w, slot.choices, wrap(v, scalar=scalar)))
        return _rebuild(self.tree, out)


def loop(cond_fn, body_fn, init, fixed=None, runs_once=False, written=()):
    """`while cond_fn(carry): carry = body_fn(carry)` as one `stablehlo.while` (see `while_loop`).

    `fixed[k]` says leaf k is expected to be updated in place, and `written` lists arrays the
    body is expected to write (first guesses, checked: they spare a second trace); `runs_once`
    that the body is known to run at least once.
    """
    session = trace.current()
    with session.emitting():
        loop = _Loop(init, fixed, runs_once)
        for array in written:
            if has_identity(array):
                loop._carry_roots(array)
        while True:
            operands = loop.operands()
            types = [v.type for v in operands]
            op = create("stablehlo.while", operands, types, regions=2)
            with _Eraser(op) as eraser:
                condition = loop.trace(session, op.regions[0], eraser, cond_fn, types, condition=True)
                body = loop.trace(session, op.regions[1], eraser, body_fn, types)
            with eraser:
                if loop.settle(condition, body):
                    return loop.finish(list(op.results), body)
            eraser.erase()


def while_loop(cond_fn, body_fn, init):
    """`while cond_fn(carry): carry = body_fn(carry)`, as one `stablehlo.while`.

    Example::

        i, x = solvent.while_loop(lambda c: c[1] > 1e-6, lambda c: (c[0] + 1, c[1] / 2), (0, x))
    """
    if trace.current() is None:
        return _eager_program("while_loop", (cond_fn, body_fn))(init)
    return loop(cond_fn, body_fn, init)


def index_scalar(b):
    """A loop bound as an int64 NumPy scalar: static stays static, traced becomes a traced scalar."""
    if not is_traced(b):
        return np.int64(b)
    return wrap(ew.convert(value(b), np.int64), scalar=True)


def fori_loop(lower, upper, body_fn, init):
    """`for i in range(lower, upper): carry = body_fn(i, carry)`, as one `stablehlo.while`."""
    def keep_going(carry):
        return carry[0] < carry[1]

    def step(carry):
        i, stop, inner = carry
        return i + 1, stop, body_fn(i, inner)

    session = trace.current()
    if session is None:
        return while_loop(keep_going, step, (np.int64(lower), np.int64(upper), init))[2]
    with session.emitting():
        bounds = (index_scalar(lower), index_scalar(upper))
    return loop(keep_going, step, (*bounds, init))[2]


def leaf_count(tree) -> int:
    """How many carried leaves `tree` adds to a loop (to line up `fixed` flags)."""
    return len(_leaves(tree))


def scan(f, init, xs=None, length=None):
    """`carry, y = f(carry, x)` for each x along xs's first axis; returns (carry, stacked ys).

    Example::

        total, partial_sums = solvent.scan(lambda c, x: (c + x, c + x), 0.0, values)
    """
    session = trace.current()
    if session is None:
        return _eager_program("scan", (f,))(init, xs, length)
    with session.emitting():
        return _scan(f, init, xs, length)


def _scan(f, init, xs, length):
    xs_leaves = [leaf if is_traced(leaf) else wrap(value(leaf), scalar=False) for leaf in _leaves(xs)]
    lengths = {leaf.shape[0] for leaf in xs_leaves} | ({length} if length is not None else set())
    if len(lengths) != 1:
        raise ControlFlowError(f"scan needs one length along the first axis of xs, got {sorted(lengths)}")
    n = lengths.pop()
    xs = _rebuild(xs, xs_leaves) if xs is not None else None

    def item(i):
        return _rebuild(xs, [leaf[i] for leaf in xs_leaves]) if xs is not None else None

    index = wrap(value(np.asarray(0, dtype=np.int64)))
    _, first_y = probe(lambda: f(init, item(index)))
    y_leaves = _leaves(first_y)
    buffers = [np.zeros((n,) + tuple(np.shape(y) if not is_traced(y) else y.shape),
                        y.dtype if hasattr(y, "dtype") else np.result_type(y)) for y in y_leaves]

    def body(state):
        i, carry, stacked = state
        carry, y = f(carry, item(i))
        for buffer, leaf in zip(stacked, _leaves(y)):
            buffer[i] = leaf
        return i + 1, carry, stacked

    fixed = [False] * (1 + leaf_count(init)) + [True] * len(buffers)
    _, carry, stacked = loop(lambda state: state[0] < n, body, (np.int64(0), init, list(buffers)), fixed,
                              runs_once=n > 0)
    return carry, _rebuild(first_y, stacked) if y_leaves else first_y


# -- branches ---------------------------------------------------------------------------------

def cond(pred, true_fn, false_fn, *operands):
    """`true_fn(*operands) if pred else false_fn(*operands)` with a traced `pred`."""
    index = np.logical_not(pred) if is_traced(pred) else (0 if pred else 1)
    return switch(index, [true_fn, false_fn], *operands)


def switch(index, branches, *operands):
    """`branches[index](*operands)`, the index clamped into range, as one `stablehlo.case`."""
    branches = list(branches)
    if not is_traced(index):
        return branches[int(np.clip(int(index), 0, len(branches) - 1))](*operands)
    session = trace.current()
    with session.emitting():
        i = ew.convert(value(index), np.int32)
        if shape_of(i) != ():
            raise ControlFlowError(f"a branch index must be a scalar, got shape {shape_of(i)}")
        i = ew.clamp(value(np.int32(0)), i, value(np.int32(len(branches) - 1)))  # case picks the last
        return _Case(session, i, branches, operands).finish()


@dataclass
class _BranchEnd:
    block: ir.Block
    bindings: list
    written: dict  # id -> value at the branch's end, of each outside array the branch wrote
    scalars: list  # per result: a NumPy scalar (or Python number), not an array


class _Case:
    """One `stablehlo.case`: every branch traced once, its results as bindings (see `identity`),
    and every outside array some branch writes as an extra result (the others pass it through:
    branches are exclusive, so none needs to see another's writes)."""

    def __init__(self, session, index, branches, operands):
        self.implicit: list[TracedArray] = []
        scratch = create("stablehlo.case", [index], [], regions=len(branches))
        with _Eraser(scratch) as self.eraser:
            ends = [self._branch(session, scratch.regions[k], k, branch, operands)
                    for k, branch in enumerate(branches)]
            self.op = self._assemble(scratch, index, ends)

    def _branch(self, session, region, k, branch, operands) -> _BranchEnd:
        with _region(session, region, [], [], self.eraser) as (block, record):
            with _raised_in(f"branch {k} of a traced `if`"):
                result = branch(*operands)
            leaves = _leaves(result)
            if k == 0:
                self.template, self.avals = result, [_aval(value(leaf)) for leaf in leaves]
                self.strong = [not _is_weak(x) for x in leaves]
            elif len(leaves) != len(self.avals):
                raise ControlFlowError(f"branch {k} returned {len(leaves)} arrays where branch 0 returned "
                                       f"{len(self.avals)}")
            else:
                for j, leaf in enumerate(leaves):
                    self._combine(j, leaf, k)
            before = made_before(len(REGIONS.stack))
            bindings = [bind(leaf, before, aval) for leaf, aval in zip(leaves, self.avals)]
            written = {key: array.value for key, (array, _) in record.writes.items()}
            end = _BranchEnd(block, bindings, written, [_is_scalar(x) for x in leaves])
        self.implicit += [a for a in _new_writes(record, self.implicit)]
        return end

    def _combine(self, j: int, leaf, k: int) -> None:
        """Result j's type after branch k: one dtype for arrays and NumPy scalars (NumPy's name would
        otherwise have a dtype that depends on the path); Python numbers take the others' type."""
        aval, strong = _aval(value(leaf)), not _is_weak(leaf)
        if aval.shape != self.avals[j].shape or (strong and self.strong[j] and aval.dtype != self.avals[j].dtype):
            raise ControlFlowError(
                f"branch {k} gives result {j} as {aval.dtype}{list(aval.shape)} where branch 0 gives "
                f"{self.avals[j].dtype}{list(self.avals[j].shape)}; after a traced `if` a name has one "
                "shape and dtype: convert it in the branches (x.astype(...))")
        if strong and not self.strong[j]:
            self.avals[j], self.strong[j] = aval, True
        elif not strong and not self.strong[j]:
            self.avals[j] = Aval(aval.shape, np.result_type(aval.dtype, self.avals[j].dtype))

    def _assemble(self, scratch, index, ends: list[_BranchEnd]):
        """The final op: per result, its value, and which outside array it is where any branch says."""
        self.kinds = []  # per result: ("same", array), ("either", choices) or ("fresh", None)
        # NumPy gives a scalar where every branch that makes a new value makes a scalar
        self.scalar = [all(end.scalars[j] for end in ends if not (end.bindings[j].static and
                                                                  end.bindings[j].which != FRESH))
                       for j in range(len(self.avals))]
        for j in range(len(self.avals)):
            found = [b for end in ends for b in [end.bindings[j]]]
            choices = []
            for b in found:
                choices += [c for c in b.choices if not any(c is d for d in choices)]
            if len(choices) == 1 and all(b.static and b.which == 0 for b in found):
                self.kinds.append(("same", choices[0]))
            else:
                self.kinds.append(("either", choices) if choices else ("fresh", None))
        for k, end in enumerate(ends):
            with ir.InsertionPoint(end.block):
                values, which = [], []
                for b, aval, (kind, choices) in zip(end.bindings, self.avals, self.kinds):
                    if kind != "same":
                        values.append(_convert(b.current, aval, f"branch {k}"))
                    if kind == "either":
                        which.append(as_value(b.which_in(choices)))
                passed = [end.written.get(id(a), a.value) for a in self.implicit]  # others: the value before
                stablehlo.ReturnOp(values + which + passed)
        types = [v.type for v in ends[0].block.operations[len(ends[0].block.operations) - 1].operands]
        op = create("stablehlo.case", [index], types, regions=len(ends))
        for k, end in enumerate(ends):
            end.block.append_to(op.regions[k])
        scratch.erase()
        self.eraser.op = op
        return op

    def finish(self):
        results = list(self.op.results)
        for array, new in zip(self.implicit, results[len(results) - len(self.implicit):]):
            array.assign(new)
        values = iter(results)
        moving = sum(kind != "same" for kind, _ in self.kinds)
        which = iter(results[moving:])
        out = []
        for (kind, choices), scalar in zip(self.kinds, self.scalar):
            if kind == "same":
                out.append(choices)
            elif kind == "fresh":
                out.append(wrap(next(values), scalar=scalar))
            else:
                out.append(Either(next(which), choices, wrap(next(values), scalar=scalar)))
        return _rebuild(self.template, out)


_FORMS = {"while_loop": while_loop, "scan": scan}
