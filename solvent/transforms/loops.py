"""Loops as one `stablehlo.while`: the carried state refined by tracing until it is consistent.

Each carried leaf (by position) is FIXED (the same outside array every iteration, updated in
place), WRAPPED (its value carried) or EITHER (one of several outside arrays, by a carried
index; see `identity`); outside arrays the loop writes are carried by value.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo

from solvent.core import trace
from solvent.core.aval import Aval
from solvent.core.session import SESSION, Region
from solvent.core.traced import TracedArray, padded
from solvent.errors import ControlFlowError
from solvent.numpy.values import carried_value, value
from solvent.ops import elementwise as ew
from solvent.ops.base import dtype_of, shape_of
from solvent.ops.control import while_op
from solvent.transforms.lengths import Carried, traced_lengths
from solvent.transforms.identity import (FRESH, Binding, Either, as_value, bind, flatten, has_identity, made_before,
                                         roots)
from solvent.transforms import python_objects
from solvent.transforms.regions import (Eraser, aval_of, convert, held_copy, ids_of, is_weak, joined, leaves_of,
                                        new_writes, object_change, of_kind, outside_views, padded_as, padding,
                                        predicate, raised_in, rebuild, scalar_kind, skeleton, traced_region, weakened)


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
    scalar: bool | str | None                 # `scalar_kind` of its new values (None: none yet; MIXED: varies)
    mode: str
    carries_which: bool                       # whether an index into `choices` is carried
    choices: list = field(default_factory=list)
    start: object = FRESH                     # which of `choices` the name is on entry (int, or traced)
    was_fixed: bool = False                   # never FIXED again once that failed
    retyped: bool = False                     # took the dtype the body gives it (once)
    padding: object = None                    # where it was made, if a slice of traced length on entry
    views: tuple = ()                         # the outside arrays the body makes it a view of (see `_enter`)
    weak: bool = False                        # a Python number on entry and after the body (NEP 50)

    def retype(self, dtype) -> None:
        """From now on carry `dtype`, the type NumPy's name has after the first iteration; the
        name is then a new array (so it cannot be an array from before the loop)."""
        self.aval, self.retyped = Aval(self.aval.shape, np.dtype(dtype)), True
        self.fresh()

    def fresh(self) -> bool:
        """From now on carry the name's value only, as a new array; True if that is a change."""
        before = (self.mode, self.carries_which, self.start)
        self.mode, self.carries_which, self.choices, self.was_fixed, self.start = WRAPPED, False, [], True, FRESH
        return before != (WRAPPED, False, FRESH)


@dataclass
class _Pass:
    """One traced region of a loop: what it wrote, and what each carried name became."""

    record: Region
    new: list
    stand_ins: list = field(default_factory=list)
    bindings: list = field(default_factory=list)
    returned_itself: list = field(default_factory=list)
    retyped: dict = field(default_factory=dict)  # slot index -> the dtype the body gave it instead
    scalars: list = field(default_factory=list)  # per slot: the `scalar_kind` of what the body returned
    padding: list = field(default_factory=list)  # per slot: where it was made, if a slice of traced length
    leaves: list = field(default_factory=list)   # per slot: what the body gave it
    views: list = field(default_factory=list)  # per slot: the outside arrays it is a view of, made in the body


class _Loop:
    """The carried state of one `stablehlo.while`, refined by tracing until it is consistent."""

    def __init__(self, init, fixed=None, runs_once=False):
        self.tree, self.runs_once, self.objects = init, runs_once, skeleton(init)
        self.implicit: list[TracedArray] = []  # outside arrays carried by value (written inside)
        self.slots: list[_Slot] = []
        for k, leaf in enumerate(leaves_of(init)):
            v = carried_value(leaf)
            identity = has_identity(leaf)
            mode = FIXED if identity and fixed is not None and fixed[k] else WRAPPED
            choices, which = flatten(leaf) if identity else ((), FRESH)
            kind = scalar_kind(leaf) if not isinstance(which, int) or which == FRESH else None  # (an array's own)
            slot = _Slot(leaf, aval_of(v), kind, mode, identity and mode != FIXED, list(choices), which)
            slot.padding, slot.weak = padding([leaf])[0], is_weak(leaf)
            self.slots.append(slot)
            if mode == FIXED:
                self._carry_roots(leaf)
        self.lengths = Carried([s.leaf for s in self.slots], [s.aval.shape for s in self.slots])
        for k, slot in enumerate(self.slots):
            if self.lengths.carries(k):
                slot.fresh()

    def _carry_roots(self, array):
        for root in roots(array):
            if id(root) not in ids_of(self.implicit):
                self.implicit.append(root)

    @property
    def moving(self) -> list[_Slot]:
        return [s for s in self.slots if s.mode != FIXED]

    def operands(self) -> list[ir.Value]:
        moving = [(k, s) for k, s in enumerate(self.slots) if s.mode != FIXED]
        initial = [self.lengths.value_of(k, s.leaf) if self.lengths.carries(k) else carried_value(s.leaf)
                   for k, s in moving]
        initial = [ew.convert(v, s.aval.dtype) if s.retyped else v for v, (_, s) in zip(initial, moving)]
        moving = [s for _, s in moving]
        which = [as_value(s.start) for s in moving if s.carries_which]
        return initial + which + self.lengths.operands() + [t.value for t in self.implicit]

    def trace(self, session, region, eraser, fn, types, condition=False) -> _Pass:
        with traced_region(session, region, types, self.implicit, eraser) as (block, record):
            stand_ins, carried = self._enter(list(block.arguments))
            what = "the condition of a traced loop" if condition else "the body of a traced loop"
            with raised_in(what), python_objects.unchanged(fn, what):
                result = fn(rebuild(self.tree, stand_ins))
            if condition:
                stablehlo.ReturnOp([predicate(result)])
                outcome = _Pass(record, [])
            else:
                outcome = self._end(result, stand_ins, carried)
        outcome.record, outcome.new = record, new_writes(record, self.implicit)
        return outcome

    def _enter(self, arguments):
        """The body's stand-in for every carried name; outside arrays take their block arguments."""
        moving = self.moving
        values = iter(arguments[:len(moving)])
        which = iter(arguments[len(moving):])
        lengths = self._lengths_in(arguments)
        stand_ins, carried = [], {}
        for k, slot in enumerate(self.slots):
            if slot.mode == FIXED:
                stand_ins.append(slot.leaf)
                continue
            v = next(values)
            w = next(which) if slot.carries_which else FRESH
            if slot.mode == EITHER:
                stand_in = Either(w, slot.choices, of_kind(v, slot.scalar))
            elif self.lengths.carries(k):
                stand_in = self.lengths.array(k, v, lengths, slot.padding)
                carried[id(stand_in)] = ((), FRESH)
            else:  # (where it may be one of the arrays, it may be an array)
                kind = joined(slot.scalar, False) if slot.carries_which and slot.choices else slot.scalar
                stand_in = weakened(padded_as(of_kind(v, kind), slot.padding), slot.weak)
                carried[id(stand_in)] = (tuple(slot.choices), w)
            stand_ins.append(stand_in)
        for array, argument in zip(self.implicit, arguments[len(arguments) - len(self.implicit):]):
            array.restore(argument)
        for slot, stand_in in zip(self.slots, stand_ins):  # a copy of the view the last iteration made
            if slot.views and slot.mode != FIXED:
                held_copy(stand_in, slot.views)
        return stand_ins, carried

    def _lengths_in(self, values) -> list:
        """The carried lengths among a block's arguments or the op's results (after `which`)."""
        start = len(self.moving) + sum(s.carries_which for s in self.moving)
        return list(values[start:start + len(self.lengths.initial)])

    def _end(self, result, stand_ins, carried) -> _Pass:
        """Return the carried values from the body: each name's value and which array it is."""
        change = object_change(self.objects, skeleton(result))
        if change is not None:
            raise ControlFlowError(
                f"the body of a traced loop gives a name another Python object ({change}): after the loop it "
                "would be one or the other by how often the loop runs, known only at run time; only arrays "
                "and numbers can change in a traced loop (choose the object before it, or use arrays)")
        leaves = leaves_of(result)
        if len(leaves) != len(self.slots):
            raise ControlFlowError(f"the loop body returned {len(leaves)} arrays where "
                                   f"{len(self.slots)} are carried")
        before = made_before(len(SESSION.regions))
        bindings = [bind(leaf, before, slot.aval, carried) for leaf, slot in zip(leaves, self.slots)]
        moving = [(slot, b) for slot, b in zip(self.slots, bindings) if slot.mode != FIXED]
        outcome = _Pass(Region(), [], stand_ins, bindings, [a is b for a, b in zip(leaves, stand_ins)],
                        scalars=self._kinds(leaves, stand_ins, bindings), padding=padding(leaves), leaves=leaves,
                        views=outside_views(leaves, before))
        for leaf, stand_in, made_at in zip(leaves, stand_ins, outcome.padding):
            masked = any(n is not None for n in traced_lengths(leaf))  # (its lengths are carried)
            if made_at is not None and not masked and stand_in is not leaf and stand_in._value is not None and \
                    any(True for _ in stand_in._value.uses):
                raise padded(leaf, ", read again in the next iteration of the loop,")
        values = []
        for k, (slot, b) in enumerate(zip(self.slots, bindings)):
            if slot.mode == FIXED:
                continue
            current = self.lengths.value_of(k, leaves[k]) if self.lengths.carries(k) else b.current
            if dtype_of(current) != slot.aval.dtype and shape_of(current) == slot.aval.shape:
                outcome.retyped[k] = dtype_of(current)  # decided in `settle`; trace again
                values.append(value(np.zeros(slot.aval.shape, slot.aval.dtype)))
            else:
                values.append(convert(current, slot.aval, "the loop body"))
        which = [as_value(b.which_in(slot.choices)) for slot, b in moving if slot.carries_which]
        stablehlo.ReturnOp(values + which + self.lengths.returned(leaves) + [t.value for t in self.implicit])
        return outcome

    def _kinds(self, leaves, stand_ins, bindings) -> list:
        """The `scalar_kind` of the new value each name may hold after the body: a stand-in's is its
        slot's; an array from before the loop has none (None)."""
        slots = {id(s): slot for s, slot in zip(stand_ins, self.slots)}
        return [slots[id(leaf)].scalar if id(leaf) in slots else None if b.static and b.which != FRESH
                else scalar_kind(leaf) for leaf, b in zip(leaves, bindings)]

    def settle(self, condition: _Pass, body: _Pass) -> bool:
        """Refine the carried state from one traced attempt; True when it was already right."""
        self.written = ids_of(a for p in (condition, body) for a, _ in p.record.writes.values())
        for k, dtype in body.retyped.items():
            self._retype(self.slots[k], dtype, body.stand_ins[k])
        changed = bool(condition.new or body.new or body.retyped)
        self.implicit += [a for a in condition.new + body.new if id(a) not in ids_of(self.implicit)]
        for slot, b, stand_in, itself in zip(self.slots, body.bindings, body.stand_ins, body.returned_itself):
            changed |= self._refine(slot, b, stand_in, itself)
        for slot in self.moving:
            if slot.mode == WRAPPED and slot.carries_which and any(
                    id(r) in self.written for c in slot.choices for r in roots(c)):
                slot.mode, changed = EITHER, True  # the array it may be changes: read it live
        for slot, kind in zip(self.slots, body.scalars):  # a name a NumPy scalar after some iterations only
            if slot.mode != FIXED and joined(slot.scalar, kind) != slot.scalar:
                slot.scalar, changed = joined(slot.scalar, kind), True
        for slot, leaf in zip(self.slots, body.leaves):  # a Python number the body makes a NumPy scalar
            if slot.weak and not is_weak(leaf):
                slot.weak, changed = False, True
        for slot, views in zip(self.slots, body.views):  # stand-ins of views then read as copies of them
            if views and not slot.views:
                slot.views, changed = views, True
        changed |= self.lengths.refine(body.leaves)
        for k, slot in enumerate(self.slots):  # a name of traced length is a new array each iteration
            changed |= self.lengths.carries(k) and slot.fresh()
        return not changed

    def _retype(self, slot: _Slot, dtype, stand_in) -> None:
        """The body gives a carried name another dtype: NumPy's name has that dtype from the first
        iteration on. Take it when the loop surely runs and the old array was not written in place
        (or when the name held a Python number, whose type NumPy lets the operands decide)."""
        weak = is_weak(slot.leaf) and not slot.retyped
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
            if itself:  # the body kept the name on the array (its stand-in is that array)
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
        if itself and has_identity(slot.leaf) and not slot.was_fixed and len(slot.choices) == 1 and \
                isinstance(slot.start, int) and slot.start == 0:
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
        lengths = self._lengths_in(results)
        out = []
        for k, (slot, b, scalar, made_at) in enumerate(zip(self.slots, body.bindings, body.scalars, body.padding)):
            if slot.mode == FIXED:
                out.append(slot.leaf)
                continue
            v = next(values)
            if self.lengths.carries(k):
                out.append(self.lengths.array(k, v, lengths, made_at))
                continue
            kind = scalar if self.runs_once else slot.scalar
            if not slot.carries_which:
                out.append(held_copy(weakened(padded_as(of_kind(v, kind), made_at), slot.weak), body.views[k]))
                continue
            w = next(which)
            after = b.which_in(slot.choices) if b.static else None
            if after is not None and (self.runs_once or (isinstance(slot.start, int) and after == slot.start)):
                out.append(held_copy(of_kind(v, kind), body.views[k]) if after == FRESH else slot.choices[after])
            else:
                out.append(held_copy(Either(w, slot.choices, of_kind(v, kind)), body.views[k]))
        return rebuild(self.tree, out)


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
            op = while_op(operands)
            with Eraser(op) as eraser:
                condition = loop.trace(session, op.regions[0], eraser, cond_fn, types, condition=True)
                body = loop.trace(session, op.regions[1], eraser, body_fn, types)
            with eraser:
                if loop.settle(condition, body):
                    return loop.finish(list(op.results), body)
            eraser.erase()

