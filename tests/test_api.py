"""The entry points: jit, compile, code_hlo, code_mhlo, code_xla, and their options."""

import numpy as np
import pytest

import solvent
from differential import assert_same


def kernel(u, v):
    u[1:-1] += 0.5 * (v[2:] - v[:-2])
    return np.sum(u * v)


def args():
    return np.linspace(0.0, 1.0, 8), np.cos(np.arange(8.0))


def test_compile_ahead_of_time_runs_like_numpy():
    u, v = args()
    compiled = solvent.compile(kernel, u, v)
    assert isinstance(compiled, solvent.Compiled)
    u_ref, v_ref = args()
    assert_same(compiled(u, v), kernel(u_ref, v_ref))
    assert_same(u, u_ref)


def test_cost_analysis_and_memory_analysis():
    compiled = solvent.compile(kernel, *args())
    cost = compiled.cost_analysis()
    assert cost["flops"] > 0 and cost["bytes accessed"] > 0
    assert compiled.memory_analysis().argument_size_in_bytes == 2 * 8 * 8


def test_code_hlo_is_optimized_stablehlo_with_user_locations():
    text = solvent.code_hlo(kernel, *args())
    assert "func.func @main" in text and "stablehlo." in text
    assert f'"{__file__}"' in text, "ops carry the user's file:line"
    assert "private" not in text.split("func.func @main")[0]


def test_code_mhlo_marks_donated_inputs():
    text = solvent.code_mhlo(kernel, *args())
    assert "tf.aliasing_output = 1 : i32" in text  # u (mutated) aliases its new value
    assert text.count("tf.aliasing_output") == 1
    assert "tf.aliasing_output" not in solvent.code_mhlo(kernel, *args(), donate=False)


def test_code_xla_is_hlo_after_compilation():
    text = solvent.code_xla(kernel, *args())
    assert text.startswith("HloModule") and "ENTRY" in text
    assert "f64[8]" in text
    assert "input_output_alias" in text


def test_unoptimized_and_optimized_differ_but_agree():
    plain = solvent.code_hlo(lambda x: (x + 0.0) * 1.0, np.ones(3), optimize=False)
    optimized = solvent.code_hlo(lambda x: (x + 0.0) * 1.0, np.ones(3))
    assert "stablehlo.add" in plain and "stablehlo.add" not in optimized


def test_jit_as_decorator_with_options_and_sync():
    @solvent.jit(sync=True, optimize="canonicalize")
    def f(x):
        return x * 2

    assert_same(f(np.arange(3.0)), np.arange(3.0) * 2)


def test_device_option_accepts_index():
    f = solvent.jit(lambda x: x + 1, device=0)
    out = f(solvent.asarray(np.zeros(2)))
    assert out.device == solvent.asarray(np.zeros(1)).device


def test_donate_false_keeps_old_buffer():
    a = solvent.asarray(np.zeros(3))
    old = a.buffer

    def bump(x):
        x += 1

    solvent.jit(bump, donate=False)(a)
    assert not old.is_deleted()
    np.testing.assert_array_equal(np.asarray(a), np.ones(3))
    np.testing.assert_array_equal(np.asarray(old), np.zeros(3))


def test_compile_accepts_a_jitted_function():
    f = solvent.jit(lambda x: x - 1)
    assert_same(solvent.compile(f, np.ones(2))(np.ones(2)), np.zeros(2))


def test_supported_lists_registered_functions():
    names = solvent.supported()
    assert "np.sum" in names and "np.add" in names and "np.einsum" in names
    assert names == sorted(names)
    assert "np.polydiv" not in names


def test_thunk_source_is_generated_per_signature():
    compiled = solvent.compile(kernel, *args())
    source = compiled.thunk.source
    assert "def thunk(args, kwargs):" in source
    assert "_write(x0, ..., outs" in source, "the mutated ndarray argument is copied back"
    assert "_write(x1" not in source


def test_large_block_updates_outside_loops_become_pad_and_select():
    def stencil(u):
        u[1:-1] = 0.5 * (u[2:] + u[:-2])

    def touch_corner(u):
        u[0] = 1.0

    assert "stablehlo.select" in solvent.code_mhlo(stencil, np.zeros(64))
    assert "stablehlo.select" not in solvent.code_mhlo(touch_corner, np.zeros(64))  # small: left alone
    assert "stablehlo.select" not in solvent.code_mhlo(stencil, np.zeros(64), optimize=False)


def test_compile_from_shapes_and_dtypes_runs_on_real_arrays():
    def step(u, state, dt):
        u[1:-1] += dt * (u[2:] - 2 * u[1:-1] + u[:-2])
        state["t"] += dt
        return np.sum(u), state["t"] * 2

    compiled = solvent.compile(step, solvent.ShapeDtype((8,), np.float64),
                               {"t": solvent.ShapeDtype((), np.float64)}, 0.1)
    mine, theirs = (np.arange(8.0), {"t": np.array(0.0)}), (np.arange(8.0), {"t": np.array(0.0)})
    for _ in range(2):
        got, want = compiled(*mine, 0.1), step(*theirs, 0.1)
        for g, w in zip(got + (mine[0], mine[1]["t"]), want + (theirs[0], theirs[1]["t"])):
            assert_same(g, w)
    with pytest.raises(solvent.SignatureError, match=r"float64\[8\].*float64\[9\]"):
        compiled(np.zeros(9), {"t": np.array(0.0)}, 0.1)


def test_compile_from_shapes_mixed_with_arrays():
    compiled = solvent.compile(lambda a, b: a @ b, solvent.ShapeDtype((2, 3)), np.ones((3, 2), np.float32))
    a, b = np.arange(6.0).reshape(2, 3), np.ones((3, 2), np.float32)
    assert_same(compiled(a, b), a @ b)


def writes_its_first_element(a):
    a.ravel()[0] = 1.0  # (a program that depends on how `a` is laid out)
    return a.sum()


def test_compile_from_shapes_of_a_layout_dependent_program_runs_on_new_arrays():
    """The stand-in was a broadcast zero (strides 0): no real array matched the program compiled for it."""
    compiled = solvent.compile(writes_its_first_element, solvent.ShapeDtype((2, 3), np.float64))
    mine, theirs = np.zeros((2, 3)), np.zeros((2, 3))
    assert_same(compiled(mine), writes_its_first_element(theirs))
    assert_same(mine, theirs)


def halved(x, times):
    for _ in range(times):
        x = x * 0.5
    return x


def test_inspecting_or_compiling_a_jitted_function_uses_its_options():
    """code_hlo, code_mhlo, code_xla and compile showed the program of the default options, not the
    one the jitted function runs."""
    x = np.ones(2)
    unoptimized = solvent.jit(lambda v: v * 3.0 / 3.0, optimize=False)
    assert "stablehlo.divide" in solvent.code_hlo(unoptimized, x)
    assert "stablehlo.divide" not in solvent.code_hlo(unoptimized, x, optimize=True)  # (given ones first)
    assert not solvent.compile(unoptimized, x).options.optimize
    unrolled = solvent.jit(halved, static_argnames="times", unroll=100)
    assert "stablehlo.while" not in solvent.code_mhlo(unrolled, x, 20)
    assert "stablehlo.while" in solvent.code_mhlo(halved, x, 20, static_argnames="times")
    assert_same(solvent.compile(unrolled, x, 20)(x, 20), halved(x, 20))


def scaled_and_summed(x, n, *rest):
    return x * n + sum(rest)


def test_static_arguments_that_cannot_be_passed_by_name_are_clear_errors():
    """solvent passes static arguments by name: before one meant for *args, or a positional-only one,
    that raised a raw TypeError (or dropped all but one of the extra arguments)."""
    x = np.ones(2)
    jitted = solvent.jit(scaled_and_summed, static_argnames="n")
    assert_same(jitted(x, 2), scaled_and_summed(x, 2))
    with pytest.raises(solvent.SignatureError, match=r"\*args"):
        jitted(x, 2, x, x)
    with pytest.raises(ValueError, match="positional-only"):
        solvent.jit(lambda n, /, v: v * n, static_argnums=0)
    with pytest.raises(ValueError, match="not a parameter"):
        solvent.jit(scaled_and_summed, static_argnames="m")


def adds_into(a, b):
    a += b


def test_a_signature_error_names_an_argument_passed_twice():
    """The call's signature showed its key's raw ('ref', 1) for it."""
    compiled = solvent.compile(adds_into, np.zeros(3), np.ones(3))
    a = np.zeros(3)
    with pytest.raises(solvent.SignatureError, match=r"called with \(ndarray:float64\[3\], the same object again\)"):
        compiled(a, a)
