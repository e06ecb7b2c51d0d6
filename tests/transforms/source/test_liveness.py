"""Loop temporaries are not carried (solvent.transforms.source.liveness), and programs stay NumPy's."""

import ast
import inspect
import textwrap
import warnings

import numpy as np

import solvent
from differential import check_like_numpy
from solvent.transforms.source import liveness


def private(fn) -> list[set[str]]:
    """The private names of each loop of `fn`, in source order."""
    definition = ast.parse(textwrap.dedent(inspect.getsource(fn))).body[0]
    found = liveness.private_names(definition)
    loops = [n for n in ast.walk(definition) if isinstance(n, (ast.For, ast.While))]
    return [found.get(id(loop), set()) for loop in sorted(loops, key=lambda n: n.lineno)]


def temporaries(x):
    total, late = 0.0, 0.0
    for i in range(x.shape[0]):
        d = x[i] * 2          # set first, read nowhere else: private
        e = 1.0
        e = e + d             # set first too (the first mention is the plain assignment)
        total = total + e     # read before it is set: carried
        if d > 0:
            late = d          # read after the loop: carried
    return total, late


def read_after(x):
    for i in range(3):
        t = x[i]
    return t, i                # both read after the loop: carried


def nested(x):
    out = np.zeros(x.shape)
    for i in range(x.shape[0]):
        for j in range(x.shape[0]):
            d = x[i] - x[j]    # private to the inner loop
            out[i] += d * d
    return out


def closure(x):
    fs = []
    for i in range(3):
        c = x[i]
        fs.append(lambda: c)   # a nested scope reads it: carried
    return fs[0]()


def in_branches(x, out):
    for i in range(1, x.shape[0]):
        if x[i] > 0.5:
            out[i] = x[i]
        else:
            k = i - 1          # set in one branch before its use there, mentioned nowhere after: private
            out[k + 1] = -x[k]
        if x[i] > 0.2:
            m = x[i]
        else:
            m = 0.0            # set in both branches: private even though read after the `if`
        out[i] += m
        if x[i] > 0.9:
            late = x[i]        # set in one branch and read after the `if`: carried
        out[i] += late if i > 5 else 0.0
    return out


def rebound(a, b):
    for i in range(3):
        b = a                  # read after the loop by `b += 1.0` (an augmented assignment reads): carried
    b += 1.0
    return a


class Body:
    def __init__(self, p):
        self.p = p


def comprehension_names(bodies, x):
    for _ in range(3):
        center = sum(b.p for b in bodies) / len(bodies)  # its own `b`: not the loop's
        for b in bodies:
            b.p += 0.1 * (center - b.p) + x
    return [b.p for b in bodies], [lambda b=b: b for b in bodies]


def definitions(x):
    total = 0.0
    for i in range(x.shape[0]):
        def scaled(v):         # a def at the top of the body binds its name first: private
            return v * i
        total += scaled(x[i])
    for i in range(3):
        class Scale:           # so does a class
            k = 2.0
        total += Scale.k
    return total


def test_which_names_a_loop_keeps_to_itself():
    assert private(comprehension_names) == [{"_", "center"}, {"b"}]
    assert private(rebound) == [{"i"}]
    assert private(temporaries) == [{"i", "d", "e"}]
    assert private(in_branches) == [{"i", "k", "m"}]
    assert private(read_after) == [set()]
    assert private(nested) == [{"i"}, {"j", "d"}]
    assert private(closure) == [{"i"}]
    assert private(definitions) == [{"scaled"}, {"Scale"}]  # (`i`: a closure reads it)


def test_a_comprehension_naming_a_loop_variable_leaves_the_loop_rolled():
    """`[b.p for b in bodies]` after `for b in bodies:` in a time loop: the comprehension's `b` is its
    own, so the time loop need not carry `b` (which no step binds before the loop; it unrolled: a
    100-step flock of 10 boids took 103 s to compile, 0.3 s now)."""
    def flock(bodies, x):
        for _ in range(40):
            center = sum(b.p for b in bodies) / len(bodies)
            for b in bodies:
                b.p += 0.1 * (center - b.p) + x
        return [b.p for b in bodies]

    def bodies():
        return [Body(np.array([float(k), 1.0 - k])) for k in range(3)]

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "loop ... unrolled" warning
        check_like_numpy(flock, bodies(), np.array([0.01, 0.02]))
    assert "stablehlo.while" in solvent.code_hlo(flock, bodies(), np.array([0.01, 0.02]), optimize="none")


def test_a_temporary_set_in_one_branch_rolls_its_loop():
    """Before, the rolled loop carried `k`, which one path leaves unbound, and unrolled instead."""
    x = np.random.default_rng(0).random(40)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "loop ... unrolled" warning
        check_like_numpy(lambda x, out: in_branches_rolled(x, out), x, np.zeros(40))


def in_branches_rolled(x, out):
    for i in range(1, x.shape[0]):
        if x[i] > 0.5:
            out[i] = x[i]
        else:
            k = i - 1
            out[k + 1] = -x[k]
    return out


def test_a_function_defined_in_a_loop_body_rolls_its_loop():
    """A `def` in the body was carried like an array, unbound before the loop: the loop unrolled."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "loop ... unrolled" warning
        check_like_numpy(definitions, np.linspace(-1, 1, 40))


def test_programs_with_temporaries_stay_numpys():
    x = np.linspace(-1, 1, 40)
    check_like_numpy(temporaries, x)
    check_like_numpy(read_after, x)
    check_like_numpy(nested, x)
    check_like_numpy(rebound, np.zeros(3), np.ones(3))  # `b += 1.0` writes into `a` (found by make fuzz)


def table_fill(a, b):
    table = np.zeros((a.shape[0] + 1, b.shape[0] + 1))
    for i in range(1, a.shape[0] + 1):
        for j in range(1, b.shape[0] + 1):
            diagonal = table[i - 1, j - 1] + (1.0 if a[i - 1] == b[j - 1] else -1.0)
            table[i, j] = max(diagonal, table[i - 1, j] - 2.0, table[i, j - 1] - 2.0)
    return table


def test_a_temporary_read_from_the_table_is_not_carried():
    # Carried, `diagonal` made XLA copy the whole table every iteration (a 300x300 alignment ran in 3 s).
    a, b = np.arange(30) % 4, (np.arange(30) * 7) % 4
    check_like_numpy(table_fill, a, b)
    text = solvent.code_hlo(table_fill, a, b, optimize="none")
    inner = [line for line in text.splitlines() if "stablehlo.while" in line][-1]
    assert "f64>" not in inner.split(":", 1)[1].split("tensor<31x31xf64>")[0], inner
