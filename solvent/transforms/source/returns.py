"""Early returns folded into one assignment at the end, so that the `if` and loops around them
can be captured on traced values.

`if c: return a` followed by `return b` becomes `if c: r = a else: r = b`. A `return` inside a
loop (a Newton iteration's `if converged: return x, i`) becomes a flag and a `break`; after the
loop, the returned value where the flag is set, else the statements that followed the loop:
Python's own order, which `statements` then captures like any loop with a `break`.
"""

from __future__ import annotations

import ast
import copy

RETURN = "__solvent_return"
RETURNED = "__solvent_returned"


def contains(statements, kinds, into_loops=True) -> bool:
    """Whether `kinds` occur in `statements` outside nested functions (and loops, if not `into_loops`)."""
    stack = list(statements)
    while stack:
        node = stack.pop()
        if isinstance(node, kinds):
            return True
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        if not into_loops and isinstance(node, (ast.For, ast.While)):
            continue
        stack.extend(ast.iter_child_nodes(node))
    return False


def fold_returns(stmts):
    """Statements where every path ends by assigning RETURN instead of returning, or None where a
    return cannot be folded (inside `try`/`with`, or a loop with `else`)."""
    out = []
    for i, stmt in enumerate(stmts):
        if isinstance(stmt, ast.Return):
            out.append(_assign(RETURN, stmt.value or ast.Constant(None)))
            return out
        if isinstance(stmt, ast.If) and contains([stmt], ast.Return):
            rest = stmts[i + 1:]
            body, orelse = fold_returns(stmt.body + rest), fold_returns(stmt.orelse + rest)
            if body is None or orelse is None:
                return None
            out.append(ast.copy_location(ast.If(stmt.test, body, orelse), stmt))
            return out
        if isinstance(stmt, (ast.For, ast.While)) and contains([stmt], ast.Return):
            returned = []
            loop, rest = _Breaking(returned).loop(stmt), fold_returns(stmts[i + 1:])
            if loop is None or rest is None:
                return None
            for k, value in reversed(list(enumerate(returned, 1))):  # the return that broke the loop, if any
                test = ast.Compare(ast.Name(RETURNED, ast.Load()), [ast.Eq()], [ast.Constant(k)])
                rest = [ast.copy_location(ast.If(test, [_assign(RETURN, value)], rest), stmt)]
            out += [ast.copy_location(_assign(RETURNED, ast.Constant(0)), stmt), loop, *rest]
            return out
        if contains([stmt], ast.Return):
            return None
        out.append(stmt)
    out.append(_assign(RETURN, ast.Constant(None)))
    return out


def fold_into(definition: ast.FunctionDef) -> None:
    """Fold `definition`'s early returns (see `fold_returns`) where it has any inside an `if` or a loop."""
    if any(isinstance(s, (ast.If, ast.For, ast.While)) and contains([s], ast.Return) for s in definition.body):
        folded = fold_returns(definition.body)
        if folded is not None:
            definition.body = folded + [ast.Return(ast.Name(RETURN, ast.Load()))]


def _assign(name: str, value) -> ast.Assign:
    return ast.Assign([ast.Name(name, ast.Store())], value)


class _Breaking:
    """A loop whose k-th `return v` (inner loops' too) is `RETURNED = k; break`, and whose inner loops
    that may return are followed by `if RETURNED: break`. Nothing runs between that `break` and the
    end of the outer loop, so `v` evaluated there is the value the return would have given; the
    values go to `returned`."""

    def __init__(self, returned: list):
        self.returned = returned

    def loop(self, loop):
        """`loop` rewritten, or None where a return cannot be (inside `try`/`with`, a loop with `else`)."""
        body = self.block(loop.body)
        if loop.orelse or body is None:
            return None
        rewritten = copy.copy(loop)  # (its location too)
        rewritten.body = body
        return rewritten

    def block(self, stmts) -> list | None:
        out = []
        for stmt in stmts:
            stmt = self.statement(stmt)
            if stmt is None:
                return None
            out += stmt
        return out

    def statement(self, stmt) -> list | None:
        if not contains([stmt], ast.Return):
            return [stmt]
        if isinstance(stmt, ast.Return):
            self.returned.append(stmt.value or ast.Constant(None))
            return [_assign(RETURNED, ast.Constant(len(self.returned))), ast.copy_location(ast.Break(), stmt)]
        if isinstance(stmt, ast.If):
            body, orelse = self.block(stmt.body), self.block(stmt.orelse)
            return None if body is None or orelse is None else [ast.copy_location(ast.If(stmt.test, body, orelse),
                                                                                  stmt)]
        if isinstance(stmt, (ast.For, ast.While)):
            inner = self.loop(stmt)
            return None if inner is None else [inner, ast.copy_location(
                ast.If(ast.Name(RETURNED, ast.Load()), [ast.Break()], []), stmt)]
        return None
