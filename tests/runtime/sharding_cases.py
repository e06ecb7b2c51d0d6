"""Sharded programs on 8 CPU devices, each checked against NumPy; run by test_sharding.py in a
subprocess (see multidevice.py). Each case returns facts the test asserts on."""

import dataclasses

import numpy as np

import solvent
from multidevice import collectives, main
from solvent.sharding import NamedSharding, PartitionSpec as P

MESH = solvent.sharding.mesh((4, 2), ("x", "y"))
LINE = solvent.sharding.mesh((8,), ("x",))
RNG = np.random.default_rng(0)


def put(host, *spec, mesh=MESH):
    return solvent.asarray(host, sharding=NamedSharding(mesh, P(*spec)))


def spec(array) -> str:
    return str(array.sharding.spec)


def facts(fn, *args, **options) -> dict:
    """Collectives in XLA's partitioned module, and whether it is the partitioned one."""
    hlo = solvent.code_xla(fn, *args, **options)
    return {"collectives": collectives(hlo), "partitions": "num_partitions=8" in hlo}


def elementwise(a, b):
    return a * b + np.sin(a) - b / 3.0


def case_elementwise():
    a_host, b_host = RNG.standard_normal((16, 8)), RNG.standard_normal((16, 8))
    a, b = put(a_host, "x", "y"), put(b_host, "x", "y")
    out = solvent.jit(elementwise)(a, b)
    np.testing.assert_allclose(np.asarray(out), elementwise(a_host, b_host), rtol=1e-13)
    return {"spec": spec(out), **facts(elementwise, a, b)}


def reductions(a):
    return np.sum(a, axis=0), np.max(a, axis=1), np.mean(a)


def case_reductions():
    host = RNG.standard_normal((16, 8))
    a = put(host, "x", "y")
    out = solvent.jit(reductions)(a)
    for got, want in zip(out, reductions(host)):
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12)
    return {"scalar": type(out[2]).__name__, **facts(reductions, a)}



def extrema(a):
    return (np.max(a), np.min(a, axis=0), a.max(axis=1), np.ptp(a, axis=1), a.max(initial=5.0),
            np.min(a.astype(np.float32), axis=1), np.max(a, axis=0, where=a > 3, initial=-1.0),
            np.nanmax(a, axis=0), np.nanmin(a), np.fmax.reduce(a, axis=1))


def case_extrema_keep_nan():
    """NaN wins max and min as in NumPy (XLA's all-reduce by maximum drops it), in a few rows and
    columns, past the 4,096 elements where XLA:CPU's own reduction drops it too; nanmax and nanmin
    skip it (their fmax reducer was no all-reduce XLA knew: a CompileError)."""
    for rows, cols in ((16, 8), (4096, 16)):
        host = RNG.standard_normal((rows, cols))
        host[3, 5] = host[rows - 6, 1] = np.nan
        got = solvent.jit(extrema)(put(host, "x", "y"))
        for g, w in zip(got, extrema(host)):
            np.testing.assert_array_equal(np.asarray(g), w)
            assert np.asarray(g).dtype == w.dtype
    return facts(extrema, put(host, "x", "y"))


def matmul(a, b):
    return a @ b


def case_matmul():
    a_host, b_host = RNG.standard_normal((16, 32)), RNG.standard_normal((32, 8))
    a, b = put(a_host, None, "x", mesh=LINE), put(b_host, "x", None, mesh=LINE)  # contracted dim sharded
    out = solvent.jit(matmul)(a, b)
    np.testing.assert_allclose(np.asarray(out), a_host @ b_host, rtol=1e-12)
    rows = solvent.jit(matmul)(put(a_host, "x", None, mesh=LINE), solvent.asarray(b_host))
    np.testing.assert_allclose(np.asarray(rows), a_host @ b_host, rtol=1e-12)
    return {"rows_spec": spec(rows), **facts(matmul, a, b)}


def stencil(u, v, dt):
    u[1:-1] += dt * (v[2:] - 2.0 * v[1:-1] + v[:-2])
    return np.sum(u * u)


def run_stencil(**options):
    u_host, v_host = np.linspace(0.0, 1.0, 64), np.cos(np.arange(64.0))
    u, v = put(u_host, "x", mesh=LINE), put(v_host, "x", mesh=LINE)
    step = solvent.jit(stencil, **options)
    donated = []
    for _ in range(3):
        old = u.buffer
        energy = step(u, v, 0.1)
        donated.append(old.is_deleted())
        expected = stencil(u_host, v_host, 0.1)
        np.testing.assert_allclose(np.asarray(u), u_host, rtol=1e-13)
        np.testing.assert_allclose(float(energy), expected, rtol=1e-13)
    np.testing.assert_array_equal(np.asarray(v), np.cos(np.arange(64.0)))
    return {"donated": all(donated), "spec": spec(u), "compiled": len(step.cache),
            "aliased": "input_output_alias" in solvent.code_xla(stencil, u, v, 0.1, **options),
            **facts(stencil, u, v, 0.1, **options)}


def case_stencil():
    return run_stencil()


def case_stencil_gspmd():
    return {**run_stencil(shardy_passes="to_mhlo_shardings"),
            "mhlo": "mhlo.sharding" in solvent.code_mhlo(stencil, put(np.ones(64), "x", mesh=LINE),
                                                       put(np.ones(64), "x", mesh=LINE), 0.1,
                                                       shardy_passes="to_mhlo_shardings")}


def heat(u, alpha):
    u[1:-1, 1:-1] += alpha * (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2] - 4.0 * u[1:-1, 1:-1])


def case_heat_2d():
    host = RNG.random((16, 16))
    u = put(host, "x", "y")
    step = solvent.jit(heat)
    for _ in range(3):
        step(u, 0.1)
        heat(host, 0.1)
    np.testing.assert_allclose(np.asarray(u), host, rtol=1e-13)
    return {"spec": spec(u), **facts(heat, u, 0.1)}


def noisy_walk(x, rng):
    """A random walk over a sharded array: NumPy's stream, drawn once per step."""
    for _ in range(3):
        normals, uniforms = rng.standard_normal(x.shape), rng.random(x.shape)
        x += 0.1 * normals + uniforms
    return x.sum(), rng.integers(0, 100, 5), normals, uniforms


def case_random_draws_on_a_mesh():
    """Draws in a program over 8 devices: the same bits as NumPy's (which has one), and the generator
    left in NumPy's state."""
    host = RNG.standard_normal((16, 8))
    x = put(host, "x", "y")
    ours, numpys = np.random.default_rng(5), np.random.default_rng(5)
    got, want = solvent.jit(noisy_walk)(x, ours), noisy_walk(host, numpys)
    for drawn, wanted in zip(got[1:], want[1:]):  # the last step's draws, and integers after them
        assert np.array_equal(np.asarray(drawn), wanted)
    # XLA may fuse 0.1 * normals + uniforms into one FMA, rounded once where NumPy rounds twice
    np.testing.assert_allclose(np.asarray(x), host, rtol=1e-14)
    assert abs(float(got[0]) - float(want[0])) <= 1e-12 * abs(want[0])
    assert ours.bit_generator.state == numpys.bit_generator.state
    return {"spec": spec(x), **facts(noisy_walk, x, np.random.default_rng(5))}


def case_host_arguments_placed_as_xla_asks():
    a_host, b_host = RNG.standard_normal(64), RNG.standard_normal(64)
    a = put(a_host, "x", mesh=LINE)
    add = solvent.jit(lambda a, b: a + 2.0 * b)
    out = add(a, b_host)                              # NumPy argument: sliced over the mesh
    np.testing.assert_allclose(np.asarray(out), a_host + 2.0 * b_host)
    single = solvent.asarray(b_host)                  # one-device Array: resharded on the devices
    np.testing.assert_allclose(np.asarray(add(a, single)), a_host + 2.0 * b_host)
    mutated = b_host.copy()

    def bump(a, b):
        b += a

    solvent.jit(bump)(a, mutated)
    np.testing.assert_allclose(mutated, b_host + a_host)
    source = next(iter(add.cache.entries.values())).source
    return {"spec": spec(out), "placed": "_put(x1, _k_sharding" in source, "source": source}


def case_explicit_shardings():
    host = RNG.standard_normal((16, 8))
    rows, everywhere = NamedSharding(MESH, P("x")), NamedSharding(MESH, P())
    f = solvent.jit(lambda a: (a * 2.0, a.sum(axis=1)), in_shardings=rows, out_shardings=(everywhere, rows))
    doubled, sums = f(solvent.asarray(host))
    np.testing.assert_allclose(np.asarray(doubled), host * 2.0)
    np.testing.assert_allclose(np.asarray(sums), host.sum(axis=1))
    by_name = solvent.jit(lambda a, b: a - b, in_shardings={"b": P("x", "y")})
    out = by_name(put(host, "x"), host)
    np.testing.assert_allclose(np.asarray(out), np.zeros_like(host))
    host_result = solvent.jit(lambda a: a + 1.0, in_shardings=rows)(host)  # NumPy in, NumPy out
    np.testing.assert_allclose(host_result, host + 1.0)
    return {"doubled": spec(doubled), "sums": spec(sums), "host_result": type(host_result).__name__}


def constrained(a):
    b = solvent.sharding.constraint(a * 2.0, P())
    return b + 1.0


def case_constraint():
    host = RNG.standard_normal(64)
    a = put(host, "x", mesh=LINE)
    out = solvent.jit(constrained)(a)
    np.testing.assert_allclose(np.asarray(out), host * 2.0 + 1.0)
    gspmd = solvent.jit(constrained, shardy_passes="to_mhlo_shardings")(a)
    np.testing.assert_allclose(np.asarray(gspmd), host * 2.0 + 1.0)
    resharded = solvent.sharding.constraint(a, NamedSharding(LINE, P()))  # outside jit: a copy laid out anew
    np.testing.assert_allclose(np.asarray(resharded), host)
    return {"in_hlo": "sdy.sharding_constraint" in solvent.code_hlo(constrained, a),
            "custom_call": "@Sharding" in solvent.code_mhlo(constrained, a, shardy_passes="to_mhlo_shardings"),
            "outside": spec(resharded), **facts(constrained, a)}


@dataclasses.dataclass
class State:
    u: object
    steps: int = 0


def advance(state, scale):
    state.u = state.u * scale
    scale += 1.0


def case_mutation_in_structures():
    u_host, s_host = RNG.standard_normal(32), RNG.standard_normal(32)
    state, scale = State(put(u_host, "x", mesh=LINE)), put(s_host, "x", mesh=LINE)
    old = scale.buffer
    solvent.jit(advance)(state, scale)
    np.testing.assert_allclose(np.asarray(state.u), u_host * s_host)
    np.testing.assert_allclose(np.asarray(scale), s_host + 1.0)
    return {"donated": old.is_deleted(), "u": spec(state.u), "scale": spec(scale)}


def case_results_feed_back_without_recompiling():
    host = RNG.standard_normal((16, 8))
    a = put(host, "x", None)
    f = solvent.jit(lambda a: a * 0.5 + 1.0)
    for _ in range(3):
        a = f(a)
        host = host * 0.5 + 1.0
    np.testing.assert_allclose(np.asarray(a), host)
    replicated = put(host, None)
    np.testing.assert_allclose(np.asarray(f(replicated)), host * 0.5 + 1.0)
    return {"compiled": len(f.cache)}


def damped(a, b):
    return np.tanh(a) * b - 0.25 * a


def case_disk_cache():
    """A sharded program compiled again by a new jit comes from the persistent cache: the pass
    pipeline's output and XLA's partitioned executable, with the layouts XLA chose for it."""
    from solvent.compiler import disk
    a_host, b_host = RNG.standard_normal((16, 8)), RNG.standard_normal((16, 8))
    a, b = put(a_host, "x", "y"), put(b_host, None, "y")
    first = solvent.jit(damped)(a, b)
    before = dict(disk.STATS)
    again = solvent.jit(damped)(a, b)
    for out in (first, again):
        np.testing.assert_allclose(np.asarray(out), damped(a_host, b_host), rtol=1e-13)
    return {"hits": disk.STATS["hits"] - before["hits"], "stores": disk.STATS["stores"] - before["stores"],
            "specs": [spec(first), spec(again)]}


def case_recompile_explained():
    """A jitted function called again with another layout of an argument says so."""
    import logging
    records = []
    handler = logging.Handler()
    handler.emit = records.append
    logging.getLogger("solvent").addHandler(handler)
    host = RNG.standard_normal((16, 8))
    f = solvent.jit(lambda a: a * 2.0, explain=True)
    f(put(host, "x", None))
    f(put(host, None, "y"))
    logging.getLogger("solvent").removeHandler(handler)
    return {"lines": [r.getMessage() for r in records]}


def case_eager_numpy_on_sharded_arrays():
    host = RNG.standard_normal(64)
    a = put(host, "x", mesh=LINE)
    total, twice = np.sum(a), a + a
    a[2:5] = 0.0
    host[2:5] = 0.0
    np.testing.assert_allclose(float(total), np.sum(np.asarray(twice)) / 2)
    np.testing.assert_allclose(np.asarray(a), host)
    return {"twice": spec(twice), "after_setitem": spec(a)}


def case_compiled_signature_names_sharding():
    a = put(np.ones(64), "x", mesh=LINE)
    compiled = solvent.compile(lambda x: x + 1.0, a)
    try:
        compiled(solvent.asarray(np.ones(64)))
    except solvent.SignatureError as error:
        return {"message": str(error)}
    raise AssertionError("no SignatureError for an unsharded array")


def case_two_meshes_are_refused():
    a, b = put(np.ones((8, 8)), "x"), put(np.ones((8, 8)), "x", mesh=LINE)
    try:
        solvent.jit(lambda a, b: a + b)(a, b)
    except solvent.sharding.ShardingError as error:
        return {"message": str(error)}
    raise AssertionError("no ShardingError for arguments on two meshes")


def case_a_sharded_array_does_not_share_the_ndarrays_memory():
    """jax.device_put shares a 64-byte aligned ndarray's memory on the CPU, part by part."""
    raw = np.zeros(64 * 64 + 8)
    start = (-raw.ctypes.data % 64) // 8
    host = raw[start:start + 64 * 64].reshape(64, 64)
    a = put(host, "x")
    host[0, 0] = host[40, 0] = 99.0
    np.testing.assert_array_equal(np.asarray(a), np.zeros((64, 64)))
    return {}


def case_results_of_data_dependent_length_from_sharded_arguments():
    """x[mask], np.unique and np.nonzero of a sharded array raised a raw RuntimeError: cutting the
    result to its length asked np.ndim of it, an eager program with no output, whose one (empty
    tuple) output sharding XLA reported was taken for a mismatch."""
    host = np.arange(64.0) - 30.0
    a = put(host, "x", mesh=LINE)
    np.testing.assert_array_equal(np.asarray(solvent.jit(lambda u: u[u > 1])(a)), host[host > 1])
    np.testing.assert_array_equal(np.asarray(solvent.jit(np.unique)(a)), np.unique(host))
    np.testing.assert_array_equal(np.asarray(np.nonzero(a > 1)[0]), np.nonzero(host > 1)[0])
    assert (np.ndim(a), np.shape(a)) == (1, (64,))
    return {}


def case_uneven_layouts_are_refused_with_the_fix():
    try:
        put(np.ones((7, 2)), "x", mesh=LINE)
    except solvent.sharding.ShardingError as error:
        return {"message": str(error)}
    raise AssertionError("no ShardingError for 7 rows over 8 devices")

def case_programs_run_on_the_device_their_arrays_are_on():
    """An Array put on another device than the first: eager NumPy and jitted calls on it ran on the
    first device and failed (\"Buffer ... is on device cpu:1, but replica is assigned to cpu:0\")."""
    import jax
    other = jax.devices()[3]
    host = np.arange(6.0)
    a = solvent.asarray(host, device=other)
    twice = a + a
    assert twice.device == other and np.asarray(twice).tolist() == (2 * host).tolist()

    @solvent.jit
    def step(x, y):
        x += y
        return x * 2.0, np.sum(x)
    doubled, total = step(a, np.ones(6))
    assert doubled.device == a.device == other and float(total) == np.sum(host + 1)
    first = step(solvent.asarray(host), np.ones(6))[0]  # the default device: a program of its own
    assert first.device == jax.devices()[0] and len(step.cache) == 2
    try:
        step(a, solvent.asarray(host))
    except solvent.SignatureError as error:
        return {"message": str(error)}
    raise AssertionError("no SignatureError for arrays on two devices")

if __name__ == "__main__":
    main({name[len("case_"):]: case for name, case in dict(globals()).items() if name.startswith("case_")})
