"""The structure walker: arrays inside any Python structure, with their paths.

Arguments and results may be tuples, lists, dicts, namedtuples, dataclasses and
plain objects (through `__dict__`/`__slots__`), nested without registration.
Arrays are leaves; Python and NumPy scalars, strings, None, types and
callables are static. One object reached by two paths is one leaf.
"""

from __future__ import annotations

import copy
import functools
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from solvent.core.aval import Aval
from solvent.core.traced import TracedArray
from solvent.errors import RANDOM, SignatureError, UnsupportedError

#: Leaf array types; the runtime adds `solvent.Array` (it lives above core/).
ARRAY_TYPES: list[type] = [np.ndarray, TracedArray]
#: Leaf types that carry their own call key (`solvent.Array`: its sharding too); the runtime adds them.
KEYED_TYPES: list[type] = []
#: Leaf types whose state is an array (numpy.random adds np.random.Generator): type -> its `Stateful`.
STATEFUL: dict[type, "Stateful"] = {}

_STATIC_TYPES = (type(None), bool, int, float, complex, str, bytes, np.generic, np.dtype, type,
                 types.FunctionType, types.BuiltinFunctionType, types.MethodType, types.ModuleType,
                 functools.partial, np.ufunc, range, slice, type(Ellipsis))

ITEM, ATTR = "item", "attr"


class Step(NamedTuple):
    """One step into a container: (ITEM, key) for an item, (ATTR, name) for an attribute."""

    kind: str
    key: object

    def child(self, container):
        return getattr(container, self.key) if self.kind == ATTR else container[self.key]

    def source(self, constant: Callable[[object], str]) -> str:
        """Python source of the step after an expression (`constant(key)` names other keys)."""
        if self.kind == ATTR:
            return f".{self.key}" if self.key.isidentifier() else f".__dict__[{self.key!r}]"
        if isinstance(self.key, (int, str)) and not isinstance(self.key, bool):
            return f"[{self.key!r}]"
        return f"[{constant(self.key)}]"


#: The step that stands for all of a list's items at once (a list whose length the program changed).
ALL = Step("all", None)


class Path(tuple):
    """Steps from the root of a walk to an object. From a call's (args, kwargs, IMPLICIT), the
    first step picks the part (`part`) and the second the argument (`argument`)."""

    __slots__ = ()

    def __add__(self, steps) -> "Path":
        return Path(tuple.__add__(self, steps))

    def __getitem__(self, index):
        got = tuple.__getitem__(self, index)
        return Path(got) if isinstance(index, slice) else got

    def __repr__(self) -> str:
        return f"Path{tuple.__repr__(self)}"

    def __reduce__(self):
        return Path, (tuple(self),)

    @property
    def part(self) -> int:
        """0 for a positional argument, 1 for a keyword argument, 2 for an implicit input."""
        return self[0].key

    @property
    def argument(self):
        """The position or keyword of the argument the path goes into (None for the part itself)."""
        return self[1].key if len(self) > 1 else None

    def reach(self, root):
        """The object at this path from `root`."""
        for step in self:
            root = step.child(root)
        return root

    def expression(self, root: str, constant: Callable[[object], str]) -> str:
        """Python source reaching this path from the variable `root` (for generated thunks)."""
        return root + "".join(step.source(constant) for step in self)


_GENERATORS = (np.random.RandomState, np.random.BitGenerator)


class Stateful:
    """How an object holding state (a random generator) is an argument: a leaf whose state is an
    array, an input of the program and, when the program changes it, an in-place effect."""

    def key(self, x) -> tuple:
        """Its part of the call key (UnsupportedError for an object that cannot be compiled)."""
        raise NotImplementedError

    def read(self, x) -> np.ndarray:
        """Its state, at call time."""
        raise NotImplementedError

    def write(self, x, state) -> None:
        """Give it the state the program left (a host or device array)."""
        raise NotImplementedError

    def stand_in(self, state):
        """What the traced function sees in its place, given the traced state."""
        raise NotImplementedError


def is_array(x) -> bool:
    """Whether `x` is a leaf: an array, or an object whose state is one (`STATEFUL`)."""
    return isinstance(x, tuple(ARRAY_TYPES)) or type(x) in STATEFUL


def children(x) -> list[tuple[Step, object]] | None:
    """The (step, child) pairs of a container, or None for a leaf or static."""
    if isinstance(x, _STATIC_TYPES) or is_array(x):
        return None
    if isinstance(x, _GENERATORS):
        raise UnsupportedError(f"a {type(x).__name__} argument: {RANDOM}")
    if isinstance(x, (tuple, list)):
        return [(Step(ITEM, i), v) for i, v in enumerate(x)]
    if isinstance(x, dict):
        return [(Step(ITEM, k), v) for k, v in x.items()]
    fields = _attributes(x)
    if fields is None:
        return None
    return [(Step(ATTR, name), getattr(x, name)) for name in fields]


def _attributes(x) -> list[str] | None:
    refuse = getattr(type(x), "__solvent_refuse__", None)
    if refuse is not None:  # a stand-in that must not be used (transforms.source.unbound.Unbound)
        refuse(x)
    names = list(getattr(x, "__dict__", {}) or ())
    for klass in type(x).__mro__:
        slots = klass.__dict__.get("__slots__", ())
        names += [s for s in ([slots] if isinstance(slots, str) else slots)
                  if s not in ("__dict__", "__weakref__") and hasattr(x, s)]
    if not names and not hasattr(x, "__dict__") and not hasattr(type(x), "__slots__"):
        return None
    return names


def bound_to_container(x) -> bool:
    """Whether `x` is a method bound to an object that is itself walked (`self.step = self.advance`):
    walked with the object, so it keys by its function and calls the traced copy."""
    return isinstance(x, types.MethodType) and children(x.__self__) is not None


def static_key(x):
    """A hashable stand-in for a static value: the value itself; a NumPy array, list or dict by what
    it holds (a static argument is a constant of the program: another value is another program);
    another unhashable object by its identity (held, so that no other object takes its id)."""
    if isinstance(x, slice):  # unhashable before Python 3.12
        return (slice, static_key(x.start), static_key(x.stop), static_key(x.step))
    if type(x) is np.ndarray:
        return (np.ndarray, x.shape, x.dtype.str, x.tobytes())
    if isinstance(x, TracedArray):  # (a traced slice bound in a helper's arguments: that value)
        return ("traced", _Held(x))
    if is_array(x):
        raise SignatureError(f"a {type(x).__name__} as a static argument: a static argument is a constant of "
                             "the program; pass the array as an ordinary argument")
    if type(x) in (list, tuple):
        return (type(x), *(static_key(v) for v in x))
    if type(x) is dict:
        return (dict, *((static_key(k), static_key(v)) for k, v in x.items()))
    try:
        hash(x)
    except TypeError:
        return ("id", _Held(x))
    if isinstance(x, (float, complex, np.inexact)) and (x != x or x == 0):  # (-0.0 == 0.0, NaN != NaN)
        return (type(x), np.asarray(x).tobytes())
    return (type(x), x)


class _Held:
    """An unhashable static object as a key: equal to itself only, and kept alive with the key."""

    def __init__(self, x):
        self.x = x

    def __eq__(self, other):
        return isinstance(other, _Held) and other.x is self.x

    def __hash__(self):
        return id(self.x)


def leaf_key(x, layouts: bool = False) -> tuple:
    """An array's key: type, shape and dtype; a traced array's layout (see `numpy.layout`); an
    ndarray's strides too with `layouts` (for a function whose programs depend on them)."""
    if type(x) in STATEFUL:
        return STATEFUL[type(x)].key(x)
    if KEYED_TYPES and isinstance(x, tuple(KEYED_TYPES)):
        return x.key
    aval = getattr(x, "aval", None)
    if isinstance(aval, Aval):
        return (type(x), aval, getattr(x, "memory", None))
    return (type(x), Aval.of(x), x.strides) if layouts and isinstance(x, np.ndarray) else (type(x), Aval.of(x))


def signature_key(tree, layouts: bool = False) -> tuple:
    """The cache key of a structure: types, array shapes and dtypes, static values, aliasing
    (one object reached twice, and ndarrays sharing memory: see `shared_memory`); with `layouts`
    the strides of ndarrays."""
    seen: dict[int, int] = {}
    arrays: list = []

    def walk(x):
        if id(x) in seen:
            return ("ref", seen[id(x)])
        if is_array(x):
            seen[id(x)] = len(seen)
            arrays.append(x)
            return leaf_key(x, layouts)
        kids = children(x)
        if kids is None:
            return ("method", x.__func__, walk(x.__self__)) if bound_to_container(x) else static_key(x)
        seen[id(x)] = len(seen)
        return (type(x), tuple((step[1], walk(v)) for step, v in kids))

    key = walk(tree)
    shared = shared_memory(arrays)
    return key if not shared else (key, ("shared memory", tuple(sorted(shared.items()))))


@dataclass(frozen=True)
class Shared:
    """An ndarray argument sharing memory with another: its place in the array that owns the memory
    (element offset and strides), that owner's shape, the attributes leading to it (`memory_owner`),
    and why writes through it raise ("read-only", "overlapping": its own elements do) or ""."""

    group: int
    offset: int
    strides: tuple
    owner: tuple
    steps: tuple
    refusal: str


class HostBuffer:
    """What a result array too large to copy out views: XLA's CPU buffer, kept alive under the one
    NumPy array made over it (`runtime.host_views`), which therefore owns that memory here."""

    __slots__ = ("__array_interface__", "buffer")


def owns_memory(x: np.ndarray) -> bool:
    """Whether no other ndarray views `x`'s memory but through `x`: its own, or a viewed result's."""
    return x.base is None or type(x.base) is HostBuffer


def memory_owner(x: np.ndarray):
    """(the object whose memory `x` views, the attributes leading to it: `.base` through views and the
    stand-in as_strided makes an array of, `.obj` through a memoryview)."""
    owner, steps = x, ()
    while True:
        if isinstance(owner, np.ndarray):
            step = None if owns_memory(owner) else "base"
        else:
            step = "obj" if isinstance(owner, memoryview) else (
                "base" if isinstance(getattr(owner, "base", None), np.ndarray) else None)
        if step is None:
            return owner, steps
        owner, steps = getattr(owner, step), steps + (step,)


def overlaps_itself(x: np.ndarray) -> bool:
    """Whether two of `x`'s elements may be one in memory (a zero stride, as_strided's windows): its
    strides by size, each past the extent of the smaller ones, is the sufficient test of none."""
    extent = x.itemsize
    for stride, n in sorted((abs(s), n) for s, n in zip(x.strides, x.shape) if n > 1):
        if stride < extent:
            return True
        extent += stride * (n - 1)
    return False


def written_alone(x: np.ndarray) -> bool:
    """A writable argument whose own elements overlap: a view of its owner, as one sharing memory."""
    return x.flags.writeable and not owns_memory(x) and overlaps_itself(x)


def shared_memory(leaves) -> dict[int, Shared]:
    """For the ndarrays among `leaves` (by position) that share memory with another, or whose own
    elements overlap and may be written: where each sits in the owner. Empty when none do (the common
    case costs one `.base` per array)."""
    arrays = [(i, x) for i, x in enumerate(leaves) if isinstance(x, np.ndarray)]
    if len(arrays) < 2 and not (arrays and written_alone(arrays[0][1])):
        return {}
    owned = {i: memory_owner(x) for i, x in arrays if not owns_memory(x)}
    bases = {id(owner) for owner, _ in owned.values()}
    owners: dict[int, list[int]] = {}
    for i, x in arrays:
        if i in owned or id(x) in bases:
            owners.setdefault(id(owned[i][0] if i in owned else x), []).append(i)
    groups = [m for m in owners.values() if len(m) > 1 or written_alone(leaves[m[0]])]
    _refuse_foreign_overlaps(leaves, owned, {i for m in groups for i in m}, [i for i, _ in arrays])
    found = {}
    for group, members in enumerate(groups):
        owner = owned[members[0]][0] if members[0] in owned else leaves[members[0]]
        if not (isinstance(owner, np.ndarray) and owner.flags.c_contiguous and owner.dtype.isnative):
            raise UnsupportedError(
                "arguments sharing memory (or one whose elements overlap, as as_strided's may) in memory that is "
                + ("not a NumPy array's (np.frombuffer, a foreign buffer)" if not isinstance(owner, np.ndarray) else
                   "not in the machine's byte order" if not owner.dtype.isnative else "not C-ordered (a Fortran-"
                   "ordered or strided array's)") + "; pass copies (x.copy())")
        start, unit = owner.__array_interface__["data"][0], owner.dtype.itemsize
        for i in members:
            x = leaves[i]
            delta = x.__array_interface__["data"][0] - start
            if x.dtype != owner.dtype:
                raise UnsupportedError("arguments sharing memory as different dtypes (x.view(...)); pass copies")
            if delta % unit or any(s % unit for s in x.strides):
                raise UnsupportedError("an argument sharing memory at an offset or strides that are not whole "
                                       "elements of the array owning it; pass copies")
            refusal = "read-only" if not x.flags.writeable else "overlapping" if overlaps_itself(x) else ""
            found[i] = Shared(group, delta // unit, tuple(s // unit for s in x.strides), tuple(owner.shape),
                              owned[i][1] if i in owned else (), refusal)
    return found


def _refuse_foreign_overlaps(leaves, owned, grouped, arrays) -> None:
    """An array over memory no ndarray owns (an __array_interface__ object's) that another argument
    shares: the owners do not tell, so their addresses do."""
    for i, (owner, _) in owned.items():
        if not isinstance(owner, np.ndarray) and i not in grouped:
            if any(j != i and np.may_share_memory(leaves[i], leaves[j]) for j in arrays):
                raise UnsupportedError("arguments sharing memory through an object that is not a NumPy array "
                                       "(np.frombuffer, __array_interface__); pass copies (x.copy())")


@dataclass
class Copied:
    """A traced copy of a structure: leaves replaced, containers copied, originals remembered."""

    tree: object
    leaves: list = field(default_factory=list)        # distinct original arrays, first-seen order
    paths: list = field(default_factory=list)         # first path to each leaf
    tracers: list = field(default_factory=list)       # tracer standing for each leaf
    originals: dict = field(default_factory=dict)     # id(copy) -> original object (containers and tracers)
    snapshot: dict = field(default_factory=dict)      # id(copy) -> [(step, child)] at copy time
    container_paths: dict = field(default_factory=dict)  # id(copy) -> path of the original container
    keep: list = field(default_factory=list)          # keeps copies alive so ids stay unique


def copy_structure(tree, make_tracer: Callable) -> Copied:
    """Copy `tree`, replacing each distinct array by `make_tracer(array, index)`."""
    out = Copied(tree=None)
    memo: dict[int, object] = {}

    def walk(x, path):
        if id(x) in memo:
            return memo[id(x)]
        if is_array(x):
            tracer = make_tracer(x, len(out.leaves))
            out.leaves.append(x)
            out.paths.append(path)
            out.tracers.append(tracer)
            out.originals[id(tracer)] = x
            memo[id(x)] = tracer
            return tracer
        kids = children(x)
        if kids is None:
            if bound_to_container(x):
                return types.MethodType(x.__func__, walk(x.__self__, path + (Step(ATTR, "__self__"),)))
            return x
        if isinstance(x, (tuple, list, dict)) and type(x) in (tuple, list, dict):
            new = type(x)() if not isinstance(x, tuple) else None
        else:
            new = copy.copy(x)
        if new is not None:
            memo[id(x)] = new
        copied = [(step, walk(v, path + (step,))) for step, v in kids]
        if new is None or isinstance(x, tuple):
            new = _rebuild(x, [v for _, v in copied])
            memo[id(x)] = new
        else:
            for step, v in copied:
                set_child(new, step, v)
        out.originals[id(new)] = x
        out.snapshot[id(new)] = copied
        out.container_paths[id(new)] = path
        out.keep.append(new)
        return new

    out.tree = walk(tree, Path())
    return out


def _rebuild(x, values):
    if type(x) is tuple:
        return tuple(values)
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return type(x)(*values)
    if isinstance(x, tuple):
        return type(x)(values)
    return values


def flatten(tree, is_leaf=is_array) -> list:
    """Every leaf of `tree` by position (an object reached twice is listed twice), depth first."""
    if is_leaf(tree):
        return [tree]
    kids = children(tree)
    return [] if kids is None else [leaf for _, child in kids for leaf in flatten(child, is_leaf)]


def unflatten(tree, leaves, is_leaf=is_array):
    """A copy of `tree` with its leaves, by position, replaced from `leaves` (see `flatten`)."""
    items = iter(leaves)

    def walk(x):
        if is_leaf(x):
            return next(items)
        kids = children(x)
        if kids is None:
            return x
        values = [walk(child) for _, child in kids]
        if isinstance(x, (tuple, list, dict)) and type(x) in (tuple, list, dict):
            return dict(zip((step[1] for step, _ in kids), values)) if type(x) is dict else type(x)(values)
        if isinstance(x, tuple):
            return _rebuild(x, values)
        new = copy.copy(x)
        for (step, _), v in zip(kids, values):
            set_child(new, step, v)
        return new

    return walk(tree)


def set_child(container, step: Step, value) -> None:
    """`container`'s child at `step` becomes `value` (for ALL, a list's items become `value`'s)."""
    kind, key = step
    if step == ALL:
        container[:] = value
    elif kind == ATTR:
        object.__setattr__(container, key, value) if _frozen(container) else setattr(container, key, value)
    elif isinstance(container, list) and key == len(container):
        container.append(value)
    else:
        container[key] = value


def delete_child(container, step: Step) -> None:
    """Remove `container`'s child at `step` (an attribute, or a dict's key)."""
    if step.kind == ATTR:
        object.__delattr__(container, step.key)
    else:
        del container[step.key]


def _frozen(x) -> bool:
    params = getattr(type(x), "__dataclass_params__", None)
    return bool(params is not None and params.frozen)
