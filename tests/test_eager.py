"""NumPy on solvent.Array outside jit: small compiled programs, results stay on the device."""

import numpy as np

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
    program = eager._ufunc_program(np.multiply, "__call__")
    before = len(program.cache)
    a * 2.0
    assert len(program.cache) == before


def test_integer_indices_share_one_program():
    from solvent import eager

    host = np.arange(12.0).reshape(3, 4)
    a = solvent.asarray(host)
    a[0, 0]
    program = eager._function_program(eager._index)
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
