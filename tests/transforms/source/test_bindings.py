"""Which lists a `for` loop may carry as it appends to them: those nothing else can read while it runs."""

import ast
import textwrap

import pytest

from solvent.transforms.source.bindings import unshared_lists


def _lists(source: str) -> set[str]:
    """The unshared lists of the innermost `for` loop of `source` whose body appends."""
    definition = ast.parse(textwrap.dedent(source)).body[0]
    loop = [n for n in ast.walk(definition) if isinstance(n, ast.For) and any(
        isinstance(s, ast.Expr) and "append" in ast.unparse(s) for s in n.body)][-1]
    return unshared_lists(definition)[id(loop)]


@pytest.mark.parametrize("source", [
    """
    def f(x):
        out = []
        for i in range(9):
            out.append(x[i])
        return np.array(out), len(out)
    """,
    """
    def f(x):
        out, times = [], [0.0]
        for k in range(9):
            out.append(k)
        return out, times
    """,
    """
    def f(x):
        for epoch in range(3):
            out = []
            for i in range(9):
                out.append(x[i])
            keep = out  # the next epoch binds a new list
    """,
    """
    def f(x):
        out = []
        for epoch in range(3):
            out.append(epoch)
            for i in range(9):
                out.append(x[i])
    """,
    """
    def f(x):
        out = []
        for i in range(9):
            out.append(x[i])
        out = np.array(out)  # rebound once the loop has run
        return out
    """])
def test_a_list_only_appended_to_is_unshared(source):
    assert "out" in _lists(source)


@pytest.mark.parametrize("source", [
    """
    def f(x):
        out = []
        alias = out  # reads it as the loop runs
        for i in range(9):
            out.append(x[i] + len(alias))
    """,
    """
    def f(x, out):  # the caller may hold it
        for i in range(9):
            out.append(x[i])
    """,
    """
    def f(holder, x):
        out = holder.items
        for i in range(9):
            out.append(x[i])
    """,
    """
    def f(x):
        out = []
        def total():
            return sum(out)
        for i in range(9):
            out.append(x[i] + total())
    """,
    """
    def f(x):
        out = []
        for epoch in range(3):
            for i in range(9):
                out.append(x[i])
            print(len(out))
    """,
    """
    def f(x):
        out = other = []
        for i in range(9):
            out.append(x[i])
    """,
    """
    def f(x):
        if x.ndim:
            out = []
        for i in range(9):
            out.append(x[i])
    """,
    """
    def f(x):
        out = []
        for epoch in range(3):
            for i in range(9):
                out.append(x[i])
            out = list(out)  # the next epoch appends to this one
    """,
    """
    def f(x):
        out = []
        out = [0.0]  # bound twice before the loop
        for i in range(9):
            out.append(x[i])
    """])
def test_a_list_something_else_may_read_is_shared(source):
    assert _lists(source) == set()
