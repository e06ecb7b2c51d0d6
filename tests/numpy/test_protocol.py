"""The dispatch protocols' errors: unsupported NumPy calls raise `solvent.UnsupportedError`
naming the function and the user's line; converting a traced value to a Python value raises
`solvent.TracerConversionError` naming the line; nothing falls back to host NumPy."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import solvent


def _line_of(fn, text: str) -> int:
    """The absolute line number of the first source line of `fn` containing `text`."""
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, line in enumerate(lines) if text in line)


def uses_unique(x):
    y = x * 2
    return np.unique_values(y)  # unsupported


def uses_bincount(x):
    return np.bincount(x)  # unsupported


def uses_boolean_mask(x):
    x[x > 0] = x[x > 1]  # unsupported


def uses_host_only_function(x):
    return np.array2string(x)  # unsupported


def converts_inside_numpy(x):
    return np.asarray_chkfinite(x)  # unsupported


@pytest.mark.parametrize("fn, name", [(uses_unique, "np.unique_values"), (uses_bincount, "np.bincount"),
                                      (uses_boolean_mask, "mask"),
                                      (uses_host_only_function, "np.array2string"),
                                      (converts_inside_numpy, "np.asarray_chkfinite")],
                         ids=lambda v: getattr(v, "__name__", v))
def test_unsupported_calls_name_the_function_and_line(fn, name):
    x = np.arange(4, dtype=np.int64)
    with pytest.raises(solvent.UnsupportedError) as info:
        solvent.jit(fn)(x)
    message = str(info.value)
    assert name in message
    assert f"{__file__}:{_line_of(fn, '# unsupported')}" in message
    assert info.value.location == (__file__, _line_of(fn, "# unsupported"))


def converts_to_bool(x):
    positive = (x.sum(), 0) > (0, 0)  # converts
    return x if positive else -x


def converts_to_float(x):
    return "%.2f" % x[0]  # converts


def converts_to_index(x):
    return list(range(x[0]))  # converts


@pytest.mark.parametrize("fn", [converts_to_bool, converts_to_float, converts_to_index], ids=lambda f: f.__name__)
def test_converting_a_traced_value_names_the_line(fn):
    with pytest.raises(solvent.TracerConversionError) as info:
        solvent.jit(fn)(np.arange(3))
    assert f"{__file__}:{_line_of(fn, '# converts')}" in str(info.value)
    assert "static Python scalar" in str(info.value)  # explains the fix


def slices_to_a_traced_length(x):
    return x[: int(x.sum())]  # slices


def test_a_slice_to_a_converted_length_is_numpys():
    out = solvent.jit(slices_to_a_traced_length)(np.array([0, 1, 0]))  # it came back full length: [0, 0, 0]
    np.testing.assert_array_equal(out, np.array([0]))


def test_bool_of_a_traced_scalar_argument_is_a_python_bool():
    np.testing.assert_array_equal(solvent.jit(lambda x, s: x * bool(s))(np.ones(2), solvent.Scalar(True)), np.ones(2))


def test_supported_lists_the_first_surface():
    names = set(solvent.supported())
    for name in ["np.add", "np.sum", "np.matmul", "np.einsum", "np.reshape", "np.concatenate", "np.where",
                 "np.clip", "np.linspace", "np.divmod", "np.real"]:
        assert name in names, name
    assert "np.trim_zeros" not in names  # registered only to explain why it cannot compile


def test_host_numpy_is_not_called_for_traced_values():
    """What only host NumPy could do with a traced array fails loudly, not silently."""
    with pytest.raises(solvent.TracerConversionError):
        solvent.jit(lambda x: np.asarray(x).tobytes())(np.ones(2))


def test_results_are_scalars_exactly_where_numpy_returns_scalars():
    def f(x, z):
        return (np.sum(x), x[1], z[...], z + z, np.zeros(()), x.mean(), x.max(keepdims=True), x @ x, z.copy(),
                np.where(z > 1, z, 0.0), z.astype(np.float32), np.sin(z), np.argmax(x), np.clip(z, 0, 1),
                np.squeeze(x[:1]), np.full((), 2.0), -z, np.stack([z, z])[0], x.reshape(3, 1)[1, 0])
    x, z = np.arange(3.0), np.array(2.0)
    expected = f(x.copy(), z.copy())
    actual = solvent.jit(f)(x.copy(), z.copy())
    assert [type(a) for a in actual] == [type(e) for e in expected]


def argmax_of_a_list(x):
    return np.argmax([x[0], x[1]])  # a list


def test_a_compiled_function_given_a_list_of_traced_values_in_code_solvent_cannot_read_says_so():
    """Rewritten code hands such lists over as arrays (`transforms.source.numpy_calls`); code whose
    source solvent cannot read (defined by exec) gets the message instead."""
    assert solvent.jit(argmax_of_a_list)(np.array([0.0, 2.0, 1.0])) == 1
    namespace = {"np": np}
    exec("def unread(x):\n    return np.argmax([x[0], x[1]])\n", namespace)
    with pytest.raises(solvent.UnsupportedError, match=r"np.argmax was given a Python list .*np.array"):
        solvent.jit(namespace["unread"])(np.arange(3.0))
