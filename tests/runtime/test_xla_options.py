"""The XLA backend options solvent compiles with (`runtime.xla_options`): small loops as one kernel."""

import numpy as np
from jax._src.lib import xla_client

import solvent
from solvent.runtime import xla_options

KEY = "xla_cpu_small_while_loop_byte_threshold"


def _backend_entries(options) -> bytes:
    """The serialized DebugOptions of `options`."""
    build = xla_options._field(options.SerializeAsString(), xla_options._BUILD_OPTIONS)
    return xla_options._field(build, xla_options._DEBUG_OPTIONS)


def test_compile_options_carry_the_small_loop_threshold():
    plain = xla_client.CompileOptions()
    assert xla_options._entry(KEY, str(xla_options.SMALL_LOOP_BYTES)) not in _backend_entries(plain)
    options = xla_options.with_backend_options(plain)
    assert xla_options._entry(KEY, str(xla_options.SMALL_LOOP_BYTES)) in _backend_entries(options)


def test_a_threshold_set_before_is_kept_and_other_options_survive():
    options = xla_client.CompileOptions()
    options.num_replicas, options.num_partitions = 1, 4
    options = xla_options.with_backend_options(options, {KEY: "5"})
    again = xla_options.with_backend_options(options)
    assert xla_options._entry(KEY, "5") in _backend_entries(again)
    assert xla_options._entry(KEY, str(xla_options.SMALL_LOOP_BYTES)) not in _backend_entries(again)
    assert again.num_partitions == 4


def forward_substitution(L, b):
    x = np.zeros_like(b)
    for i in range(L.shape[0]):
        x[i] = (b[i] - L[i, :i] @ x[:i]) / L[i, i]
    return x


def test_a_loop_over_rows_compiles_into_one_kernel():
    n = 40
    L = np.tril(np.random.default_rng(0).uniform(0.5, 1.5, (n, n))) + n * np.eye(n)
    b = np.arange(n, dtype=np.float64)
    assert 'xla_cpu_small_call="true"' in solvent.code_xla(forward_substitution, L, b)
    got = solvent.jit(forward_substitution)(L, b)
    np.testing.assert_allclose(got, forward_substitution(L, b), rtol=1e-13)


def relax(u, steps):
    for _ in range(steps):
        u[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
    return u


def test_a_loop_whose_iterations_move_much_memory_keeps_xla_kernels_per_op():
    u = np.zeros((200, 200))  # 320 KB read and written by an iteration: over the threshold
    text = solvent.code_xla(relax, u, 30, static_argnames="steps")
    assert "while(" in text and "xla_cpu_small_call" not in text
