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
