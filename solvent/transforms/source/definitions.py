"""Where a function's source is: the lines of its file, and its `def` in them (a lambda's expression
made a `def`), for the rewrite to parse."""

from __future__ import annotations

import ast
import copy
import functools
import inspect
import linecache
import textwrap


def source_lines(code) -> list[str]:
    """The lines of the file defining `code`: straight from linecache (inspect.findsource would look
    through every loaded module first, tens of milliseconds), inspect as the fallback."""
    lines = linecache.getlines(code.co_filename)
    if lines and len(lines) >= code.co_firstlineno:
        return lines
    try:
        return inspect.findsource(code)[0]
    except (OSError, TypeError):
        return []


_LAMBDA = "__solvent_lambda__"


def definition(code, lines):
    """(the `def` of `code`'s function, the line offset of its tree), or (None, 0).

    A lambda becomes `def __solvent_lambda__(args): return body`, found in its file by line
    and parameter names, so that its calls and conditional expressions are rewritten too.
    """
    if code.co_name != "<lambda>":
        try:
            tree = ast.parse(textwrap.dedent("".join(inspect.getblock(lines[code.co_firstlineno - 1:]))))
        except (SyntaxError, IndexError):
            return None, 0
        found = tree.body[0] if tree.body and isinstance(tree.body[0], ast.FunctionDef) else None
        return found, code.co_firstlineno - 1
    parameters = list(code.co_varnames[:code.co_argcount + code.co_kwonlyargcount])
    candidates = [n for n in _lambdas("".join(lines)).get(code.co_firstlineno, [])
                  if [a.arg for a in n.args.posonlyargs + n.args.args + n.args.kwonlyargs] == parameters]
    if len(candidates) > 1:  # lambdas alike on one line: the one whose source holds the code's positions
        candidates = _holding(candidates, code)
    if len(candidates) != 1:
        return None, 0
    node = copy.deepcopy(candidates[0])  # the rewrite changes the tree it is given
    body = ast.copy_location(ast.Return(node.body), node)
    return ast.copy_location(ast.FunctionDef(_LAMBDA, node.args, [body], [], None, type_params=[]), node), 0


def _holding(lambdas: list[ast.Lambda], code) -> list[ast.Lambda]:
    """The smallest of `lambdas` whose span holds every source position of `code`'s instructions."""
    spans = [((p[0], p[2]), (p[1], p[3])) for p in code.co_positions() if None not in p]
    positions = [end for span in spans if span[0] != span[1] for end in span]  # (an empty span: no source)
    if not positions:
        return lambdas
    low, high = min(positions), max(positions)
    holding = [n for n in lambdas if (n.lineno, n.col_offset) <= low and high <= (n.end_lineno, n.end_col_offset)]
    return sorted(holding, key=lambda n: (n.end_lineno - n.lineno, n.end_col_offset - n.col_offset))[:1]


@functools.lru_cache(maxsize=32)
def _lambdas(source: str) -> dict[int, list[ast.Lambda]]:
    """The lambdas of a file's source, by their first line (a file is parsed once)."""
    found: dict[int, list[ast.Lambda]] = {}
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return found
    for node in ast.walk(tree):
        if isinstance(node, ast.Lambda):
            found.setdefault(node.lineno, []).append(node)
    return found
