"""How compiled calls run: host arrays through jaxlib's C++ dispatch path, device arrays through
`execute_sharded` (donating the buffers of arguments written into)."""

import numpy as np
import pytest

import solvent


def test_fast_path_takes_over_after_the_first_call():
    a, b = np.arange(4.0), np.ones(4)
    compiled = solvent.compile(lambda x, y: x * y + 1, a, b)
    run = compiled.thunk.__globals__["_run"]
    for i in range(50):
        out = compiled(a, b)
    np.testing.assert_array_equal(out, np.arange(4.0) + 1)
    assert out.dtype == np.float64 and run.slow_path.misses == 1


def test_fast_path_with_donation_and_write_back():
    def bump(u, v):
        u += v
        return u.sum()

    u, v = solvent.asarray(np.zeros(3)), solvent.asarray(np.ones(3))
    f = solvent.jit(bump)
    for i in range(1, 6):
        old = u.buffer
        total = f(u, v)
        assert old.is_deleted()
        assert float(total) == 3.0 * i
    np.testing.assert_array_equal(np.asarray(u), np.full(3, 5.0))
    np.testing.assert_array_equal(np.asarray(v), np.ones(3))


@pytest.mark.parametrize("kind", [np.asarray, solvent.asarray])
def test_two_executables_of_one_shape_do_not_mix(kind):
    a = kind(np.arange(3.0))
    add = solvent.jit(lambda x: x + 1)
    mul = solvent.jit(lambda x: x * 10)
    for _ in range(3):
        np.testing.assert_array_equal(np.asarray(add(a)), np.arange(3.0) + 1)
        np.testing.assert_array_equal(np.asarray(mul(a)), np.arange(3.0) * 10)
