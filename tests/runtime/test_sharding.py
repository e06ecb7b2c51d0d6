"""Sharding: meshes, sharded solvent.Arrays, SPMD programs partitioned by XLA.

The 8-device cases run once, in a subprocess (sharding_cases.py), each
checking its values against NumPy; the tests here assert on what each case
reports. The rest runs in this process, which has one device.
"""

import os

import numpy as np
import pytest

import solvent
from golden import assert_golden
from multidevice import run_cases
from solvent.sharding import NamedSharding, PartitionSpec as P


@pytest.fixture(scope="module")
def cases():
    return run_cases(os.path.join(os.path.dirname(__file__), "sharding_cases.py"), devices=8)


def case(cases, name) -> dict:
    result = cases[name]
    assert result["ok"], result.get("error")
    return result


def test_sharded_elementwise_needs_no_communication(cases):
    result = case(cases, "elementwise")
    assert result["partitions"] and result["collectives"] == []
    assert result["spec"] == "P('x', 'y')"


def test_sharded_reductions_all_reduce(cases):
    result = case(cases, "reductions")
    assert result["partitions"] and "all-reduce" in result["collectives"]
    assert result["scalar"] == "Scalar"


def test_sharded_extrema_keep_nan(cases):
    assert "all-reduce" in case(cases, "extrema_keep_nan")["collectives"]


def test_matmul_over_the_sharded_contracted_dimension_all_reduces(cases):
    result = case(cases, "matmul")
    assert "all-reduce" in result["collectives"] or "reduce-scatter" in result["collectives"]
    assert result["rows_spec"] == "P('x',)"  # rows of a sharded operand stay where they are


@pytest.mark.parametrize("name", ["stencil", "stencil_gspmd"])
def test_stencil_with_in_place_update_exchanges_halos_and_donates(cases, name):
    result = case(cases, name)
    assert "collective-permute" in result["collectives"]  # neighbours' edge values
    assert "all-reduce" in result["collectives"]  # the energy sum
    assert "all-gather" not in result["collectives"]  # the block update is pad + select, no gather
    assert result["donated"] and result["aliased"] and result["compiled"] == 1
    assert result["spec"] == "P('x',)"  # the mutated array keeps its layout


def test_random_draws_over_devices_are_numpys(cases):
    """The draws' bits do not depend on the number of devices: the case compares them with NumPy's."""
    result = case(cases, "random_draws_on_a_mesh")
    assert result["partitions"] and result["spec"] == "P('x', 'y')"


def test_gspmd_export_writes_mhlo_shardings(cases):
    assert case(cases, "stencil_gspmd")["mhlo"]


def test_2d_heat_stencil_on_a_4x2_mesh(cases):
    result = case(cases, "heat_2d")
    assert result["collectives"] == ["collective-permute"]
    assert result["spec"] == "P('x', 'y')"


def test_a_sharded_array_does_not_share_the_ndarrays_memory(cases):
    case(cases, "a_sharded_array_does_not_share_the_ndarrays_memory")


def test_host_and_single_device_arguments_are_placed_as_xla_asks(cases):
    result = case(cases, "host_arguments_placed_as_xla_asks")
    assert result["placed"] and result["spec"] == "P('x',)"
    assert_golden("thunk_sharded.txt", result["source"])


def test_explicit_in_and_out_shardings(cases):
    result = case(cases, "explicit_shardings")
    assert result["doubled"] == "P()" and result["sums"] == "P('x',)"
    assert result["host_result"] == "ndarray"


def test_sharding_constraint_inside_jit(cases):
    result = case(cases, "constraint")
    assert result["in_hlo"] and result["custom_call"]
    assert "all-gather" in result["collectives"]  # sharded -> replicated
    assert result["outside"] == "P()"


def test_mutation_through_structures_donates_sharded_buffers(cases):
    result = case(cases, "mutation_in_structures")
    assert result["donated"] and result["u"] == result["scale"] == "P('x',)"


def test_sharded_programs_come_from_the_disk_cache(cases):
    result = case(cases, "disk_cache")
    assert result["hits"] == 2 and result["stores"] == 0  # the pass pipeline's output and XLA's executable
    assert result["specs"][0] == result["specs"][1]


def test_a_recompile_for_another_layout_is_explained(cases):
    (line,) = case(cases, "recompile_explained")["lines"]
    assert "compiles again: a: Array of float64[16, 8] laid out as" in line
    assert "spec=P('x',)" in line.split("->")[0] and "spec=P(None, 'y')" in line.split("->")[1]


def test_sharded_results_feed_back_without_recompiling(cases):
    assert case(cases, "results_feed_back_without_recompiling")["compiled"] == 2  # P('x') and P()


def test_eager_numpy_on_sharded_arrays(cases):
    result = case(cases, "eager_numpy_on_sharded_arrays")
    assert result["twice"] == result["after_setitem"] == "P('x',)"


def test_signature_error_names_the_sharding(cases):
    assert "sharded P('x',)" in case(cases, "compiled_signature_names_sharding")["message"]


def test_arguments_on_two_meshes_are_refused_with_the_fix(cases):
    message = case(cases, "two_meshes_are_refused")["message"]
    assert "one program runs on one mesh" in message and "solvent.asarray(x, sharding=" in message
    assert "sharding_cases.py" in message  # the user's line


def test_results_of_data_dependent_length_from_sharded_arguments(cases):
    case(cases, "results_of_data_dependent_length_from_sharded_arguments")


def test_uneven_layouts_are_refused_with_the_fix(cases):
    message = case(cases, "uneven_layouts_are_refused_with_the_fix")["message"]
    assert "dimension 0 of an array of shape (7, 2) into 8 parts" in message and "pad the array" in message

def test_programs_run_on_the_device_their_arrays_are_on(cases):
    assert "arguments on several devices" in case(cases, "programs_run_on_the_device_their_arrays_are_on")["message"]

# -- in this process (one device) -------------------------------------------------------------------


def test_one_device_mesh_is_an_ordinary_array():
    mesh = solvent.sharding.mesh((1,), ("x",))
    a = solvent.asarray(np.arange(4.0), sharding=NamedSharding(mesh, P("x")))
    assert len(a.key) == 2 and a.sharding.num_devices == 1
    assert "_execute([x0.buffer])" in solvent.compile(lambda x: x + 1, a).thunk.source  # no _put: as it is


def test_shardings_on_a_one_device_mesh_make_a_one_partition_program():
    mesh = solvent.sharding.mesh((1,), ("x",))
    rows = NamedSharding(mesh, P("x"))
    u, host = solvent.asarray(np.arange(8.0), sharding=rows), np.arange(8.0)

    def step(u):
        u[1:-1] += 0.5 * (u[2:] - u[:-2])
        return u.sum()

    compiled = solvent.compile(step, u, in_shardings=rows)
    assert compiled.placement.mesh.size == 1 and "sdy.sharding" in compiled.lowered.optimized_text
    assert "stablehlo.dynamic_update_slice" not in compiled.lowered.xla_text  # pad + select instead
    for _ in range(3):
        total = compiled(u)
        expected = step(host)
    np.testing.assert_allclose(np.asarray(u), host)
    assert float(total) == pytest.approx(expected)


def updates(a, b, c):
    a[1:-1, 2:] += 2.0 * b[1:-1, 2:]
    a[-2:, :3] = 7  # near the end: offsets as NumPy resolves them
    a[np.argmax(c), 0] = np.sum(b[0])  # a traced offset: stays a dynamic_update_slice
    two = np.concatenate([c[:2] * 3, c[2:]])
    many = np.concatenate([c, c * 2, c + 1, c - 1])  # more than halos.MOST_PIECES: stays a concatenate
    return two * 2, many + 1, np.concatenate([b, a], axis=1)


def test_block_updates_and_concatenations_as_pad_and_select_keep_their_values():
    mesh = solvent.sharding.mesh((1,), ("x",))
    a, b, c = np.arange(30.0).reshape(5, 6), np.cos(np.arange(30.0)).reshape(5, 6), np.arange(5.0)
    expected = updates(a.copy(), b, c)
    compiled = solvent.compile(updates, a, b, c, in_shardings=NamedSharding(mesh, P()))
    text = compiled.lowered.xla_text
    assert "stablehlo.pad" in text and "stablehlo.select" in text
    assert text.count("stablehlo.dynamic_update_slice") == 1 and text.count("stablehlo.concatenate") == 1
    got_a = a.copy()
    for got, want in zip(compiled(got_a, b, c), expected):
        np.testing.assert_allclose(got, want)
    updates(a, b, c)
    np.testing.assert_allclose(got_a, a)


def test_mesh_asking_for_too_many_devices_says_how_to_get_them():
    with pytest.raises(ValueError, match="xla_force_host_platform_device_count=8"):
        solvent.sharding.mesh((8,), ("x",))


def test_constraint_outside_jit_leaves_numpy_alone_and_needs_a_mesh():
    host = np.ones(3)
    assert solvent.sharding.constraint(host, P()) is host
    with pytest.raises(ValueError, match="NamedSharding"):
        solvent.jit(lambda x: solvent.sharding.constraint(x, P()))(host)


def test_sharding_options_are_checked():
    with pytest.raises(ValueError, match="shardy_passes"):
        solvent.jit(lambda x: x, shardy_passes="sometimes")
    with pytest.raises(ValueError, match="PartitionSpec needs a mesh"):
        solvent.jit(lambda x: x, in_shardings=P("x"))(np.ones(2))
    with pytest.raises(ValueError, match="device= or sharding="):
        solvent.asarray(np.ones(2), device=0, sharding=NamedSharding(solvent.sharding.mesh(1, "x"), P()))
