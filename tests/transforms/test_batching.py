"""`solvent.vmap` and `np.vectorize` through `enzyme.batch`: results equal the Python loop over the batch."""

import copy

import numpy as np
import pytest

import solvent
from solvent.errors import UnsupportedError

rng = np.random.default_rng(1)
xs, ys = rng.uniform(-1, 1, (5, 3)), rng.uniform(0.5, 1.5, (5, 3))
w = rng.uniform(-1, 1, (3, 4))


def looped(f, *batched, unmapped=()):
    """The reference: f on each example, stacked (NumPy's own loop)."""
    results = [f(*[b[i] for b in batched], *unmapped) for i in range(len(batched[0]))]
    if isinstance(results[0], tuple):
        return tuple(np.stack(r) for r in zip(*results))
    return np.stack(results)


def elementwise(x, y):
    return np.sin(x) * np.exp(y) - x / y


def reductions(x, y):
    return np.sum(x * y), np.max(x) - np.mean(y)


def layer(x, w):
    return np.tanh(x @ w)


def indexing(x, y):
    return x[1:] * y[:-1] + x[::-1][0]


def fresh_and_mutated(x, y):
    out = np.zeros(4)
    out[:3] = x * y
    out[3] = x[0]
    out[1] += y[2]
    return out


def data_branch(x, y):
    if np.sum(x) > 0:
        return x * y
    return x - y


def static_loop(x, y):
    for _ in range(70):  # rolled into a stablehlo.while
        x = np.cos(x) * 0.5 + y * 0.1
    return x


def data_loop(x, y):
    s = np.abs(x) + 0.1
    while np.sum(s) < 4.0:  # the trip count differs between examples
        s = s * 1.5 + y * 0.0
    return s


def unsigned_count(x, y):
    n, s = np.uint32(0), np.sum(np.abs(x)) + 0.1  # an unsigned loop carry (batching made
    while s < 4.0:                                  # arith.constants of its type)
        s = s * 1.5 + y[0] * 0.0
        n += np.uint32(1)
    return x * n


def generator_draws(x, y):  # a Generator's uint64 state carried through its rejection loops
    g = np.random.default_rng(7)
    return x + g.normal(size=x.shape) + g.integers(0, 10, x.shape) * y


@pytest.mark.parametrize("f", [elementwise, reductions, indexing, fresh_and_mutated, data_branch, static_loop,
                               data_loop, unsigned_count, generator_draws], ids=lambda f: f.__name__)
def test_vmap_equals_the_loop_over_the_batch(f):
    expected = looped(f, xs, ys)
    actual = solvent.vmap(f)(xs, ys)
    for a, e in zip(actual if isinstance(expected, tuple) else [actual],
                    expected if isinstance(expected, tuple) else [expected]):
        np.testing.assert_allclose(a, e, rtol=1e-12, atol=1e-14)


def test_unmapped_arguments_and_closures_inside_jit():
    @solvent.jit
    def apply(xs, w, scale):
        return solvent.vmap(lambda x, w: layer(x, w) * scale, in_axes=(0, None))(xs, w)
    np.testing.assert_allclose(apply(xs, w, 2.0), looped(layer, xs, unmapped=(w,)) * 2.0, rtol=1e-12)

    @solvent.jit
    def captured(xs, w):
        return solvent.vmap(lambda x: np.sum(layer(x, w)))(xs)  # w: a traced value of the outer function
    np.testing.assert_allclose(captured(xs, w), np.tanh(xs @ w).sum(axis=1), rtol=1e-12)


def test_in_axes_and_out_axes():
    columns = solvent.vmap(lambda c: c * np.arange(5.0), in_axes=1, out_axes=1)(xs)
    np.testing.assert_allclose(columns, xs * np.arange(5.0)[:, None], rtol=1e-12)
    last = solvent.vmap(lambda r, y: r + y, in_axes=(-1, None))(xs.T, ys[0])
    np.testing.assert_allclose(last, xs + ys[0], rtol=1e-12)
    structured = solvent.vmap(lambda p: p["a"] * p["b"], in_axes=({"a": 0, "b": None},))({"a": xs, "b": ys[0]})
    np.testing.assert_allclose(structured, xs * ys[0], rtol=1e-12)
    pair = solvent.vmap(lambda x: (x.sum(), x * 2), out_axes=(0, 1))(xs)
    np.testing.assert_allclose(pair[0], xs.sum(axis=1), rtol=1e-12)
    np.testing.assert_allclose(pair[1], 2 * xs.T, rtol=1e-12)
    keywords = solvent.vmap(lambda x, *, y: x * y)(xs, y=ys)
    np.testing.assert_allclose(keywords, xs * ys, rtol=1e-12)


def test_structures_in_and_out():
    def f(state):
        return {"energy": np.sum(state["u"] ** 2), "pair": (state["u"] * 2, state["v"][0])}
    out = solvent.vmap(f)({"u": xs, "v": ys})
    assert set(out) == {"energy", "pair"} and isinstance(out["pair"], tuple)
    np.testing.assert_allclose(out["energy"], np.sum(xs ** 2, axis=1), rtol=1e-12)
    np.testing.assert_allclose(out["pair"][1], ys[:, 0], rtol=1e-12)


def test_constants_in_the_result_are_stacked_as_the_loops():
    # `lambda v: 2.0` gave 2.0 where NumPy's loop stacks one per example
    def f(v):
        return 2.0, (np.float32(3.0), [np.ones(2)]), {"flag": True, "sum": v.sum()}
    X = np.arange(12.0).reshape(4, 3)
    got, expected = solvent.vmap(f)(X), [f(x) for x in X]
    for leaf, leaves in zip(structure_leaves(got), zip(*map(structure_leaves, expected))):
        np.testing.assert_array_equal(leaf, np.stack(leaves), strict=True)  # (shape and dtype too)


def structure_leaves(x):
    if isinstance(x, dict):
        return [v for k in sorted(x) for v in structure_leaves(x[k])]
    if isinstance(x, (tuple, list)):
        return [v for item in x for v in structure_leaves(item)]
    return [np.asarray(x)]

def test_mutation_of_mapped_arguments_is_the_loops():
    def step(u):
        u[1:] += u[:-1] * 0.5
        return u.sum()

    batched, rows = xs.copy(), xs.copy()
    totals = solvent.vmap(step)(batched)
    expected = [step(row) for row in rows]  # each row is a view: the loop updates `rows` in place
    np.testing.assert_allclose(totals, expected, rtol=1e-12)
    np.testing.assert_allclose(batched, rows, rtol=1e-12)


def test_per_example_gradients_equal_the_loop_of_gradients():
    def loss(params, x, y):
        prediction = np.tanh(x @ params["w"]) @ params["v"]
        return (prediction - y) ** 2

    params = {"w": rng.uniform(-1, 1, (3, 4)), "v": rng.uniform(-1, 1, 4)}
    targets = rng.uniform(-1, 1, 5)
    per_example = solvent.vmap(solvent.grad(loss), in_axes=(None, 0, 0))(params, xs, targets)
    singles = [solvent.grad(loss)(params, x, t) for x, t in zip(xs, targets)]
    for key in params:
        assert per_example[key].shape == (5,) + params[key].shape
        np.testing.assert_allclose(per_example[key], np.stack([g[key] for g in singles]), rtol=1e-12, atol=1e-14)

    @solvent.jit
    def clipped_mean_gradient(params, xs, targets):  # per-example clipping, as in DP-SGD
        g = solvent.vmap(solvent.grad(loss), in_axes=(None, 0, 0))(params, xs, targets)["w"]
        norms = np.sqrt(np.sum(g * g, axis=(1, 2)))
        return np.mean(g / np.maximum(norms, 1.0)[:, None, None], axis=0)
    expected = np.mean([g["w"] / max(np.linalg.norm(g["w"]), 1.0) for g in singles], axis=0)
    np.testing.assert_allclose(clipped_mean_gradient(params, xs, targets), expected, rtol=1e-12)


def test_nested_maps_and_derivatives():
    cube = rng.uniform(-1, 1, (2, 4, 3))
    inner = lambda r: np.sin(r) * r[0]
    np.testing.assert_allclose(solvent.vmap(solvent.vmap(inner))(cube),
                               np.stack([looped(inner, block) for block in cube]), rtol=1e-12)
    f = lambda x: np.sum(x ** 3) * x[1]
    hessians = solvent.vmap(solvent.hessian(f))(xs)
    np.testing.assert_allclose(hessians, np.stack([solvent.hessian(f)(x) for x in xs]), rtol=1e-12)
    jacobians = solvent.vmap(solvent.jacrev(inner))(xs)
    np.testing.assert_allclose(jacobians, np.stack([solvent.jacfwd(inner)(x) for x in xs]), rtol=1e-12)


def test_vmap_code_is_plain_stablehlo():
    text = solvent.code_hlo(lambda xs, w: solvent.vmap(layer, in_axes=(0, None))(xs, w), xs, w)
    assert "enzyme" not in text and "dot_general" in text


def test_errors():
    with pytest.raises(ValueError, match="one size"):
        solvent.vmap(lambda a, b: a + b)(xs, np.ones((4, 3)))
    with pytest.raises(ValueError, match="in_axes"):
        solvent.vmap(lambda a, b: a + b, in_axes=(0,))(xs, ys)

    def writes_unmapped(x, total):
        total += x
        return x
    with pytest.raises(UnsupportedError, match="not mapped"):
        solvent.vmap(writes_unmapped, in_axes=(0, None))(xs, np.zeros(3))


# -- np.vectorize --------------------------------------------------------------------------------


def piecewise(a, b):
    if a > b:
        return a - b
    return a * b


def test_np_vectorize_in_traced_code_is_one_batch():
    vf = np.vectorize(piecewise)
    grid, row = np.linspace(-1, 1, 12).reshape(3, 4), np.linspace(0, 0.5, 4)
    np.testing.assert_allclose(solvent.jit(lambda g, r: vf(g, r))(grid, row), vf(grid, row), rtol=1e-12)
    text = solvent.code_hlo(lambda g, r: vf(g, r), grid, row, optimize="none")
    assert "stablehlo.select" in text  # the branch, batched over the elements
    assert vf(1.0, 2.0) == 2.0        # outside traced code NumPy's own vectorize runs

    @solvent.jit
    def inline(x):
        return np.vectorize(lambda t: np.sin(t) * t, otypes=[np.float64])(x)
    np.testing.assert_allclose(inline(grid), np.sin(grid) * grid, rtol=1e-12)


def test_np_vectorize_signature_excluded_and_keywords():
    dot = np.vectorize(lambda a, b: np.sum(a * b), signature="(n),(n)->()")
    np.testing.assert_allclose(solvent.jit(lambda a, b: dot(a, b))(xs, ys[0]), dot(xs, ys[0]), rtol=1e-12)
    scaled = np.vectorize(lambda x, power, scale=1.0: scale * x ** power, excluded={1})
    expected = scaled(xs, 2, scale=ys)
    np.testing.assert_allclose(solvent.jit(lambda x, s: scaled(x, 2, scale=s))(xs, ys), expected, rtol=1e-12)
    outer = np.vectorize(lambda a, b: (a + b, a * b))
    total, product = solvent.jit(lambda a, b: outer(a, b))(xs, ys)
    np.testing.assert_allclose(total, xs + ys, rtol=1e-12)
    np.testing.assert_allclose(product, xs * ys, rtol=1e-12)
    assert "np.vectorize" in solvent.supported()


def test_vmap_outside_jit_is_one_cached_program():
    from solvent import eager
    first = solvent.vmap(elementwise)(xs, ys)
    again = solvent.vmap(elementwise)(copy.deepcopy(xs), ys)
    np.testing.assert_array_equal(first, again)
    (program,) = eager.programs_of(elementwise).values()
    assert len(program.cache) == 1


def test_out_axes_none_for_a_result_that_depends_on_the_mapped_arguments_is_an_error():
    """It took the first example's value (JAX refuses it too); a result the mapped arguments do not
    reach, through a loop as well, may be unmapped."""
    xs, c = np.arange(12.0).reshape(4, 3), np.ones(3)

    def summed(x):
        s = x * 0
        for _ in range(20):
            s = s + x
        return s, np.cos(c).sum()
    with pytest.raises(solvent.SignatureError, match="output 0 unmapped") as error:
        solvent.vmap(lambda x: x.sum(), out_axes=None)(xs)
    assert "test_batching.py" in str(error.value)
    with pytest.raises(solvent.SignatureError, match="output 0 unmapped"):
        solvent.vmap(summed, out_axes=(None, None))(xs)
    rows, constant = solvent.vmap(summed, out_axes=(0, None))(xs)
    np.testing.assert_allclose(rows, 20 * xs)
    np.testing.assert_allclose(constant, np.cos(c).sum())


def test_one_array_passed_twice_is_mapped_by_each_positions_axis():
    """Pairwise distances of a set against itself: both positions were mapped (all zeros)."""
    X = np.arange(6.0).reshape(3, 2)
    expected = np.array([((row - X) ** 2).sum(-1) for row in X])
    np.testing.assert_array_equal(solvent.vmap(lambda a, B: ((a - B) ** 2).sum(-1), in_axes=(0, None))(X, X), expected)
    np.testing.assert_array_equal(solvent.vmap(lambda a, B: ((a - B) ** 2).sum(-1), in_axes=(0, None))(X, X.copy()),
                                  expected)
