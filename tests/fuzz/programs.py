"""Random small NumPy programs, run with NumPy and with solvent.jit on the same inputs.

A program is drawn choice by choice from hypothesis (so a failure shrinks to a small one):
arguments of one shape and mixed dtypes, temporaries and views of them (basic slices, transposes,
reshapes and ravels, which view or copy as NumPy's layout decides),
elementwise ufuncs, reductions, comparisons and `np.where`, reads and writes through basic,
fancy and boolean indices, in-place operators, swaps, data-dependent `if`/`while` and static
`for` loops (short ones unroll, long ones roll) around all of that, and Python numbers carried
through them. Each program is compiled
once and run on many random inputs; every case compares results (values, dtypes, shapes, scalar
or array), the arguments afterwards, and which returned objects are the arguments themselves.
"""

from __future__ import annotations

import copy
import importlib.util
import itertools
import math
import os
import tempfile
import warnings
from collections import Counter
from dataclasses import dataclass, field

import numpy as np
from hypothesis import strategies as st

import solvent

DTYPES = ["float64", "float32", "int64", "int32", "bool"]
SHAPES = [(), (4,), (3, 4)]
ROLLED, UNROLLED = 20, 3  # trip counts above and below solvent's unroll threshold (16)
#: Python numbers every program starts with (`c, d = 0, 0.5`): an int and a float that loops and
#: branches carry, Python numbers still where NumPy's promotion reads them (NEP 50).
NUMBERS = ["c", "d"]


#: Views of 1-d and 2-d arrays beside basic slices; reshape and ravel give a view or a copy as
#: the layout decides in NumPy (writes through them reach the array or not).
_VIEWS_1D = [".reshape(2, -1)", "[::2].ravel()", "[::-1].reshape(2, 2)", ".ravel()"]
_VIEWS_2D = ["[:, 1:]", "[1, :]", ".T", ".T[::2]", ".ravel()", ".T.ravel()", ".reshape(2, -1)", ".T.reshape(-1)",
             "[:, ::2].reshape(-1)", "[1:].reshape(-1)", ".T[:, 1:].reshape(2, -1)"]


@dataclass
class Program:
    """The source of `program(a0, ...)` and what its arguments are."""

    source: str
    dtypes: list
    shape: tuple

    def __str__(self) -> str:
        args = ", ".join(f"a{k}: {d}{list(self.shape)}" for k, d in enumerate(self.dtypes))
        return f"# arguments {args}\n{self.source}"


class _Writer:
    """Draws statements into indented source lines, tracking the names in scope."""

    def __init__(self, data, shape, arguments):
        self.data, self.shape = data, shape
        self.lines: list[str] = []
        self.arrays = list(arguments)      # names holding arrays of `shape`
        self.views: list[tuple[str, str]] = []  # (name, key) views of an array (or copies: reshape, ravel)
        self.indices: list[str] = []        # loop indices in scope
        self.temps = itertools.count()

    def draw(self, strategy):
        return self.data.draw(strategy)

    def pick(self, options):
        return self.draw(st.sampled_from(options))

    def emit(self, depth, text):
        self.lines.append("    " * depth + text)

    # -- expressions --------------------------------------------------------------------------

    def scalar(self) -> str:
        choices = ["literal", "reduction"] + (["index"] if self.indices else [])
        kind = self.pick(choices + ["number", "number"])
        if kind == "number":
            return self.pick(NUMBERS)
        if kind == "literal":
            return self.pick(["0", "1", "2", "-1", "0.5", "-2.5", "True"])
        if kind == "index":
            return self.pick(self.indices)
        name = self.pick(self.arrays)
        return self.pick([f"np.sum({name})", f"{name}.max()", f"np.mean({name})", f"np.min({name})",
                          f"np.median({name})", f"np.percentile({name}, 30)"])

    def expression(self, depth=0) -> str:
        kinds = ["name", "name", "binary", "scalar_binary", "unary", "where", "cast"] if depth < 2 else ["name"]
        kind = self.pick(kinds)
        if kind == "name":
            return self.pick(self.arrays)
        if kind == "binary":
            op = self.pick(["+", "-", "*", "/"])
            return f"({self.expression(depth + 1)} {op} {self.expression(depth + 1)})"
        if kind == "scalar_binary":
            op = self.pick(["+", "-", "*"])
            return f"({self.expression(depth + 1)} {op} {self.scalar()})"
        if kind == "unary":
            fn = self.pick(["np.abs", "np.negative", "np.sin", "np.square", "np.maximum(0, {})", "np.invert"])
            inner = self.expression(depth + 1)
            return fn.format(inner) if "{}" in fn else f"{fn}({inner})"
        if kind == "cast":
            return f"{self.expression(depth + 1)}.astype(np.{self.pick(DTYPES)})"
        chosen = [self.expression(depth + 1) for _ in range(2)]
        return f"np.where({self.condition_array(depth + 1)}, {chosen[0]}, {chosen[1]})"

    def condition_array(self, depth) -> str:
        return f"({self.expression(depth)} {self.pick(['>', '<', '==', '!='])} {self.scalar()})"

    def condition(self) -> str:
        name = self.expression(1)
        return self.pick([f"np.sum({name}) > {self.scalar()}", f"np.all({name} != 0)",
                          f"np.any({name} > 1)", f"{name}.max() < {self.scalar()}"])

    def key(self) -> str:
        if not self.shape:
            return self.pick(["...", "()"])
        one = ["0", "-1", "1:3", "::2", "[0, 2]", "[1, 1]"] + [f"{i} % {self.shape[0]}" for i in self.indices]
        if len(self.shape) == 1:
            return self.pick(one)
        return self.pick(one + ["0, 1", ":, 1", "1:, ::2", "[0, 2], 1", "..., -1"])

    # -- statements -----------------------------------------------------------------------------

    def block(self, depth, size):
        for _ in range(size):
            self.statement(depth)

    def statement(self, depth):
        kinds = ["assign", "inplace", "inplace", "setitem", "setitem", "mask", "view", "swap", "count", "count"]
        if depth < 3:
            kinds += ["if", "for", "while"]
        kind = self.pick(kinds)
        getattr(self, f"_{kind}")(depth)

    def _assign(self, depth):
        target = self.pick(self.arrays + [f"t{next(self.temps)}"])
        self.emit(depth, f"{target} = {self.expression()}")
        if target not in self.arrays:
            self.arrays.append(target)

    def _inplace(self, depth):
        views = [v for v, _ in self.views]
        target = self.pick(self.arrays + views)
        value = self.scalar() if target in views else self.pick([self.scalar(), self.expression()])
        self.emit(depth, f"{target} {self.pick(['+=', '-=', '*='])} {value}")

    def _setitem(self, depth):
        target, key = self.pick(self.arrays), self.key()
        value = self.pick([self.scalar(), f"{self.expression()}[{key}]"])
        self.emit(depth, f"{target}[{key}] {self.pick(['=', '+=', '*='])} {value}")

    def _mask(self, depth):
        target = self.pick(self.arrays)
        self.emit(depth, f"{target}[{self.condition_array(1)}] {self.pick(['=', '+=', '-='])} {self.scalar()}")

    def _view(self, depth):
        if not self.shape:
            return self._assign(depth)
        name = f"v{len(self.views)}"
        key = self.pick(["[1:]", "[::2]", "[:-1]", "[::-1]"] + (_VIEWS_2D if len(self.shape) > 1 else _VIEWS_1D))
        self.emit(depth, f"{name} = {self.pick(self.arrays)}{key}")
        self.views.append((name, key))

    def _count(self, depth):
        """A Python int or float carried through the loops and branches around it (stays one)."""
        if self.draw(st.booleans()):
            self.emit(depth, f"c = c + {self.pick(['1', '-2'] + self.indices)}")
        else:
            self.emit(depth, f"d = d * {self.pick(['0.5', '-1.5'])} + {self.pick(['1', '0.25', 'c'])}")

    def _swap(self, depth):
        first, second = self.pick(self.arrays), self.pick(self.arrays)
        self.emit(depth, f"{first}, {second} = {second}, {first}")

    def _if(self, depth):
        self.emit(depth, f"if {self.condition()}:")
        self._scoped(depth + 1)
        if self.draw(st.booleans()):
            self.emit(depth, "else:")
            self._scoped(depth + 1)

    def _for(self, depth):
        index = f"i{len(self.indices)}"
        self.emit(depth, f"for {index} in range({self.pick([UNROLLED, ROLLED])}):")
        self.indices.append(index)
        self._scoped(depth + 1)
        self.indices.pop()

    def _while(self, depth):
        counter = f"k{depth}"
        self.emit(depth, f"{counter} = 0")
        self.emit(depth, f"while {self.condition()} and {counter} < {self.pick([2, 5])}:")
        self._scoped(depth + 1)
        self.emit(depth + 1, f"{counter} += 1")

    def _scoped(self, depth):
        """A nested block: names first bound inside stay inside (NumPy would leave them unbound
        on the other path; solvent refuses that, and that is not what this fuzz looks for)."""
        arrays, views = list(self.arrays), list(self.views)
        self.block(depth, self.draw(st.integers(1, 3)))
        self.arrays, self.views = arrays, views


@st.composite
def programs(draw) -> Program:
    """A random program over 1 to 3 arguments of one shape."""
    data = draw(st.data())
    shape = draw(st.sampled_from(SHAPES))
    dtypes = draw(st.lists(st.sampled_from(DTYPES), min_size=1, max_size=3))
    arguments = [f"a{k}" for k in range(len(dtypes))]
    writer = _Writer(data, shape, arguments)
    writer.block(1, draw(st.integers(1, 6)))
    returned = draw(st.lists(st.sampled_from(writer.arrays + [v for v, _ in writer.views] + ["s"]),
                             min_size=1, max_size=3))
    body = [f"def program({', '.join(arguments)}):", "    c, d = 0, 0.5", *writer.lines]
    if "s" in returned:
        body.append(f"    s = {writer.scalar()}")
    body.append(f"    return {', '.join(returned)},")
    return Program("\n".join(body) + "\n", dtypes, shape)


# -- running and comparing ------------------------------------------------------------------------

@dataclass
class Stats:
    """What a fuzz run saw."""

    programs: int = 0
    invalid: int = 0            # NumPy itself raises on the first input
    refused: Counter = field(default_factory=Counter)  # solvent errors, by first line
    cases: int = 0              # compared input sets
    unstable: int = 0           # skipped: floats past LARGE or subnormal, a tie one rounding decides, a C cast

    def __str__(self) -> str:
        top = "; ".join(f"{n}x {m}" for m, n in self.refused.most_common(5))
        return (f"{self.cases} cases compared in {self.programs} programs ({self.invalid} invalid in NumPy, "
                f"{self.unstable} cases unstable (overflow, subnormals, ties, C casts), {sum(self.refused.values())} refused by solvent"
                f"{': ' + top if top else ''})")


class Mismatch(AssertionError):
    pass


_DIRECTORY = tempfile.mkdtemp(prefix="solvent-fuzz-")
_files = itertools.count()


#: Floats past this, anywhere along the way, make a case unstable: where such values meet in a
#: float sum or a difference, the order of summation (XLA's is not NumPy's) decides the result.
LARGE = 1e12
#: What the names held in the latest NumPy run: the largest finite float, whether any float was
#: subnormal (XLA's CPU code flushes those to zero, as README says; such cases are excluded), and
#: whether a signed integer held a value whose square overflows (XLA's code generator assumes signed
#: products do not wrap: `np.abs(a * a)` is `a * a` there, as README says).
_SEEN = {"largest": 0.0, "subnormal": False, "wrapping": False}


def _note(names: dict) -> None:
    for v in names.values():
        v = np.asarray(v) if isinstance(v, (np.ndarray, np.generic)) else None
        if v is not None and v.dtype.kind == "i" and v.size:
            _SEEN["wrapping"] |= bool(np.abs(v.astype(np.float64)).max() ** 2 > np.iinfo(v.dtype).max)
        if v is not None and v.dtype.kind == "f" and v.size:
            finite = np.abs(v[np.isfinite(v)])
            _SEEN["largest"] = max(_SEEN["largest"], float(finite.max(initial=0.0)))
            _SEEN["subnormal"] |= bool(((finite > 0) & (finite < np.finfo(v.dtype).tiny)).any())


def _noting(source: str) -> str:
    """`source` with `_note(locals())` after each simple statement, for NumPy's run."""
    lines = []
    for line in source.splitlines():
        lines.append(line)
        if line.strip() and not line.endswith(":") and not line.lstrip().startswith(("def ", "return ")):
            lines.append(line[:len(line) - len(line.lstrip())] + "_note(locals())")
    return "\n".join(lines) + "\n"


class _Rounded:
    """NumPy with its whole-array float sums and means rounded as XLA may round them: a sum rounded
    once (math.fsum, for another summation order), or a mean as the sum times 1/n (XLA's rewrite
    of a division by a scalar). A case whose result changes with either decides on one rounding."""

    def __init__(self, reciprocal: bool):
        self.reciprocal = reciprocal

    def __getattr__(self, name):
        return getattr(np, name)

    def sum(self, x, *args, **kwargs):
        result = np.sum(x, *args, **kwargs)
        x = np.asarray(x)
        if self.reciprocal or args or kwargs or x.dtype.kind != "f":
            return result
        return result.dtype.type(math.fsum(x.ravel().astype(np.float64)))

    def mean(self, x, *args, **kwargs):
        result = np.mean(x, *args, **kwargs)
        x = np.asarray(x)
        if args or kwargs or x.dtype.kind not in "fiub" or not x.size:
            return result
        if self.reciprocal:
            return result.dtype.type(np.sum(x, dtype=result.dtype) * result.dtype.type(1 / x.size))
        return result.dtype.type(math.fsum(x.ravel().astype(np.float64)) / x.size)


def load(program: Program, noting: bool = False, numpy=None):
    """The program's function, from a real file (solvent rewrites a function from its source);
    `noting`: the NumPy version that notes how large its values grow; `numpy`: a stand-in for
    the `np` it calls (`_Rounded`)."""
    path = os.path.join(_DIRECTORY, f"program_{os.getpid()}_{next(_files)}.py")
    with open(path, "w") as f:
        f.write("import numpy as np\n\n\n" + (_noting(program.source) if noting else program.source))
    spec = importlib.util.spec_from_file_location(os.path.basename(path)[:-3], path)
    module = importlib.util.module_from_spec(spec)
    module._note = _note
    spec.loader.exec_module(module)
    if numpy is not None:
        module.np = numpy
    return module.program


def inputs(program: Program, rng: np.random.Generator) -> tuple:
    out = []
    for dtype in program.dtypes:
        if dtype == "bool":
            out.append(rng.random(program.shape) < 0.5)
        elif dtype.startswith("int"):
            out.append(rng.integers(-4, 5, program.shape).astype(dtype))
        else:
            out.append((rng.random(program.shape) * 6 - 3).astype(dtype))  # no ties: sums round differently
    return tuple(np.asarray(x) for x in out)


class Undefined(Exception):
    """NumPy's result is the C cast's (a NaN or an out-of-range float cast to an integer)."""


def _run_numpy(fn, args):
    with np.errstate(all="warn"), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fn(*args)
    if any("encountered in cast" in str(w.message) for w in caught):
        raise Undefined()
    return result


def check(program: Program, stats: Stats, cases: int = 40, seed: int = 0) -> None:
    """Compile `program` once and compare it with NumPy on `cases` random inputs."""
    fn, numpy_fn = load(program), load(program, noting=True)
    rounded = [load(program, numpy=_Rounded(reciprocal)) for reciprocal in (False, True)]
    rng = np.random.default_rng(seed)
    stats.programs += 1
    jitted = solvent.jit(fn)
    for case in range(cases):
        args = inputs(program, rng)
        numpy_args, solvent_args = copy.deepcopy(args), copy.deepcopy(args)
        try:
            _SEEN.update(largest=0.0, subnormal=False, wrapping=False)
            expected = _run_numpy(numpy_fn, numpy_args)
        except Undefined:
            stats.unstable += 1
            continue
        except Exception:
            if case == 0:
                stats.invalid += 1
                return
            continue
        single = "float32" in program.dtypes or ".float32" in program.source  # then sums round at 1e-7
        rtol = 1e-4 if single else 1e-9
        unstable = _overflowing(expected) or _overflowing(numpy_args) or _SEEN["largest"] > LARGE or _SEEN["wrapping"]
        if unstable or _SEEN["subnormal"] or _rounding_decides(fn, rounded, args, expected, numpy_args, rtol):
            stats.unstable += 1
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                actual = jitted(*solvent_args)
        except solvent.SolventError as error:
            stats.refused[str(error).splitlines()[0][:120]] += 1
            return
        except Exception as error:
            raise Mismatch(f"raw {type(error).__name__} from solvent: {error}\n{program}\ninputs {args}") from error
        problem = compare(expected, actual, numpy_args, solvent_args, rtol)
        if problem:
            raise Mismatch(f"{problem}\n{program}\ninputs {args}")
        stats.cases += 1


def _rounding_decides(numpy_fn, rounded, args, expected, numpy_args, rtol) -> bool:
    """Whether the case sits on a tie that one rounding decides (a sum that is 0 exactly, such as
    `np.sum(a - np.mean(a))`, compared with 0): NumPy's result changes when its sums and means
    round as XLA may round them, or when the float inputs move by a few roundings at random."""
    rng = np.random.default_rng(0)
    runs = [(fn, copy.deepcopy(args)) for fn in rounded]
    for _ in range(NUDGES):
        runs.append((numpy_fn, tuple(np.asarray(x * (1 + 4 * np.finfo(x.dtype).eps * rng.standard_normal(x.shape)),
                                                dtype=x.dtype) if x.dtype.kind == "f" else x.copy() for x in args)))
    for fn, run_args in runs:
        try:
            again = _run_numpy(fn, run_args)
        except Exception:
            return True
        if compare(expected, again, numpy_args, run_args, rtol) is not None:
            return True
    return False


#: Random nudges of the inputs per case (a tie's side is noise: each nudge finds it with odds 1/2).
NUDGES = 10


def _overflowing(values) -> bool:
    """Floats grown past LARGE or to infinity, or integers past 2**53 (wrapped around, say): where
    such values meet in a float sum, summation order decides the result."""
    for v in values:
        v = np.asarray(v)
        if v.dtype.kind == "f" and v.size and not (np.abs(v[~np.isnan(v)].astype(np.float64)) < LARGE).all():
            return True
        if v.dtype.kind in "iu" and v.size and np.abs(v.astype(np.float64)).max() > 2.0 ** 53:
            return True
    return False


def compare(expected, actual, numpy_args, solvent_args, rtol=1e-9) -> str | None:
    """What differs between NumPy's run and solvent's, or None."""
    if type(actual) is not type(expected) or len(actual) != len(expected):
        return f"result structure {type(actual).__name__} != NumPy's {type(expected).__name__}"
    for k, (e, a) in enumerate(zip(expected, actual)):
        wanted = [j for j, x in enumerate(numpy_args) if e is x]
        got = [j for j, x in enumerate(solvent_args) if a is x]
        if wanted != got:
            return f"result {k} is argument(s) {got}, NumPy's is argument(s) {wanted}"
        problem = _differs(a, e, rtol)
        if problem:
            return f"result {k}: {problem}"
    for j, (a, e) in enumerate(zip(solvent_args, numpy_args)):
        problem = _differs(a, e, rtol)
        if problem:
            return f"argument a{j} afterwards: {problem}"
    return None


def _differs(actual, expected, rtol) -> str | None:
    """Values, dtype and shape (a NumPy scalar and a 0-d array of it count as the same: after a loop
    that may not run, NumPy's name is one or the other by the trip count)."""
    a, e = np.asarray(actual), np.asarray(expected)
    if a.dtype != e.dtype or a.shape != e.shape:
        return f"{a.dtype}{list(a.shape)} where NumPy gives {e.dtype}{list(e.shape)}"
    if e.dtype.kind in "fc":
        scale = float(np.max(np.abs(e[np.isfinite(e)]), initial=1.0))
        if not np.allclose(a, e, rtol=rtol, atol=rtol * scale, equal_nan=True) or \
                not np.array_equal(np.isnan(a), np.isnan(e)) or not np.array_equal(np.isinf(a), np.isinf(e)):
            return f"values {a!r} where NumPy gives {e!r}"
    elif not np.array_equal(a, e):
        return f"values {a!r} where NumPy gives {e!r}"
    return None
