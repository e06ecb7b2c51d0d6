"""Arrays the function makes from host data, changed in place by traced branches and rolled loops,
change as NumPy's do (solvent.transforms.source.host_arrays, and np.array's traced constants)."""

import numpy as np
import pytest

import solvent
from tests.differential import check_like_numpy


def halved_if_positive(x):
    s = np.array([1.0, 1.0])
    if x[0] > 0:
        s /= 2
    return s


def counted_by_sign(x):
    counts = np.array([0, 0])
    for v in x:
        if v > 0:
            counts[0] += 1
        else:
            counts[1] += 1
    return counts


def bracket(x):
    lo_hi = np.concatenate([[0.0], [2.0]])  # (any NumPy function of host data gives a host array)
    for _ in range(60):
        mid = 0.5 * (lo_hi[0] + lo_hi[1])
        if mid * mid > x[0]:
            lo_hi[1] = mid
        else:
            lo_hi[0] = mid
    return lo_hi


def bumped_in_a_rolled_loop(x):
    s = np.tile([1.0, 2.0], 1)
    for i in range(100):
        if x[i % 4] > 0:
            s[0] += 1
    return s


def grown_while_small(x):
    w = np.full_like([0.0, 0.0], 0.5)
    i = 0
    while i < 4 and x[i] > -10:
        w[0] += x[i]
        i += 1
    return w


def set_from_traced(x):
    s = np.array([0.0, 0.0])
    s[0] = x.sum()  # (NumPy's own array raised "setting an array element with a sequence")
    return s


@pytest.mark.parametrize("fn", [halved_if_positive, counted_by_sign, bracket, bumped_in_a_rolled_loop,
                                grown_while_small, set_from_traced])
def test_an_array_made_from_host_data_changes_only_on_the_path_taken(fn):
    """Each branch was traced on the host array itself, so both branches' changes stayed (a bisection
    bracket of [5, 5]; counts of [4, 4] for [3, 1])."""
    for x in (np.array([-1.0, 2.0, 3.0, -4.0]), np.array([2.0, 2.0, 3.0, 4.0])):
        check_like_numpy(fn, x)


def aliased(x):
    w = np.concatenate([[0.0], [0.0]])
    alias = w
    i = 0
    while i < 3 and x[i] > 0:
        w[0] += x[i]
        i += 1
    return alias


def test_another_name_for_a_host_array_a_loop_changes_is_refused_by_name():
    with pytest.raises(solvent.UnsupportedError, match=r"`alias` is \(or views, or holds\) a NumPy array made"):
        solvent.jit(aliased)(np.ones(4))


def test_np_array_of_host_data_is_a_traced_constant_with_numpys_values():
    """Known while tracing, so shapes, indices and tests computed from it stay Python values."""
    def f(x):
        shape = np.array([2, 3])
        idx = np.array([0, 2])
        return np.zeros(shape) + x[idx].sum(), x[np.array(1)]

    check_like_numpy(f, np.arange(4.0))


TABLE = np.array([1.0, 2.0, 3.0])


def global_bumped(x):
    if x[0] > 0:
        TABLE[0] += 1.0  # (a constant of the program: changed once while tracing, whatever the data)
    return x * 2.0


def held_in_a_list(x):
    c = np.tile([0.0], 2)
    held = [c]
    if x[0] > 0:
        held[0][1] += 1.0
    return c


def strings_set(x):
    names = np.array(["a", "b"])
    if x[0] > 0:
        names[0] = "z"
    return x * len(names[0])


@pytest.mark.parametrize("fn", [global_bumped, held_in_a_list, strings_set])
def test_a_host_array_a_traced_branch_writes_where_it_cannot_be_traced_is_an_error(fn):
    """A global's array, one reached through a list, and one of strings: the branch's write was made
    whatever the data (and stayed in the global)."""
    with pytest.raises(solvent.ControlFlowError, match="changes the Python object"):
        solvent.jit(fn)(np.array([-1.0, 2.0]))
    np.testing.assert_array_equal(TABLE, [1.0, 2.0, 3.0])


def viewed(x):
    c = np.tile([0.0], 3)
    v = c[1:]
    if x[0] > 0:
        v[0] += 1.0
    return c


def bump(c, x):
    if x[0] > 0:
        c[0] += 1


def bumped_by_a_helper(x):
    c = np.tile([0], 2)
    bump(c, x)
    return c


def held(x):
    c = np.tile([1.0, 2.0], 2)
    holder = [c]
    if x[0] > 0:
        c[0] = 10.0
    return holder[0]


def written_at_the_top(x):
    TABLE[0] += 1.0  # (once while tracing: a constant of the program)
    return x * 2.0


def counted_in_a_default(x, calls=np.zeros(1)):
    calls[0] += 1.0  # (one array for every call: NumPy counts the calls)
    return x + calls


@pytest.mark.parametrize("fn, name", [(written_at_the_top, "TABLE"), (counted_in_a_default, "calls")])
def test_a_global_or_default_array_written_outside_any_branch_is_an_error_and_kept(fn, name):
    with pytest.raises(solvent.UnsupportedError, match=f"writes into the NumPy array `{name}`"):
        solvent.jit(fn)(np.ones(2))
    np.testing.assert_array_equal(TABLE, [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(counted_in_a_default.__defaults__[0], [0.0])


@pytest.mark.parametrize("fn, name", [(viewed, "c"), (bumped_by_a_helper, "c"), (held, "holder")])
def test_a_view_or_a_callers_name_for_a_host_array_a_branch_changes_is_refused_by_name(fn, name):
    with pytest.raises(solvent.UnsupportedError, match=rf"`{name}` is \(or views, or holds\) a NumPy array made"):
        solvent.jit(fn)(np.array([1.0, 2.0]))


def added_into_a_copy(x):
    w = TABLE.copy()  # (NumPy's copy, on the host)
    w += x
    return w


def test_a_traced_value_written_into_a_host_copy_says_how_to_make_it():
    """The message called the copy a global's or an attribute's array."""
    with pytest.raises(solvent.UnsupportedError, match=r"w = G.copy\(\).*np.array\(G\)"):
        solvent.jit(added_into_a_copy)(np.ones(3))
