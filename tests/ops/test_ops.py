"""The op builders' shape and dtype rules, checked directly (no NumPy layer, no compilation):
each builder's result type, and a ValueError for operands the StableHLO spec rejects."""

from __future__ import annotations

import contextlib

import numpy as np
import pytest
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import func, stablehlo

from solvent.ir.context import context
from solvent.ir.module import defining_op, named_attributes, new_module, same_value, splat_float, verify
from solvent.ir.types import tensor_type
from solvent.ops import control, elementwise as ew, enzyme, linalg, reduction, scatter, shape as ops
from solvent.ops.base import create, dtype_of, shape_of
from solvent.ops.constant import constant, iota


@contextlib.contextmanager
def building(*avals):
    """Emit into a fresh function whose arguments have the given (shape, dtype); verify at the end."""
    module = new_module()
    with context(), ir.Location.unknown():
        types = [tensor_type(s, d) for s, d in avals]
        with ir.InsertionPoint(module.body):
            main = func.FuncOp("main", ir.FunctionType.get(types, []))
        block = main.add_entry_block()
        with ir.InsertionPoint(block):
            yield list(block.arguments)
            func.ReturnOp([])
    verify(module)


def aval(v):
    return shape_of(v), dtype_of(v)


F64, F32, I64, I32, BOOL, C128 = (np.dtype(t) for t in (np.float64, np.float32, np.int64, np.int32, np.bool_,
                                                      np.complex128))


def test_elementwise_result_types():
    with building(((2, 3), F64), ((2, 3), C128), ((2, 3), I32)) as (x, z, i):
        assert aval(ew.unary("sine", x)) == ((2, 3), F64)
        assert aval(ew.unary("abs", z)) == ((2, 3), F64)
        assert aval(ew.unary("real", z)) == ((2, 3), F64)
        assert aval(ew.unary("is_finite", x)) == ((2, 3), BOOL)
        assert aval(ew.binary("add", x, x)) == ((2, 3), F64)
        assert aval(ew.binary("complex", x, x)) == ((2, 3), C128)
        assert aval(ew.compare("LT", i, i)) == ((2, 3), BOOL)
        assert aval(ew.select(ew.compare("EQ", x, x), x, x)) == ((2, 3), F64)
        assert aval(ew.convert(i, F32)) == ((2, 3), F32)
        assert ew.convert(x, F64) is x


@pytest.mark.parametrize("target", [F64, F32, C128, BOOL, I32])
@pytest.mark.parametrize("source", [BOOL, I32, F64, C128])
def test_convert_between_all_kinds(source, target):
    with building(((4,), source)) as (x,):
        assert aval(ew.convert(x, target)) == ((4,), target)


def test_elementwise_rules_reject_mismatches():
    with building(((2, 3), F64), ((3,), F64), ((2, 3), F32)) as (x, y, f):
        with pytest.raises(ValueError):
            ew.binary("add", x, y)
        with pytest.raises(ValueError):
            ew.binary("add", x, f)
        with pytest.raises(ValueError):
            ew.binary("no_such_op", x, x)
        with pytest.raises(ValueError):
            ew.unary("no_such_op", x)
        with pytest.raises(ValueError):
            ew.compare("LT", x, f)
        with pytest.raises(ValueError):
            ew.select(x, x, x)


def test_broadcast_reshape_transpose():
    with building(((3, 1), F64)) as (x,):
        assert shape_of(ops.broadcast_in_dim(x, (2, 3, 4), (1, 2))) == (2, 3, 4)
        assert ops.broadcast_in_dim(x, (3, 1), (0, 1)) is x
        assert shape_of(ops.reshape(x, (1, 3))) == (1, 3)
        assert shape_of(ops.transpose(x, (1, 0))) == (1, 3)
        assert ops.transpose(x, (0, 1)) is x
        with pytest.raises(ValueError):
            ops.broadcast_in_dim(x, (2, 4), (0, 1))
        with pytest.raises(ValueError):
            ops.broadcast_in_dim(x, (3, 4), (0,))
        with pytest.raises(ValueError):
            ops.reshape(x, (2, 2))
        with pytest.raises(ValueError):
            ops.transpose(x, (0, 0))


@pytest.mark.parametrize("start, limit, strides, expected", [
    ((0, 0), (5, 4), (1, 1), (5, 4)), ((1, 0), (5, 4), (2, 1), (2, 4)), ((0, 1), (5, 4), (3, 2), (2, 2)),
    ((2, 2), (2, 4), (1, 1), (0, 2)), ((0, 0), (5, 4), (5, 5), (1, 1)),
])
def test_slice_shape_rule(start, limit, strides, expected):
    with building(((5, 4), I64)) as (x,):
        assert shape_of(ops.slice(x, start, limit, strides)) == expected


def test_concatenate_pad_reverse_and_dynamic_slices():
    with building(((2, 3), F32), ((4, 3), F32), ((2, 2), F32), ((), I64)) as (a, b, c, i):
        assert shape_of(ops.concatenate([a, b, a], 0)) == (8, 3)
        with pytest.raises(ValueError):
            ops.concatenate([a, c], 0)
        zero = constant(np.zeros((), np.float32))
        assert shape_of(ops.pad(a, zero, (1, 0), (0, 2), (1, 1))) == (4, 7)
        assert shape_of(ops.reverse(a, [0, 1])) == (2, 3)
        assert ops.reverse(a, []) is a
        assert shape_of(ops.dynamic_slice(b, [i, i], (2, 3))) == (2, 3)
        assert shape_of(ops.dynamic_update_slice(b, a, [i, i])) == (4, 3)
        with pytest.raises(ValueError):
            ops.dynamic_update_slice(b, ew.convert(a, F64), [i, i])


def _made_by(v):
    return defining_op(v).name


def test_reads_of_a_written_array_go_through_the_write():
    """A read of one element or a row after a one-element write selects between the update and
    the array before the write; one that may overlap a wider block reads the written array."""
    with building(((4, 3), F64), ((1, 1), F64), ((1, 3), F64), ((), I64), ((), I64)) as (b, e, row, i, j):
        written = ops.dynamic_update_slice(b, e, [i, j])
        assert ops.dynamic_slice(written, [i, j], (1, 1)) == e            # the very element
        for sizes in [(1, 1), (1, 3), (4, 1), (4, 3)]:
            read = ops.dynamic_slice(written, [j, i], sizes)
            assert _made_by(read) == "stablehlo.select" and shape_of(read) == sizes
        wide = ops.dynamic_update_slice(b, ops.slice(row, (0, 0), (1, 2), (1, 1)), [i, j])
        assert _made_by(ops.dynamic_slice(wide, [i, j], (1, 1))) == "stablehlo.dynamic_slice"


def test_same_value_is_what_cse_would_merge():
    with building(((), I64), ((), I64)) as (i, j):
        one = constant(np.int64(1))
        assert same_value(ew.binary("add", i, one), ew.binary("add", i, constant(np.int64(1))))
        assert not same_value(ew.binary("add", i, one), ew.binary("add", j, one))
        assert not same_value(ew.binary("add", i, one), ew.binary("subtract", i, one))
        assert not same_value(constant(np.int64(1)), constant(np.int64(2)))
        # jaxlib's bindings cannot read complex constants' attributes: such constants are not compared
        assert not same_value(constant(np.complex128(1j)), constant(np.complex128(1j)))


def test_named_attributes_make_the_same_op_again():
    with building(((), I64), ((), I64)) as (i, j):
        op = defining_op(ew.compare("LT", i, j))
        again = create(op.name, list(op.operands), [op.results[0].type], named_attributes(op))
        assert set(named_attributes(op)) == {"comparison_direction", "compare_type"}
        assert str(again).split("=", 1)[1] == str(op).split("=", 1)[1]


def test_splat_float_reads_a_constant_through_its_broadcast():
    with building(((3,), F64)) as (x,):
        half = constant(np.float64(0.5))
        assert splat_float(half) == 0.5
        assert splat_float(ops.broadcast_in_dim(half, (3,), ())) == 0.5
        assert splat_float(constant(np.array([0.5, 1.0]))) is None
        assert splat_float(constant(np.int64(2))) is None
        assert splat_float(x) is None


def test_dot_general_dimension_order():
    with building(((5, 2, 3), F64), ((5, 3, 4), F64), ((7,), F64)) as (a, b, v):
        assert shape_of(linalg.dot_general(a, b, ([2], [1]), ([0], [0]))) == (5, 2, 4)
        assert shape_of(linalg.dot_general(a, b, ([0], [0]))) == (2, 3, 3, 4)
        with pytest.raises(ValueError):
            linalg.dot_general(a, b, ([1], [1]))
        with pytest.raises(ValueError):
            linalg.dot_general(a, ew.convert(b, F32), ([2], [1]), ([0], [0]))
        assert shape_of(linalg.dot_general(v, v, ([0], [0]))) == ()


def test_reduce_and_reduce_window():
    with building(((2, 3, 4), F64), ((0, 3), I32)) as (x, e):
        init = constant(np.zeros((), np.float64))
        (total,) = reduction.reduce([x], [init], [0, 2], lambda acc, y: [ew.binary("add", acc, y)])
        assert aval(total) == ((3,), F64)
        (empty,) = reduction.reduce([e], [constant(np.zeros((), np.int32))], [0],
                                    lambda acc, y: [ew.binary("add", acc, y)])
        assert aval(empty) == ((3,), I32)
        window = reduction.reduce_window(x, init, (1, 3, 1), [(0, 0), (2, 0), (0, 0)],
                                         lambda acc, y: [ew.binary("add", acc, y)])
        assert aval(window) == ((2, 3, 4), F64)


def test_scatter_and_iota():
    with building(((5, 2), F64), ((3, 2), F64)) as (x, updates):
        indices = constant(np.array([[0], [4], [0]], dtype=np.int64))
        result = scatter.scatter(x, indices, updates, [0], lambda old, new: [ew.binary("add", old, new)])
        assert aval(result) == ((5, 2), F64)
        assert aval(iota((3, 4), I32, 1)) == ((3, 4), I32)


def test_constant_round_trips_dtypes():
    with building() as ():
        for dtype in (np.bool_, np.int8, np.uint32, np.float32, np.float64, np.complex128):
            assert aval(constant(np.ones((2,), dtype))) == ((2,), np.dtype(dtype))


def test_control_flow_ops_take_their_operands_types():
    with building(((3,), F64), ((), I32)) as (x, i):
        loop = control.while_op([i, x])
        assert [str(t) for t in loop.results.types] == ["tensor<i32>", "tensor<3xf64>"]
        for region, returned in ((0, lambda c: [ew.compare("LT", c[0], constant(np.int32(4)))]), (1, list)):
            block = loop.regions[region].blocks.append(i.type, x.type)
            with ir.InsertionPoint(block):
                stablehlo.ReturnOp(returned(list(block.arguments)))
        case = control.case_op(i, [x.type], 2)
        for k in range(2):
            with ir.InsertionPoint(case.regions[k].blocks.append()):
                stablehlo.ReturnOp([x if k else ew.unary("negate", x)])
        assert aval(case.results[0]) == ((3,), F64)
        with pytest.raises(ValueError, match="0-d int32"):
            control.case_op(x, [x.type], 2)


def test_enzyme_ops_give_the_result_types_asked_for():
    module = new_module()
    with context(), ir.Location.unknown():
        t = tensor_type((3,), F64)
        with ir.InsertionPoint(module.body):
            square = func.FuncOp("square", ir.FunctionType.get([t], [t]))
            square.attributes["sym_visibility"] = ir.StringAttr.get("private")
            with ir.InsertionPoint(square.add_entry_block()):
                func.ReturnOp([ew.binary("multiply", square.arguments[0], square.arguments[0])])
            main = func.FuncOp("main", ir.FunctionType.get([t], []))
        with ir.InsertionPoint(main.add_entry_block()):
            x = main.arguments[0]
            (gradient,) = enzyme.autodiff("square", [x, x], [t], ["active"], ["activenoneed"])
            primal, tangent = enzyme.fwddiff("square", [x, x], [t, t], ["dup"], ["dup"])
            rows = ops.broadcast_in_dim(x, (2, 3), [1])
            (batched,) = enzyme.batch("square", [rows], [tensor_type((2, 3), F64)], 2)
            func.ReturnOp([])
        assert [aval(v) for v in (gradient, primal, tangent)] == [((3,), F64)] * 3
        assert aval(batched) == ((2, 3), F64)
        assert "ret_activity = [#enzyme.activity<enzyme_activenoneed>]" in str(gradient.owner)
    verify(module)


def test_0d_dynamic_slices_are_the_value_and_the_update():
    with building(((), F64), ((), F64)) as (x, y):
        assert ops.dynamic_slice(x, [], []) == x
        assert ops.dynamic_update_slice(x, y, []) == y
