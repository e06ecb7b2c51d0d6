"""Result specs (`core.spec`): the outputs under a node in structure order, containers rebuilt
as the kind they were, and paths reached from the call's arguments."""

from collections import namedtuple
from dataclasses import dataclass

import numpy as np

import solvent
from solvent.core import spec, structure
from solvent.tracing import trace

Pair = namedtuple("Pair", "a b")


@dataclass
class State:
    x: object
    y: object


def test_outputs_are_listed_in_structure_order_and_only_under_containers():
    node = spec.Node(tuple, (((structure.ITEM, 0), spec.Output(2)),
                             ((structure.ITEM, 1), spec.Node(list, (((structure.ITEM, 0), spec.Output(0)),))),
                             ((structure.ITEM, 2), spec.Static(None)),
                             ((structure.ITEM, 3), spec.Input(1))))
    assert list(node.outputs()) == [2, 0]
    assert list(spec.Either(spec.Output(3), (spec.Input(0),), spec.Output(4)).outputs()) == []


def test_build_makes_each_kind_of_container():
    def node(kind, *keys):
        return spec.Node(kind, tuple(((structure.ITEM, k), spec.Static(k)) for k in keys))
    assert node(tuple, 0, 1).build([5, 6]) == (5, 6)
    assert node(list, 0, 1).build([5, 6]) == [5, 6]
    assert node(dict, "p", "q").build([5, 6]) == {"p": 5, "q": 6}
    assert node(Pair, 0, 1).build([5, 6]) == Pair(5, 6)
    made = spec.Node(State, (((structure.ATTR, "x"), spec.Static(0)), ((structure.ATTR, "y"), spec.Static(0))))
    assert made.build([5, 6]) == State(5, 6)


def test_a_path_reaches_its_object_and_says_which_argument():
    args = ((State(np.ones(2), {"k": [3, 4]}),), {})
    path = structure.Path(structure.Step(*s) for s in
                          ((structure.ITEM, 0), (structure.ITEM, 0), (structure.ATTR, "y"), (structure.ITEM, "k")))
    assert path.reach(args) == [3, 4] and path.part == 0 and path.argument == 0
    assert path[1:].expression("args", repr) == "args[0].y['k']" and isinstance(path[:2], structure.Path)
    assert structure.Path() + (structure.Step(structure.ITEM, 1),) == ((structure.ITEM, 1),)


def test_tracing_gives_the_spec_of_what_the_function_returns():
    def f(a, state):
        return Pair(a * 2, state), {"n": 3, "same": a}
    result = trace(f, (np.ones(2), State(np.ones(2), 1.0)), {}).signature.result
    assert isinstance(result, spec.Node) and result.kind is tuple
    pair, mapping = (child for _, child in result.children)
    assert pair.kind is Pair and isinstance(pair.children[1][1], spec.Argument)
    assert [type(child) for _, child in mapping.children] == [spec.Static, spec.Input]
    assert list(result.outputs()) == [0]
    assert solvent.jit(f)(np.ones(2), State(np.ones(2), 1.0))[1]["n"] == 3
