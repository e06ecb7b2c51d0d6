"""The structure walker: paths, keys, identity and traced copies."""

import dataclasses
from collections import namedtuple

import numpy as np

from solvent.core import structure


@dataclasses.dataclass(frozen=True)
class Frozen:
    a: np.ndarray
    n: int


def test_signature_key_depends_on_shapes_dtypes_statics_and_aliasing():
    x, y = np.ones(3), np.ones(3)
    key = structure.signature_key
    assert key((x, 1.0)) == key((np.zeros(3), 1.0))
    assert key((x, 1.0)) != key((x, 2.0))
    assert key((x,)) != key((np.ones(3, np.float32),))
    assert key((x, y)) != key((x, x))
    assert key(({"a": x},)) != key(({"b": x},))
    assert key((slice(1, 2),)) == key((slice(1, 2),))


def test_copy_structure_replaces_each_distinct_array_once():
    x = np.ones(2)
    P = namedtuple("P", "u v")
    tree = ([x, x], {"p": P(x, 3)}, Frozen(np.zeros(1), 4))
    copied = structure.copy_structure(tree, lambda leaf, i: ("tracer", i))
    assert len(copied.leaves) == 2 and copied.leaves[0] is x
    lst, d, frozen = copied.tree
    assert lst == [("tracer", 0), ("tracer", 0)] and lst is not tree[0]
    assert type(d["p"]) is P and d["p"].v == 3
    assert type(frozen) is Frozen and frozen.a == ("tracer", 1) and frozen.n == 4
    assert copied.paths[1] == (("item", 2), ("attr", "a"))
    assert tree[2].a is not frozen.a, "the caller's objects are never modified"


class Model:
    def __init__(self, n):
        self.x = np.zeros(n)
        self.step = self.advance  # a bound method of itself, as a strategy pattern stores it

    def advance(self):
        return self.x


def test_a_method_bound_to_a_walked_object_keys_by_its_function_and_binds_to_the_copy():
    a, b = Model(2), Model(2)
    key = structure.signature_key
    assert key((a,)) == key((b,)), "a new object of the same class is the same signature"
    assert key((a.step, a)) == key((b.step, b)) and key((a.step, a)) != key((a.step, b))
    for tree in ((a,), (a.step, a)):
        copied = structure.copy_structure(tree, lambda leaf, i: ("tracer", i))
        model = copied.tree[-1]
        assert model is not a and model.step.__self__ is model and model.step() == ("tracer", 0)
        assert copied.tree[0].__self__ is model if len(tree) == 2 else len(copied.leaves) == 1
    assert structure.copy_structure((a.step, a), lambda leaf, i: i).paths == [(("item", 0), ("attr", "__self__"),
                                                                              ("attr", "x"))]
    assert key((len,)) == key((len,)) and structure.copy_structure((np.sum,), None).tree == (np.sum,)


def test_children_of_plain_and_slotted_objects():
    class Plain:
        def __init__(self):
            self.a, self.b = 1, np.ones(1)

    class Slots:
        __slots__ = ("p", "q")

        def __init__(self):
            self.p = 2

    assert [s for s, _ in structure.children(Plain())] == [("attr", "a"), ("attr", "b")]
    assert [s for s, _ in structure.children(Slots())] == [("attr", "p")]
    assert structure.children(len) is None and structure.children("text") is None


def test_path_expression():
    names = {}
    path = structure.Path(structure.Step(*s) for s in [("item", 0), ("attr", "w"), ("item", "k"), ("item", (1, 2))])
    text = path.expression("root", lambda k: names.setdefault(k, f"_c{len(names)}"))
    assert text == "root[0].w['k'][_c0]"
