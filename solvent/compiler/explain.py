"""Why a jitted function compiled again: which argument's shape, dtype, layout, static value or
structure differs from the signature compiled before it (`solvent.jit(f, explain=True)`,
`SOLVENT_LOG=recompiles`), one warning for a function that keeps compiling, and where the time of a
slow first call went (logged at INFO; `SOLVENT_LOG=info` shows it)."""

from __future__ import annotations

import inspect
import logging
import os
import warnings
from collections import Counter

from solvent.core import structure
from solvent.errors import RecompileWarning, is_library_file, user_stacklevel

LOG = logging.getLogger("solvent")
if "info" in os.environ.get("SOLVENT_LOG", "").split(","):
    LOG.setLevel(logging.INFO)
    LOG.addHandler(logging.StreamHandler())
#: Compiles of one function after which `Recompiles` warns once, naming what keeps changing.
MANY = 10
#: A first call slower than this (seconds) logs its stages.
SLOW = 1.0


def report_stages(name: str, seconds: dict) -> None:
    """Log, at INFO, how long each stage of a slow compile took."""
    total = sum(seconds.values())
    if total > SLOW or LOG.isEnabledFor(logging.DEBUG):
        LOG.info("solvent.jit(%s) compiled in %.2f s: %s", name, total,
                 ", ".join(f"{stage} {t:.2f} s" for stage, t in seconds.items()))


def describe(fn, args: tuple, kwargs: dict) -> dict[str, str]:
    """Each part of a call by its path (`u`, `state.v`, `sizes[1]`), as the call key sees it: arrays by
    dtype and shape (and their layout over devices), static values by value, containers by type."""
    try:
        named = inspect.signature(fn).bind(*args, **kwargs).arguments
    except (TypeError, ValueError):
        named = {**{f"args[{i}]": a for i, a in enumerate(args)}, **kwargs}
    found: dict[str, str] = {}
    seen: dict[int, str] = {}

    def walk(x, path):
        if id(x) in seen and (structure.is_array(x) or structure.children(x) is not None):
            found[path] = f"the same object as {seen[id(x)]}"
            return
        if structure.is_array(x):
            seen[id(x)] = path
            found[path] = _leaf(x)
            return
        kids = structure.children(x)
        if kids is None:
            found[path] = f"{type(x).__name__} {_short(repr(x))}"
            return
        seen[id(x)] = path
        found[path] = f"{type(x).__name__} of {len(kids)}" if isinstance(x, (list, tuple)) else type(x).__name__
        for (kind, key), child in kids:
            walk(child, f"{path}.{key}" if kind == structure.ATTR else f"{path}[{key!r}]")

    for name, value in named.items():
        walk(value, name)
    return found


def _leaf(x) -> str:
    if type(x) in structure.STATEFUL:
        return f"a {type(x).__name__}"
    key = x.key if structure.KEYED_TYPES and isinstance(x, tuple(structure.KEYED_TYPES)) else ()
    text = f"{type(x).__name__} of {x.dtype}{list(x.shape)}"
    return text + (f" laid out as {key[2]}" if len(key) > 2 and key[2] is not None else "")


def _short(text: str) -> str:
    return text if len(text) <= 40 else text[:37] + "..."


def differences(before: dict[str, str], now: dict[str, str]) -> list[tuple[str, str]]:
    """(path, what changed) for each part of the call that is new, gone or different."""
    changed = []
    for path, text in now.items():
        if path not in before:
            changed.append((path, f"new: {text}"))
        elif before[path] != text:
            changed.append((path, f"{before[path]} -> {text}"))
    changed += [(path, f"gone (was {text})") for path, text in before.items() if path not in now]
    return changed


class Recompiles:
    """What one jitted function compiled: the latest signature's description, and how often each
    argument changed between compiles."""

    def __init__(self, fn, explain: bool):
        self.name = getattr(fn, "__qualname__", repr(fn))
        self.explain = explain or "recompiles" in os.environ.get("SOLVENT_LOG", "")
        code = getattr(fn, "__code__", None)
        self.user = code is None or not is_library_file(code.co_filename)  # solvent's own programs do not warn
        self.latest: dict[str, str] | None = None
        self.compiles, self.changes, self.warned = 0, Counter(), False

    def compiling(self, fn, args: tuple, kwargs: dict) -> list[tuple[str, str]]:
        """Note a compile of this call; the differences from the one before (logged if asked)."""
        now = describe(fn, args, kwargs)
        changed = differences(self.latest, now) if self.latest is not None else []
        if self.latest is not None and not changed:  # the same parts, aliased or shared otherwise
            changed = [("(arguments)", "the same arrays passed twice, or views of one array, differently")]
        self.latest, self.compiles = now, self.compiles + 1
        self.changes.update(path for path, _ in changed)
        if changed and self.explain:
            LOG.warning("solvent.jit(%s) compiles again: %s", self.name,
                        "; ".join(f"{path}: {what}" for path, what in changed))
        if self.compiles >= MANY and self.user and not self.warned and self.changes:
            self.warned = True
            path, count = self.changes.most_common(1)[0]
            warnings.warn(
                f"solvent.jit({self.name}) has compiled {self.compiles} signatures; `{path}` changed in {count} "
                "of them. A new shape, dtype or static value compiles again: give that argument a fixed shape "
                "(pad it), pass a changing number as a 0-d array instead of a static Python number, or call "
                "with explain=True to see every change", RecompileWarning, stacklevel=user_stacklevel())
        return changed
