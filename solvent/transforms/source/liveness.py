"""Names a loop can keep to itself: temporaries of its body that no other code reads.

A rolled loop carries every name its body assigns, since NumPy's loop leaves the last value
bound. A temporary (`d = t[i - 1, j - 1] + s` before `t[i, j] = max(d, ...)`) that is set at
the top of the body before any use, and read nowhere else in the function, need not be:
its value never crosses an iteration nor leaves the loop. Carrying it would even cost an
array copy per iteration, because XLA keeps a carried value read from an array apart from
that array's in-place update.
"""

from __future__ import annotations

import ast

from solvent.transforms.source.bindings import SCOPES, declared, parameters

_INTROSPECTION = {"locals", "vars", "exec", "eval", "dir"}
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)  # (statements that bind their name)


def private_names(definition: ast.FunctionDef) -> dict[int, set[str]]:
    """For each loop of `definition` (by `id` of its node), the names its body keeps to itself."""
    names, in_scopes = _own_names(definition)
    if any(n.id in _INTROSPECTION for n in names):
        return {}
    augmented = {id(n.target) for n in ast.walk(definition) if isinstance(n, ast.AugAssign)}
    reads = [n for n in names if isinstance(n.ctx, (ast.Load, ast.Del)) or id(n) in augmented]  # (`t += 1` reads t)
    found = {}
    for loop in ast.walk(definition):
        if not isinstance(loop, (ast.For, ast.While)):
            continue
        inside = {id(n) for statement in loop.body for n in ast.walk(statement)}
        read_elsewhere = {n.id for n in reads if id(n) not in inside}
        candidates = _bound(loop.body) | (_bound([loop.target]) if isinstance(loop, ast.For) else set())
        found[id(loop)] = {name for name in candidates - read_elsewhere - in_scopes if _set_first(loop, name)}
    return found


def _own_names(definition) -> tuple[list[ast.Name], set[str]]:
    """The mentions of `definition`'s own names (not those a comprehension, lambda or function inside
    binds for itself: `[b.p for b in bs]` does not read a loop's `b`), and those of them that a nested
    scope reads (a closure may read them at any time)."""
    names, in_scopes = [], set()

    def visit(node, local: frozenset, nested: bool):
        if isinstance(node, ast.Name):
            if node.id not in local:
                names.append(node)
                if nested:
                    in_scopes.add(node.id)
            return
        if isinstance(node, SCOPES) and node is not definition:
            local = local | _locals_of(node)
            nested = True
        for child in ast.iter_child_nodes(node):
            visit(child, local, nested)
    visit(definition, frozenset(), False)
    return names, in_scopes


def _locals_of(scope) -> frozenset:
    """The names a nested scope binds for itself: its parameters and what it assigns, less those it
    declares global or nonlocal."""
    bound = parameters(scope)
    if hasattr(scope, "generators"):  # a comprehension: its targets
        bound |= _bound([g.target for g in scope.generators])
    elif isinstance(scope.body, list):  # (a lambda's body is one expression)
        bound |= _bound(scope.body)
    return frozenset(bound - declared(scope))


def _bound(nodes) -> set[str]:
    """Names bound (Store) in `nodes`, not looking into nested scopes."""
    out, stack = set(), list(nodes)
    while stack:
        node = stack.pop()
        if isinstance(node, _DEFINITIONS):
            out.add(node.name)
        if isinstance(node, SCOPES):
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            out.add(node.id)
        stack.extend(ast.iter_child_nodes(node))
    return out


def _mentions(node, name: str) -> bool:
    return any((isinstance(n, ast.Name) and n.id == name) or (isinstance(n, _DEFINITIONS) and n.name == name)
               for n in ast.walk(node))


def _set_first(loop, name: str) -> bool:
    """Whether every iteration binds `name` before anything can read it: the loop's target, or a plain
    assignment at the top level of the body that comes before any other mention of it."""
    if isinstance(loop, ast.For) and name in _bound([loop.target]):
        return not any(isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Store)
                       for n in ast.walk(loop.target))
    return _set_first_in(loop.body, name)


def _set_first_in(body, name: str) -> bool:
    """Whether `body` binds `name` before any read of it: by a plain assignment or a `def` at its top level,
    or in each branch of an `if` that mentions it (`else: k = j - 1; A[i, k] = ...`) when nothing
    after the `if` mentions it or both branches bind it."""
    for at, statement in enumerate(body):
        if not _mentions(statement, name):
            continue
        if isinstance(statement, ast.If) and not _mentions(statement.test, name):
            branches = [b for b in (statement.body, statement.orelse) if any(_mentions(s, name) for s in b)]
            if not all(_set_first_in(b, name) for b in branches):
                return False
            return len(branches) == 2 or not any(_mentions(s, name) for s in body[at + 1:])
        if isinstance(statement, _DEFINITIONS) and statement.name == name:  # (its body may call itself)
            return not any(_mentions(part, name) for part in ast.iter_child_nodes(statement)
                           if part not in statement.body)
        return (isinstance(statement, ast.Assign) and not _mentions(statement.value, name)
                and name in _bound(statement.targets)
                and not any(isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Store)
                            for target in statement.targets for n in ast.walk(target)))
    return False
