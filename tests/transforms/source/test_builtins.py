"""Python builtins on traced values give what they give on NumPy's values (solvent.transforms.source.builtins)."""

import functools
import numbers
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import solvent
from tests.differential import assert_same, check_like_numpy, check_types_like_numpy

SPECIAL = st.sampled_from([0.0, -0.0, 1.0, -1.0, np.nan, np.inf, -np.inf, 2.5])
FLOATS = st.one_of(SPECIAL, st.floats(-1e3, 1e3, allow_subnormal=False))  # XLA flushes subnormals to zero


def extremes(a):
    return (max(a[0], a[1]), min(a[0], a[1]), max(a[0], a[1], a[2]), min(a[2], a[1], 0.5), max(a), min(a),
            max([a[1], a[0]]), min((v for v in a), key=lambda v: -v), max(a[0], -1.0))


def assert_identical(actual, expected):
    """Same values bit for bit (the sign of a zero and NaN included) and dtypes."""
    for x, e in zip(actual, expected):
        assert_same(x, e, rtol=0, atol=0)
        assert np.signbit(x) == np.signbit(e), (actual, expected)


_extremes = solvent.jit(extremes)


@settings(max_examples=150, deadline=None)
@given(st.lists(FLOATS, min_size=3, max_size=3))
def test_max_and_min_return_the_item_python_picks_with_nan_and_signed_zeros(values):
    a = np.array(values)
    assert_identical(_extremes(a), extremes(a))


def int_extremes(a):
    return max(a[0], a[1]), min(a[2], a[1], a[0]), max(a), min(a), max(a[0], -1), min(a, key=lambda v: v % 7)


_int_extremes = solvent.jit(int_extremes)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.integers(-50, 50), min_size=3, max_size=3))
def test_max_and_min_of_integers(values):
    a = np.array(values)
    assert_same(_int_extremes(a), int_extremes(a))


def conversions(a):
    return int(a[0]), float(a[1]), round(a[2]), round(a[0], 1), int(a[3]), round(a[3])


_conversions = solvent.jit(conversions)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(-1e6, 1e6), min_size=3, max_size=3), st.integers(-2**40, 2**40))
def test_int_float_and_round_convert_as_python_does(values, halves):
    a = np.array([*values, halves / 2])  # exact halves round to even
    assert_same(_conversions(a), conversions(a))


def python_rounds(a, ndigits):
    return [round(float(v), ndigits) for v in a]


@functools.cache
def _python_rounds(ndigits):
    return solvent.jit(lambda a: python_rounds(a, ndigits))


@pytest.mark.parametrize("ndigits", [0, 1, 2, 3, 7, 11, 15, 22, -1, -2, -5, -11, -22, 309, -309])
def test_round_of_a_python_float_rounds_its_exact_value_as_python_does(ndigits):
    """Decimal halves (2.675, 0.125): their doubles lie on either side of the half or on it, and Python
    rounds the exact value (2.67; 0.12 to even), where NumPy's rint(x * 100) / 100 gives 2.68;
    -0.0 stays; 16 digits and more (1e15 + 0.3 to 15 places) keep x, as 309 places do."""
    rng = np.random.default_rng(abs(ndigits) + 30)
    halves = (rng.integers(-10 ** 6, 10 ** 6, 200) + 0.5) / 10.0 ** max(-22, min(ndigits, 22))
    values = np.concatenate([halves, rng.uniform(-1e3, 1e3, 100), rng.standard_normal(50) * 10.0 ** rng.integers(
        -8, 27, 50), [2.675, 0.125, -0.001, -0.0, 0.0, 1e15 + 0.3, 1e300, -np.inf, np.nan, 4503599627370495.5,
                      -5.490878070763135e+25, 9.621546636282469e+16]])
    assert_identical(_python_rounds(ndigits)(values), python_rounds(values, ndigits))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(allow_subnormal=False), min_size=8, max_size=8), st.integers(-22, 22))
def test_round_of_python_floats_is_pythons(values, ndigits):
    a = np.array(values)
    assert_identical(_python_rounds(ndigits)(a), python_rounds(a, ndigits))


def modular_powers(x):
    k, big = int(x[0]), int(x[2])
    return (pow(k, 2, 7), pow(k, 123456789, 1000003), pow(3, k, 11), pow(-k, 3, 10), pow(k, 5, -7), pow(x[1], 2),
            pow(big, 2, 2 ** 40 + 15), pow(big, 77, 2 ** 62 + 57), pow(k, int(x[3]), 11), pow(big, -3, -13),
            pow(k, int(x[3]), big))


def test_pow_with_a_modulus_of_traced_integers_is_pythons():
    """By squaring, reduced at every step: pow(5, 123456789, 1000003) overflows int64 computed whole;
    past a modulus of 2**31.5 a product of residues did too (by doubling now), and a negative
    exponent gave 1 % mod, not the power of the inverse."""
    check_like_numpy(modular_powers, np.array([5.0, -1.5, 2.0 ** 39 + 3, -1.0]))
    check_like_numpy(modular_powers, np.array([-4.0, 2.5, 98765.0, -3.0]))
    with pytest.raises(TypeError, match="3rd argument"):
        solvent.jit(lambda x: pow(x[1], 2, 7))(np.array([5.0, -1.5]))


def extreme_pairs(x, y):
    return (max(enumerate(x), key=lambda t: t[1]), min(enumerate(x, 1), key=lambda t: t[1])[0],
            min(zip(y, x), key=lambda t: t[0] - t[1]))


def test_max_and_min_of_pairs_choose_whole_pairs():
    """`max(enumerate(x), key=...)`, the argmax idiom: its tuples were refused, blaming np.ndim."""
    check_types_like_numpy(extreme_pairs, np.array([0.5, 2.0, 3.0, 0.25, 3.0]), np.array([1.0, 0.0, -1.0, 2.0, 5.0]))


def sorts(x):
    return (sorted(x), sorted(x, reverse=True), sorted([x[0], x[2], x[1]]), sorted(range(len(x)), key=lambda i: x[i]),
            sorted([float(x[1]), float(x[3])], reverse=True), sorted(x, key=lambda v: abs(v - 2), reverse=True),
            sorted([3, 1, 2]))


def test_sorted_of_traced_numbers_is_pythons_stable_sort():
    """It was refused (bool() of a traced comparison); equal keys keep their order, reversed too."""
    check_types_like_numpy(sorts, np.array([3.0, -1.0, 2.0, 2.0, 0.5, 1.0]))
    with pytest.raises(solvent.TracerConversionError, match="np.sort"):
        solvent.jit(lambda m: sorted(m))(np.ones((2, 2)))


def membership(x, ids):
    hits = 0
    for k in range(5):
        if k in ids:
            hits += 1
        if x[k] not in (0.0, 1.0):
            hits += 10
    return hits, 2.0 in x, 7 not in ids, x[1] in [x[0], 2.0], "a" in "abc"


def test_in_on_traced_arrays_and_on_lists_of_traced_numbers():
    """`v in x` is NumPy's (x == v).any(); it was refused as bool() of a traced value."""
    check_types_like_numpy(membership, np.array([0.0, 2.0, 1.0, 5.0, 0.0]), np.array([1, 3, 4]))


def bools_and_complexes(x):
    return bool(x[0]), bool(x[1]), complex(x[2]), complex(x[0], x[2]), [bool(v) for v in x[1:3]]


def test_bool_and_complex_of_traced_numbers_are_pythons():
    check_types_like_numpy(bools_and_complexes, np.array([0.0, -2.5, 3.0]))


def test_the_numbers_they_make_promote_as_python_numbers():
    def f(x, a):
        return x + int(a[0]), x * float(a[1]), x - round(a[2]), np.float32(2) ** int(a[3])

    x, a = np.arange(3, dtype=np.float32), np.array([2.7, -1.5, 3.5, 2.0])
    check_like_numpy(f, x, a)  # float32 stays float32: a Python int/float is weak


def test_python_int_arithmetic_keeps_pythons_types():
    """int(a[0]) ** -2 raised NumPy's error for integer arrays (Python gives 0.0625); divmod of Python
    ints gave NumPy ints."""
    check_types_like_numpy(lambda a: (int(a[0]) ** -2, int(a[1]) ** 3, int(a[0]) ** -1 * 2, divmod(int(a[1]), 2)),
                           np.array([4, -3]))  # (divmod of Python ints: Python ints)


def loop_index_powers(x):
    s, signs = 0.0, 0
    for k in range(1, 40):  # rolled: k is traced, known to lie in [1, 39]
        s += x[k % 3] * 2 ** -k + 3 ** (k % 4) - 10 ** (k // 8 - 5)
        for j in range(k % 3):
            signs += (-1) ** (k + j)
    return s, signs


def test_python_int_powers_of_a_loop_index_are_pythons():
    """`2 ** -k` of a rolled loop's index gave int64's 0 where Python gives a float: the sign of the
    exponent is known from the loop's range."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (rolled, not unrolled for an exponent of unknown sign)
        check_types_like_numpy(loop_index_powers, np.array([1.5, -2.0, 0.25]))


WEIGHTS = [3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0]


def data_powers(x):
    k = int(x[0])
    return 2 ** (k % 4), 2 ** abs(k), 2 ** (-abs(k) - 1), WEIGHTS[k % 8], 3 ** (k % 4 - 4)


@pytest.mark.parametrize("first", [5.0, -3.0])
def test_python_int_powers_of_data_whose_sign_arithmetic_decides(first):
    """A remainder by a positive number, or abs(), decides the sign whatever the data."""
    check_types_like_numpy(data_powers, np.array([first]))


def test_a_python_int_power_whose_exponent_may_be_negative_is_refused():
    with pytest.raises(solvent.UnsupportedError, match=r"may be negative.*2\.0 \*\* k"):
        solvent.jit(lambda x: 2 ** int(x[0]))(np.array([-1.0]))


def numpy_of_python_numbers(a8, a32, b):
    s = a8[0]
    for i in range(20):  # (rolled: i is a Python int, np.abs of it NumPy's int64)
        s = a8[0] + np.abs(i - 50)
    return s, a32 + np.sqrt(float(b[0])), np.add(float(b[1]), 1.0), np.floor_divide(int(b[0]), 3), -int(b[0])


def test_numpy_functions_of_python_numbers_give_numpys_scalars():
    """np.abs(i - 50) of a loop's index stayed a Python int: int8 + it wrapped to -125 (NumPy 131)."""
    check_types_like_numpy(numpy_of_python_numbers, np.array([100, 100], np.int8), np.ones(2, np.float32),
                           np.array([2.0, 3.5]))


def test_a_sequence_repeated_by_a_traced_count_is_refused():
    """[0] * int(a[0]) gave an array of one zero times the count."""
    with pytest.raises(TypeError, match="Python index"):
        solvent.jit(lambda a: len([0.0] * int(a[0])))(np.array([4.0]))


def test_int_indexes_with_a_traced_value():
    def pick(a, t):
        return a[int(t[0] * 4)], a[min(int(t[1]), 3)]

    check_like_numpy(pick, np.arange(10.0), np.array([1.6, 7.0]))


def truths(a, b):
    return (any(a > 2), all(a > -5), any([a[0] > 0, False]), all([True, a[1] < a[2]]), any(b), all(b),
            any(a[i] > 10 for i in range(3)), any([]), all(x > 0 for x in b))


@pytest.mark.parametrize("a", [np.array([3.0, -1.0, 2.0]), np.array([-9.0, np.nan, 0.0])])
def test_any_and_all(a):
    check_like_numpy(truths, a, np.array([[0], [2]]))


def test_any_and_all_give_python_bools_and_leave_their_items_numpys():
    def f(a):
        c = a[0] > 0
        return any(a > 2), all([True, a[1] < a[2]]), any(c for _ in range(2)), any([c]), c

    a = np.array([3.0, -1.0, 2.0])
    got, want = solvent.jit(f)(a), f(a)
    assert [type(g) for g in got] == [type(w) for w in want] == [bool, bool, bool, bool, np.bool_]
    assert got == want


def test_a_static_true_item_still_short_circuits():
    def f(a):
        return any([a[0] > 0, True]), all([a[0] > 0, False, a[1] > 0])

    assert solvent.jit(f)(np.array([-1.0, 1.0])) == (True, False)


def matrix_chain(dims):
    """Fewest scalar multiplications to multiply a chain of matrices (textbook dynamic programming)."""
    n = len(dims) - 1
    cost = np.zeros((n, n))
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i, j] = np.inf
            for k in range(i, j):
                cost[i, j] = min(cost[i, j], cost[i, k] + cost[k + 1, j] + dims[i] * dims[k + 1] * dims[j + 1])
    return cost[0, n - 1], cost


def test_dynamic_programming_with_min_on_table_entries():
    check_like_numpy(matrix_chain, np.array([30.0, 35, 15, 5, 10, 20, 25, 7, 12]))


def test_max_over_a_rolled_loop_index():
    def f(a, n):
        best = 0
        for i in range(n):
            best = max(best, a[i] * i)
        return best

    check_like_numpy(f, np.array([1.0, 5.0, -2.0, 4.0]), solvent.Scalar(np.int64(4)))


def test_max_and_min_of_a_narrow_integer_and_a_traced_python_int_keep_the_int():
    # np.where of np.uint8 and a traced Python int wrapped 300 into uint8: 44
    def f(x, y):
        return max(x[0], int(y[0])), min(x[1], int(y[1])), max(x[1], int(y[1]))

    x, y = np.array([5, 7], np.uint8), np.array([300.0, -3.0])
    assert [int(v) for v in solvent.jit(f)(x, y)] == [int(v) for v in f(x, y)] == [300, -3, 7]


def test_max_and_min_of_an_element_of_an_array_made_inside():
    def f(x):
        peak = np.zeros(3)  # its elements' values are known while tracing
        peak[1] = max(peak[1], x[1])
        peak[2] = min(np.ones(3)[0], x[2], key=abs)
        return peak, max(np.arange(4.0)[2], x[0], np.float64(0.5))

    check_like_numpy(f, np.array([0.3, 0.7, -2.0]))
    check_like_numpy(f, np.array([3.0, -0.7, 0.5]))


@pytest.mark.parametrize("fn, error, match", [
    (lambda a: max(a[:1], a[1:2]), TypeError, "returns one of the arrays"),
    (lambda a: max(a[:2], a[2:]), ValueError, "ambiguous"),
    (lambda a: int(a[:2]), TypeError, "only length-1 arrays"),
    (lambda a: any(a.reshape(2, 2)), ValueError, "ambiguous"),
    (lambda a: max(a[:0]), ValueError, "empty"),
    (lambda a: round(a), TypeError, "numpy.ndarray doesn't define __round__"),
    (lambda a: max(), TypeError, "at least 1 argument"),
])
def test_what_python_refuses_is_refused_alike(fn, error, match):
    def use(a):
        return fn(a)

    with pytest.raises(error, match=match):
        solvent.jit(use)(np.arange(4.0))


def test_default_of_an_empty_max():
    def f(a):
        return max(a[:0], default=-1.0), min(a, default=7.0)

    check_like_numpy(f, np.arange(3.0))


def test_default_of_a_selection_that_comes_out_empty():
    """Only the count says a selection is empty: its static bound is not 0 (the default was ignored)."""
    def f(a):
        return (max(a[a > 100], default=-1.0), min(a[a > 100], default=99.0), max(a[a > 0], default=-1.0),
                max(a.astype(np.int64)[a > 100], default=-7))

    check_like_numpy(f, np.array([-3.0, -1.0, 5.0]))


def test_max_and_min_of_a_narrow_number_and_a_python_number_it_cannot_hold():
    """np.where wrapped the Python number into the narrow type: max(np.int8(100), 1000) gave -24."""
    def f(x8, u8, x16):
        return (max(x8[0], 1000), min(u8[0], -1), max(x16[0], 1e6), max(x8[0], 5), [max(v, 300) for v in u8])

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # (NumPy warns of 1e6 cast to float16 as it compares)
        actual = solvent.jit(f)(np.array([100], np.int8), np.array([5, 250], np.uint8), np.array([5], np.float16))
        expected = f(np.array([100], np.int8), np.array([5, 250], np.uint8), np.array([5], np.float16))
    assert [int(v) for v in actual[:2]] == list(expected[:2]) and float(actual[2]) == expected[2]
    assert_same(actual[3], expected[3])
    assert [int(v) for v in actual[4]] == expected[4]


def test_sum_of_a_selection_and_rounding_of_ints_and_bools():
    def f(a):
        return (sum(a[a < 0]), sum(a[a < 0], 10.0), sum((a > 0)[a > -2]), round(int(a[3]), -1), round(int(a[3]), -2),
                round(-int(a[3]), -1), round(bool(a[0])), round(int(a[4]), -19), math.floor(int(a[5])),
                math.ceil(int(a[5]) + 2), float(a[1]).is_integer(), a[2].is_integer(), int(a[5]).bit_count())

    import math
    check_like_numpy(f, np.array([-3.0, -1.0, 2.5, 10.0 ** 17 + 50, 4.0e18, 2.0 ** 53 + 1]))


def crc32(data):
    """Bit twiddling as people write it: NumPy's scalar types convert traced values."""
    crc = np.uint32(0xFFFFFFFF)
    for b in data:
        crc ^= np.uint32(b)
        for _ in range(8):
            crc = (crc >> np.uint32(1)) ^ (np.uint32(0xEDB88320) * (crc & np.uint32(1)))
    return ~crc


def scalar_types(x):
    return np.float32(x[0]), np.int64(x[1]), np.float64(x), np.uint8(x[2] * 100), np.bool_(x), np.complex64(x[0])


def test_numpy_scalar_types_convert_traced_values():
    check_like_numpy(crc32, np.frombuffer(b"hello world", np.uint8).copy())
    check_like_numpy(scalar_types, np.array([1.5, -2.0, 3.7]))


def kinds_of(x):
    a, b = x[0], float(x[1])
    return (np.isscalar(a), np.isscalar(x), np.isscalar(b), isinstance(a, float), isinstance(a, np.floating),
            isinstance(a, numbers.Real), isinstance(b, np.floating), isinstance(b, float), isinstance(x, np.ndarray),
            isinstance(a, np.ndarray), isinstance(x[0] > 1, np.bool_), isinstance(x.astype(np.int32)[0], int))


def test_isinstance_and_isscalar_answer_as_for_the_values_numpys_run_has():
    """A traced np.float64 is a float, an np.floating and a scalar (isinstance said False, and
    np.isscalar: code normalizing its inputs took the other branch silently)."""
    check_like_numpy(kinds_of, np.arange(3.0))
