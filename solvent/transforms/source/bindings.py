"""What a block of statements does to names, read from its syntax tree, not looking into nested
scopes: the names it binds, those it binds only in place (`a += b`), the arrays it writes by
subscript, and the lists it only appends to (what the rewrite tells a loop it may carry)."""

from __future__ import annotations

import ast


class _Assigned(ast.NodeVisitor):
    """Names bound by a list of statements, not looking into nested scopes."""

    def __init__(self):
        self.names: list[str] = []

    def add(self, name):
        if name not in self.names:
            self.names.append(name)

    def visit_Name(self, node):
        if isinstance(node.ctx, (ast.Store, ast.Del)):
            self.add(node.id)

    def visit_FunctionDef(self, node):
        if not node.name.startswith("__solvent_"):  # the rewrite's own branch and body functions
            self.add(node.name)

    visit_AsyncFunctionDef = visit_ClassDef = visit_FunctionDef

    def visit_Lambda(self, node):
        pass

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = visit_Lambda

    def visit_alias(self, node):
        self.add((node.asname or node.name).split(".")[0])

    def visit_ExceptHandler(self, node):
        if node.name:
            self.add(node.name)
        self.generic_visit(node)


def assigned(statements_) -> list[str]:
    finder = _Assigned()
    for s in statements_:
        finder.visit(s)
    return finder.names


class _PlainAssigned(_Assigned):
    """Names bound other than by an augmented assignment to the bare name (`a += b`)."""

    def __init__(self):
        super().__init__()
        self.augmented: list[str] = []

    def visit_AugAssign(self, node):
        if isinstance(node.target, ast.Name):
            self.augmented.append(node.target.id)
        else:
            self.visit(node.target)
        self.visit(node.value)


def written_through(statements_) -> list[str]:
    """Names whose arrays `statements_` write by subscript (`a[i] = ...`, `a[i] += ...`), not looking
    into nested scopes: a loop carries those arrays from its first trace."""
    found: list[str] = []
    stack = list(statements_)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, ast.AugAssign) else []
        for target in targets:
            while isinstance(target, ast.Subscript):
                target = target.value
            if isinstance(target, ast.Name) and target is not node and target.id not in found and not (
                    isinstance(node, ast.AugAssign) and node.target is target):
                found.append(target.id)
        stack.extend(ast.iter_child_nodes(node))
    return found


def updated_in_place(statements_) -> list[str]:
    """Names that `statements_` bind only by augmented assignment: in place, for arrays."""
    finder = _PlainAssigned()
    for s in statements_:
        finder.visit(s)
    return [n for n in dict.fromkeys(finder.augmented) if n not in finder.names]


def rotates(statements_) -> bool:
    """Whether `statements_` (a loop's body) rebinds names among themselves at its top level
    (`u, v = v, u`; `a, b, c = b, c, a`): buffers a time loop takes turns with."""
    for s in statements_:
        if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Tuple) and \
                isinstance(s.value, ast.Tuple) and len(s.value.elts) == len(s.targets[0].elts) > 1:
            pairs = list(zip(s.targets[0].elts, s.value.elts))
            if all(isinstance(t, ast.Name) and isinstance(v, ast.Name) for t, v in pairs):
                targets, sources = [t.id for t, _ in pairs], [v.id for _, v in pairs]
                if sorted(targets) == sorted(sources) and targets != sources:
                    return True
    return False


def tested(test) -> None:
    """Mark the `and`/`or` whose values only a test's truth uses (`if a or b:`), through `not` and
    nested ones: their operands are taken as truths, so that a traced int and a traced bool join
    without a traced branch of two dtypes."""
    if isinstance(test, ast.BoolOp):
        test.tested = True
        for v in test.values:
            tested(v)
    elif isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        tested(test.operand)


def appended_only(statements_, target) -> list[str]:
    """Names `statements_` (a loop's body) use only in one `name.append(item)` among them, not in a
    branch or inner loop and not the loop's target: lists a rolled loop can carry
    (`collected_lists`), since no step reads them."""
    appends = [s.value.func.value.id for s in statements_
               if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) and len(s.value.args) == 1
               and not s.value.keywords and isinstance(s.value.func, ast.Attribute)
               and s.value.func.attr == "append" and isinstance(s.value.func.value, ast.Name)]
    uses = [n.id for s in [*statements_, target] for n in ast.walk(s) if isinstance(n, ast.Name)]
    return [n for n in appends if uses.count(n) == 1]


#: The nodes that open a scope of their own.
SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.ListComp, ast.SetComp,
          ast.DictComp, ast.GeneratorExp)


def unshared_lists(definition) -> dict[int, set[str]]:
    """For each `for` loop of `definition` (by `id` of its node), the local lists nothing can read while
    the loop runs, so that it may carry what its body appends (see `appended_only`): bound to a new
    list (`[...]`) before the loop in a block that holds it, rebound only after the loop (outside the
    loops around it), and between that binding and the loop, and in the loops around it below the
    binding, only appended to. An alias (`other = name`) or a function that reads the list would see
    only what the traced step appended."""
    parents = {id(child): node for node in ast.walk(definition) for child in ast.iter_child_nodes(node)}

    def ancestors(node):
        while id(node) in parents:
            node = parents[id(node)]
            yield node

    def appended(name: ast.Name) -> bool:
        attribute = parents[id(name)]
        call = parents.get(id(attribute))
        return isinstance(attribute, ast.Attribute) and attribute.attr == "append" and \
            isinstance(call, ast.Call) and call.func is attribute

    def at(node):  # (names the rewrite made have no place: first, so never a list's binding)
        return getattr(node, "lineno", 0), getattr(node, "col_offset", 0)

    mentions: dict[tuple, list[ast.Name]] = {}  # (scope, name) -> its mentions there
    nested: set[tuple] = set()  # (scope, name) mentioned in a scope inside that scope
    for node in ast.walk(definition):
        if isinstance(node, ast.Name):  # (a comprehension runs where it stands, or after: not a scope here)
            scopes = [a for a in ancestors(node) if isinstance(a, SCOPES) and not isinstance(a, _EAGER)]
            mentions.setdefault((id(scopes[0]), node.id), []).append(node)
            nested.update((id(s), node.id) for s in scopes[1:])
    found: dict[int, set[str]] = {}
    for loop in ast.walk(definition):
        if not isinstance(loop, ast.For):
            continue
        chain = list(ancestors(loop))
        here = next(a for a in chain if isinstance(a, SCOPES))
        inside = {id(n) for n in ast.walk(loop)}
        found[id(loop)] = set()
        for (owner, name), uses in mentions.items():
            stores = sorted((n for n in uses if not isinstance(n.ctx, ast.Load)), key=at)
            if owner != id(here) or (owner, name) in nested or not stores or _declared(here, name):
                continue
            binding = _new_list(stores[0], parents)
            block = parents.get(id(binding))
            if binding is None or block not in chain or at(binding) >= at(loop):
                continue
            around = [a for a in chain[:chain.index(block)] if isinstance(a, (ast.For, ast.While))]
            repeated = {id(n) for a in around for n in ast.walk(a)} - inside
            if any(id(s) in inside or id(s) in repeated or at(s) < at(loop) for s in stores[1:]):
                continue  # (rebound after the loop, `h = np.array(h)`: the loop has run by then)
            if all(appended(m) or m is stores[0] or id(m) in inside or
                   not (id(m) in repeated or at(binding) < at(m) < at(loop)) for m in uses):
                found[id(loop)].add(name)
    return found


_EAGER = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _new_list(store: ast.Name, parents: dict):
    """The assignment binding `store` to a new list (`out = []`, `steps, times = [], []`), or None."""
    binding = parents[id(store)]
    if isinstance(binding, ast.Tuple) and binding in getattr(parents[id(binding)], "targets", ()):
        value = parents[id(binding)].value
        made = value.elts[binding.elts.index(store)] if isinstance(value, ast.Tuple) and \
            len(value.elts) == len(binding.elts) else None
        binding = parents[id(binding)]
    else:
        made = binding.value if isinstance(binding, ast.Assign) and binding.targets == [store] else None
    return binding if isinstance(made, (ast.List, ast.ListComp)) and len(binding.targets) == 1 else None


def _declared(scope, name: str) -> bool:
    """Whether `name` is a parameter of `scope` or declared global or nonlocal in it."""
    return name in parameters(scope) or name in declared(scope)


def parameters(scope) -> set[str]:
    """The parameter names of a function or lambda (none for other scopes)."""
    arguments = getattr(scope, "args", None)
    if not isinstance(arguments, ast.arguments):
        return set()
    return {a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs, arguments.vararg,
                            arguments.kwarg) if a is not None}


def declared(scope) -> set[str]:
    """The names `scope` declares global or nonlocal."""
    return {n for d in ast.walk(scope) if isinstance(d, (ast.Global, ast.Nonlocal)) for n in d.names}
