"""Rewriting a function's source so its `if`/`while`/`for` work on traced values.

The function's syntax tree is transformed so that statements and boolean
expressions call `solvent.transforms.source.statements`, which runs plain Python when
a condition is static and builds `stablehlo.case`/`while` when it is traced.
Variables a statement assigns are passed in and out of the nested functions
that hold its branches or body; arrays mutated inside are found at trace time
(see `control_flow`). Functions the rewritten code calls are rewritten too when
they are the user's own (not NumPy, the standard library or installed packages).
"""

from __future__ import annotations

import ast
import dis
import functools
import os
import sysconfig
import types
import warnings

from solvent.core import dispatch
from solvent import errors
from solvent.errors import PACKAGE_DIR, SolventError
from solvent.transforms import outline
from solvent.transforms.python_objects import CARRIED_CELL
from solvent.transforms.source import (  # noqa: F401 (registering)
    builtins, definitions, liveness, math_functions, numpy_calls, numpy_iterators, refusals, statements)
from solvent.transforms.source.bindings import (appended_only, assigned, rotates, tested, unshared_lists,
                                                updated_in_place, written_through)
from solvent.transforms.source.returns import contains, fold_into
from solvent.transforms.source.syntax import (HELPER, assigns, compared, function_def, helper, loads,
                                              names_tuple, no_arguments)

_LIBRARY_DIRS = tuple({os.path.realpath(p) + os.sep for p in (
    sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"],
    PACKAGE_DIR)})


def _hints(body) -> list[ast.expr]:
    """What a rolled loop may guess about its body: the names only updated in place, and the arrays
    written by subscript (arguments of `while_stmt` and `for_range`)."""
    return [ast.Constant(tuple(updated_in_place(body))), loads(written_through(body))]


class _LoopExits(ast.NodeTransformer):
    """`break`/`continue` of one loop level become flag assignments; later statements are guarded."""

    def __init__(self, brk, cont):
        self.brk, self.cont = brk, cont

    def block(self, body):
        out = []
        for i, stmt in enumerate(body):
            stmt = self.visit(stmt)
            out.extend(stmt if isinstance(stmt, list) else [stmt])
            if contains([stmt], ast.Assign) and self._sets_flag(stmt) and i + 1 < len(body):
                guard = helper("not_", helper("or_", ast.Name(self.brk, ast.Load()),
                                              ast.Lambda(no_arguments(), ast.Name(self.cont, ast.Load()))))
                out.append(ast.copy_location(ast.If(guard, self.block(body[i + 1:]), []), body[i + 1]))
                break
        return out

    def _sets_flag(self, stmt) -> bool:
        return any(isinstance(n, ast.Name) and n.id in (self.brk, self.cont) and isinstance(n.ctx, ast.Store)
                   for n in ast.walk(stmt))

    def visit_Break(self, node):
        return ast.Assign([ast.Name(self.brk, ast.Store())], ast.Constant(True))

    def visit_Continue(self, node):
        return ast.Assign([ast.Name(self.cont, ast.Store())], ast.Constant(True))

    def visit_If(self, node):
        node.body, node.orelse = self.block(node.body), self.block(node.orelse)
        return node

    def visit_With(self, node):
        node.body = self.block(node.body)
        return node

    def visit_For(self, node):  # an inner loop's break/continue are its own
        return node

    visit_While = visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = visit_Lambda = visit_For


#: The handlers' names that catch LinAlgError, FloatingPointError and IndexError (by their names or a base's).
_CATCHING = {"linalg": {"LinAlgError", "ValueError", "Exception", "BaseException"},
             "float": {"FloatingPointError", "ArithmeticError", "Exception", "BaseException"},
             "index": {"IndexError", "LookupError", "Exception", "BaseException"}}
#: The names of solvent's errors: a `try` that names one catches them on purpose.
_SOLVENT_ERRORS = {name for name, x in vars(errors).items() if isinstance(x, type) and issubclass(x, SolventError)}


def _names(node) -> set[str]:
    """The names and attribute names in an expression (a handler's types)."""
    return {getattr(n, "id", getattr(n, "attr", None)) for n in ast.walk(node)} if node is not None else set()


#: The calls that print, log or warn: print(...), logger.info(...), warnings.warn(...), sys.stdout.write(...).
_PRINTING = {"print", "debug", "info", "warning", "warn", "error", "critical", "exception", "log", "write"}


def _printing(func) -> bool:
    return (func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)) in _PRINTING


def _printed(statement):
    """`statement` run in `statements.printing`."""
    return ast.copy_location(ast.With([ast.withitem(helper("printing"))], [statement]), statement)


class _Rewriter(ast.NodeTransformer):
    def __init__(self, filename, first_line, private=None, lists=None, captured=()):
        self.filename = filename
        self.captured = set(captured)  # the definition's names its nested functions read (its cells)
        self.offset = first_line - 1
        self.count = 0
        self.private = private or {}  # loop node id -> names its body keeps to itself (see `liveness`)
        self.lists = lists or {}  # `for` node id -> lists nothing else reads while it runs (`unshared_lists`)
        self.with_else: list = []  # the first line of each Python loop being visited that has an `else:`
        self.temporaries: dict = {}  # a loop's break flags (a `for`'s items, index) -> id of its `while` (`carried`)

    def _function(self, name, params, body) -> ast.FunctionDef:
        """A branch's or loop's function of the names it carries (`syntax.function_def`). A name a nested
        function of the user's reads (`def get(): return u`) is the definition's own cell
        (`nonlocal`), set from the parameter on entry, so that calls in the body see its value there."""
        shared = [p for p in params if p in self.captured]
        if not shared:
            return function_def(name, params, body)
        entry = [ast.Nonlocal(shared)] + [ast.Assign([ast.Name(p, ast.Store())], ast.Name(CARRIED_CELL + p, ast.Load()))
                                          for p in shared]
        return function_def(name, [CARRIED_CELL + p if p in shared else p for p in params], entry + body)

    def carried(self, loop, body) -> list[str]:
        """The names a loop carries: those its body assigns, less its own temporaries, and less those
        of the loops with break in it (set before each use: a time loop around one carries none)."""
        return [n for n in assigned(body)
                if n not in self.private.get(id(loop), ()) and self.temporaries.get(n, id(loop)) == id(loop)]

    def fresh(self, kind) -> str:
        self.count += 1
        return f"__solvent_{kind}_{self.count}"

    def where(self, node) -> ast.Tuple:
        return ast.Tuple([ast.Constant(self.filename), ast.Constant(node.lineno + self.offset)], ast.Load())

    # -- expressions ---------------------------------------------------------------

    def visit_BoolOp(self, node):
        """`and_(a, lambda: b, ...)`: the operands Python may skip as thunks. One that assigns (`:=`)
        stays Python's `and` (a thunk's name would be its own), whose tests must then be static."""
        self.generic_visit(node)
        name = "and_" if isinstance(node.op, ast.And) else "or_"
        values = [helper("truth", v) for v in node.values] if getattr(node, "tested", False) else node.values
        if assigns(values[1:]):
            node.values = [self._static(v, node, "`and` or `or`") for v in values[:-1]] + values[-1:]
            return node
        return helper(name, values[0], *[ast.Lambda(no_arguments(), v) for v in values[1:]])

    def _static(self, test, node, construct: str) -> ast.Call:
        """`test`, refused where traced: it decides whether an assignment expression (:=) runs."""
        return helper("refuse", test, ast.Constant(f"{construct} deciding whether an assignment (:=) runs"),
                      self.where(node), ast.Constant("assign before the test instead (v = x[1], then test v)"))

    def visit_UnaryOp(self, node):
        if isinstance(node.op, ast.Not):
            tested(node.operand)
        self.generic_visit(node)
        return helper("not_", node.operand) if isinstance(node.op, ast.Not) else node

    def visit_Compare(self, node):
        """Chains as `chained` pairs (each operand evaluated once); `in` as `contains` (which a traced
        container can answer)."""
        self.generic_visit(node)
        if len(node.ops) == 1:
            return compared(node.left, node.ops[0], node.comparators[0])
        if assigns(node.comparators[1:]):
            return node  # (Python's own chain, its links' truths static: bool() refuses a traced one)
        left, right = "__solvent_left", "__solvent_right"
        compares = [ast.Lambda(no_arguments([left, right]), compared(ast.Name(left, ast.Load()), op,
                                                                       ast.Name(right, ast.Load()))) for op in node.ops]
        links = [ast.Tuple([compare, ast.Lambda(no_arguments(), operand)], ast.Load())
                 for compare, operand in zip(compares[1:], node.comparators[1:])]
        return helper("chained", node.left, compares[0], node.comparators[0], *links)

    def visit_BinOp(self, node):
        """`"%d" % x` through `statements.percent`: Python's % replaces the error of a traced number with
        its own TypeError."""
        self.generic_visit(node)
        if isinstance(node.op, ast.Mod) and isinstance(node.left, ast.Constant) and isinstance(node.left.value, str):
            return ast.copy_location(helper("percent", node.left, node.right), node)
        return node

    def visit_Subscript(self, node):
        """`x[key]` read: through `statements.subscript`, so a host array takes traced indices."""
        self.generic_visit(node)
        if not isinstance(node.ctx, ast.Load) or any(isinstance(n, ast.Starred) for n in ast.walk(node.slice)):
            return node
        key = [helper("slice_of", *[p or ast.Constant(None) for p in (s.lower, s.upper, s.step)])
               if isinstance(s, ast.Slice) else s for s in (node.slice.elts if isinstance(node.slice, ast.Tuple)
                                                            else [node.slice])]
        key = ast.Tuple(key, ast.Load()) if isinstance(node.slice, ast.Tuple) else key[0]
        return ast.copy_location(helper("subscript", node.value, key), node)

    def visit_ListComp(self, node):
        """`[elt for i in range(...)]` (one loop, no `if`): `statements.list_range`, which rolls it as a
        `for` appending one item a step where its items are traced (unrolled, 500 items took 13 s)."""
        loop = node.generators[0]
        iterator = loop.iter
        simple = len(node.generators) == 1 and not loop.ifs and not loop.is_async and \
            isinstance(loop.target, ast.Name) and isinstance(iterator, ast.Call) and _is_range(iterator.func) and \
            not iterator.keywords and 1 <= len(iterator.args) <= 3 and \
            not any(isinstance(a, ast.Starred) for a in iterator.args) and \
            not assigns([node.elt]) and \
            not any(isinstance(n, ast.Lambda) for n in ast.walk(node.elt))  # (a lambda sees the last item)
        self.generic_visit(node)
        if not simple:
            return node
        item = ast.Lambda(ast.arguments([], [ast.arg(loop.target.id)], None, [], [], None, []), node.elt)
        return ast.copy_location(helper("list_range", ast.Tuple(iterator.args, ast.Load()), item,
                                        self.where(node)), node)

    def visit_comprehension(self, node):
        """A comprehension's `if`s: Python's, or while traced an error saying why (bool() raised)."""
        wheres = [self.where(test) for test in node.ifs]
        self.generic_visit(node)
        node.ifs = [helper("refuse", test, ast.Constant("a comprehension's `if`"), where, ast.Constant(
            "how many items it keeps is known only when the program runs: select with a mask instead (x[x > 0]), "
            "or keep every item and choose with np.where")) for test, where in zip(node.ifs, wheres)]
        return node

    def visit_IfExp(self, node):
        tested(node.test)
        self.generic_visit(node)
        if assigns([node.body, node.orelse]):
            node.test = self._static(node.test, node, "`x if test else y`")
            return node
        return helper("ifexp", node.test, ast.Lambda(no_arguments(), node.body),
                      ast.Lambda(no_arguments(), node.orelse))

    def visit_Call(self, node):
        self.generic_visit(node)
        func = node.func
        ours = isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == HELPER
        if not ours and not (isinstance(func, ast.Name) and func.id in ("super", "locals", "globals", "vars")):
            node.func = helper("converted", func)
        return node

    # -- statements ----------------------------------------------------------------

    def visit_FunctionDef(self, node):
        """A function defined inside: its early returns fold too, then its body is rewritten."""
        fold_into(node)
        self.generic_visit(node)
        return node

    def visit_Try(self, node):
        """solvent's own errors pass through a `try`'s handlers (`except Exception:` would run its
        fallback where NumPy runs the body), unless one names them; a `try` with a handler that catches
        LinAlgError or FloatingPointError (by its name or a base's, or bare) runs its body in
        `statements.catching`."""
        self.generic_visit(node)
        if node.handlers and not any(_names(h.type) & _SOLVENT_ERRORS for h in node.handlers):
            passing = ast.Attribute(ast.Name(HELPER, ast.Load()), "SolventError", ast.Load())
            node.handlers.insert(0, ast.copy_location(ast.ExceptHandler(passing, None, [ast.Raise()]), node))
        for kind, names in _CATCHING.items():
            if any(h.type is None or _names(h.type) & names for h in node.handlers):
                guard = helper("catching", ast.Constant(kind), self.where(node))
                node.body = [ast.copy_location(ast.With([ast.withitem(guard)], node.body), node)]
        return node

    def visit_Expr(self, node):
        """A print, log or warning call runs in `statements.printing`: text of a traced value there says
        what it is."""
        printed = isinstance(node.value, ast.Call) and _printing(node.value.func)
        self.generic_visit(node)
        return _printed(node) if printed else node

    def visit_Raise(self, node):
        """A raise's message may show a traced value, as a print's does."""
        self.generic_visit(node)
        return _printed(node)

    def visit_Return(self, node):
        """A returned name a loop of no steps never bound raises, as Python's `return t` does."""
        self.generic_visit(node)
        named = node.value.elts if isinstance(node.value, (ast.Tuple, ast.List)) else [node.value]
        for k, v in enumerate(named):
            if isinstance(v, ast.Name):
                named[k] = helper("bound", v)
        if isinstance(node.value, ast.Name):
            node.value = named[0]
        return node

    def visit_Assert(self, node):
        tested(node.test)
        self.generic_visit(node)
        node.test = helper("asserted", node.test, self.where(node))
        return node

    def visit_If(self, node):
        tested(node.test)
        self.generic_visit(node)
        if contains(node.body + node.orelse, (ast.Return, ast.Yield, ast.Global, ast.Nonlocal, ast.Break,
                                                ast.Continue)):
            construct = "an `if` holding return/break/continue"
            if self.with_else and self.with_else[-1] and contains(node.body + node.orelse, (ast.Break, ast.Continue)):
                construct = (f"an `if` holding break/continue in the loop with `else:` at line {self.with_else[-1]} "
                             "(solvent does not capture a loop's else: set a flag before `break` and test it after)")
            node.test = helper("refuse", node.test, ast.Constant(construct), self.where(node))
            return node
        names = assigned(node.body + node.orelse)
        true_name, false_name = self.fresh("if_true"), self.fresh("if_false")
        done = [ast.Return(loads(names))]
        call = helper("if_stmt", node.test, ast.Name(true_name, ast.Load()), ast.Name(false_name, ast.Load()),
                      loads(names), ast.Constant(tuple(names)), self.where(node))
        return [self._function(true_name, names, node.body + done),
                self._function(false_name, names, node.orelse + done),
                self._assign(names, call)]

    def _assign(self, names, call):
        if not names:
            return ast.Expr(call)
        return ast.Assign([names_tuple(names, ast.Store)], call)

    def visit_While(self, node):
        if not node.orelse and assigns([node.test]):
            # `while (h := f(h)) > t:` assigns in its test: `while True: if not test: break` runs it in
            # the body, where its names are the loop's
            stop = ast.If(ast.UnaryOp(ast.Not(), node.test), [ast.Break()], [])
            node = ast.copy_location(ast.While(ast.Constant(True), [ast.copy_location(stop, node)] + node.body, []),
                                     node)
        if node.orelse or contains(node.body, (ast.Return, ast.Yield, ast.Global, ast.Nonlocal)):
            self._visit_uncaptured(node)
            node.test = helper("refuse", node.test, ast.Constant("a `while` holding return (or with else)"),
                               self.where(node))
            return node
        prologue, node = self._lower_exits(node)
        hints = _hints(node.body)  # from the body as written, before its statements are rewritten
        tested(node.test)
        self.generic_visit(node)
        names = self.carried(node, node.body)
        test_name, body_name = self.fresh("while_test"), self.fresh("while_body")
        done = [ast.Return(loads(names))]
        call = helper("while_stmt", ast.Name(test_name, ast.Load()), ast.Name(body_name, ast.Load()),
                      loads(names), ast.Constant(tuple(names)), self.where(node), *hints)
        return prologue + [self._function(test_name, names, [ast.Return(node.test)]),
                           self._function(body_name, names, node.body + done), self._assign(names, call)]

    def _visit_uncaptured(self, loop):
        """A loop left a Python loop (with return, or `else:`), its `else:` known to the `if`s in it."""
        self.with_else.append(loop.lineno + self.offset if loop.orelse else None)
        self.generic_visit(loop)
        self.with_else.pop()

    def _lower_exits(self, node):
        """Loop with break/continue -> flags in the body and `not brk and test`."""
        if not contains(node.body, (ast.Break, ast.Continue), into_loops=False):
            return [], node
        brk, cont = self.fresh("break"), self.fresh("continue")
        body = _LoopExits(brk, cont).block(node.body)
        reset = ast.Assign([ast.Name(cont, ast.Store())], ast.Constant(False))
        node.body = [reset] + body
        node.test = ast.BoolOp(ast.And(), [ast.UnaryOp(ast.Not(), ast.Name(brk, ast.Load())), node.test])
        flags = [ast.Assign([ast.Name(f, ast.Store())], ast.Constant(False)) for f in (brk, cont)]
        self.temporaries.update({brk: id(node), cont: id(node)})
        return flags, node

    def visit_For(self, node):
        if node.orelse or contains(node.body, (ast.Return, ast.Yield, ast.Global, ast.Nonlocal)):
            self._visit_uncaptured(node)
            if isinstance(node.iter, ast.Call) and _is_range(node.iter.func.args[0] if _is_helper_call(
                    node.iter.func) else node.iter.func):
                construct = ast.Constant("a `for` loop holding return (or with else) over a range")
                node.iter.args = [helper("refuse", a, construct, self.where(node)) for a in node.iter.args]
            return node
        if contains(node.body, (ast.Break, ast.Continue), into_loops=False):
            return self.visit(self._for_as_while(node))
        iterator = node.iter
        range_args = (iterator.args if isinstance(iterator, ast.Call) and _is_range(iterator.func)
                      and not iterator.keywords and 1 <= len(iterator.args) <= 3 else None)
        hints = _hints(node.body)
        branching = ast.Constant(contains(node.body, (ast.If, ast.IfExp)))
        lists = [n for n in appended_only(node.body, node.target) if n in self.lists.get(id(node), ())]
        collected = ast.Lambda(no_arguments(), loads(lists))
        self.generic_visit(node)
        item = self.fresh("item")
        body = [ast.Assign([node.target], ast.Name(item, ast.Load()))] + node.body
        names = self.carried(node, body)
        body_name = self.fresh("for_body")
        done = [ast.Return(loads(names))]
        function = self._function(body_name, [item] + names, body + done)
        if range_args is not None:  # generic_visit rewrote the arguments in place
            call = helper("for_range", ast.Tuple(range_args, ast.Load()), ast.Name(body_name, ast.Load()),
                          loads(names), ast.Constant(tuple(names)), self.where(node), *hints, branching,
                          collected, rotating=ast.Constant(not lists and rotates(node.body)))
        else:
            call = helper("for_stmt", node.iter, ast.Name(body_name, ast.Load()), loads(names),
                          ast.Constant(tuple(names)), self.where(node), *hints, collected)
        return [function, self._assign(names, call)]

    def _for_as_while(self, node):
        """`for t in it:` with break/continue -> an index-driven `while` over the items."""
        items, index = self.fresh("items"), self.fresh("index")
        iterator = node.iter
        if isinstance(iterator, ast.Call) and _is_range(iterator.func):
            sequence = helper("range_items", self.where(node), *iterator.args)
        else:
            sequence = helper("items", iterator)
        setup = [ast.copy_location(ast.Assign([ast.Name(name, ast.Store())], value), node)
                 for name, value in ((items, sequence), (index, helper("first_index", ast.Name(items, ast.Load()))))]
        test = ast.Compare(ast.Name(index, ast.Load()), [ast.Lt()],
                           [helper("length", ast.Name(items, ast.Load()))])
        advance = [ast.Assign([node.target], ast.Subscript(ast.Name(items, ast.Load()), ast.Name(index, ast.Load()),
                                                           ast.Load())),
                   ast.AugAssign(ast.Name(index, ast.Store()), ast.Add(), ast.Constant(1))]
        loop = ast.While(test, advance + node.body, [])
        self.temporaries.update({items: id(loop), index: id(loop)})
        self.private[id(loop)] = self.private.get(id(node), set())  # (its temporaries are the for's)
        return ast.copy_location(ast.Module(setup + [ast.copy_location(loop, node)], []), node)

    def visit_Module(self, node):  # only for the synthetic module of _for_as_while
        self.generic_visit(node)
        return node.body


def _is_helper_call(node) -> bool:
    """Whether `node` is `__solvent_statements__.converted(...)` (a call the rewrite wrapped)."""
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name) and node.func.value.id == HELPER)


def _is_range(func) -> bool:
    return isinstance(func, ast.Name) and func.id == "range"


# -- converting functions --------------------------------------------------------------


def is_user_code(fn) -> bool:
    """A plain Python function from the user's own files (not libraries, not solvent)."""
    code = getattr(fn, "__code__", None)
    if not isinstance(fn, types.FunctionType) or code is None:
        return False
    filename = os.path.realpath(code.co_filename)
    return not filename.startswith(_LIBRARY_DIRS) and not code.co_filename.startswith("<")


def _callable_object(fn) -> bool:
    """An instance of the user's class with a `__call__` (a model, a right-hand side)."""
    return not isinstance(fn, (type, types.FunctionType)) and is_user_code(getattr(type(fn), "__call__", None))


def _rebuilt(fn, rewrite):
    """A functools.partial of the rewritten function, or the rewritten `__call__` bound to the object."""
    if isinstance(fn, functools.partial):
        inner = rewrite(fn.func)
        return fn if inner is fn.func else functools.partial(inner, *fn.args, **fn.keywords)
    return rewrite(types.MethodType(type(fn).__call__, fn))


def convert(fn):
    """`fn` with its control flow rewritten, or `fn` itself when it cannot or need not be.

    The rewritten function shares `fn`'s globals, defaults and closure cells, so
    it sees later changes to the variables it closes over exactly as `fn` would.
    """
    if isinstance(fn, types.MethodType):
        function = convert(fn.__func__)
        return fn if function is fn.__func__ else types.MethodType(function, fn.__self__)
    if isinstance(fn, functools.partial) or _callable_object(fn):
        return _rebuilt(fn, convert)
    if isinstance(fn, types.FunctionType) and fn.__code__.co_filename.startswith("<") and not \
            fn.__code__.co_filename.startswith("<solvent"):
        _unavailable(fn.__code__)  # defined by exec or typed at a prompt
    if not is_user_code(fn) or getattr(fn, "__solvent_converted__", False):
        return fn
    if HELPER in fn.__code__.co_freevars:  # defined inside a rewritten function: rewritten with it
        return fn
    code = _rewritten_code(fn.__code__)
    if code is None:
        return fn
    cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    cells[HELPER] = types.CellType(HELPERS)
    closure = tuple(cells[name] for name in code.co_freevars)
    new = types.FunctionType(code, fn.__globals__, fn.__name__, fn.__defaults__, closure)
    new.__kwdefaults__ = fn.__kwdefaults__
    functools.update_wrapper(new, fn)
    new.__solvent_converted__ = True
    return new


@functools.lru_cache(maxsize=256)
def _unavailable(code) -> None:
    """Warn, once per function, that a function with loops has no source solvent can read."""
    if any(op.opname.startswith("JUMP_BACKWARD") for op in dis.get_instructions(code)):
        warnings.warn(f"solvent cannot read the source of {code.co_name!r} ({code.co_filename}): its loops run "
                      "as plain Python while tracing, unrolled; define it in a file so solvent can roll them",
                      stacklevel=5)


@functools.lru_cache(maxsize=1024)
def _rewritten_code(code):
    """The code object of `code`'s function with its source rewritten, or None."""
    lines = definitions.source_lines(code)
    if not lines:
        _unavailable(code)
        return None
    definition, offset = definitions.definition(code, lines)
    if definition is None or _uses_unsupported(definition):
        return None
    definition.decorator_list = []
    fold_into(definition)
    rewriter = _Rewriter(code.co_filename, offset + 1, liveness.private_names(definition), unshared_lists(definition),
                         code.co_cellvars)
    definition.body = _flatten([rewriter.visit(s) for s in definition.body])
    if rewriter.count == 0 and not _has_calls(definition):
        return None
    # Nest the definition, renamed, in a function whose locals are the closure's names, so that they
    # compile as its free variables (cells); its own name is not one (recursion reads the global).
    definition.name = name = "__solvent_definition__"
    made = ast.Return(ast.Name(name, ast.Load()))
    outer = function_def("__solvent_factory__", [HELPER, *code.co_freevars], [definition, made])
    module = ast.increment_lineno(ast.fix_missing_locations(ast.Module([outer], [])), offset)
    factory = next(c for c in compile(module, code.co_filename, "exec").co_consts if isinstance(c, types.CodeType))
    found = next(c for c in factory.co_consts if isinstance(c, types.CodeType) and c.co_name == name)
    return found.replace(co_name=code.co_name, co_qualname=code.co_qualname)


def _flatten(items):
    out = []
    for item in items:
        out.extend(item if isinstance(item, list) else [item])
    return out


def _has_calls(definition) -> bool:
    return any(isinstance(n, ast.Call) for n in ast.walk(definition))


def _uses_unsupported(definition) -> bool:
    """Generators, `super()` and async code keep their own source."""
    return any(isinstance(n, (ast.Yield, ast.YieldFrom, ast.Await)) or (isinstance(n, ast.Name) and n.id in (
        "super", "__class__")) for n in ast.walk(definition))


def converted(fn):
    """Called functions that are the user's own are rewritten too, and outlined (see `outline`);
    builtins (`max`, `int`, ...) and `math` functions become what they mean on traced values (see
    `builtins`, `math_functions`), and NumPy's functions take lists of traced values (see
    `numpy_calls`)."""
    if isinstance(fn, (types.BuiltinFunctionType, type)) and fn in dispatch.BUILTINS:
        return dispatch.BUILTINS[fn]
    refusals.no_host_draws(fn)
    stand_in = numpy_calls.stand_in(fn)
    if stand_in is not None:  # np.zeros & co. as the module had them before the trace
        return stand_in
    if numpy_calls.registered(fn):
        return numpy_calls.with_lists(fn)
    if isinstance(fn, types.MethodType):
        inner = converted(fn.__func__)
        return fn if inner is fn.__func__ else types.MethodType(inner, fn.__self__)
    if isinstance(fn, functools.partial) or _callable_object(fn):
        return _rebuilt(fn, converted)
    if not is_user_code(fn):
        return fn
    wrapper = fn.__dict__.get("__solvent_wrapper__")
    if wrapper is None or wrapper.__solvent_of__ is not fn:  # (functools.wraps copies it to a decorator's)
        wrapper = outline.outlined(convert(fn), key=fn)
        # kept on the function, not in a table by it: it holds the function (and what that closes over)
        wrapper.__solvent_of__, fn.__solvent_wrapper__ = fn, wrapper
    return wrapper


#: What rewritten code reaches through HELPER: the statement forms, and `converted` for calls.
HELPERS = types.SimpleNamespace(**{name: getattr(statements, name) for name in statements.__all__},
                                converted=converted)
