"""The semantic rules of DESIGN.md, one test (or a few) per rule."""

import dataclasses
import gc
import weakref
from collections import namedtuple

import numpy as np
import pytest

import solvent
from differential import assert_same, check_like_numpy


# -- arrays are traced, Python scalars are static ------------------------------------

def test_python_scalars_are_static_and_part_of_the_cache_key():
    calls = []

    def scale(x, factor):
        calls.append(factor)
        return x * factor

    f = solvent.jit(scale)
    x = np.arange(3.0)
    assert_same(f(x, 2.0), x * 2.0)
    assert_same(f(x, 2.0), x * 2.0)
    assert_same(f(x, 3.0), x * 3.0)
    assert calls == [2.0, 3.0]  # traced once per static value
    assert len(f.cache) == 2


def test_static_scalars_drive_python_loops():
    def smooth(u, steps):
        for _ in range(steps):
            u[1:-1] = 0.5 * (u[2:] + u[:-2])
        return u

    check_like_numpy(smooth, np.random.default_rng(0).random(12), 5)


def test_numpy_scalars_are_static():
    def f(x, s):
        return x + s

    g = solvent.jit(f)
    assert_same(g(np.ones(2, np.float32), np.float64(2.5)), f(np.ones(2, np.float32), np.float64(2.5)))
    assert_same(g(np.ones(2, np.float32), np.float32(2.5)), f(np.ones(2, np.float32), np.float32(2.5)))


def test_solvent_scalar_is_traced_not_static():
    calls = []

    def f(x, s):
        calls.append(1)
        return x * s

    g = solvent.jit(f)
    x = solvent.asarray(np.arange(3.0))
    np.testing.assert_array_equal(np.asarray(g(x, solvent.Scalar(2.0))), np.arange(3.0) * 2)
    np.testing.assert_array_equal(np.asarray(g(x, solvent.Scalar(5.0))), np.arange(3.0) * 5)
    assert len(calls) == 1


def test_shapes_and_dtypes_are_part_of_the_cache_key():
    f = solvent.jit(lambda x: x + 1)
    assert_same(f(np.zeros(3)), np.ones(3))
    assert_same(f(np.zeros(4)), np.ones(4))
    assert_same(f(np.zeros(3, np.int32)), np.ones(3, np.int32))
    assert len(f.cache) == 3


# -- default dtypes are NumPy's ---------------------------------------------------------

def test_float64_stays_float64_and_int64_stays_int64():
    def f(x, i):
        return x * 1e-300, i * 3_000_000_000

    x, i = np.array([1.0]), np.array([5], dtype=np.int64)
    out = check_like_numpy(f, x, i)
    assert out[0].dtype == np.float64 and out[0][0] != 0.0
    assert out[1][0] == 15_000_000_000


def test_weak_python_scalars_follow_nep50():
    check_like_numpy(lambda x: x + 1.0, np.ones(3, np.float32))
    check_like_numpy(lambda x: x * 2, np.ones(3, np.int8))
    check_like_numpy(lambda x: x / 2, np.ones(3, np.int16))


# -- mutation is real -------------------------------------------------------------------

def test_augmented_assignment_on_numpy_argument_is_copied_back():
    def f(a, b):
        a += b
        a[0] = -1.0

    check_like_numpy(f, np.arange(4.0), np.ones(4))


def test_mutation_of_device_array_swaps_and_donates_the_buffer():
    def f(a, b):
        a[1:] *= b[1:]

    a = solvent.asarray(np.arange(4.0))
    b = solvent.asarray(np.full(4, 2.0))
    old = a.buffer
    solvent.jit(f)(a, b)
    np.testing.assert_array_equal(np.asarray(a), [0.0, 2.0, 4.0, 6.0])
    assert old.is_deleted(), "the mutated argument's old buffer is donated"
    assert not b.buffer.is_deleted(), "arguments that are not mutated are never donated"
    np.testing.assert_array_equal(np.asarray(b), np.full(4, 2.0))


def test_arguments_not_mutated_are_not_outputs():
    text = solvent.code_mhlo(lambda a, b: a + b, np.ones(3), np.ones(3))
    assert "tf.aliasing_output" not in text


def test_ufunc_out_and_fill_mutate():
    def f(a, b, c):
        np.add(a, b, out=a)
        c.fill(7.0)

    check_like_numpy(f, np.arange(3.0), np.ones(3), np.zeros(2))


def test_writes_through_basic_slice_views_change_the_base():
    def f(a):
        b = a[1:]
        b[0] = 5.0
        c = b[::2]
        c += 100.0
        a.T[0] = -1.0
        return a.sum()

    check_like_numpy(f, np.arange(8.0))


def test_view_sees_later_writes_to_base():
    def f(a):
        v = a[2:4]
        a[:] = 9.0
        return v * 1

    check_like_numpy(f, np.arange(6.0))


@dataclasses.dataclass
class Model:
    w: np.ndarray
    b: np.ndarray
    steps: int = 0


def test_attribute_assignment_on_argument_objects_is_visible():
    def train(model, lr):
        model.w = model.w - lr * model.w
        model.steps = model.steps + 1
        return np.sum(model.w)

    model = Model(np.arange(3.0), np.ones(2))
    ref = Model(np.arange(3.0), np.ones(2))
    old_w, old_b = model.w, model.b
    out = solvent.jit(train)(model, 0.5)
    expected = train(ref, 0.5)
    assert_same(out, expected)
    assert_same(model.w, ref.w)
    assert model.steps == 1
    assert model.b is old_b, "untouched attributes keep the caller's object"
    np.testing.assert_array_equal(old_w, np.arange(3.0)), "reassignment does not mutate the old array"


class Simulation:
    def __init__(self, n, rate):
        self.x, self.rate = np.zeros(n), rate
        self.step = self.explicit_step  # the method to use, chosen once

    def explicit_step(self):
        self.x += self.rate
        return self.x.sum()


def test_a_bound_method_stored_on_the_argument_runs_on_it_and_compiles_once():
    run = solvent.jit(lambda sim: sim.step())
    for k in range(3):
        sim, ref = Simulation(3, 0.5), Simulation(3, 0.5)
        for _ in range(2):  # the second call must see the first one's update
            assert_same(run(sim), ref.step())
            assert_same(sim.x, ref.x)
    assert len(run.cache) == 1, "a new object of the same class compiles nothing new"
    released = weakref.ref(sim)
    del sim
    gc.collect()
    assert released() is None, "the cache keeps no argument alive"


def test_dict_item_assignment_and_deletion_and_list_append():
    def f(state, history):
        state["x"] = state["x"] * 2
        del state["tmp"]
        state["new"] = state["x"] + 1
        history.append(state["x"].sum())

    s1 = {"x": np.arange(3.0), "tmp": np.zeros(1)}
    s2 = {"x": np.arange(3.0), "tmp": np.zeros(1)}
    h1, h2 = [], []
    solvent.jit(f)(s1, h1)
    f(s2, h2)
    assert list(s1) == list(s2)
    for k in s2:
        assert_same(s1[k], s2[k])
    assert len(h1) == 1
    assert_same(h1[0], h2[0])


# -- any Python structure ------------------------------------------------------------------

Pair = namedtuple("Pair", "left right")


@dataclasses.dataclass
class Box:
    items: list
    meta: dict


class Plain:
    def __init__(self, a):
        self.a = a


class Slotted:
    __slots__ = ("a", "b")

    def __init__(self, a, b):
        self.a, self.b = a, b


def test_nested_structures_in_and_out():
    def f(pair, box, plain, slotted):
        total = pair.left + pair.right + box.items[0] + box.meta["k"] + plain.a + slotted.a * slotted.b
        return Pair(total, [total * 2, {"z": total}]), Box([total], {"n": 3})

    args = (Pair(np.ones(2), np.full(2, 2.0)), Box([np.ones(2)], {"k": np.ones(2)}),
            Plain(np.ones(2)), Slotted(np.ones(2), np.full(2, 3.0)))
    (pair, box) = solvent.jit(f)(*args)
    (ref_pair, ref_box) = f(*args)
    assert type(pair) is Pair and type(box) is Box
    assert_same(pair.left, ref_pair.left)
    assert_same(pair.right[0], ref_pair.right[0])
    assert_same(pair.right[1]["z"], ref_pair.right[1]["z"])
    assert_same(box.items[0], ref_box.items[0])
    assert box.meta == {"n": 3}


def test_returned_argument_is_the_callers_object():
    def f(a, b, model):
        a += 1
        return a, b, model

    a, b, model = np.zeros(2), np.ones(2), Model(np.ones(1), np.ones(1))
    ra, rb, rm = solvent.jit(f)(a, b, model)
    assert ra is a and rb is b and rm is model
    np.testing.assert_array_equal(a, [1.0, 1.0])

    x = solvent.asarray(np.ones(2))
    assert solvent.jit(lambda x: x)(x) is x


def test_same_array_passed_twice_is_one_input():
    def f(a, b):
        a += 1
        return b * 1

    x = np.zeros(3)
    out = solvent.jit(f)(x, x)
    np.testing.assert_array_equal(x, np.ones(3))
    np.testing.assert_array_equal(out, np.ones(3)), "b sees a's mutation: they are one array"
    text = solvent.code_hlo(f, x, x)
    assert text.count("tensor<3xf64>") >= 1 and "%arg1" not in text


def test_aliasing_is_part_of_the_signature_of_a_function_writing_into_an_argument():
    f = solvent.jit(lambda a, b: a.__iadd__(b))
    x, y = np.ones(2), np.ones(2)
    f(x, y)
    f(x, x)
    assert len(f.cache) == 2 and (x == 4.0).all()  # (2, then 2 + 2)


def test_a_call_with_two_arrays_after_one_with_an_array_twice_runs_its_own_program():
    """The fast path made for f(x, x) tested only that a later call's arrays were distinct, so f(y, z)
    ran the aliased program: the write into a was seen through b (3.0, NumPy 0.0)."""
    def f(a, b):
        a += 1
        return b.sum()

    g, x, y, z = solvent.jit(f), np.zeros(3), np.zeros(3), np.zeros(3)
    assert g(x, x) == 3.0 and g(y, z) == 0.0 and g(x, x) == 6.0 and g(y, z) == 0.0
    assert (y == 2.0).all() and (z == 0.0).all()


@pytest.mark.parametrize("views", [lambda m: (m.ravel(), m.ravel()[1:4]), lambda m: (m[0], m[1])],
                         ids=["overlapping", "disjoint"])
def test_a_call_with_two_arrays_after_one_with_views_of_one_array_runs_its_own_program(views):
    """The fast path made for f(x, x[1:]) let two separate arrays in: f(a, b) wrote b's 100 into a
    and left b as it was; after disjoint views of one array it raised a raw AttributeError."""
    def f(a, b):
        b[0] = 100.0
        return a * 1

    g = solvent.jit(f)
    m, expected_m = np.arange(8.0).reshape(2, 4), np.arange(8.0).reshape(2, 4)
    assert_same(g(*views(m)), f(*views(expected_m)))
    assert_same(m, expected_m)
    a, b = np.arange(4.0), np.arange(3.0)
    assert_same(g(a, b), np.arange(4.0))
    assert_same(a, np.arange(4.0))
    assert_same(b, np.array([100.0, 1.0, 2.0]))
    with pytest.raises(solvent.SignatureError, match=r"arrays 0 and 1 \(counted in argument order\) views of one"):
        solvent.compile(f, *views(m))(np.arange(4.0), np.arange(3.0))


def test_a_function_writing_into_no_argument_runs_aliased_arguments_as_compiled():
    f = solvent.jit(lambda a, b: a * 10 + b)
    x, y = np.arange(2.0), np.ones(2)
    f(x, y)
    np.testing.assert_array_equal(f(x, x), x * 10 + x)
    np.testing.assert_array_equal(f(x[::-1], x), x[::-1] * 10 + x)
    assert len(f.cache) == 1


def add_one_and_read(a, b):
    a += 1
    return b * 1


@pytest.mark.parametrize("view", [lambda x: np.lib.stride_tricks.sliding_window_view(x, 3),
                                  lambda x: np.lib.stride_tricks.as_strided(x, (3, 2), (32, 8)),
                                  lambda x: np.lib.stride_tricks.as_strided(x, (5, 3), (16, 8)),
                                  lambda x: np.asarray(memoryview(x))], ids=["windows", "strided", "overlapping",
                                                                             "memoryview"])
def test_arguments_sharing_memory_through_as_strided_or_a_memoryview_see_each_others_writes(view):
    """Their `.base` is not an ndarray (as_strided's stand-in, a memoryview), so the shared memory was
    not found: b read the values from before a's write."""
    x, expected_x = np.arange(12.0), np.arange(12.0)
    assert_same(solvent.jit(add_one_and_read)(x, view(x)), add_one_and_read(expected_x, view(expected_x)))
    assert_same(x, expected_x)


def test_writes_into_an_argument_whose_elements_overlap_are_refused():
    """Traced as a dense array, a write to one element did not show in the others, and the write-back
    kept one of the copies (a[0, 1] = 99 then read as a[1, 0] gave the old value)."""
    def write(a):
        a[0, 1] = 99.0
        return a[1, 0]

    x = np.arange(12.0)
    for a in (np.lib.stride_tricks.as_strided(x, (5, 3), (8, 8)),
              np.lib.stride_tricks.sliding_window_view(x, 3, writeable=True)):
        with pytest.raises(solvent.UnsupportedError, match="elements overlap in memory"):
            solvent.jit(write)(a)
        assert_same(x, np.arange(12.0))
        assert_same(solvent.jit(lambda a: a.sum() + a[1, 0])(a), a.sum() + a[1, 0])  # reading is right


def test_a_write_through_a_read_only_view_of_a_writable_argument_raises_as_numpys():
    """The read-only check read the flags of the array owning the memory only."""
    def write_b(a, b):
        b[0] = 5.0
        return a.sum()

    x = np.arange(4.0)
    for b in (x.view(), np.broadcast_to(x, (3, 4))):
        b.flags.writeable = False
        with pytest.raises(ValueError, match="read-only"):
            solvent.jit(write_b)(x, b)
        assert_same(x, np.arange(4.0))


def test_arguments_sharing_a_buffer_no_ndarray_owns_are_refused():
    class Interface:
        def __init__(self, a):
            self.__array_interface__ = a.__array_interface__

    buffer, x = bytearray(96), np.arange(12.0)
    for a, b in ((np.frombuffer(buffer, count=6), np.frombuffer(buffer, count=6, offset=16)),
                 (x, np.asarray(Interface(x)))):
        with pytest.raises(solvent.UnsupportedError, match="not a NumPy array"):
            solvent.jit(add_one_and_read)(a, b)
    assert_same(x, np.arange(12.0))


# -- fresh arrays hold traced values --------------------------------------------------------

def test_fresh_arrays_accept_traced_values():
    def f(x):
        out = np.zeros(3)
        out[0] = x.sum()
        out[1] = x.max()
        grid = np.ones((2, 2)) * x[0]
        return out, grid, np.arange(3) * x[1], np.eye(2) + x[2], np.full(2, 4.0) + x[0]

    check_like_numpy(f, np.array([1.0, 2.0, 3.0]))


def test_fresh_arrays_in_helpers_but_not_outside_tracing():
    def helper(n, v):
        buf = np.empty(n)
        buf[:] = v
        return buf

    def f(x):
        return helper(2, x.mean())

    check_like_numpy(f, np.array([1.0, 3.0]))
    assert type(np.zeros(2)) is np.ndarray  # untouched after the trace


def test_other_threads_see_plain_numpy_while_tracing():
    import threading

    seen = []

    def f(x):
        t = threading.Thread(target=lambda: seen.append(type(np.zeros(2))))
        t.start()
        t.join()
        return x + 1

    solvent.jit(f)(np.ones(1))
    assert seen == [np.ndarray]


# -- closures and globals ----------------------------------------------------------------------

CAPTURED = np.arange(3.0)


def test_captured_arrays_are_constants():
    f = solvent.jit(lambda x: x + CAPTURED)
    assert_same(f(np.ones(3)), np.ones(3) + CAPTURED)
    assert "dense<[0.000000e+00, 1.000000e+00, 2.000000e+00]>" in solvent.code_mhlo(lambda x: x + CAPTURED, np.ones(3))


# -- results ------------------------------------------------------------------------------------

def test_result_kinds_follow_argument_kinds():
    f = solvent.jit(lambda x: (x * 2, x.sum()))
    arr, total = f(np.ones(3))
    assert type(arr) is np.ndarray and arr.flags.writeable
    assert isinstance(total, np.float64)
    arr, total = f(solvent.asarray(np.ones(3)))
    assert type(arr) is solvent.Array and type(total) is solvent.Scalar


def test_nested_jit_is_inlined():
    inner = solvent.jit(lambda x: x * 2)
    outer = solvent.jit(lambda x: inner(x) + 1)
    assert_same(outer(np.ones(2)), np.full(2, 3.0))


def test_static_argnames():
    def f(x, mode="add"):
        return x + 1 if mode == "add" else x - 1

    g = solvent.jit(f, static_argnames=("mode",))
    assert_same(g(np.ones(2), mode="sub"), np.zeros(2))
    assert_same(g(np.ones(2), "add"), np.full(2, 2.0))


def test_static_argnums_names_the_parameters_at_those_positions():
    """jax.jit's spelling: a static table passed by position is keyed by what it holds."""
    def f(x, table, scale=2.0):
        return x * table[1] * scale

    g = solvent.jit(f, static_argnums=(1, -1))
    table = np.array([1.0, 3.0])
    assert_same(g(np.ones(2), table), np.full(2, 6.0))
    table[1] = 5.0
    assert_same(g(np.ones(2), table, 1.0), np.full(2, 5.0))
    with pytest.raises(ValueError, match="static_argnums=3"):
        solvent.jit(f, static_argnums=3)


def test_a_static_array_list_or_dict_is_keyed_by_what_it_holds():
    """Keyed by identity, a static array changed in place (or a new one at a freed one's address) ran
    the program traced for the old values."""
    def scaled(table, x, sizes, options):
        return x * table + sum(sizes) + options["offset"]

    g = solvent.jit(scaled, static_argnames=("table", "sizes", "options"))
    table, sizes, options = np.ones(3), [1, 2], {"offset": 0.5}
    x = np.arange(3.0)
    assert_same(g(table, x, sizes, options), scaled(table, x, sizes, options))
    table[:], sizes[0], options["offset"] = 5.0, 10, -1.0
    assert_same(g(table, x, sizes, options), scaled(table, x, sizes, options))
    assert_same(g(np.full(3, 2.0), x, sizes, options), scaled(np.full(3, 2.0), x, sizes, options))
    with pytest.raises(solvent.SignatureError, match="static argument"):
        g(solvent.asarray(table), x, sizes, options)


def test_ndarray_constructor_in_traced_code_holds_traced_values():
    def f(x):
        out = np.ndarray((3,))
        out[:] = x.sum()
        assert isinstance(CAPTURED, np.ndarray)  # host arrays still are ndarrays while tracing
        return out

    check_like_numpy(f, np.arange(3.0))
    assert np.ndarray.__name__ == "ndarray" and type(np.ndarray) is type
