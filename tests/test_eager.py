"""NumPy on solvent.Array outside jit: small compiled programs, results stay on the device."""

import collections
import dataclasses
import functools
import warnings

import numpy as np
import pytest

import solvent
from differential import assert_same


def test_ufuncs_operators_and_functions_outside_jit():
    host = np.arange(6.0).reshape(2, 3)
    a = solvent.asarray(host)
    for actual, expected in [(a + 1, host + 1), (np.sin(a), np.sin(host)), (a @ a.T, host @ host.T),
                             (np.sum(a, axis=0), np.sum(host, axis=0)), (a.mean(), host.mean()),
                             (a[1, ::-1], host[1, ::-1]), (-a, -host), (a > 2, host > 2)]:
        assert isinstance(actual, solvent.Array)
        assert_same(actual, expected)


def test_inplace_outside_jit_mutates_the_handle():
    host = np.arange(4.0)
    a = solvent.asarray(host)
    a += 1
    a[0] = 10.0
    host += 1
    host[0] = 10.0
    assert_same(a, host)


def test_eager_programs_are_cached():
    from solvent import eager

    a = solvent.asarray(np.ones(3))
    a * 2.0
    (program,) = eager.programs_of(np.multiply).values()
    before = len(program.cache)
    a * 2.0
    assert len(program.cache) == before


def test_integer_indices_share_one_program():
    from solvent import eager

    host = np.arange(12.0).reshape(3, 4)
    a = solvent.asarray(host)
    a[0, 0]
    (program,) = eager.programs_of(eager._index).values()
    before = len(program.cache)
    for i in range(-3, 3):
        for j in range(4):
            assert float(a[i, j]) == host[i, j]
    assert_same(a[..., -1], host[..., -1])
    assert len(program.cache) <= before + 1
    a[-1, 2] = 50.0
    host[-1, 2] = 50.0
    assert_same(a, host)


def test_out_of_bounds_integer_index_raises_index_error():
    import pytest

    a = solvent.asarray(np.arange(6.0).reshape(2, 3))
    with pytest.raises(IndexError):
        a[2]
    with pytest.raises(IndexError):
        a[0, -4] = 1.0
    assert list(a[1]) == [3.0, 4.0, 5.0]  # iteration stops at the IndexError


def test_boolean_masks_outside_jit():
    import pytest

    host = np.arange(12.0).reshape(3, 4)
    a = solvent.asarray(host)
    mask = host % 3 == 0
    assert_same(a[solvent.asarray(mask)], host[mask])
    assert_same(a[..., solvent.asarray(mask[0])], host[..., mask[0]])
    assert_same(a[solvent.asarray(np.True_)], host[np.True_])
    assert_same(a[False], host[False])
    with pytest.raises(IndexError):
        a[solvent.asarray(np.ones(2, dtype=bool))]


def test_boolean_mask_writes_outside_jit():
    host = np.arange(12.0).reshape(3, 4)
    a, mask = solvent.asarray(host), host % 3 == 0
    a[solvent.asarray(mask)] += 1.0          # a read, then a write of as many values
    a[1, solvent.asarray(mask[0])] = -5.0
    host[mask] += 1.0
    host[1, mask[0]] = -5.0
    assert_same(a, host)


def _loop_to(limit, step):
    """A fresh pair of lambdas per call, as a user writes them inline."""
    cond, body = (lambda c: c < limit), (lambda c: c + step)
    return solvent.while_loop(cond, body, 0), (cond, body)


def test_fresh_lambdas_outside_jit_share_one_program():
    from solvent import eager

    results = [_loop_to(10, 3) for _ in range(3)]
    assert [int(r) for r, _ in results] == [12, 12, 12]
    (program,) = eager.programs_of(*results[-1][1]).values()
    assert len(program.cache) == 1


def test_closures_over_different_numbers_get_their_own_programs():
    assert [int(_loop_to(10, step)[0]) for step in (3, 4, 3)] == [12, 12, 12]
    assert int(_loop_to(20, 6)[0]) == 24  # never a stale program of another closure's values


def test_a_cached_program_does_not_keep_its_function_alive():
    import gc
    import weakref

    from solvent import eager

    weights = np.arange(3.0)  # an array in the closure: cached under the function itself

    def loss(x):
        return np.sum(weights * x ** 2)

    assert_same(solvent.grad(loss)(np.ones(3)), 2 * weights)
    assert len(eager.programs_of(loss)) == 1
    alive = weakref.ref(loss)
    del loss
    gc.collect()
    assert alive() is None


class _Walker:
    def __init__(self, step):
        self.step = step

    def body(self, c):
        return c + self.step


def test_bound_methods_are_cached_per_object():
    one, two = _Walker(1.0), _Walker(2.0)
    assert float(solvent.fori_loop(0, 3, lambda i, c: one.body(c), 0.0)) == 3.0
    assert float(solvent.while_loop(lambda c: c < 5, one.body, 0.0)) == 5.0
    assert float(solvent.while_loop(lambda c: c < 5, two.body, 0.0)) == 6.0


SCALE = 1.0


def test_a_fresh_lambda_reading_a_global_that_changed_gets_its_own_program():
    """Programs of plain functions are cached by their code, closure and the globals they read: keyed
    without the globals, every new lambda got the first one's program (its SCALE)."""
    global SCALE
    w = np.array([1.0, 2.0])
    try:
        for SCALE in (1.0, 2.0, 3.0, 2.0):
            np.testing.assert_allclose(solvent.grad(lambda w: SCALE * np.sum(w ** 2))(w), 2 * SCALE * w)
            np.testing.assert_allclose(solvent.vmap(lambda w: SCALE * w)(w), SCALE * w)
    finally:
        SCALE = 1.0


def _scaled(row):
    return row * SCALE


def _loss(w):
    return np.sum(_scaled(w) ** 2)


def test_a_global_read_by_a_function_passed_or_called_that_changed_gets_its_own_program():
    """A function passed to NumPy (np.apply_along_axis's) or called by the one transformed kept the
    program made for the first value of a global it reads."""
    global SCALE
    host = np.ones((2, 3))
    a = solvent.asarray(host)
    try:
        for SCALE in (2.0, 3.0, 2.0):
            np.testing.assert_array_equal(np.asarray(np.apply_along_axis(_scaled, 1, a)),
                                          np.apply_along_axis(_scaled, 1, host))
            np.testing.assert_allclose(solvent.grad(_loss)(np.ones(2)), 2 * SCALE ** 2 * np.ones(2))
    finally:
        SCALE = 1.0


DATA = np.array([1.0, 2.0, 3.0])
SIGN = 0.0


class Settings:
    factor = 2.0


class Model:
    def __init__(self, weights):
        self.weights = weights

    def loss(self, w):
        return np.sum(self.weights * w ** 2) * Settings.factor


def _data_loss(w):
    return np.sum((DATA * w) ** 2) * np.copysign(1.0, SIGN)


def test_arrays_attributes_and_signed_zeros_read_by_a_transformed_function_key_its_program():
    """A global array (rebound or changed in place), a class's or an object's attribute, and -0.0
    against 0.0: each kept the program of the first value (a minibatch's gradient of the first batch)."""
    global DATA, SIGN
    w, model = np.ones(3), Model(np.ones(3))
    try:
        for data, sign, weights, factor in [(DATA, 0.0, 1.0, 2.0), (DATA * 10, 0.0, 1.0, 2.0),
                                            (None, -0.0, 3.0, 2.0), (None, 0.0, 3.0, 5.0)]:
            if data is not None:
                DATA = data
            else:
                DATA[:] = DATA + 1  # in place
            SIGN, model.weights[:], Settings.factor = sign, weights, factor
            np.testing.assert_allclose(solvent.grad(_data_loss)(w), 2 * DATA ** 2 * w * np.copysign(1.0, SIGN))
            np.testing.assert_allclose(solvent.grad(model.loss)(w), 2 * model.weights * w * factor)
    finally:
        DATA, SIGN, Settings.factor = np.array([1.0, 2.0, 3.0]), 0.0, 2.0


class Layer:
    def __init__(self, weights):
        self.weights = weights

    def apply(self, x):
        return x * self.weights

    def __call__(self, x):
        return np.sum(self.apply(x) ** 2)

    @property
    def doubled(self):
        return 2.0 * self.weights


class Doubled(Layer):
    def apply(self, x):
        return super().apply(x) * 2.0


@dataclasses.dataclass
class Table:
    __slots__ = ("weights",)
    weights: np.ndarray

    def __getitem__(self, name):
        return getattr(self, name)

    def __call__(self, x):
        return np.sum(x * self.weights)


def _through(layer, x):
    return np.sum(layer.weights * x)  # (the global is named by the lambda, its attribute here)


LAYER, DOUBLED, TABLE = Layer(np.ones(3)), Doubled(np.ones(3)), Table(np.ones(3))
OPTIONS = collections.OrderedDict(scale=np.ones(3))


@pytest.mark.parametrize("fn, change", [
    (lambda x: np.sum(LAYER.apply(x)), lambda: setattr(LAYER, "weights", np.full(3, 5.0))),  # a method's self.W
    (lambda x: np.sum(LAYER.doubled * x), lambda: LAYER.weights.__setitem__(slice(None), 4.0)),  # a property's
    (LAYER, lambda: setattr(LAYER, "weights", np.full(3, 3.0))),  # a callable object's
    (functools.partial(lambda x, w: np.sum(x * w), w=LAYER.weights), lambda: LAYER.weights.fill(6.0)),
    (lambda x: np.sum(OPTIONS["scale"] * x), lambda: OPTIONS.__setitem__("scale", np.full(3, 7.0))),
    (lambda x: np.sum(_scaled(x)), lambda: globals().__setitem__("SCALE", 4.0)),  # a helper's global
    (lambda x: _through(LAYER, x), lambda: setattr(LAYER, "weights", np.full(3, 2.0))),  # an object passed on
    (lambda x: np.sum(DOUBLED.apply(x)), lambda: setattr(DOUBLED, "weights", np.full(3, 2.0))),  # super()
    (TABLE, lambda: setattr(TABLE, "weights", np.full(3, 2.0))),  # a dataclass (unhashable) with slots
    (lambda x: np.sum(TABLE["weights"] * x), lambda: setattr(TABLE, "weights", np.full(3, 3.0))),  # a dunder
    (lambda x: np.sum(globals()["SCALE"] * x), lambda: globals().__setitem__("SCALE", 5.0)),  # (warns)
], ids=["method", "property", "callable", "partial", "ordered dict", "helper", "object passed on", "super",
        "dataclass", "getitem", "globals()"])
def test_what_a_transformed_function_reaches_through_objects_and_helpers_keys_its_program(fn, change):
    """Reached through a method, a property, a callable object, a partial, a dict subclass or a helper
    function, each was keyed by identity alone: the program of its first value ran on."""
    global SCALE
    x = np.arange(3.0)
    try:
        solvent.grad(fn)(x)
        change()
        with warnings.catch_warnings():
            # keyed, no program made anew on every call; but where the name is read only when it runs
            warnings.simplefilter("ignore" if "globals" in getattr(getattr(fn, "__code__", None), "co_names", ())
                                  else "error")
            np.testing.assert_allclose(solvent.grad(fn)(x), _finite_gradient(fn, x), rtol=1e-6)
    finally:
        LAYER.weights, DOUBLED.weights, TABLE.weights, SCALE = np.ones(3), np.ones(3), np.ones(3), 1.0
        OPTIONS["scale"] = np.ones(3)


def _finite_gradient(fn, x, h=1e-6):
    return np.array([(fn(x + h * e) - fn(x - h * e)) / (2 * h) for e in np.eye(len(x))])


def test_a_helper_closing_over_an_array_is_not_kept_alive():
    """The rewritten helper was cached in a table by the helper, which it held: never freed, with the
    arrays it closes over (80 MB each in a training loop making new losses)."""
    import gc
    import weakref

    def make(weights):
        def helper(x):
            return x * weights

        return lambda x: np.sum(helper(x))

    alive = []
    for _ in range(3):
        weights = np.ones(100)
        alive.append(weakref.ref(weights))
        loss = make(weights)
        solvent.jit(loss)(np.ones(100))
        solvent.grad(loss)(np.ones(100))
        del weights, loss
    gc.collect()
    assert not any(ref() is not None for ref in alive)


class Dynamic:
    def __getattr__(self, name):  # (attributes made on the fly: nothing solvent can compare)
        return 1.0


def test_a_function_reading_an_object_it_cannot_key_compiles_every_call_and_warns():
    holder = Dynamic()

    def loss(w):
        return np.sum(w ** 2) * holder.scale

    with pytest.warns(solvent.RecompileWarning, match="compiles it anew"):
        np.testing.assert_allclose(solvent.grad(loss)(np.ones(2)), 2 * np.ones(2))
    from solvent import eager
    assert not eager.programs_of(loss)


def test_saving_and_printing_arrays_run_numpy_on_their_values(tmp_path):
    """np.save, np.savetxt, np.array2string, a.tobytes() and the like only read values out: NumPy's
    own on a host copy (they were refused as functions solvent.jit does not compile)."""
    host = np.arange(6.0).reshape(2, 3)
    a = solvent.asarray(host)
    np.save(tmp_path / "a.npy", a)
    np.savez(tmp_path / "b.npz", first=a, second=[a, a])
    np.savetxt(tmp_path / "a.txt", a)
    np.testing.assert_array_equal(np.load(tmp_path / "a.npy"), host)
    np.testing.assert_array_equal(np.load(tmp_path / "b.npz")["second"], [host, host])
    np.testing.assert_array_equal(np.loadtxt(tmp_path / "a.txt"), host)
    assert np.array2string(a) == np.array2string(host) and np.array_repr(a) == np.array_repr(host)
    assert a.tobytes() == host.tobytes()
