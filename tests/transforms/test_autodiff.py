"""Derivatives through Enzyme against central finite differences and JAX (JAX only as the reference).

Each case is NumPy code that solvent differentiates and NumPy runs for the finite
differences, with its jax.numpy twin for `jax.grad`/`jax.jacfwd`.
"""

import copy
import functools
import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import solvent
from solvent.errors import CompileError

RTOL = 1e-6
rng = np.random.default_rng(0)


def vector(n, low=-1.0, high=1.0):
    return rng.uniform(low, high, n)


def matrix(m, n, low=-1.0, high=1.0):
    return rng.uniform(low, high, (m, n))


@dataclasses.dataclass
class Case:
    name: str
    f: object        # NumPy code: traced by solvent, run by NumPy for finite differences
    reference: object  # the jax.numpy twin
    args: tuple
    argnums: object = 0


def same(make, *args, argnums=0, name=None):
    """A case written once for both modules: make(np) and make(jnp)."""
    return Case(name or make.__name__, make(np), make(jnp), args, argnums)


# -- the functions ----------------------------------------------------------------------------

def sin_exp(xp):
    return lambda x: xp.sum(xp.sin(x) * xp.exp(xp.cos(x)))


def tanh_log1p(xp):
    return lambda x: xp.tanh(x) + xp.log1p(x ** 2)


def ratio_sqrt(xp):
    return lambda x, y: xp.sqrt(x ** 2 + 1) / (1 + y ** 2)


def power(xp):
    return lambda x, y: xp.sum(xp.power(xp.abs(x) + 1, y))


def arctan2_hypot(xp):
    return lambda x, y: xp.arctan2(x, y) * xp.hypot(x, y)


def where_maximum(xp):
    return lambda x, y: xp.sum(xp.where(x > 0, x ** 2, -x) + xp.maximum(x, y))


def logaddexp_expm1(xp):
    return lambda x, y: xp.logaddexp(x, y) * xp.expm1(x / 3)


def clip_square(xp):
    return lambda x: xp.sum(xp.clip(x, -0.5, 0.5) ** 2 + x)


def mean_var(xp):
    return lambda x: xp.var(x) + xp.mean(x) ** 2


def max_min(xp):
    return lambda x, y: xp.max(x) * xp.min(y)


def product(xp):
    return lambda x: xp.prod(x)


def std_columns(xp):
    return lambda a: xp.std(a, axis=0)


def cumulative_sum(xp):
    return lambda x: xp.cumsum(x) * x


def cumulative_product(xp):
    return lambda a: xp.cumprod(a, axis=1) + xp.cumsum(a, axis=0) ** 2


def logsumexp(xp):
    def f(x):
        m = xp.max(x)
        return m + xp.log(xp.sum(xp.exp(x - m)))
    return f


def least_squares(xp):
    return lambda x, a, b: xp.sum((a @ x - b) ** 2)


def dense_layer(xp):
    return lambda w, x, c: xp.tanh(w @ x + c)


def einsum_product(xp):
    return lambda a, b: xp.einsum("ij,jk->ik", a, b)


def quadratic_form(xp):
    return lambda x, a: x @ (a @ x)


def matrix_cube(xp):
    return lambda a: xp.sum(a @ a @ a * xp.sin(a))


def differences(xp):
    return lambda x: x[1:] - x[:-1] * x[0]


def reversed_product(xp):
    return lambda x: x[::-1] * x + x[::2].sum()


def transpose_reshape(xp):
    return lambda a: xp.sum(a.T.reshape(-1) * xp.arange(a.size) * a.reshape(-1))


def concatenate_stack(xp):
    return lambda x: xp.concatenate([x, x ** 2]) * xp.stack([x, x[::-1]]).sum(axis=0)[xp.newaxis].T.reshape(-1)[0]


def two_layer_mlp(xp):
    def f(w1, w2, x, y):
        hidden = xp.tanh(x @ w1)
        return xp.mean((hidden @ w2 - y) ** 2)
    return f


# Mutation: written with NumPy's in-place operations; the JAX twins are functional.

def fill_fresh(x):
    out = np.zeros(x.size)
    out[0] = x[0]
    out[1:] = x[1:] * x[:-1]
    return np.sum(out * out)


def fill_fresh_jax(x):
    out = jnp.zeros(x.size).at[0].set(x[0]).at[1:].set(x[1:] * x[:-1])
    return jnp.sum(out * out)


def update_copy(x):
    y = x.copy()
    y *= 2
    y[1] += x[0] ** 2
    return np.sum(y ** 3)


def update_copy_jax(x):
    y = (x * 2).at[1].add(x[0] ** 2)
    return jnp.sum(y ** 3)


def mutate_argument(x):
    x *= 2.0
    x[0] = np.sin(x[1])
    return np.sum(x ** 2)


def mutate_argument_jax(x):
    x = (x * 2.0).at[0].set(jnp.sin(x[1] * 2.0))
    return jnp.sum(x ** 2)


def through_view(x, y):
    y = y.copy()
    v = y[1:]
    v *= x[:-1]
    v[0] = x[0] * 3
    return np.sum(y * y)


def through_view_jax(x, y):
    y = y.at[1:].multiply(x[:-1]).at[1].set(x[0] * 3)
    return jnp.sum(y * y)


# Linear algebra written in NumPy (LAPACK-backed np.linalg is not traced yet): Cholesky, then
# forward substitution, both in place.

def cholesky_solve(a, b):
    n = a.shape[0]
    l = np.zeros_like(a)
    for j in range(n):
        l[j, j] = np.sqrt(a[j, j] - np.dot(l[j, :j], l[j, :j]))
        l[j + 1:, j] = (a[j + 1:, j] - l[j + 1:, :j] @ l[j, :j]) / l[j, j]
    y = np.zeros_like(b)
    for i in range(n):
        y[i] = (b[i] - l[i, :i] @ y[:i]) / l[i, i]
    return np.sum(y ** 2)


def cholesky_solve_jax(a, b):
    n = a.shape[0]
    l = jnp.zeros_like(a)
    for j in range(n):
        l = l.at[j, j].set(jnp.sqrt(a[j, j] - jnp.dot(l[j, :j], l[j, :j])))
        l = l.at[j + 1:, j].set((a[j + 1:, j] - l[j + 1:, :j] @ l[j, :j]) / l[j, j])
    y = jnp.zeros_like(b)
    for i in range(n):
        y = y.at[i].set((b[i] - l[i, :i] @ y[:i]) / l[i, i])
    return jnp.sum(y ** 2)


# Loops and branches: Python control flow that solvent captures.

def static_loop(x):
    for _ in range(5):
        x = np.sin(x) + x * 0.5
    return np.sum(x)


def static_loop_jax(x):
    for _ in range(5):
        x = jnp.sin(x) + x * 0.5
    return jnp.sum(x)


def rolled_loop(x):
    for _ in range(100):  # longer than jit's unroll limit: one stablehlo.while
        x = np.sin(x) * 0.9 + 0.1 * x
    return np.sum(x * x)


def rolled_loop_jax(x):
    for _ in range(100):
        x = jnp.sin(x) * 0.9 + 0.1 * x
    return jnp.sum(x * x)


def indexed_loop(x):
    total = np.zeros(())
    for i in range(80):
        total = total + x[i % x.size] * np.cos(total)
    return total


def indexed_loop_jax(x):
    total = jnp.zeros(())
    for i in range(80):
        total = total + x[i % x.size] * jnp.cos(total)
    return total


def fori(x):
    return np.sum(solvent.fori_loop(0, 10, lambda i, c: c * np.cos(c) + x * 0.1 * i, x))


def fori_jax(x):
    return jnp.sum(jax.lax.fori_loop(0, 10, lambda i, c: c * jnp.cos(c) + x * 0.1 * i, x))


def branch(x):
    if np.sum(x) > 0:
        y = np.sin(x) * x
    else:
        y = np.cos(x)
    return np.sum(y)


def branch_jax(x):
    return jnp.sum(jnp.where(jnp.sum(x) > 0, jnp.sin(x) * x, jnp.cos(x)))


def branch_in_loop(x):
    for i in range(6):
        if x[i % 3] > 0:
            x = x * np.cos(x)
        else:
            x = x + np.sin(x)
    return np.sum(x)


def branch_in_loop_jax(x):
    for i in range(6):
        x = jnp.where(x[i % 3] > 0, x * jnp.cos(x), x + jnp.sin(x))
    return jnp.sum(x)


def explicit_cond(x, y):
    return np.sum(solvent.cond(np.max(x) > 0.5, lambda a, b: a * b, lambda a, b: a - b, x, y) ** 2)


def explicit_cond_jax(x, y):
    return jnp.sum(jax.lax.cond(jnp.max(x) > 0.5, lambda a, b: a * b, lambda a, b: a - b, x, y) ** 2)


def scan_cumulative(x):
    _, ys = solvent.scan(lambda c, v: (c * 0.5 + v, np.sin(c) * v), 0.0, x)
    return np.sum(ys)


def scan_cumulative_jax(x):
    _, ys = jax.lax.scan(lambda c, v: (c * 0.5 + v, jnp.sin(c) * v), 0.0, x)
    return jnp.sum(ys)


x5, y5 = vector(5), vector(5, 0.5, 1.5)
a34, a33, b33 = matrix(3, 4), matrix(3, 3), matrix(3, 3)
mlp = (matrix(4, 6) * 0.5, matrix(6, 2) * 0.5, matrix(8, 4), matrix(8, 2))

CASES = [
    same(sin_exp, x5), same(tanh_log1p, x5), same(ratio_sqrt, x5, y5, argnums=(0, 1)),
    same(power, x5, y5, argnums=(0, 1)), same(arctan2_hypot, x5, y5, argnums=(0, 1)),
    same(where_maximum, x5, y5, argnums=(0, 1)), same(logaddexp_expm1, x5, y5, argnums=(0, 1)),
    same(clip_square, vector(6, -0.9, 0.9) + np.array([0, 0, 0, 0.2, 0, 0])), same(mean_var, x5),
    same(max_min, x5, y5, argnums=(0, 1)), same(product, y5), same(std_columns, a34),
    same(cumulative_sum, x5), same(cumulative_product, a34), same(logsumexp, x5),
    same(least_squares, vector(4), a34, vector(3), argnums=(0, 1)), same(dense_layer, a34, vector(4), vector(3)),
    same(einsum_product, a34, matrix(4, 2), argnums=(0, 1)), same(quadratic_form, vector(3), a33),
    same(matrix_cube, a33), same(differences, x5), same(reversed_product, x5), same(transpose_reshape, a34),
    same(concatenate_stack, vector(3)), same(two_layer_mlp, *mlp, argnums=(0, 1)),
    Case("cholesky_solve", cholesky_solve, cholesky_solve_jax, (a33 @ a33.T + 3 * np.eye(3), vector(3)), (0, 1)),
    Case("fill_fresh", fill_fresh, fill_fresh_jax, (x5,)),
    Case("update_copy", update_copy, update_copy_jax, (x5,)),
    Case("mutate_argument", mutate_argument, mutate_argument_jax, (x5,)),
    Case("through_view", through_view, through_view_jax, (vector(4), vector(4)), (0, 1)),
    Case("static_loop", static_loop, static_loop_jax, (x5,)),
    Case("rolled_loop", rolled_loop, rolled_loop_jax, (x5,)),
    Case("indexed_loop", indexed_loop, indexed_loop_jax, (vector(4, 0.1, 0.5),)),
    Case("fori", fori, fori_jax, (vector(3, 0.2, 0.6),)),
    Case("branch", branch, branch_jax, (x5,)), Case("branch_negative", branch, branch_jax, (x5 - 2,)),
    Case("branch_in_loop", branch_in_loop, branch_in_loop_jax, (vector(3),)),
    Case("explicit_cond", explicit_cond, explicit_cond_jax, (x5, y5), (0, 1)),
    Case("scan", scan_cumulative, scan_cumulative_jax, (x5,)),
]


def numbers(case):
    return (case.argnums,) if isinstance(case.argnums, int) else case.argnums


def finite_differences(case, h=1e-6):
    """d f / d args[k] by central differences, on NumPy (copies: some cases mutate)."""
    base = np.asarray(case.f(*copy.deepcopy(case.args)))
    blocks = []
    for k in numbers(case):
        x = case.args[k]
        block = np.zeros(base.shape + x.shape)
        for index in np.ndindex(x.shape):
            step = h * max(1.0, abs(x[index]))
            plus, minus = copy.deepcopy(case.args), copy.deepcopy(case.args)
            plus[k][index] += step
            minus[k][index] -= step
            block[(...,) + index] = (np.asarray(case.f(*plus)) - np.asarray(case.f(*minus))) / (2 * step)
        blocks.append(block)
    return blocks


def jax_jacobian(case):
    with jax.enable_x64(True):
        args = [jnp.asarray(a) for a in case.args]
        jacobian = jax.jacfwd(case.reference, argnums=numbers(case))(*args)
        return [np.asarray(j) for j in jacobian]


def close(actual, expected, scale=1.0):
    np.testing.assert_allclose(np.asarray(actual), expected, rtol=RTOL, atol=RTOL * 1e-3 * scale)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_derivatives_match_finite_differences_and_jax(case):
    scalar = np.ndim(case.f(*copy.deepcopy(case.args))) == 0
    expected = jax_jacobian(case)
    differences = finite_differences(case)
    for e, d in zip(expected, differences):
        np.testing.assert_allclose(e, d, rtol=1e-5, atol=1e-7)  # the two references agree

    reverse_mode = solvent.grad if scalar else solvent.jacrev
    reverse = solvent.jit(lambda *a: reverse_mode(case.f, argnums=numbers(case))(*a))(*copy.deepcopy(case.args))
    forward = solvent.jacfwd(case.f, argnums=numbers(case))(*copy.deepcopy(case.args))
    scale = max(1.0, max(np.abs(e).max() for e in expected))
    for r, f, e, d in zip(reverse, forward, expected, differences):
        close(r, e, scale)
        close(f, e, scale)
        close(r, d, scale * 1e3)  # finite differences carry their own ~1e-9 error


# -- the transformations' interface --------------------------------------------------------------


def test_grad_outside_jit_and_value_and_grad():
    f = sin_exp(np)
    x = vector(4)
    with jax.enable_x64(True):
        expected = np.asarray(jax.grad(sin_exp(jnp))(jnp.asarray(x)))
    close(solvent.grad(f)(x), expected)
    value, gradient = solvent.value_and_grad(f)(x)
    assert np.isclose(value, f(x)) and np.ndim(value) == 0
    close(gradient, expected)


@pytest.mark.parametrize("magnitude", [np.hypot, lambda x, y: np.abs(x + 1j * y)], ids=["hypot", "complex abs"])
def test_magnitude_derivative_where_both_parts_are_equal(magnitude):
    """d|(x, y)|/dx = x / |(x, y)| also where |x| = |y| (the larger and smaller part tie), and 0 at 0."""
    x, y = np.array([2.0, 1.0, -1.5, 3.0, 0.0]), np.array([-2.0, 1.0, 1.5, 4.0, 0.0])
    dx, dy = solvent.grad(lambda x, y: np.sum(magnitude(x, y)), argnums=(0, 1))(x, y)
    size = np.hypot(x, y)
    with np.errstate(invalid="ignore"):
        expected_x, expected_y = np.where(size > 0, x / size, 0.0), np.where(size > 0, y / size, 0.0)
    close(dx, expected_x)
    close(dy, expected_y)


@pytest.mark.parametrize("base", [np.e, 2.0], ids=["logaddexp", "logaddexp2"])
def test_logaddexp_derivative_where_the_arguments_are_equal(base):
    """d/dx log(b^x + b^y) = b^x / (b^x + b^y): a half each where x = y."""
    ufunc = np.logaddexp if base == np.e else np.logaddexp2
    x, y = np.array([0.0, 1.5, -3.0, 2.0]), np.array([0.0, 1.5, -3.0, 1.0])
    dx, dy = solvent.grad(lambda x, y: np.sum(ufunc(x, y)), argnums=(0, 1))(x, y)
    share = base ** x / (base ** x + base ** y)
    close(dx, share)
    close(dy, 1.0 - share)


@pytest.mark.parametrize("reduce, x", [
    (lambda xp, x: xp.max(x), [1.0, 3.0, 3.0, 2.0]),
    (lambda xp, x: xp.sum(xp.max(x, axis=1) ** 2), [[1.0, 3.0, 3.0], [2.0, 2.0, 2.0], [0.5, 4.0, -1.0]]),
    (lambda xp, x: 2.0 * xp.amin(x, axis=0), [[1.0, 3.0], [1.0, 2.0], [1.0, 3.0]]),
    (lambda xp, x: xp.ptp(x), [1.0, 1.0, 4.0, 4.0, 4.0]),
    (lambda xp, x: xp.max(x, initial=5.0), [1.0, 2.0]),
], ids=["max", "max by rows", "min by columns", "ptp", "max below initial"])
def test_elements_tied_for_the_maximum_share_its_derivative(reduce, x):
    """k elements tied for the maximum (or minimum) get 1/k of its cotangent each, as JAX's rule gives:
    Enzyme's gave each the whole of it, no subgradient (the gradient of np.max([3., 3.]) summed to 2)."""
    x = np.array(x)
    expected = np.asarray(jax.jacrev(functools.partial(reduce, jnp))(jnp.asarray(x)))
    close(solvent.jacrev(functools.partial(reduce, np))(x), expected)
    close(solvent.jacfwd(functools.partial(reduce, np))(x), expected)


@pytest.mark.parametrize("fn", [
    lambda xp, x: xp.sum(xp.sort(x, axis=0) * xp.arange(4.0)[:, None]),
    lambda xp, x: xp.median(x),
    lambda xp, x: xp.sum(xp.percentile(x, xp.array([30.0, 75.0]), axis=1)),
    lambda xp, x: xp.sum(xp.partition(x.ravel(), 5)[5:]),
    lambda xp, x: xp.nanmax(xp.where(x > 1.0, xp.nan, x)),
    lambda xp, x: xp.sum(xp.nanmin(x, axis=1) ** 2),
], ids=["sort", "median", "percentile", "partition", "nanmax", "nanmin by rows"])
@pytest.mark.parametrize("mode", ["jacrev", "jacfwd"])
def test_derivatives_of_sorts_and_order_statistics(fn, mode):
    """Floats sort as their bits (bit casts Enzyme has no rule for) except in a function being
    differentiated, where they sort as argsort and gather; nanmax reduces by plain maximum."""
    x = np.array([[0.3, -1.2, 2.0], [1.5, 0.7, -0.4], [0.9, 3.1, -2.2], [-0.6, 1.1, 0.2]])
    expected = np.asarray(getattr(jax, mode)(functools.partial(fn, jnp))(jnp.asarray(x)))
    close(getattr(solvent, mode)(functools.partial(fn, np))(x), expected)


@pytest.mark.parametrize("ufunc, derivative, x", [
    (np.arctanh, lambda x: 1 / (1 - x * x), [0.0, 0.3, -0.45, 0.7, -0.99]),
    (np.arccosh, lambda x: 1 / (np.sqrt(x - 1) * np.sqrt(x + 1)), [1.001, 1.5, 4.3, 1e10, 1e200]),
    (np.tan, lambda x: 1 / np.cos(x) ** 2, [0.0, 0.4, -1.2, 3.0, 10.0]),
], ids=["arctanh", "arccosh", "tan"])
def test_inverse_hyperbolic_and_tan_derivatives(ufunc, derivative, x):
    """enzyme-ad's rules for chlo.atanh and chlo.acosh were wrong (atanh's sign flipped) and tan had none."""
    x = np.array(x)
    close(solvent.grad(lambda x: np.sum(ufunc(x)))(x), derivative(x))
    close(solvent.jvp(ufunc, (x,), (np.ones_like(x),))[1], derivative(x))


def test_gradient_through_strided_slices_of_a_cumulative_sum():
    """slice_pad gave a strided slice of the scan's pads the wrong shape, and MLIR aborted the process."""
    x, y = np.linspace(0.2, 1.5, 8), np.linspace(-1.2, 1.2, 8)
    dx, dy = solvent.grad(lambda x, y: np.sum(np.cumsum(x)[::2] * y[::2]), argnums=(0, 1))(x, y)
    even = np.arange(8) % 2 == 0
    close(dx, np.cumsum(np.where(even, y, 0.0)[::-1])[::-1])
    close(dy, np.where(even, np.cumsum(x), 0.0))


@pytest.mark.parametrize("n", [600, 20000])
def test_derivatives_of_a_long_cumulative_sum(n):
    """Axes of 512 and more are scanned pairwise, inside barriers Enzyme has no derivative for: autodiff
    scans them again by log steps (at 20000 elements, the barriers simply dropped took minutes to compile)."""
    x, w = vector(n), vector(n)
    close(solvent.grad(lambda x: np.sum(np.cumsum(x) * w))(x), np.cumsum(w[::-1])[::-1], scale=n)
    close(solvent.jvp(lambda x: np.cumsum(x * w), (x,), (np.ones(n),))[1], np.cumsum(w), scale=n)


def test_grad_of_a_python_float_is_a_float():
    g = solvent.grad(lambda t: t * t * np.sin(t))(2.0)
    assert np.isclose(g, 2 * 2.0 * np.sin(2.0) + 4.0 * np.cos(2.0))
    assert np.ndim(g) == 0


def test_has_aux_and_argnums():
    def loss(w, x):
        error = x @ w - 1.0
        return np.sum(error ** 2), error

    w, x = vector(3), matrix(5, 3)
    (gw, gx), error = solvent.grad(loss, argnums=(0, 1), has_aux=True)(w, x)
    with jax.enable_x64(True):
        (jw, jx), _ = jax.grad(lambda w, x: (jnp.sum((x @ w - 1) ** 2), 0.0), argnums=(0, 1), has_aux=True)(w, x)
    close(gw, jw, 10)
    close(gx, jx, 10)
    close(error, x @ w - 1.0)


@dataclasses.dataclass
class Params:
    weight: np.ndarray
    bias: np.ndarray
    steps: np.ndarray    # an integer array: gets a zero gradient
    name: str = "layer"


def test_gradient_has_the_structure_of_the_parameters():
    x, y = matrix(6, 3), vector(6)

    def loss(params, x, y):
        prediction = np.tanh(x @ params["w"]) * params["scale"][0] + params["b"]
        return np.mean((prediction - y) ** 2)

    params = {"w": vector(3), "b": np.array(0.1), "scale": (np.array(2.0),)}
    g = solvent.grad(loss)(params, x, y)
    assert isinstance(g, dict) and set(g) == set(params) and isinstance(g["scale"], tuple)
    with jax.enable_x64(True):
        jg = jax.grad(lambda p: jnp.mean((jnp.tanh(x @ p["w"]) * p["scale"][0] + p["b"] - y) ** 2))(
            jax.tree_util.tree_map(jnp.asarray, params))
    for key in ("w", "b"):
        close(g[key], jg[key])
    close(g["scale"][0], jg["scale"][0])

    def dataclass_loss(p, x):
        return np.sum((x @ p.weight + p.bias) ** 2) + p.steps.sum() * 0.0

    p = Params(vector(3), np.array(0.5), np.array([3, 4]))
    gp = solvent.grad(dataclass_loss)(p, x)
    assert type(gp) is Params and gp.name == "layer"
    close(gp.weight, 2 * x.T @ (x @ p.weight + p.bias))
    close(gp.bias, 2 * np.sum(x @ p.weight + p.bias))
    np.testing.assert_array_equal(gp.steps, [0, 0])


def test_grad_inside_jit_of_a_closure_over_traced_values():
    @solvent.jit
    def step(w, x, y, lr):
        g = solvent.grad(lambda w: np.sum((x @ w - y) ** 2))(w)
        w -= lr * g      # an optimizer step, in place
        return np.sum((x @ w - y) ** 2)

    w, x, y = vector(3), matrix(6, 3), vector(6)
    expected_w = w - 0.01 * (2 * x.T @ (x @ w - y))
    loss = step(w, x, y, 0.01)
    close(w, expected_w)
    close(loss, np.sum((x @ expected_w - y) ** 2))


def test_nested_function_with_a_branch_inside_jit():
    @solvent.jit
    def f(x):
        def loss(w):
            if np.sum(w) > 0:
                total = np.sum(w ** 3)
            else:
                total = np.sum(w)
            return total
        return solvent.grad(loss)(x)
    close(f(np.abs(x5)), 3 * x5 ** 2)
    close(f(-np.abs(x5)), np.ones(5))


def test_mutation_inside_the_differentiated_function_is_written_back_once():
    x = x5.copy()
    g = solvent.grad(mutate_argument)(x)
    with jax.enable_x64(True):
        close(g, jax.grad(mutate_argument_jax)(x5))
    expected = x5.copy()
    mutate_argument(expected)
    np.testing.assert_allclose(x, expected)


def test_higher_order_derivatives():
    f = lambda x: np.sum(np.sin(x) * x ** 3) * x[1]
    jf = lambda x: jnp.sum(jnp.sin(x) * x ** 3) * x[1]
    x = vector(4)
    with jax.enable_x64(True):
        expected = np.asarray(jax.hessian(jf)(x))
        second = np.asarray(jax.grad(lambda x: jax.grad(jf)(x)[2])(x))
    close(solvent.hessian(f)(x), expected, 10)
    close(solvent.jacfwd(solvent.jacrev(f))(x), expected, 10)
    close(solvent.jacrev(solvent.jacfwd(f))(x), expected, 10)
    close(solvent.jacrev(solvent.grad(f))(x), expected, 10)
    close(solvent.grad(lambda x: solvent.grad(f)(x)[2])(x), second, 10)


def test_vjp_and_jvp_match_jax():
    f = lambda x, y: (np.sin(x) * y, np.sum(x * y))
    jf = lambda x, y: (jnp.sin(x) * y, jnp.sum(x * y))
    x, y, dx, dy, ct = vector(3), vector(3), vector(3), vector(3), vector(3)
    out, pullback = solvent.vjp(f, x, y)
    cx, cy = pullback((ct, 2.0))
    primal, tangent = solvent.jvp(f, (x, y), (dx, dy))
    with jax.enable_x64(True):
        jout, jpull = jax.vjp(jf, x, y)
        jcx, jcy = jpull((ct, 2.0))
        jprimal, jtangent = jax.jvp(jf, (x, y), (dx, dy))
    close(out[0], jout[0])
    close(cx, jcx)
    close(cy, jcy)
    close(primal[1], jprimal[1])
    close(tangent[0], jtangent[0])
    close(tangent[1], jtangent[1])

    @solvent.jit
    def inside(x, y, ct):
        out, pullback = solvent.vjp(lambda x: np.sin(x) * y, x)
        return out, pullback(ct)[0]
    _, cotangent = inside(x, y, ct)
    close(cotangent, np.cos(x) * y * ct)


def test_jacobian_structures_nest_output_then_argument():
    f = lambda p: {"a": p["u"] * p["v"][0], "b": np.sum(p["u"])}
    p = {"u": vector(3), "v": vector(2)}
    for jacobian in (solvent.jacfwd, solvent.jacrev):
        j = jacobian(f)(p)
        assert set(j) == {"a", "b"} and set(j["a"]) == {"u", "v"}
        assert j["a"]["u"].shape == (3, 3) and j["a"]["v"].shape == (3, 2) and j["b"]["u"].shape == (3,)
        close(j["a"]["u"], np.diag(np.full(3, p["v"][0])))
        close(j["a"]["v"][:, 0], p["u"])
        close(j["b"]["v"], np.zeros(2))


def test_code_hlo_of_a_gradient_is_plain_stablehlo():
    text = solvent.code_hlo(lambda x: solvent.grad(rolled_loop)(x), x5)
    assert "enzyme" not in text and "stablehlo." in text


@pytest.mark.parametrize("level", ["none", "canonicalize", "just_batch", "only_enzyme", "after_enzyme",
                                   "before_enzyme", "no_enzyme", "all"])
def test_every_level_lowers_enzyme_ops(level):
    f = solvent.jit(lambda x: (solvent.grad(sin_exp(np))(x), solvent.vmap(np.sin)(x)), optimize=level)
    gradient, mapped = f(x5)
    with jax.enable_x64(True):
        close(gradient, jax.grad(sin_exp(jnp))(x5))
    close(mapped, np.sin(x5))


def test_writes_to_outside_arrays_are_refused():
    @solvent.jit
    def f(x, log):
        def loss(w):
            log[0] = np.sum(w)  # a side effect on an array the derivative cannot carry
            return np.sum(w ** 2)
        return solvent.grad(loss)(x)
    with pytest.raises(solvent.UnsupportedError, match="assigns to an array from outside it"):
        f(x5, np.zeros(2))


def test_integer_arguments_are_refused_and_python_scalars_kept_static():
    with pytest.raises(solvent.SignatureError, match="float arrays"):
        solvent.grad(lambda n: np.sum(n * 1.0))(np.arange(3))
    with pytest.raises(solvent.SignatureError, match="the integer 2") as error:
        solvent.grad(lambda s, x: s * np.sum(x))(2, x5)  # a Python int is no float either
    assert "test_autodiff.py" in str(error.value)
    g = solvent.grad(lambda x, n: np.sum(x ** n))(x5, 3)
    close(g, 3 * x5 ** 2)


@dataclasses.dataclass
class Physics:
    k: np.ndarray
    damping: float
    order: int


@pytest.mark.parametrize("inside_jit", [False, True])
def test_floats_inside_the_parameters_are_differentiated_and_integers_get_zeros(inside_jit):
    """A Python float inside a dict or dataclass of parameters is a parameter, as a 0-d array is (its
    gradient was the float itself); an int inside gets a zero, as an integer array does."""
    def loss(p, q, x):
        return np.sum(p["a"] * x) + p["b"] ** 2 * 3.0 + p["n"] * 1.0 + np.sum(q.k * x) * q.damping + q.order

    def gradients(p, q, x):
        return solvent.grad(loss, argnums=(0, 1))(p, q, x)
    x = np.array([1.0, 2.0])
    p, q = {"a": np.array(2.0), "b": 0.7, "n": 3}, Physics(np.array([0.5, 1.5]), 0.25, 2)
    gp, gq = (solvent.jit(gradients) if inside_jit else gradients)(p, q, x)
    close(gp["a"], x.sum())
    close(gp["b"], 6 * 0.7)
    close(gq.k, 0.25 * x)
    close(gq.damping, np.sum(q.k * x))
    assert gp["n"] == 0 and type(gp["n"]) is int and gq.order == 0


def test_the_gradient_of_a_numpy_float_scalar_has_its_dtype():
    g = solvent.grad(lambda s, x: s * np.sum(x))(np.float32(1.5), np.ones(2, np.float32))
    assert type(g) is np.float32 and g == 2.0


def opaque(x):
    """`x` through a custom call, an op Enzyme has no derivative for (no NumPy function emits one)."""
    from jaxlib.mlir import ir
    from solvent.core import trace
    from solvent.numpy.values import value, wrap
    from solvent.ops.base import create
    with trace.current().emitting():
        op = create("stablehlo.custom_call", [value(x)], [value(x).type],
                    {"call_target_name": ir.StringAttr.get("opaque")})
    return wrap(op.result)


def test_an_op_without_a_derivative_is_named_with_the_users_line():
    def f(x):
        y = np.sin(x)
        return np.sum(opaque(y) * x)
    where = r"no derivative for `stablehlo.custom_call` \(used at .*test_autodiff.py:\d+"
    with pytest.raises(CompileError, match=where):
        solvent.grad(f)(x5)


def test_reverse_mode_through_a_loop_of_traced_length_says_to_use_forward_mode():
    def until_large(x):
        s = x * 1.0
        while np.sum(s) < 10.0:
            s = s * 1.5
        return np.sum(s * s)
    x = vector(3, 0.2, 0.5)
    with pytest.raises(CompileError, match=r"while` loop at .*test_autodiff.py:.*solvent.jacfwd"):
        solvent.grad(until_large)(x)
    expected = finite_differences(Case("until_large", until_large, None, (x,)))[0]
    close(solvent.jacfwd(until_large)(x), expected, 1e4)


def recurrence(x, steps):
    """`y[i] = f(y[i - 1])` as simulations write it: a loop from 1 (or backwards, or by twos)."""
    y = np.zeros_like(x)
    y[steps[0] - np.sign(steps[2])] = x[0]
    for i in range(*steps):
        y[i] = 0.5 * y[i - np.sign(steps[2])] + np.sin(x[i])
    return np.sum(y * y)


@pytest.mark.parametrize("steps", [(1, 40, 1), (38, -1, -1), (1, 40, 2)])
def test_reverse_mode_through_a_static_loop_not_from_zero_by_one(steps):
    """Enzyme caches a loop's values by a counter from 0 by 1: such a loop failed to compile under grad
    ('WhileOp does not have induction variable'); a static range now counts its steps that way."""
    x = vector(40, -1.0, 1.0)
    fn = functools.partial(recurrence, steps=steps)
    expected = finite_differences(Case("recurrence", fn, None, (x,)))[0]
    close(solvent.grad(fn)(x), expected, 1e2)
    close(solvent.jit(solvent.grad(fn))(x), expected, 1e2)


def test_checkpointing_bounds_the_memory_of_a_long_loop():
    def simulate(u):
        for _ in range(400):
            u = u + 0.01 * np.sin(u) * u[::-1]
        return np.sum(u * u)

    u = np.linspace(0.0, 1.0, 4096)
    plain = solvent.compile(lambda u: solvent.grad(simulate)(u), u)
    checkpointed = solvent.compile(lambda u: solvent.grad(simulate, checkpoint=20)(u), u)
    state = u.nbytes
    plain_bytes = plain.memory_analysis().temp_size_in_bytes
    checkpointed_bytes = checkpointed.memory_analysis().temp_size_in_bytes
    assert plain_bytes >= 400 * state            # every iteration's state is stored
    assert checkpointed_bytes <= 60 * state      # ~n/k checkpoints plus one period of k states
    np.testing.assert_allclose(checkpointed(u), plain(u), rtol=1e-12)


@pytest.mark.parametrize("period", [0, -1, 2.5, "10"])
def test_a_checkpoint_period_that_is_no_count_of_steps_is_refused(period):
    for transform in (solvent.grad, solvent.value_and_grad):
        with pytest.raises(ValueError, match="checkpoint="):
            transform(np.sum, checkpoint=period)
    with pytest.raises(ValueError, match="checkpoint="):
        solvent.vjp(np.sum, np.ones(3), checkpoint=period)


def test_python_float_primals_in_every_mode():
    # jvp, vjp and jit(grad) of a Python float raised a raw RuntimeError (no MLIR context)
    f = lambda x: x ** 3
    for primal in (2.0, np.float64(2.0)):
        assert solvent.jvp(f, (primal,), (1.0,)) == (8.0, 12.0)
        assert solvent.vjp(f, primal)[1](1.0) == (12.0,)
        assert solvent.jit(solvent.grad(f))(primal) == solvent.grad(f)(primal) == 12.0


def doubled_if_large(a):
    y = a
    if a > 1.0:
        y = a * 2
    return y


def halved_until_small(a):
    x = a
    while x > 10.0:
        x = x * 0.5
    return x


def test_results_that_are_views_or_maybe_the_argument_itself():
    """A view's value was read outside any op's location (a raw MLIR RuntimeError)."""
    x = vector(4)
    _, tangent = solvent.jvp(lambda x: np.sin(x)[:3], (x,), (x,))
    close(tangent, np.cos(x[:3]) * x[:3])
    close(solvent.jacfwd(lambda x: np.sin(x)[:3])(x), np.eye(3, 4) * np.cos(x))
    close(solvent.jacrev(lambda x: x[:3])(x), np.eye(3, 4))
    for a, slope in ((3.0, 2.0), (0.5, 1.0)):
        close(solvent.grad(doubled_if_large)(np.array(a)), slope)
    close(solvent.jvp(halved_until_small, (np.array(50.0),), (np.array(1.0),))[1], 0.125)
    with pytest.raises(CompileError, match="use forward mode|Use forward mode"):  # (a trip count of the data)
        solvent.grad(halved_until_small)(np.array(50.0))


def test_a_function_reassigning_an_item_of_its_argument():
    """The gradient is by the parameters as they were at the call (it raised a raw KeyError); the
    reassignment is written back once, as a call would."""
    def loss(p):
        p["w"] = p["w"] * 2.0
        return np.sum(p["w"] ** 2)
    w = np.array([1.0, 2.0])
    params = {"w": w}
    close(solvent.grad(loss)(params)["w"], 8 * w)
    close(params["w"], 2 * w)
    params = {"w": w}
    _, pullback = solvent.vjp(loss, params)
    close(pullback(1.0)[0]["w"], 8 * w)


@pytest.mark.parametrize("call, match", [
    (lambda x: solvent.jvp(np.sin, x, np.ones(3)), "as tuples"),
    (lambda x: solvent.jvp(np.sin, (x, x), (np.ones(3),)), "2 primals and 1 tangents"),
    (lambda x: solvent.jvp(np.sin, (x,), (np.ones(2),)), r"tangent 0 has shape \(2,\) where it needs \(3,\)"),
    (lambda x: solvent.jvp(np.sin, (x,), (np.ones(1),)), r"tangent 0 has shape \(1,\)"),  # (not broadcast)
    (lambda x: solvent.jvp(lambda p: p["w"], ({"w": x},), ({"w": np.ones(2)},)), r"tangent 0\['w'\]"),
    (lambda x: solvent.vjp(np.sin, x)[1](np.ones(2)), r"cotangent of output 0 has shape \(2,\)")])
def test_tangents_and_cotangents_of_another_form_are_signature_errors(call, match):
    """They were raw TypeErrors, NumPy's broadcasting errors, or silently broadcast."""
    with pytest.raises(solvent.SignatureError, match=match) as error:
        call(vector(3))
    assert "test_autodiff.py" in str(error.value)


def test_one_array_passed_twice_is_differentiated_at_its_own_position():
    """grad(f)(x, x) differentiated both uses (2x for sum(a * b), NumPy's answer by hand: x)."""
    x = np.arange(3.0)
    np.testing.assert_array_equal(solvent.grad(lambda a, b: np.sum(a * b))(x, x), x)
    np.testing.assert_array_equal(solvent.jacfwd(lambda a, b: a * b)(x, x), np.diag(x))
    np.testing.assert_array_equal(solvent.grad(lambda a, b: np.sum(a * b[::-1]))(x, x), x[::-1])
    np.testing.assert_array_equal(solvent.grad(lambda a, b: np.sum(a[1:] * b))(x, x[:2]), [0.0, 0.0, 1.0])
