"""Entries of Python objects (attributes, dict items) and lists that rolled loops and traced branches
carry as they carry names: a body traced once changes them once, so their new values go through the
loop or branch op and the objects take its results (see `python_objects`, `collected_lists`)."""

from __future__ import annotations

from solvent.transforms import collected_lists, python_objects


def choosing(branch, true_fn, false_fn, values, names):
    """`branch(true_fn, false_fn, values, names)`, a traced `if`; where a branch gave attributes or
    dict items other numbers or arrays (`self.bounces += 1`), once more with them chosen as names are."""
    k, slots = len(values), []
    while True:  # (each branch may set entries of its own)
        try:
            result = branch(with_entries(true_fn, slots, k), with_entries(false_fn, slots, k),
                            (*values, *(slot.initial() for slot in slots)), (*names, *map(str, slots)))
            break
        except python_objects.ObjectsChanged as error:
            more = error.slots
            if not more or not all(isinstance(slot, python_objects.Slot) for slot in more) or \
                    len(slots) + len(more) > CARRIED_ENTRIES_AT_MOST:
                raise
            slots += more
    for slot, v in zip(slots, result[k:]):
        slot.finish(v, result[:k])
    return result[:k]


def carrying(run, values, names, steps=None, collected=None, slots=()):
    """`run(values, names, slots)`, a loop; where its body gave entries of Python objects other numbers
    or arrays (`self.t += dt` in a step method), or appended to lists `collected()` names (a loop
    over the static range `steps`), once more with those entries and lists carried after `values`
    as names are, the entries then holding the loop's results, the lists their items (`slots` are
    carried from the first: what the caller knows the body changes). Carried entries can show others
    (`self.x` traced makes the `if` that bumps `self.bounces` traced): those join."""
    k, slots = len(values), list(slots)
    while True:
        try:
            carried = run((*values, *(s.initial() for s in slots)), (*names, *map(str, slots)), tuple(slots))
            break
        except python_objects.ObjectsChanged as error:
            more = collected_lists.carried(error.slots, steps, collected() if collected is not None else ())
            if not more or len(slots) + len(more) > CARRIED_ENTRIES_AT_MOST:
                raise
            slots += more
    for slot, v in zip(slots, carried[k:]):
        slot.finish(v, carried[:k])
    return carried[:k]


#: Entries of Python objects a loop carries at most (each found by one more trace of its body).
CARRIED_ENTRIES_AT_MOST = 64


def with_entries(fn, slots, k, index=False, gives=True):
    """`fn` (a loop's body, or its test: `gives` False) over `k` values followed by what `slots`
    carries (after the loop index, with `index`): the entries hold those values during the call and
    what they held before after it (the body is traced, not run); a body also gives their new values."""
    if not slots:
        return fn

    def call(*args):
        first = 1 if index else 0
        for slot, v in zip(slots, args[first + k:]):
            slot.enter(v, args[0] if index else None)
        try:
            out = fn(*args[:first + k])
            if not gives:
                return out
            holders = [s.holder for s in slots if isinstance(s, python_objects.Slot) and s.item]
            out = tuple(dict(v) if any(v is h for h in holders) else v for v in out)  # (`d |= {...}`: d, as
            # the body left it, not as restored below)
            held = (out, [s.get() for s in slots if isinstance(s, python_objects.Slot)], args[first:first + k])
            return (*out, *(s.leave(held) for s in slots))
        finally:
            for slot in slots:
                slot.restore()
    return call
