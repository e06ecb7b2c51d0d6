"""Variables not bound on every path: `Undefined` where a statement starts before its first binding,
`Unbound` after a traced `if` that binds (or deletes) one on one path only; loops start the first as
zeros of the type their body gives it and leave the second out of their carry."""

from __future__ import annotations

import numpy as np

from solvent.core.traced import TracedScalar
from solvent.errors import UnsupportedError
from solvent.transforms import control_flow, regions


class Undefined:
    """Stands for a variable that is not bound yet where a statement starts."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"<undefined {self.name}>"


def load(getter, name):
    """The variable's current value, or `Undefined` where Python would raise NameError."""
    try:
        return getter()
    except NameError:
        return Undefined(name)


def bound(x):
    """`x`, a returned variable; where a loop of no steps left it unbound, Python's error."""
    if isinstance(x, Undefined):
        raise UnboundLocalError(f"cannot access local variable '{x.name}' where it is not associated with a value")
    return x


def check_defined(values, names, construct, where=None):
    for v, n in zip(values, names):
        if isinstance(v, Undefined):
            raise UnsupportedError(f"variable {n!r} is set in only one branch of the traced {construct}; "
                                   "give it a value before the statement or in every branch", location=where)


class Unbound:
    """A variable a traced `if` binds (or deletes) on one path only: Python would raise NameError
    on the other, so any use of it raises, naming the variable and the statement."""

    __slots__ = ("_name", "_where")

    def __init__(self, name, where):
        object.__setattr__(self, "_name", name)
        object.__setattr__(self, "_where", where)

    def __solvent_refuse__(self, *args, **kwargs):
        raise UnsupportedError(
            f"variable {self._name!r} is set in only one branch of the traced `if` at "
            f"{self._where[0]}:{self._where[1]} and used after it; give it a value before the statement "
            "or in every branch", location=None)

    __getattr__ = __setattr__ = __getitem__ = __setitem__ = __call__ = __iter__ = __len__ = __solvent_refuse__
    __bool__ = __int__ = __float__ = __index__ = __array__ = __array_ufunc__ = __array_function__ = \
        __solvent_refuse__


for _op in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or", "xor",
            "lshift", "rshift"):
    for _form in ("__{}__", "__r{}__", "__i{}__"):
        setattr(Unbound, _form.format(_op), Unbound.__solvent_refuse__)
for _op in ("lt", "le", "eq", "ne", "gt", "ge", "neg", "pos", "abs", "invert"):
    setattr(Unbound, f"__{_op}__", Unbound.__solvent_refuse__)


def fill_undefined(values, run_body):
    """Variables first set inside a rolled loop (or left unbound by a traced `if` before it) start as
    zeros of the type the body gives them, where it gives them one."""
    missing = [k for k, v in enumerate(values) if isinstance(v, (Undefined, Unbound))]
    if not missing:
        return values
    produced = control_flow.probe(lambda: run_body(values))
    filled = list(values)
    for k in missing:
        v = produced[k]
        if isinstance(v, Unbound):  # (one the body leaves unbound stays so: `without_unbound`)
            filled[k] = v
        if isinstance(v, (Undefined, Unbound)):
            continue
        if regions.is_weak(v):  # a Python number
            filled[k] = type(v)(0) if type(v) in (bool, int, float, complex) else v.dtype.type(0).item()
        elif isinstance(v, (np.generic, TracedScalar)):  # a NumPy scalar
            filled[k] = v.dtype.type(0)
        elif hasattr(v, "dtype"):
            filled[k] = np.zeros(v.shape, v.dtype)
    return tuple(filled)


def without_unbound(values, names, body_fn, index=False):
    """(values, names, body, restore) less the variables a traced `if` left unbound that the body leaves
    so (`for k ...: if x[k] < 0: break` then `i = k`): the loop does not carry them, and `restore`
    puts them back, unbound after the loop as before it (a later `i = 0` or `for i` binds it)."""
    gone = {k: v for k, v in enumerate(values) if isinstance(v, Unbound)}
    if not gone:
        return values, names, body_fn, tuple

    def restore(carried):
        rest = iter(carried)
        return tuple(gone[k] if k in gone else next(rest) for k in range(len(values)))

    def kept(result):
        for k in gone:
            if not isinstance(result[k], Unbound):  # (bound on every path after all: a probe said otherwise)
                gone[k].__solvent_refuse__()
        return tuple(v for k, v in enumerate(result) if k not in gone)

    def body(*args):
        head = args[:1] if index else ()
        return kept(tuple(body_fn(*head, *restore(args[len(head):]))))
    return kept(values), [n for k, n in enumerate(names) if k not in gone], body, restore
