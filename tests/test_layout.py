"""The package's shape as data: layers that import only downward, no import circles, and modules and
functions small enough to read (LAYOUT.md). Violations that remain are listed below and may only
shrink."""

import ast
import pathlib

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / "solvent"

# Top to bottom. A module may import its own layer and the layers below it, never one above.
# Each layer lists the module-name prefixes it holds.
LAYERS = (
    ("init", ("solvent",)),
    ("array_api", ("solvent.array_api",)),
    ("eager", ("solvent.eager", "solvent.eager_keys")),
    ("api", ("solvent.api",)),
    ("compiler", ("solvent.compiler",)),
    ("sharding", ("solvent.sharding",)),
    ("distributed", ("solvent.distributed",)),
    ("passes", ("solvent.passes",)),
    ("transforms", ("solvent.transforms",)),
    ("tracing", ("solvent.tracing",)),
    ("numpy", ("solvent.numpy",)),
    ("ops", ("solvent.ops",)),
    ("runtime", ("solvent.runtime",)),
    ("core", ("solvent.core",)),
    ("ir", ("solvent.ir",)),
    ("errors", ("solvent.errors",)),
)

MODULE_LINES = 600
FUNCTION_LINES = 60

# Today's exceptions, each to be removed by the move that fixes it.
UPWARD = set()
CIRCLES = []
LONG_MODULES = set()
LONG_FUNCTIONS = set()


def modules() -> dict[str, pathlib.Path]:
    """Every module of the package by dotted name (a package by its own name)."""
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imports(name: str, path: pathlib.Path, known) -> set[str]:
    """The solvent modules `name` imports anywhere in its body, lazy imports included."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
            continue
        if not isinstance(node, ast.ImportFrom):
            continue
        base = node.module or ""
        if node.level:
            parts = package.split(".")[: len(package.split(".")) - node.level + 1]
            base = ".".join(parts + ([node.module] if node.module else []))
        for alias in node.names:
            found.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base)
    return {m for m in found if m == "solvent" or m.startswith("solvent.")}


def graph() -> dict[str, set[str]]:
    known = modules()
    return {name: imports(name, path, known) - {name} for name, path in known.items()}


def layer(name: str) -> int:
    """The rank of `name`'s layer (0 is the top), by its longest matching prefix."""
    best, rank = -1, None
    for k, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (name == prefix or name.startswith(prefix + ".")) and len(prefix) > best:
                best, rank = len(prefix), k
    assert rank is not None, f"{name} is in no layer of LAYERS"
    return rank


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return sorted(found)


def test_every_module_has_a_layer():
    for name in modules():
        layer(name)


def test_imports_point_down():
    upward = {(a, b) for a, targets in graph().items() for b in targets if layer(b) < layer(a)}
    assert upward == UPWARD


def test_no_import_circles():
    assert circles(graph()) == CIRCLES


def test_modules_are_short():
    long = {name for name, path in modules().items() if len(path.read_text().splitlines()) > MODULE_LINES}
    assert long == LONG_MODULES


def test_functions_are_short():
    long = set()
    for name, path in modules().items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                first = min([node.lineno] + [d.lineno for d in node.decorator_list])
                if node.end_lineno - first + 1 > FUNCTION_LINES:
                    long.add(f"{name}.{node.name}")
    assert long == LONG_FUNCTIONS


def test_the_guard_sees_a_circle_and_an_upward_import():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert layer("solvent.errors") > layer("solvent.api") > layer("solvent")
    assert "solvent.api" in graph()["solvent.eager"]
    assert layer("solvent.array_api.linalg") < layer("solvent.eager") < layer("solvent.numpy.linalg")
