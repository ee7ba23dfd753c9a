# The import graph of versus.*, read from the source: every `import` and `from ... import` of
# every module (at module level and inside functions, relative imports resolved), as an edge
# from the importing module to the module it loads. A circle of imports (a strongly connected
# component of more than one module) fails, named module by module; a lazy import inside a
# function is still an edge, so moving an import into a function does not hide a circle.
# Imports under `if TYPE_CHECKING:` are left out: they never run.
#
# The same graph holds the layering (CONTRIBUTING.md): engine/ and protocol/ are pure, so they
# import no trio, sockets, `random`, and nothing of p2p/ or cli/.
from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: the checkout's folders and the installed name each has (versus/__init__.py)
PACKAGES = {"engine": "versus.engine", "protocol": "versus.protocol", "p2p": "versus.p2p",
            "cli": "versus.cli"}
PURE = ("versus.engine", "versus.protocol")
#: circles that another change removes (cli split by command); the test fails when one of them
#: is gone too, so this list only ever shrinks to empty
KNOWN_CIRCLES: tuple[tuple[str, ...], ...] = ()
FORBIDDEN_IN_PURE = ("trio", "socket", "random", "versus.p2p", "versus.cli")


def _module_files() -> dict[str, Path]:
    files = {"versus": ROOT / "versus" / "__init__.py"}
    for folder, name in PACKAGES.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = path.relative_to(ROOT / folder).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            files[".".join((name, *parts))] = path
    return files


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _import_nodes(node: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement under `node`, at any depth, except `if TYPE_CHECKING:` bodies."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.Import | ast.ImportFrom):
            yield child
        elif isinstance(child, ast.If) and _is_type_checking(child.test):
            for other in child.orelse:
                yield from _import_nodes(other)
        else:
            yield from _import_nodes(child)


def _base(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    """The absolute module name a `from X import ...` names as X."""
    if not node.level:
        return node.module or ""
    package = module if is_package else module.rpartition(".")[0]
    for _ in range(node.level - 1):
        package = package.rpartition(".")[0]
    return f"{package}.{node.module}" if node.module else package


def _imports(module: str, path: Path, known: frozenset[str]) -> set[str]:
    """The modules `module` imports: for `from X import y`, X.y when that is a module, else X."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node in _import_nodes(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
            continue
        base = _base(module, is_package, node)
        for alias in node.names:
            sub = f"{base}.{alias.name}"
            found.add(sub if sub in known else base)
    found.discard(module)
    return found


@cache
def import_graph() -> dict[str, frozenset[str]]:
    """module -> every module it imports (third-party and standard library ones included)."""
    files = _module_files()
    known = frozenset(files)
    return {m: frozenset(_imports(m, p, known)) for m, p in files.items()}


def _cycles(graph: dict[str, frozenset[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root] & graph.keys())))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child] & graph.keys()))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def _a_circle(graph: dict[str, frozenset[str]], component: list[str]) -> list[str]:
    """One circle through the component's first module, for the failure message."""
    members = set(component)
    start = component[0]
    paths = {start: [start]}
    queue = [start]
    while queue:
        node = queue.pop(0)
        for child in sorted(graph[node] & members):
            if child == start:
                return [*paths[node], start]
            if child not in paths:
                paths[child] = [*paths[node], child]
                queue.append(child)
    raise AssertionError(f"no circle through {start}")  # a component always has one


def test_the_graph_sees_every_kind_of_import() -> None:
    graph = import_graph()
    # relative (`from .api import`), a package's submodule (`from . import x`), function-level
    assert "versus.engine.api" in graph["versus.engine.registry"]
    assert "versus.engine.errors" in graph["versus.engine.grid"]
    assert len(graph) > 100


def test_the_cycle_finder_finds_a_circle() -> None:
    graph = {"a": frozenset({"b"}), "b": frozenset({"c"}), "c": frozenset({"a"}),
             "d": frozenset({"a"})}
    assert _cycles(graph) == [["a", "b", "c"]]
    assert _a_circle(graph, ["a", "b", "c"]) == ["a", "b", "c", "a"]


def test_no_circle_of_imports() -> None:
    graph = import_graph()
    found = _cycles(graph)
    circles = [" -> ".join(_a_circle(graph, c)) + f" ({len(c)} modules: {', '.join(c)})"
               for c in found if tuple(c) not in KNOWN_CIRCLES]
    assert not circles, "circles of imports:\n" + "\n".join(circles)
    gone = [c for c in KNOWN_CIRCLES if list(c) not in found]
    assert not gone, f"no longer circles, remove them from KNOWN_CIRCLES: {gone}"


def test_engine_and_protocol_stay_pure() -> None:
    graph = import_graph()
    wrong = sorted(
        f"{module} imports {target}"
        for module, targets in graph.items() if module.startswith(PURE)
        for target in targets
        if any(target == bad or target.startswith(bad + ".") for bad in FORBIDDEN_IN_PURE)
    )
    assert not wrong, "\n".join(wrong)


if __name__ == "__main__":  # print the circles: python tests/test_imports.py
    for component in _cycles(import_graph()):
        print(len(component), " -> ".join(_a_circle(import_graph(), component)))
    sys.exit(0)
