"""A traced `if` (or `switch`) as one `stablehlo.case`, its results as bindings (see `identity`)."""

from __future__ import annotations

import functools
import warnings
from dataclasses import dataclass

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo

from solvent.core.aval import Aval
from solvent.core.session import SESSION
from solvent.core.traced import TracedArray
from solvent.errors import ControlFlowError, user_location
from solvent.numpy.values import carried_value, value
from solvent.ops import elementwise as ew
from solvent.ops.control import case_op
from solvent.transforms.branch_writes import hoist
from solvent.transforms.identity import FRESH, Either, as_value, bind, made_before
from solvent.transforms import python_objects
from solvent.transforms.regions import (Eraser, aval_of, convert, held_copy, is_weak, joined, leaves_of,
                                        new_writes, object_change, of_kind, outside_views, padded_as, padding,
                                        raised_in, rebuild, scalar_kind, skeleton, traced_region, weakened)


@dataclass
class _BranchEnd:
    block: ir.Block
    bindings: list
    written: dict  # id -> value at the branch's end, of each outside array the branch wrote
    scalars: list  # per result: its `scalar_kind` (a NumPy scalar or Python number: True)
    padding: list  # per result: where it was made, if a slice of traced length (see `regions.padding`)
    views: list  # per result: the outside arrays it is a view of, made in the branch (`regions.outside_views`)


#: How deep in other traced regions a traced `if` warns that the program grows as 2 ** depth.
NESTED_WARNED = 8


def _writing_last(ends: list[_BranchEnd]) -> list[int]:
    """The order of a two-way case's regions: the branch writing fewer arrays in place first. XLA's
    copy insertion keeps a loop's array in place through a case whose first branch passes it on,
    but copies it twice per iteration where the first branch writes it (`if p[i]: p[i*i::i] = 0`:
    15x slower in a rolled loop)."""
    if len(ends) == 2 and len(ends[1].written) < len(ends[0].written):
        return [1, 0]
    return list(range(len(ends)))


class Case:
    """One `stablehlo.case`: every branch traced once, its results as bindings (see `identity`),
    and every outside array some branch writes as an extra result (the others pass it through:
    branches are exclusive, so none needs to see another's writes)."""

    def __init__(self, session, index, branches, operands):
        if len(SESSION.regions) == NESTED_WARNED:
            where = user_location()
            warnings.warn(f"{where[0]}:{where[1]}: a traced `if` nested {NESTED_WARNED} deep in other traced branches "
                          "and loops (a recursion whose stopping test reads array data, say): each one's branches "
                          "are both traced, so the program doubles with every level; stop the recursion at a static "
                          "depth, or write it as a loop", stacklevel=2)
        self.implicit: list[TracedArray] = []
        scratch = case_op(index, [], len(branches))
        with Eraser(scratch) as self.eraser:
            ends = [self._branch(session, scratch.regions[k], k, branch, operands)
                    for k, branch in enumerate(branches)]
            self.op = self._assemble(scratch, index, ends)

    def _branch(self, session, region, k, branch, operands) -> _BranchEnd:
        with traced_region(session, region, [], [], self.eraser) as (block, record):
            what = f"branch {k} of a traced `if`"
            with raised_in(what), python_objects.unchanged(branch, what):
                result = branch(*operands)
            leaves = leaves_of(result)
            if k == 0:
                self.template, self.avals = result, [aval_of(carried_value(leaf)) for leaf in leaves]
                self.strong, self.objects = [not is_weak(x) for x in leaves], skeleton(result)
                self.numbers = [[leaf] if type(leaf) is int else [] for leaf in leaves]  # (Python ints given)
            elif (change := object_change(self.objects, skeleton(result))) is not None:
                raise ControlFlowError(
                    f"branch {k} of a traced `if` leaves a name another Python object than branch 0 ({change}): "
                    "after it the name would be one or the other by a value known only at run time; only arrays "
                    "and numbers can differ between the branches (choose the object before it, or use arrays)")
            elif len(leaves) != len(self.avals):
                raise ControlFlowError(f"branch {k} returned {len(leaves)} arrays where branch 0 returned "
                                       f"{len(self.avals)}")
            else:
                for j, leaf in enumerate(leaves):
                    self._combine(j, leaf, k)
            before = made_before(len(SESSION.regions))
            bindings = [bind(leaf, before, aval) for leaf, aval in zip(leaves, self.avals)]
            written = {key: array.value for key, (array, _) in record.writes.items()}
            end = _BranchEnd(block, bindings, written, [scalar_kind(x) for x in leaves], padding(leaves),
                             outside_views(leaves, before))
        self.implicit += [a for a in new_writes(record, self.implicit)]
        return end

    def _combine(self, j: int, leaf, k: int) -> None:
        """Result j's type after branch k: one dtype for arrays and NumPy scalars (NumPy's name would
        otherwise have a dtype that depends on the path); Python numbers take the others' type."""
        aval, strong = aval_of(carried_value(leaf)), not is_weak(leaf)
        if aval.shape != self.avals[j].shape or (strong and self.strong[j] and aval.dtype != self.avals[j].dtype):
            raise ControlFlowError(
                f"branch {k} gives result {j} as {aval.dtype}{list(aval.shape)} where branch 0 gives "
                f"{self.avals[j].dtype}{list(self.avals[j].shape)}; after a traced `if` a name has one "
                "shape and dtype: convert it in the branches (x.astype(...))")
        if strong and not self.strong[j]:
            self.avals[j], self.strong[j] = aval, True
        elif not strong and not self.strong[j]:
            self.avals[j] = Aval(aval.shape, np.result_type(aval.dtype, self.avals[j].dtype))
        self.numbers[j] += [leaf] if type(leaf) is int else []
        dtype = np.dtype(self.avals[j].dtype)
        for number in self.numbers[j] if dtype.kind in "iu" else ():  # (NumPy's error, not a wrapped int)
            if not np.iinfo(dtype).min <= number <= np.iinfo(dtype).max:
                raise ControlFlowError(
                    f"Python integer {number} out of bounds for {dtype}, the type another branch of a traced `if` "
                    "(or `and`, `or`) gives the same name: compiled, the name has that one type after it, which "
                    "would wrap the number; convert the array's value (np.int64(x)) or pick a number that fits")

    def _assemble(self, scratch, index, ends: list[_BranchEnd]):
        """The final op: per result, its value, and which outside array it is where any branch says."""
        self.kinds = []  # per result: ("same", array), ("either", choices) or ("fresh", None)
        self.padding = [next((m for m in made if m is not None), None) for made in zip(*(e.padding for e in ends))]
        self.views = [tuple({id(r): r for views in column if views for r in views}.values())
                      for column in zip(*(e.views for e in ends))]
        # NumPy gives a scalar where every branch that makes a new value makes a scalar, an array where
        # every one makes an array, and either by the path (MIXED) otherwise (a name that is an existing
        # array on every path is one of those arrays)
        made = [[end.scalars[j] for end in ends if not (end.bindings[j].static and end.bindings[j].which != FRESH)]
                for j in range(len(self.avals))]
        self.scalar = [functools.reduce(joined, scalars, None) for scalars in made]
        for j in range(len(self.avals)):
            found = [b for end in ends for b in [end.bindings[j]]]
            choices = []
            for b in found:
                choices += [c for c in b.choices if not any(c is d for d in choices)]
            if len(choices) == 1 and all(b.static and b.which == 0 for b in found):
                self.kinds.append(("same", choices[0]))
            else:
                self.kinds.append(("either", choices) if choices else ("fresh", None))
        self.hoisted = [hoist(a.value, [end.written.get(id(a)) for end in ends], scratch) for a in self.implicit]
        for k, end in enumerate(ends):
            with ir.InsertionPoint(end.block):
                values, which = [], []
                for b, aval, (kind, choices) in zip(end.bindings, self.avals, self.kinds):
                    if kind != "same":
                        values.append(convert(b.current, aval, f"branch {k}"))
                    if kind == "either":
                        which.append(as_value(b.which_in(choices)))
                passed = [h.given_by(end.written.get(id(a))) if h else end.written.get(id(a), a.value)
                          for a, h in zip(self.implicit, self.hoisted)]  # others: the value before
                stablehlo.ReturnOp(values + which + passed)
        types = [v.type for v in ends[0].block.operations[len(ends[0].block.operations) - 1].operands]
        order = _writing_last(ends)
        if order == [1, 0]:
            index = ew.binary("subtract", value(np.int32(1)), index)
        op = case_op(index, types, len(ends))
        for region, k in enumerate(order):
            ends[k].block.append_to(op.regions[region])
        scratch.erase()
        self.eraser.op = op
        return op

    def discard(self) -> None:
        """Drop the op unused: nothing it would write is written, no result bound."""
        self.op.erase()

    def finish(self):
        results = list(self.op.results)
        for array, hoisted, new in zip(self.implicit, self.hoisted, results[len(results) - len(self.implicit):]):
            array.assign(hoisted.write(new) if hoisted else new)
        values = iter(results)
        moving = sum(kind != "same" for kind, _ in self.kinds)
        which = iter(results[moving:])
        out = []
        for j, ((kind, choices), scalar) in enumerate(zip(self.kinds, self.scalar)):
            made_at = self.padding[j]
            if kind == "same":
                out.append(choices)
            elif kind == "fresh":
                fresh = weakened(of_kind(next(values), scalar), not self.strong[j])
                out.append(held_copy(padded_as(fresh, made_at), self.views[j]))
            else:
                either = Either(next(which), choices, padded_as(of_kind(next(values), scalar), made_at))
                out.append(held_copy(padded_as(either, made_at), self.views[j]))
        return rebuild(self.template, out)


