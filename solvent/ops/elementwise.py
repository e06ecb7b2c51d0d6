"""Elementwise StableHLO ops: unary, binary, compare, select, convert, clamp."""

from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo

from solvent.ops.base import check, dtype_of, is_bool, is_complex, is_float, is_unsigned, one, shape_of
from solvent.ops.constant import splat

UNARY = frozenset({
    "abs", "cbrt", "ceil", "cosine", "count_leading_zeros", "exponential", "exponential_minus_one",
    "floor", "imag", "is_finite", "log", "log_plus_one", "logistic", "negate", "not", "popcnt",
    "real", "round_nearest_afz", "round_nearest_even", "rsqrt", "sign", "sine", "sqrt", "tan", "tanh",
})
BINARY = frozenset({
    "add", "and", "atan2", "complex", "divide", "maximum", "minimum", "multiply", "or", "power",
    "remainder", "shift_left", "shift_right_arithmetic", "shift_right_logical", "subtract", "xor",
})


def unary(name: str, x: ir.Value) -> ir.Value:
    """`stablehlo.<name>`; `abs`, `real`, `imag` of complex give the float part type."""
    check(name in UNARY, f"unknown unary op {name}")
    dtype = dtype_of(x)
    if name in ("abs", "real", "imag") and is_complex(dtype):
        dtype = np.dtype(np.float32 if dtype == np.complex64 else np.float64)
    if name == "is_finite":
        dtype = np.dtype(np.bool_)
    return one(f"stablehlo.{name}", [x], shape_of(x), dtype)


def binary(name: str, x: ir.Value, y: ir.Value) -> ir.Value:
    """`stablehlo.<name>` on two values of one shape and dtype."""
    check(name in BINARY, f"unknown binary op {name}")
    check(shape_of(x) == shape_of(y), f"{name}: shapes differ {shape_of(x)} {shape_of(y)}")
    check(dtype_of(x) == dtype_of(y), f"{name}: dtypes differ {dtype_of(x)} {dtype_of(y)}")
    dtype = dtype_of(x)
    if name == "complex":
        dtype = np.dtype(np.complex64 if dtype == np.float32 else np.complex128)
    return one(f"stablehlo.{name}", [x, y], shape_of(x), dtype)


def _compare_type(dtype) -> str:
    if is_complex(dtype) or is_float(dtype):
        return "FLOAT"
    if is_unsigned(dtype) or is_bool(dtype):
        return "UNSIGNED"
    return "SIGNED"


def compare(direction: str, x: ir.Value, y: ir.Value) -> ir.Value:
    """`stablehlo.compare` with direction EQ, NE, LT, LE, GT or GE; gives bool."""
    check(shape_of(x) == shape_of(y) and dtype_of(x) == dtype_of(y), "compare: operands differ")
    return one("stablehlo.compare", [x, y], shape_of(x), np.bool_,
               comparison_direction=stablehlo.ComparisonDirectionAttr.get(direction),
               compare_type=stablehlo.ComparisonTypeAttr.get(_compare_type(dtype_of(x))))


def select(pred: ir.Value, on_true: ir.Value, on_false: ir.Value) -> ir.Value:
    check(dtype_of(pred) == np.bool_, "select: predicate must be bool")
    check(shape_of(on_true) == shape_of(on_false) and dtype_of(on_true) == dtype_of(on_false),
          "select: branches differ")
    return one("stablehlo.select", [pred, on_true, on_false], shape_of(on_true), dtype_of(on_true))


def convert(x: ir.Value, dtype) -> ir.Value:
    """`stablehlo.convert` to another element type (same shape)."""
    dtype = np.dtype(dtype)
    if dtype_of(x) == dtype:
        return x
    if is_bool(dtype_of(x)) and (is_float(dtype) or is_complex(dtype)):
        # XLA rewrites multiply(convert(pred), y) as select(pred, y, 0), which loses
        # 0 * inf = nan; a detour through uint8 keeps IEEE arithmetic.
        x = one("stablehlo.convert", [x], shape_of(x), np.uint8)
    if is_complex(dtype_of(x)) and not is_complex(dtype):
        if is_bool(dtype):  # non-zero in either part; XLA's convert looks at the real part only
            return binary("or", convert(unary("real", x), dtype), convert(unary("imag", x), dtype))
        return convert(unary("real", x), dtype)  # as NumPy, dropping the imaginary part
    if is_float(dtype_of(x)) and np.issubdtype(dtype, np.integer):
        return _float_to_integer(x, dtype)
    part = np.dtype(np.float32 if dtype == np.complex64 else np.float64)
    if is_complex(dtype) and not is_complex(dtype_of(x)) and dtype_of(x) != part:
        # Via the real part's own type: Enzyme-HLO's patterns emit invalid IR for
        # add(convert(int -> complex), constant) and for real(convert(f32 -> complex<f64>)).
        x = one("stablehlo.convert", [x], shape_of(x), part)
    return one("stablehlo.convert", [x], shape_of(x), dtype)


def _float_to_integer(x: ir.Value, dtype: np.dtype) -> ir.Value:
    """NumPy's cast of floats to integers on x86-64, where XLA's convert saturates instead. NumPy's
    loops convert as C does there: to a 32-bit integer (64-bit for int64, and for uint32 from
    float16), the integer indefinite (the most negative) for NaN and values out of its range, then
    keep the low bits, so 300.7 is 44 as uint8 and -3.7 is 253; uint32 and uint64 take values from
    half their range up by subtracting that half first and setting the top bit back."""
    if dtype in (np.uint32, np.uint64) and not (dtype == np.uint32 and dtype_of(x) == np.float16):
        bits = dtype.itemsize * 8
        half = const(x, 2.0 ** (bits - 1))
        high = compare("GE", x, half)  # false for NaN, which takes the other way as in C
        low_part = _truncated(select(high, const(x, 0), x), bits)
        high_part = binary("xor", _truncated(select(high, binary("subtract", x, half), const(x, 0)), bits),
                           const(low_part, np.iinfo(np.int64 if bits == 64 else np.int32).min))
        return convert(select(high, high_part, low_part), dtype)
    return convert(_truncated(x, 64 if dtype in (np.int64, np.uint32) else 32), dtype)


def _truncated(x: ir.Value, bits: int) -> ir.Value:
    """x rounded toward zero to a signed `bits`-bit integer, its most negative value where C's
    conversion on x86-64 gives it: NaN and values out of range."""
    kind = np.dtype(np.int64 if bits == 64 else np.int32)
    outside = binary("or", compare("NE", x, x), binary("or", compare("GE", x, const(x, 2.0 ** (bits - 1))),
                                                       compare("LT", x, const(x, -2.0 ** (bits - 1)))))
    inside = one("stablehlo.convert", [select(outside, const(x, 0), x)], shape_of(x), kind)
    return select(outside, const(inside, np.iinfo(kind).min), inside)


def const(like: ir.Value, value) -> ir.Value:
    """The scalar `value` everywhere in `like`'s shape and dtype (one element stored)."""
    return splat(value, shape_of(like), dtype_of(like))


def clamp(low: ir.Value, x: ir.Value, high: ir.Value) -> ir.Value:
    return one("stablehlo.clamp", [low, x, high], shape_of(x), dtype_of(x))


def bitcast(x: ir.Value, dtype) -> ir.Value:
    """The bits of `x` read as another element type of the same width (`ndarray.view(dtype)`)."""
    check(np.dtype(dtype).itemsize == dtype_of(x).itemsize, "bitcast: the widths differ")
    return one("stablehlo.bitcast_convert", [x], shape_of(x), dtype)
