# The shell never names a game (ARCHITECTURE "A game describes, the shell draws"): cli/, rl/ and
# bench/ know a game through the Game interface and what the game registers (engine/shell.py:
# its bots, its text rendering, its local deal), never by its id and never by importing its
# package. A scan of their source (tokens and imports, not comments) finds every string literal
# that is a built-in game's id and every import of a game's package (`versus.engine.<id>...`,
# a private name of one flagged as such), and fails on any outside the short allow-list below.
from __future__ import annotations

import ast
import io
import tokenize
from pathlib import Path

from versus.engine.registry import BUILTIN_GAMES

ROOT = Path(__file__).resolve().parents[1]
SHELL = ("cli", "bench", "rl")

#: the files that may name a game, each with why
ALLOWED = {
    # A game's own benchmark is named after its game (bench/<game id>.py: grid, multiverse,
    # vanquishers): it times that game's engine and plays its bots; bench/run_all.py finds it
    # by the registry's ids.
    **{f"bench/{game_id}.py": "the game's own benchmark" for game_id in BUILTIN_GAMES},
}


def _module_file(path: Path, node: ast.ImportFrom) -> Path | None:
    """The shell file an import of the shell names (relative, or `versus.cli...`/`bench`)."""
    if node.level:
        base = path.parent
        for _ in range(node.level - 1):
            base = base.parent
        parts = (node.module or "").split(".") if node.module else []
    elif node.module and node.module.startswith("versus.cli"):
        base, parts = ROOT / "cli", node.module.split(".")[2:]
    else:
        return None
    target = base.joinpath(*parts)
    for candidate in (target.with_suffix(".py"), target / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _id_constants(path: Path) -> set[str]:
    """The module-level names of `path` bound to a game id (`VERSUS = "versus42"`)."""
    names = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
                and node.value.value in BUILTIN_GAMES):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return names


def game_names(path: Path) -> list[str]:
    """Where the source of `path` names a game: "line: what"."""
    text = path.read_text(encoding="utf-8")
    found = []
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.STRING:
            try:
                value = ast.literal_eval(token.string)
            except (ValueError, SyntaxError):  # an f-string: its parts are not one id
                continue
            if value in BUILTIN_GAMES:
                found.append(f"{token.start[0]}: the game id {value!r}")
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ImportFrom):
            source = _module_file(path, node)
            if source is not None:  # a game id by another name, from another shell module
                named = _id_constants(source) & {alias.name for alias in node.names}
                found += [f"{node.lineno}: imports the game id {name} of {node.module}"
                          for name in sorted(named)]
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            imports = [(node.module, [alias.name for alias in node.names])]
        elif isinstance(node, ast.Import):
            imports = [(alias.name, []) for alias in node.names]
        else:
            continue
        for module, names in imports:
            parts = module.split(".")
            if parts[:2] == ["versus", "engine"] and len(parts) > 2 and parts[2] in BUILTIN_GAMES:
                private = [n for n in [*parts, *names] if n.startswith("_")]
                found.append(f"{node.lineno}: imports {module}"
                             + (f" (private: {', '.join(private)})" if private else ""))
    return found


def shell_files() -> list[Path]:
    return sorted(p for folder in SHELL for p in (ROOT / folder).rglob("*.py"))


def test_the_shell_names_no_game_outside_the_allowed_files() -> None:
    offenders = {}
    for path in shell_files():
        name = path.relative_to(ROOT).as_posix()
        if name in ALLOWED:
            continue
        found = game_names(path)
        if found:
            offenders[name] = found
    assert not offenders, offenders


def test_the_scan_finds_an_id_and_a_private_import(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    (tmp_path / "ids.py").write_text('SOLO = "multiverse"\n')
    sample.write_text('# "grid" in a comment is not code\n'
                      'from versus.engine.vanquishers.engine import _Work\n'
                      'if game == "grid":\n    pass\n'
                      'from .ids import SOLO\n')
    assert game_names(sample) == ["3: the game id 'grid'",
                                  "2: imports versus.engine.vanquishers.engine (private: _Work)",
                                  "5: imports the game id SOLO of ids"]
