"""What rewritten `if`/`while`/`for` statements call, and (from `expressions` and `refusals`) every
other form rewritten code calls.

Each helper decides at trace time: with a static (Python) condition it runs
the plain Python statement; with a traced one it builds the control-flow op.
`solvent.transforms.source.rewrite` turns a function's source into calls to these.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Mapping

import numpy as np
from jaxlib.mlir import ir

from solvent.core import trace
from solvent.core.session import SESSION
from solvent.core.traced import TracedArray
from solvent.errors import SolventError, TracerConversionError, UnsupportedError
from solvent.numpy import folding
from solvent.numpy.indexing import affine
from solvent.numpy.values import NDARRAY, holds_traced, value, wrap
from solvent.transforms import collected_lists, control_flow, python_objects, regions
from solvent.transforms.source import entries, host_arrays, rotations, static_items
from solvent.transforms.source.builtins import Rows
from solvent.transforms.source.expressions import (and_, chained, contains, identical, ifexp, not_, or_, truth,
                                                   traced_truth)
from solvent.transforms.source.refusals import asserted, catching, refuse, unknown as _traced
from solvent.transforms.source.unbound import (Unbound, Undefined, bound, check_defined, fill_undefined, load,
                                               without_unbound)


#: The forms rewritten code calls (see rewrite.HELPERS).
__all__ = ["and_", "asserted", "bound", "catching", "chained", "contains", "first_index", "for_range", "for_stmt",
           "identical", "if_stmt", "ifexp", "items", "length", "list_range", "load", "not_", "or_", "percent",
           "printing", "range_items", "refuse", "slice_of", "SolventError", "subscript", "truth", "while_stmt"]

slice_of = slice  # `a:b:c` in a key the rewrite passes to `subscript`


def percent(text: str, values):
    """`text % values`; a traced value formatted as an integer (%d, %x, %c) raises solvent's error, which
    Python's % would replace with its own TypeError."""
    try:
        return text % values
    except TypeError:
        for v in values if isinstance(values, tuple) else values.values() if isinstance(values, Mapping) else [values]:
            if _traced(v):
                format(v, "d")  # (the error of a format spec: "format() of a traced value")
        raise


@contextlib.contextmanager
def printing():
    """A print, log or warning call of the user's, or a raise: text of a traced value in it says what
    the value is (see `TracedArray._text`)."""
    SESSION.printing += 1
    try:
        yield
    finally:
        SESSION.printing -= 1


def subscript(x, key):
    """`x[key]`; a NumPy array (a constant of the program), or a list of numbers, indexed with traced
    values is made a traced constant first, since NumPy's own indexing cannot take them (`TABLE[i]`)."""
    if type(x) is NDARRAY and _holds_traced(key):
        x = folding.traced_constant(x)
    elif isinstance(x, (list, tuple)) and is_traced(key) and (read := static_items.bounded(x, key)) is not None:
        return read(key)  # (Python numbers: `weights[i]`, an item of a loop that breaks on data)
    elif isinstance(x, Mapping) and _holds_traced(key):  # (a key found by identity would never match)
        raise TracerConversionError("a dict looked up with a traced value: which entry is only known when the "
                                    "compiled program runs; look it up with a static key, or use an array")
    return x[key]


def _holds_traced(key) -> bool:
    """Whether an index holds a traced value, slices' bounds included."""
    if isinstance(key, tuple):
        return any(_holds_traced(k) for k in key)
    if isinstance(key, slice):
        return holds_traced([key.start, key.stop, key.step])
    return holds_traced(key)


def is_traced(x) -> bool:
    return isinstance(x, TracedArray)


def if_stmt(test, true_fn, false_fn, values, names, where=None):
    """`if test: ... else: ...` assigning `names`; returns their values afterwards.

    A name left unbound on one path (first bound, or deleted, in one branch) is `Unbound` after
    a traced `if`; finding one means tracing the branches once more without it, the first case
    dropped unfinished (so the writes its branches made are not made twice). Attributes and dict
    items a branch gives other numbers or arrays (`self.bounces += 1`) are chosen as names are.
    """
    if not _traced(test):
        return true_fn(*values) if test else false_fn(*values)
    values = host_arrays.traced_first((true_fn, false_fn), values, names)
    return entries.choosing(lambda t, f, values, names: _traced_if(test, t, f, values, names, where),
                            true_fn, false_fn, values, names)


def _traced_if(test, true_fn, false_fn, values, names, where):
    dropped: set[int] = set()
    while True:
        seen: set[int] = set()

        def branch(fn):
            def run():
                outcome = tuple(fn(*values))
                seen.update(k for k, v in enumerate(outcome) if isinstance(v, (Undefined, Unbound)))
                return tuple(None if k in dropped or isinstance(v, (Undefined, Unbound)) else v
                             for k, v in enumerate(outcome))
            run.reaches = dict(zip(names, values))  # (a list a name holds: `out += [1]` changes it in place)
            return run

        try:
            case = control_flow.traced_case(np.logical_not(test), [branch(true_fn), branch(false_fn)], ())
        except control_flow.ControlFlowError:
            if seen <= dropped:
                raise
            case = None
        if seen <= dropped:
            with trace.current().emitting():
                result = case.finish()
            return tuple(Unbound(names[k], where) if k in dropped else v for k, v in enumerate(result))
        if case is not None:
            case.discard()
        dropped |= seen


def _fixed(values, names, in_place) -> list[bool]:
    """Per carried leaf, whether its name is only updated in place in the loop (`a += ...`), so the
    loop most likely keeps it on the same array (a first guess for `control_flow.loop`)."""
    return [flag for v, n in zip(values, names) for flag in [n in in_place] * control_flow.leaf_count(v)]


def while_stmt(test_fn, body_fn, values, names, where=None, in_place=(), written=()):
    """`while test: body` over the loop variables `names`; Python loop while the test is static (with a
    warning once its steps have copied their ops into the program STATIC_STEPS_WARNED times)."""
    values = tuple(values)
    session, steps = trace.current(), 0
    block = session.blocks[-1] if session is not None else None
    emitted = len(block.operations) if block is not None else 0
    while True:
        first = test_fn(*values)
        if _traced(first):
            break
        if not first:
            return values
        values = tuple(body_fn(*values))
        steps += 1
        if steps == STATIC_STEPS_WARNED and where and len(block.operations) > emitted:
            warnings.warn(f"{where[0]}:{where[1]}: a `while` whose test is static (Python numbers) has run "
                          f"{steps} steps while tracing, each copying its body into the program: compile time "
                          "grows with the steps; loop over range(n), or make the test traced (a solvent.Scalar "
                          "or an array in it), to compile one loop", stacklevel=2)

    values = host_arrays.traced_first((test_fn, body_fn), values, names)

    def run(values, names, slots):
        test, body = entries.with_entries(test_fn, slots, len(values) - len(slots), gives=False), \
            entries.with_entries(body_fn, slots, len(values) - len(slots))
        values = fill_undefined(values, lambda v: tuple(body(*v)))
        check_defined(values, names, "while loop", where)
        values, names, body, restore = without_unbound(values, names, body)
        carried_test = test

        def test(*carried):
            return carried_test(*restore(carried))
        fixed = _fixed(values, names, in_place)
        if not regions.writes(lambda: test(*values)):
            return restore(control_flow.loop(lambda c: test(*c), lambda c: tuple(body(*c)), values, fixed,
                                             written=written))

        # A test that writes (a draw, an array updated in place) cannot run in the loop's condition,
        # which gives only its truth: each step ends with it, and the loop carries its truth.
        def step(carry):
            new = tuple(body(*carry[:-1]))
            return (*new, traced_truth(test(*new)))
        return restore(control_flow.loop(lambda c: c[-1], step, (*values, traced_truth(first)), [*fixed, False],
                                         written=written)[:-1])
    return entries.carrying(run, values, names)


#: A `while` whose test stays static copies its body into the program once per step: past this many
#: steps with ops, a warning says so (250 steps of an advection scheme: a 37 s first call).
STATIC_STEPS_WARNED = 64

#: A loop that cannot roll unrolls only while its body is copied at most this many times
#: (with the loops around it), and its copies add at most `UNROLL_OPS_AT_MOST` ops; beyond, compiling
#: would take minutes: an error says why instead (a 100-step random walk whose draws and branches
#: could not roll took 11 minutes and 14 GB).
UNROLL_AT_MOST = 256


#: A short static loop rolls its other steps where their copies would add more ops than this to
#: the module (about a second of XLA's compile here); below, unrolled steps pay (a CNN layer by
#: loops over 8 channels of about 320 ops each runs 3x faster unrolled).
UNROLL_OPS_AT_MOST = 10_000
#: And the rest of a short loop rolls where its first step moved data this often (slices, concatenates,
#: pads: a stencil by np.roll): XLA fuses each copy into the next once per shifted read, so the code
#: grows as the square of the steps (Game of Life by np.roll, 10 generations of 16x16: a 5 s first
#: call and 960 us a call unrolled, 0.1 s and 63 us rolled).
SHIFTS_AT_MOST = 16
_SHIFTS = {f"stablehlo.{name}" for name in ("slice", "dynamic_slice", "concatenate", "pad", "reverse", "gather")}


def for_range(bounds, body_fn, values, names, where, in_place=(), written=(), branching=False, collected=None,
              appended=(), rotating=False):
    """`for i in range(*bounds): body` (body_fn(i, *values)); rolled when traced or long.

    A static loop unrolls while the copies of its body, times those of the static loops around it,
    stay within the `unroll` option; longer ones become one `stablehlo.while`, so the module grows
    with the source, not with the trip counts. So does the rest of a short one whose first step
    emitted so many ops (in its loops and branches too) that copies of it would exceed
    `UNROLL_OPS_AT_MOST` (Game of Life by cells, 8 generations of 16x16: a 3.5 s first call
    unrolled, 1.3 s so). A short one whose body (`branching`: it holds an `if`) takes a traced
    branch rolls whole: copies of a branch never fuse (Game of Life by cells at 16x16, 8
    generations: first call 1.7 -> 0.1 s, each call 660 -> 64 us). So does the rest of one whose
    first step moves data many ways (`SHIFTS_AT_MOST`), or draws random numbers: XLA compiles a
    draw's bit operations slowly, and copies of one gain nothing (10 batches of 1000 uniform pairs:
    a 2.8 s first call unrolled, 0.8 s rolled). With `rotating` (its body swaps names), a
    rolled loop may run several steps an iteration (`rotations`)."""
    values = tuple(values)
    if not any(_traced(b) for b in bounds):
        steps = range(*[int(b) for b in bounds])
        session = trace.current()
        limit = session.unroll if session is not None else None
        copies = (session.copies if session is not None else 1) * len(steps)
        if limit is None or copies <= limit:
            if limit is None or len(steps) < 2:
                return _unrolled(steps, body_fn, values, copies)
            if branching and (where in session.branching or _takes_branch(body_fn, steps[0], values)):
                session.branching.add(where)  # (inner loops: found once, not again in each outer trace)
                return _short_rolled(steps, body_fn, values, names, where, in_place, written, 1, collected, appended)
            draws = session.draws
            values, ops, shifts = _first_step(steps, body_fn, values, copies)
            if ops * (len(steps) - 1) <= UNROLL_OPS_AT_MOST and shifts < SHIFTS_AT_MOST and session.draws == draws:
                return _unrolled(steps[1:], body_fn, values, copies)
            return _short_rolled(steps[1:], body_fn, values, names, where, in_place, written, copies, collected,
                                 appended)
        try:
            session.rolled.append(where)
            return _rolled(bounds, body_fn, values, names, where, in_place, written, 1, collected, appended,
                           rotating)
        except (TracerConversionError, UnsupportedError, TypeError, IndexError, AttributeError) as error:
            reason = f"{error.__class__.__name__}: {str(error).splitlines()[0]}"

            def too_long(copied: str):
                return UnsupportedError(
                    f"the loop of {len(steps)} steps at {where[0]}:{where[1]} cannot run with a traced loop "
                    f"index ({reason}), and unrolling it would copy {copied} into the program (minutes to "
                    "compile); write the body with operations solvent supports on traced indices, or shorten "
                    "the loop", where)
            if copies > UNROLL_AT_MOST:
                raise too_long(f"its body {copies} times") from error
            warnings.warn(f"{where[0]}:{where[1]}: loop of {len(steps)} steps unrolled: its body "
                          f"cannot run with a traced loop index ({reason})", stacklevel=2)
            values, ops, _ = _first_step(steps, body_fn, values, copies)
            ops *= len(steps)
            if ops > UNROLL_OPS_AT_MOST:
                raise too_long(f"about {ops} operations") from error
            return _unrolled(steps[1:], body_fn, values, copies)
    return _rolled(bounds, body_fn, values, names, where, in_place, written, 1, collected, appended)


def _first_step(steps, body_fn, values, copies):
    """The loop's first step unrolled: (the values after it, its ops and moves of data: `_ops_since`)."""
    block = trace.current().blocks[-1]
    emitted = len(block.operations)
    values = _unrolled(steps[:1], body_fn, values, copies)
    return (values, *_ops_since(block, emitted))


def _takes_branch(body_fn, index, values) -> bool:
    """Whether the step `index` of a loop takes a traced branch; not where it raises (unrolled, that
    step then raises the error NumPy's would)."""
    try:
        return control_flow.takes_branch(lambda: body_fn(index, *values))
    except python_objects.LostIterator:
        raise
    except Exception:  # noqa: BLE001  the step traced for real raises it again, or runs
        return False


def _short_rolled(steps, body_fn, values, names, where, in_place, written, copies, collected=None, appended=()):
    """Steps of a short loop (all, or the rest after its first) rolled, the loops in its body
    counting `copies`; unrolled, as the whole loop would have been, where the body cannot run
    with a traced index."""
    try:
        trace.current().rolled.append(where)
        return _rolled((steps.start, steps.stop, steps.step), body_fn, values, names, where, in_place, written,
                       copies, collected, appended)
    except (TracerConversionError, UnsupportedError, TypeError, IndexError, AttributeError):
        return _unrolled(steps, body_fn, values, copies)


def _ops_since(block: ir.Block, start: int) -> tuple[int, int]:
    """Ops emitted into `block` from position `start` on, with those in their regions and in the
    functions they call (XLA inlines each call: a helper called 4 times a step is 4 copies), and how
    many of them move data (`_SHIFTS`)."""
    names = []
    functions = {op.sym_name.value: op for op in trace.current().module.body.operations if hasattr(op, "sym_name")}

    def visit(op):
        names.append(op.name)
        if op.name == "func.call" and op.attributes["callee"].value in functions:
            functions[op.attributes["callee"].value].operation.walk(visit)
        return ir.WalkResult.ADVANCE
    for op in list(block.operations)[start:]:
        op.operation.walk(visit)
    return len(names), sum(name in _SHIFTS for name in names)


def _unrolled(steps, body_fn, values, copies=1):
    session = trace.current()
    outer = session.copies if session is not None else 1
    if session is not None:
        session.copies = copies
    try:
        for i in steps:
            values = tuple(body_fn(i, *values))
    finally:
        if session is not None:
            session.copies = outer
    return values


def _rolled(bounds, body_fn, values, names, where, in_place, written, copies=1, collected=None, appended=(),
            rotating=False):
    """`for` over `range(*bounds)` as one `stablehlo.while`, carrying what `entries.carrying` finds
    and the lists `appended` says the body appends to; with `rotating`, the steps that bring buffers
    back to their names run as one iteration, and the steps left over after the loop."""
    values = host_arrays.traced_first((body_fn,), values, names)
    steps = None if any(_traced(b) for b in bounds) else range(*bounds)
    rotates = rotating and len(steps or ()) > 2
    period = rotations.period(body_fn, lambda: _traced_index(bounds), values) if rotates else 1
    rolled = steps[:len(steps) // period * period] if period > 1 else None

    def run(values, names, slots):
        body = entries.with_entries(body_fn, slots, len(values) - len(slots), index=True)
        if rolled is not None:
            return _one_while((rolled.start, rolled.stop, rolled.step), body, values, names, in_place, written,
                              copies, where, period)
        return _one_while(bounds, body, values, names, in_place, written, copies, where)
    lists = [collected_lists.Collected(a, steps) for a in appended]
    values = entries.carrying(run, values, names, steps, collected, lists)
    return values if rolled is None else _unrolled(steps[len(rolled):], body_fn, values, copies)


def _one_while(bounds, body_fn, values, names, in_place, written, copies, where, period=1):
    """The while loop of `_rolled`, running `period` steps an iteration (of a static range)."""
    start, stop, step = (0, bounds[0], 1) if len(bounds) == 1 else (*bounds, 1)[:3]
    values = fill_undefined(values, lambda v: tuple(body_fn(_traced_index(bounds), *v)))
    check_defined(values, names, "for loop", where)
    values, names, body_fn, restore = without_unbound(values, names, body_fn, index=True)
    static = not any(is_traced(b) for b in bounds)
    # A static range counts its steps from 0 by 1 (the while's first block argument), the index
    # computed from the count: the only form Enzyme's reverse mode caches a loop's values by.
    counted = static and ((start, step) != (0, 1) or period > 1)
    if is_traced(step):  # toward the stop in the step's direction; a zero step (Python's ValueError) runs none
        test = lambda c: ((step > 0) & (c[0] < c[1])) | ((step < 0) & (c[0] > c[1]))  # noqa: E731
    elif step < 0 and not counted:
        test = lambda c: c[0] > c[1]  # noqa: E731
    else:
        test = lambda c: c[0] < c[1]  # noqa: E731

    def body(carry):
        k, end, inner = carry
        for j in range(period):
            n = k * period + j if period > 1 else k
            i = (start + n if step == 1 else start - n if step == -1 else start + n * step) if counted else k
            i.weak = True  # a Python int in NumPy's loop
            if not is_traced(step):  # so `a[i:i + k]` is a slice of static length
                affine.mark_loop_index(i, start + j * step, stop, step * period)
            inner = tuple(body_fn(i, *inner))
        return k + (1 if counted else step), end, inner

    runs_once = static and len(range(start, stop, step)) > 0
    session = trace.current()
    with session.emitting():
        first, last = (0, len(range(start, stop, step)) // period) if counted else (start, stop)
        carry = (control_flow.index_scalar(first), control_flow.index_scalar(last), values)
    fixed = [False, False] + _fixed(values, names, in_place)
    outer, session.copies = session.copies, copies  # the body is traced once: its loops count afresh
    try:
        return restore(control_flow.loop(test, body, carry, fixed, runs_once, written)[2])
    finally:
        session.copies = outer


def _traced_index(bounds):
    """A traced int64 loop index (so a probe of the body sees what the rolled loop will)."""
    start, stop, step = (0, bounds[0], 1) if len(bounds) == 1 else (*bounds, 1)[:3]
    if is_traced(start):
        return start
    index = wrap(value(np.int64(start)), scalar=True)
    index.weak = True
    if not any(is_traced(b) for b in (stop, step)):
        affine.mark_loop_index(index, start, stop, step)
    return index


def for_stmt(iterable, body_fn, values, names, where=None, in_place=(), written=(), collected=None):
    """`for x in iterable: body` over a static iterable (lists, tuples; of numbers rolled when long), or
    over a traced array's first axis (or `enumerate`/`zip` of traced arrays) as `for_range` over rows."""
    if isinstance(iterable, Rows) or (is_traced(iterable) and iterable.ndim and iterable.known is None):
        rows = iterable  # each step reads the row as the array is then, as NumPy's iterator does
        if getattr(rows, "padded", False):
            raise UnsupportedError(
                "a `for` loop over an array whose length depends on traced values (x[mask], np.unique(x)): its "
                "trip count is known only when the program runs; loop over the whole array and test the mask "
                "(for v, keep in zip(x, mask): if keep: ...), or use NumPy on the selection", location=where)
        return for_range((len(rows),), lambda i, *v: body_fn(rows[i], *v), values, names, where, in_place, written,
                         collected=collected)
    items, session = iterable if isinstance(iterable, (list, tuple, range)) else list(iterable), trace.current()
    read = static_items.reader(items) if session and session.unroll is not None and \
        session.copies * len(items) > session.unroll else None  # (numbers: a long loop rolls, reading them)
    if read is not None:
        numbers = static_items.Numbers(items, read)
        return for_range((len(items),), lambda k, *v: body_fn(numbers[k], *v), values, names, where, in_place,
                         written, collected=collected)
    emitted = len(session.blocks[-1].operations) if session is not None else 0
    values = _unrolled(items, body_fn, tuple(values), (session.copies if session is not None else 1) * len(items))
    if len(items) > STATIC_STEPS_WARNED and where and session and len(session.blocks[-1].operations) > emitted:
        warnings.warn(f"{where[0]}:{where[1]}: a `for` over {len(items)} Python items ran unrolled, each step "
                      "copying its body into the program: compile time grows with the items; make them an array "
                      "and loop over its rows (or over range(n)) to compile one loop", stacklevel=2)
    return values


class RangeItems:
    """`range(start, stop, step)` that a traced index can read: start + index * step."""

    def __init__(self, *bounds):
        self.start, self.stop, self.step = (0, bounds[0], 1) if len(bounds) == 1 else (*bounds, 1)[:3]

    def __len__(self):
        return len(range(self.start, self.stop, self.step))

    def __getitem__(self, index):
        item = self.start + index * self.step
        if is_traced(item) and len(self):  # (the loop's test keeps the index in range: so are its items)
            values = range(self.start, self.stop, self.step)
            item.interval = min(values[0], values[-1]), max(values[0], values[-1])
        return item


def range_items(where, *bounds):
    if any(_traced(b) for b in bounds):
        raise UnsupportedError("a `for` loop over range() with traced bounds that uses break/continue (or "
                               "return); write it as a `while` loop", location=where)
    return RangeItems(*bounds)


def first_index(sequence):
    """The first index of a `for` with break/continue made a `while` over `sequence`: 0, or a traced 0
    where the loop is too long to unroll (as `for_range` rolls such loops), so that the `while` is
    rolled from its first step (its test would otherwise stay static, and a loop whose `continue`
    alone is traced unroll whole)."""
    session = trace.current()
    if (session is None or session.unroll is None or len(sequence) * session.copies <= session.unroll
            or not (isinstance(sequence, (RangeItems, Rows)) or is_traced(sequence))):
        return 0
    with session.emitting():
        index = wrap(value(np.int64(0)), scalar=True)
    index.weak = True  # (a Python int in NumPy's loop)
    return index


def items(iterable):
    """The items of a `for` loop's iterable, indexable (arrays by their first axis, numbers by a traced index)."""
    found = iterable if hasattr(iterable, "__getitem__") and hasattr(iterable, "__len__") else list(iterable)
    return static_items.Numbers(found) if isinstance(found, (list, tuple)) else found


def length(sequence):
    return len(sequence)


def list_range(bounds, item, where):
    """`[item(i) for i in range(*bounds)]`: in Python while the items are static; where the first is
    traced, the rest as a `for` loop appending one a step (rolled where long, see `collected_lists`)."""
    steps = range(*bounds)  # (traced bounds: Python's error)
    if not steps:
        return []
    out = [item(steps[0])]
    if not holds_traced(out[0]):
        return out + [item(i) for i in steps[1:]]
    def last():  # (Python's IndexError at the last index, where a traced index would be clamped; traced
        try:     # apart, so that the writes the item makes are made once)
            item(steps[-1])
        except IndexError as error:
            return error
    error = regions.probe(last)
    if error is not None:
        raise error

    def step(i):
        out.append(item(i))
        return ()
    for_range((steps.start + steps.step, steps.stop, steps.step), step, (), (), where,
              appended=[python_objects.Appended("[...]", out, out[0])])
    return out
