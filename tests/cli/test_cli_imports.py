# The shape of cli/, held by its own imports: no circle of imports among its modules, and no
# module importing another's private name (a leading underscore). Read from the source with
# `ast` (nothing is imported), every import counted: a lazy one inside a function and one under
# TYPE_CHECKING are dependencies too. A module's import of its own package (`from . import x`
# in a sub-package) is no dependency: importing any submodule runs its package first.
from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

CLI = Path(__file__).resolve().parents[2] / "cli"
#: private names the bots' package still shares between its own modules (cli/bots/ is
#: restructured with the games' registration of their bots; remove the pair when it goes)
KNOWN_PRIVATE = {("cli.bots.grid_ismcts", "cli.bots.grid")}


def modules(root: Path = CLI) -> dict[str, Path]:
    """{dotted name under the checkout ("cli.host_cmd", "cli.ui"): its file}."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def imports(name: str, path: Path, known: dict[str, Path]
            ) -> Iterator[tuple[str, tuple[str, ...]]]:
    """(module imported, the names taken from it) for every import of a cli module."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name.removeprefix("versus."), ()
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = (node.module or "").removeprefix("versus.")
            names = tuple(alias.name for alias in node.names)
            submodules = [n for n in names if f"{target}.{n}" in known]
            for sub in submodules:
                yield f"{target}.{sub}", ()
            if len(submodules) < len(names):
                yield target, tuple(n for n in names if n not in submodules)


def graph(known: dict[str, Path]) -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {name: set() for name in known}
    for name, path in known.items():
        for target, _names in imports(name, path, known):
            if target in known and target != name and not name.startswith(target + "."):
                edges[name].add(target)
    return edges


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def test_cli_has_no_circle_of_imports() -> None:
    assert circles(graph(modules())) == []


def test_no_cli_module_imports_another_modules_private_name() -> None:
    known = modules()
    private = sorted(
        f"{name} imports {target}.{n}"
        for name, path in known.items()
        for target, names in imports(name, path, known)
        for n in names
        if n.startswith("_") and target in known and target != name
        and (name, target) not in KNOWN_PRIVATE)
    assert private == []


def test_the_checks_find_a_circle_and_a_private_import(tmp_path: Path) -> None:
    """The walker itself: a two-module circle through a lazy import, and a private name."""
    (tmp_path / "cli").mkdir()
    (tmp_path / "cli" / "__init__.py").write_text("")
    (tmp_path / "cli" / "a.py").write_text("from .b import thing\n")
    (tmp_path / "cli" / "b.py").write_text("def thing():\n    from .a import _hidden\n")
    known = modules(tmp_path / "cli")
    assert circles(graph(known)) == [["cli.a", "cli.b"]]
    assert ("cli.a", ("_hidden",)) in list(imports("cli.b", known["cli.b"], known))
