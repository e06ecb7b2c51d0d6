"""Small syntax trees the source rewrite emits: calls of its helpers, thunks, tuples of names."""

from __future__ import annotations

import ast

#: The name rewritten code reads the helpers (`statements`) by.
HELPER = "__solvent_statements__"


def helper(name: str, *args, **keywords) -> ast.Call:
    return ast.Call(ast.Attribute(ast.Name(HELPER, ast.Load()), name, ast.Load()), list(args),
                    [ast.keyword(k, v) for k, v in keywords.items()])


def compared(left, op, right):
    found = helper("contains", left, right) if isinstance(op, (ast.In, ast.NotIn)) else \
        helper("identical", left, right) if isinstance(op, (ast.Is, ast.IsNot)) else None
    return ast.Compare(left, [op], [right]) if found is None else \
        found if isinstance(op, (ast.In, ast.Is)) else helper("not_", found)


def names_tuple(names, ctx) -> ast.Tuple:
    return ast.Tuple([ast.Name(n, ctx()) for n in names], ctx())


def loads(names) -> ast.Tuple:
    """(load(lambda: x, 'x'), ...): current values, `Undefined` where unbound."""
    return ast.Tuple([helper("load", ast.Lambda(no_arguments(), ast.Name(n, ast.Load())), ast.Constant(n))
                      for n in names], ast.Load())


def assigns(nodes) -> bool:
    """Whether an assignment expression (:=) is in `nodes`: in a thunk it would bind the thunk's name."""
    return any(isinstance(n, ast.NamedExpr) for node in nodes for n in ast.walk(node))


def no_arguments(names=()) -> ast.arguments:
    return ast.arguments(posonlyargs=[], args=[ast.arg(n) for n in names], kwonlyargs=[], kw_defaults=[],
                         defaults=[])


def function_def(name, params, body) -> ast.FunctionDef:
    """A function made of `body`, starting at its first line (which errors about the body name)."""
    made = ast.FunctionDef(name, no_arguments(params), body or [ast.Pass()], [], None, type_params=[])
    located = [statement for statement in body if hasattr(statement, "lineno")]
    return ast.copy_location(made, located[0]) if located else made
