"""Donation (`passes.donation`): each mutated input aliased to its new value's output, in place in
the module; inputs that take another shape are not (XLA aliases buffers of one shape only)."""

import numpy as np

import solvent
from solvent.ir.context import context
from solvent.ir.module import parse, to_text
from solvent.passes import donation


def scale_second(a, b):
    b *= 2.0
    return a + 1.0


def test_alias_marks_each_mutated_input_in_place():
    text = solvent.code_hlo(scale_second, np.ones(3), np.ones(3))
    with context():
        module = parse(text)
        assert not donation.alias(module, {})
        assert donation.alias(module, {1: 1})
        marked = to_text(module)
    assert marked.count("tf.aliasing_output") == 1
    assert "%arg1: tensor<3xf64> {tf.aliasing_output = 1 : i32}" in marked


def flattens(a):
    a.shape = (-1,)
    a += 1.0


def test_an_input_given_a_new_shape_is_not_donated():
    assert "tf.aliasing_output" not in solvent.code_mhlo(flattens, np.ones((2, 3)))
    a = np.ones((2, 3))
    solvent.jit(flattens)(a)
    assert a.shape == (6,) and np.array_equal(a, np.full(6, 2.0))
