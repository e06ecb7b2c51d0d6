"""Selections whose length depends on data, packed at the front of their bound
(solvent.numpy.indexing.packed): x[mask], np.nonzero and what is built on them, against NumPy."""

import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import solvent
from differential import assert_same, check_like_numpy, rolled_like_numpy

pytestmark = pytest.mark.filterwarnings("ignore::solvent.RecompileWarning")  # hypothesis draws many shapes

VALUES = hnp.arrays(np.float64, st.integers(1, 12), elements=st.floats(-4, 4, allow_subnormal=False))


def selections(x, t):
    m = x > t
    s = x[m]
    return (s.sum(), np.sum(s * 2.0 + 1.0), np.mean(np.abs(s)) if len(s) else 0.0, len(s), np.count_nonzero(s > 1),
            np.any(s < 0), np.all(s > t), np.prod(np.cos(s)), np.dot(s, s), np.max(s, initial=-9.0),
            np.min(s, initial=9.0), (s - s.mean()).sum() if len(s) else 0.0)


_selections = solvent.jit(selections)


@settings(max_examples=60, deadline=None)
@given(VALUES, st.sampled_from([-5.0, -1.0, 0.0, 0.5, 5.0]))
def test_masked_selections_in_elementwise_code_and_reductions(x, t):
    assert_same(_selections(x, t), selections(x, t), rtol=1e-12, atol=1e-12)


def positions(x, t):
    s = x[x > t]
    return np.argmax(s), np.argmin(s), s.argmax(), np.argmin(s * 2.0 - 1.0)


_positions = solvent.jit(positions)


@settings(max_examples=40, deadline=None)
@given(VALUES, st.sampled_from([-5.0, -1.0, 0.0]))
def test_argmax_and_argmin_of_a_selection_count_within_it(x, t):
    """Positions in the selection, not in the array it was selected from (a selection held in place
    by its mask gave those)."""
    assume((x > t).any())
    assert_same(_positions(x, t), positions(x, t))


def stores_back(x, t):
    m = x > t
    x[m] = np.sqrt(x[m]) + x[m] * 2
    return x


_stores_back = solvent.jit(stores_back)


@settings(max_examples=40, deadline=None)
@given(VALUES, st.sampled_from([-5.0, 0.0, 1.0]))
def test_a_selection_stored_back_at_its_mask(x, t):
    mine, numpys = np.abs(x), np.abs(x)
    _stores_back(mine, t)
    stores_back(numpys, t)
    assert_same(mine, numpys)


def indices(x):
    rows, cols = np.nonzero(x > 0)
    flat = np.flatnonzero(x)
    where = np.where(x < 0)
    return (len(rows), rows.sum(), cols.max(initial=-1), x[rows, cols].sum(), x[where].sum(), flat.mean() if len(flat)
            else 0.0, np.argwhere(x).sum(axis=0), x[x.sum(axis=1) > 0].sum(axis=0), len(np.unique(x)),
            np.unique(x).sum(), np.extract(x > 1, x).sum(), np.compress(x[:, 0] > 0, x, axis=0).sum())


_indices = solvent.jit(indices)


@settings(max_examples=40, deadline=None)
@given(hnp.arrays(np.int64, (3, 4), elements=st.integers(-2, 2)))
def test_nonzero_where_unique_and_friends(x):
    assert_same(_indices(x), indices(x))


def unique_parts(x):
    values, index, inverse, counts = np.unique(x, return_index=True, return_inverse=True, return_counts=True)
    return (values, index, inverse, counts, np.unique(x, return_counts=True, equal_nan=False)[1],
            values[counts > 1], (values * counts).sum(), len(counts), np.unique_all(x), np.unique_counts(x),
            np.unique_inverse(x))


_unique_parts = solvent.jit(unique_parts)


@settings(max_examples=40, deadline=None)
@given(hnp.arrays(np.float64, (3, 4), elements=st.sampled_from([-1.0, 0.0, 2.5, 3.0, np.nan])))
def test_unique_with_indices_inverse_and_counts(x):
    # values[counts > 1] pairs the counts with the values: one length for both
    assert_same(_unique_parts(x), unique_parts(x))


@settings(max_examples=30, deadline=None)
@given(st.sampled_from([(6, 2), (2, 5), (3, 4, 2), (0, 3)]), st.integers(0, 2),
       st.sampled_from([np.int64, np.float64]), st.data())
def test_unique_along_an_axis(shape, axis, dtype, data):
    """Rows (slices along the axis) in NumPy's lexicographic order, their first indices, each row's
    place and the counts; a row holding NaN equals no other, as in NumPy's structured comparison."""
    axis %= len(shape)
    values = [0.0, 1.0, 2.0, np.nan] if dtype == np.float64 else [0, 1, 2]
    x = data.draw(hnp.arrays(dtype, shape, elements=st.sampled_from(values)))

    def rows(x):
        values, index, inverse, counts = np.unique(x, True, True, True, axis=axis)
        return values, index, inverse, counts, np.unique(x, axis=axis), len(counts)
    check_like_numpy(rows, x)


def test_unique_keeps_one_nan():
    def f(x):
        u = np.unique(x)
        return len(u), np.sum(np.isnan(u)), np.sum(np.where(np.isnan(u), 0.0, u))

    check_like_numpy(f, np.array([np.nan, 1.0, np.nan, 1.0, -2.0]))


def test_std_and_var_of_a_selection():
    def f(x):
        s = x[x > 0]
        return np.var(s), s.std(), np.std(s, ddof=1), s.var(ddof=1)

    check_like_numpy(f, np.array([3.0, -1.0, 0.5, 2.0, 8.0]))


def returns_selections(x):
    m = x > 0
    return x[m], np.nonzero(m), (x[m] * 2, np.unique(np.abs(x))), np.argwhere(x.reshape(-1, 1) < 0)


@settings(max_examples=30, deadline=None)
@given(VALUES)
def test_selections_come_back_with_numpys_shape(x):
    assert_same(solvent.jit(returns_selections)(x), returns_selections(x))


def test_a_selection_stored_on_an_argument_object():
    class State:
        pass

    def keep_positive(state, x):
        state.kept = x[x > 0]

    state, x = State(), np.array([1.0, -1.0, 2.0])
    solvent.jit(keep_positive)(state, x)
    assert_same(state.kept, x[x > 0])


@pytest.mark.parametrize("fn, match", [
    (lambda x: x[x > 0].shape, "its shape"),
    (lambda x: (x[x > 0] + x).sum(), "NumPy pairs them only when the lengths are equal"),
    (lambda x: x[x > 0][x > 1], "indexing"),
    (lambda x: np.fft.fft(x[x > 0]), r"np.fft of a selection whose length depends on the data \(x\[mask\]"),
    (lambda x: x[x > 0].nbytes, "its nbytes"),
    (lambda x: np.where(x[x > 0] > 1), "np.nonzero of a selection"),
    (lambda x: np.random.default_rng(0).permutation(x[x > 0]), "given to Generator.permutation"),
    (lambda x: np.random.default_rng(0).choice(x[x > 0], 2), "given to Generator.choice"),
    (lambda x: np.random.default_rng(0).normal(x[x > 0]), "given to Generator.normal"),
    (lambda x: np.random.shuffle(x[x > 0]), "given to np.random.shuffle"),
])
def test_uses_that_need_the_length_are_refused(fn, match):
    def use(x):
        return fn(x)

    with pytest.raises(solvent.UnsupportedError, match=match):
        solvent.jit(use)(np.array([1.0, -1.0, 2.0]))


@pytest.mark.parametrize("fn", [
    lambda x: x[x > 0][0] + x[x > 0][-1], lambda x: np.sort(x[x > 0]), lambda x: np.argsort(x[x < 3]),
    lambda x: np.cumsum(x[x > 0]), lambda x: np.flip(x[~np.isnan(x)]), lambda x: np.roll(x[x > 0], 1),
    lambda x: np.diff(x[x > 0]), lambda x: np.concatenate([x[x > 0], x[x < 0]]), lambda x: np.nanmax(x[x != 2]),
    lambda x: np.median(x[x > 0]), lambda x: np.median(x[x < 100]), lambda x: np.nanmedian(x[x != 2]),
    lambda x: np.percentile(x[x > -2], [10, 50, 90]), lambda x: np.quantile(x[~np.isnan(x)], 0.3, method="nearest"),
    lambda x: x[x > 0][1:] - x[x > 0][:-1], lambda x: x[x > 0][::-1], lambda x: x[x > 0][-2:][0],
])
def test_selections_sorted_scanned_flipped_rolled_and_joined_as_numpys(fn):
    """The rules for slices of traced length hold for selections by a mask (packed at the front); a
    NaN among the selected makes the median NaN, as NumPy's."""
    check_like_numpy(fn, np.array([3.0, -1.0, 2.0, np.nan, 5.0, -4.0, 1.0]))


def fancy_write(B, v):
    B[:, [0, 0, 2]] = v


def sliced_write(B, v):
    B[:, 1:4] = v


@pytest.mark.parametrize("write", [fancy_write, sliced_write])
def test_a_value_of_a_static_length_written_into_a_selection_is_refused(write):
    """NumPy writes a (2, 3) value into rows selected by a mask only when two are: a bare
    broadcasting ValueError came out of solvent's padding."""
    def f(A, v, m):
        write(A[m, :], v)
        return A

    with pytest.raises(solvent.UnsupportedError, match=r"a value of shape \(2, 3\) written into an array whose"):
        solvent.jit(f)(np.zeros((4, 5)), np.ones((2, 3)), np.array([True, False, True, False]))


def test_storing_a_selection_made_with_another_mask_is_refused():
    def f(x):
        x[x > 0] = x[x > 1]

    x = np.array([1.0, -1.0, 2.0])
    with pytest.raises(solvent.UnsupportedError, match="another mask"):
        solvent.jit(f)(x)
    assert_same(x, np.array([1.0, -1.0, 2.0]))


def test_a_selection_stored_back_at_its_mask_is_never_packed():
    def f(z, c):
        alive = np.abs(z) <= 2.0
        z[alive] = z[alive] ** 2 + c[alive]

    text = solvent.code_hlo(f, np.zeros(64, complex), np.ones(64, complex), optimize="none")
    assert "stablehlo.scatter" not in text and "stablehlo.gather" not in text


def writes_through_nonzero(x, marks):
    rows, cols = np.nonzero(x > 0)
    marks[rows, cols] = 7
    x[np.nonzero(x < -1)] += 100
    flat = np.nonzero(x.ravel() > 50)[0]
    return marks, x, len(flat)


@settings(max_examples=30, deadline=None)
@given(hnp.arrays(np.int64, (3, 4), elements=st.integers(-3, 3)))
def test_writes_through_nonzeros_index_arrays(x):
    check_like_numpy(writes_through_nonzero, x, np.zeros((3, 4), dtype=np.int64))


def selects_again(x):
    s = x[x > 0]
    keep = s > 2
    return s[s < 5], s[keep].sum(), len(s[keep]), s[keep] * 2


@settings(max_examples=30, deadline=None)
@given(VALUES)
def test_a_selection_masked_again_by_a_mask_selected_the_same_way(x):
    assert_same(solvent.jit(selects_again)(x), selects_again(x))


def written_again(x):
    m = x > 0
    s = x[m]
    s[s > 2] = 0.0  # (wrote the first slots of the selection, one per True entry, not those entries)
    u = np.unique(x)
    u[u < 1] = -1.0
    x[m] = s
    return s, s.sum(), u, x


@settings(max_examples=30, deadline=None)
@given(VALUES)
def test_a_selection_written_at_a_mask_of_its_own_values(x):
    assert_same(solvent.jit(written_again)(x.copy()), written_again(x.copy()))


def written_where(x):
    s = x[x > 0]
    np.negative(s, out=s, where=s > 2)  # (recursed past Python's limit: where= was a selection too)
    np.multiply(s, 3.0, out=s, where=s < 1)
    return s, x


@settings(max_examples=30, deadline=None)
@given(VALUES)
def test_a_ufunc_into_a_selection_where_a_mask_of_it_holds(x):
    assert_same(solvent.jit(written_where)(x.copy()), written_where(x.copy()))


def test_a_ufunc_into_a_selection_casts_as_numpys_out_does():
    """A float result into an int selection raises NumPy's casting error; it was cast silently."""
    def f(a):
        s = a[a > 0]
        np.add(s, 1.5, out=s)
        return s
    with pytest.raises(TypeError, match="Cannot cast"):
        f(np.arange(-3, 6))
    with pytest.raises(TypeError, match="Cannot cast"):
        solvent.jit(f)(np.arange(-3, 6))


def reflected(pos, steps):
    for _ in range(steps):
        pos += 0.07
        pos[pos > 1] = 2 - pos[pos > 1]  # (two masks, computed alike)
    return pos


def test_a_selection_stored_back_at_a_mask_computed_alike_is_never_packed():
    """`x[x > 1] = 2 - x[x > 1]` made two masks, so the store packed the selection (a prefix sum, a
    scatter and a gather a step: 70 ms where np.where's form takes 2.5 ms)."""
    pos = np.random.default_rng(0).random((50, 2))
    rolled_like_numpy(reflected, pos, 30)
    assert "scatter" not in solvent.code_hlo(reflected, pos, 30)


def test_matmul_of_two_selections():
    """matmul is a generalized ufunc: a selection's in-place shortcut for ufuncs does not apply."""
    check_like_numpy(lambda x: (x[x > 0] @ x[x > 0], np.matmul(x[x > 0], x[x > 0])),
                     np.array([-1.0, 2.0, -3.0, 5.0, 1.0]))
    with pytest.raises(solvent.UnsupportedError, match="np.vecdot"):
        solvent.jit(lambda x: np.vecdot(x[x > 0], x[x > 0]))(np.array([-1.0, 2.0]))


def test_a_selection_first_packed_in_a_traced_branch_is_the_same_after_it():
    """Packed where it is made, not where first read: packed inside a branch, it was a value of the
    branch's region read after it (an error saying a value escaped through a Python object)."""
    def written_in_a_branch(x):
        s = x[x > 0]
        if x[0] > 0:
            s[0] = -1.0
        return s, s.sum()

    check_like_numpy(written_in_a_branch, np.random.default_rng(19).standard_normal(12))
    check_like_numpy(written_in_a_branch, -np.random.default_rng(19).standard_normal(12))


def test_a_loop_dependent_slice_masked_by_a_mask_of_a_slice_with_the_same_bounds():
    """dp[:i][a[:i] < a[i]] (longest increasing subsequence): the mask's length is the slice's, each
    computed anew from i; it was refused, so the loop unrolled (a 5 to 9 s first call at n = 80)."""
    def longest_increasing(a, tail):
        n = a.size
        dp = np.ones(n, dtype=np.int64)
        for i in range(1, n):
            m = a[:i] < a[i]
            if m.any():
                dp[i] = dp[:i][m].max() + 1
            tail[i] = a[i:][a[i:] > a[i]].sum()
        return dp

    rolled_like_numpy(longest_increasing, np.random.default_rng(0).integers(0, 50, 40), np.zeros(40, np.int64))


def test_selections_indexed_by_integer_arrays_and_made_arrays():
    """u[inv] after np.unique(..., return_inverse=True), r[[0, -1]], np.take(u, inv), and
    np.array(np.nonzero(M)).T were refused (indexing an array of traced length other than by a mask)."""
    def relabelled(a, M):
        u, inv = np.unique(a, return_inverse=True)
        r = np.nonzero(a > 2)[0]
        return (u[inv], u[[0, -1]], np.take(u, inv), u[inv.reshape(2, 3)], r[np.array([0, -1])],
                np.array(np.nonzero(M)).T, np.asarray(np.nonzero(M), dtype=np.int32))

    check_like_numpy(relabelled, np.array([3, 1, 3, 7, 1, 2]), np.array([[1, 0], [0, 1], [1, 1]]))


def test_a_selection_rebound_in_a_traced_branch_and_returned_is_refused_not_returned_padded():
    """s = x[x > 1]; if ...: s = s * 2; return s came back at its full size, zeros after the valid part."""
    def rebound(x):
        s = x[x > 1]
        if x.sum() > 0:
            s = s * 2
        return s

    with pytest.raises(solvent.UnsupportedError, match="length depends on traced values.*returned"):
        solvent.jit(rebound)(np.array([3.0, -1.0, 2.5, 0.5, 4.0, -2.0, 1.5]))


def sums_by_label(labels, values):
    totals = {}
    for g in range(3):
        m = labels == g
        totals[g] = [values[m].mean() if m.any() else 0.0, values[m].max() if m.any() else -1.0, values[m].sum()]
    return totals


def test_a_mask_selects_again_after_a_branch_that_selected_with_it():
    """The packing made for the mask inside the branch was reused after it, where its values are not
    seen: an EscapedValueError named the next line."""
    check_like_numpy(lambda l, v: (v[l == 0].sum() if (l == 0).any() else 0.0, v[l == 0].sum()),
                     np.array([0, 1, 0, 2]), np.array([1.0, 2.0, 3.0, 4.0]))
    for labels in (np.array([0, 1, 0, 2]), np.array([0, 0, 0, 2])):
        values = np.arange(1.0, 5.0)
        expected, got = sums_by_label(labels, values), solvent.jit(sums_by_label)(labels, values)
        assert {g: list(map(float, r)) for g, r in got.items()} == {g: list(map(float, r)) for g, r in expected.items()}
