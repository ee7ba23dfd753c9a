# CONTRIBUTING.md "Adding a game", held to the toy duel (tests/engine/toy_game.py): a game is
# its own files and nothing else. The toy is named nowhere in the shipped code, imports only
# the generic root of the engine, and, loaded as a plugin through VERSUS_GAMES in a fresh
# interpreter (nothing else registers it), plays a whole match over loopback TCP through the
# generic paths (registry, protocol, network, demo, verifier).
from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

from tests.engine.toy_game import TOY

ROOT = Path(__file__).resolve().parents[2]
TOY_FILES = ("tests/engine/toy_game.py", "tests/engine/toy_plugin.py")
#: what a game may import of the platform: the generic root of engine/ (CONTRIBUTING.md)
GENERIC = {"versus.engine", "versus.engine.api", "versus.engine.errors", "versus.engine.hashing",
           "versus.engine.options", "versus.engine.registry"}
SHIPPED = ("versus", "engine", "protocol", "p2p", "cli", "bench")


def _shipped_texts() -> list[tuple[str, str]]:
    paths = [p for folder in SHIPPED for p in (ROOT / folder).rglob("*.py")]
    paths.append(ROOT / "pyproject.toml")
    return [(p.relative_to(ROOT).as_posix(), p.read_text(encoding="utf-8")) for p in paths]


def test_the_toy_game_is_named_nowhere_in_the_shipped_code() -> None:
    name = re.compile(r"toy[-_ ]?duel|toy_game|toy_plugin", re.IGNORECASE)
    assert TOY.id == "toy-duel"
    named = [path for path, text in _shipped_texts() if name.search(text)]
    assert named == [], f"a game must need no edit outside its own files: {named}"


def test_the_toy_game_imports_only_the_generic_engine() -> None:
    imported: set[str] = set()
    for path in TOY_FILES:
        for node in ast.walk(ast.parse((ROOT / path).read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                imported.add(node.module)
            elif isinstance(node, ast.Import):
                imported.update(alias.name for alias in node.names)
    platform = {m for m in imported if m.startswith("versus")}
    assert platform and platform <= GENERIC, sorted(platform - GENERIC)


def test_the_toy_game_plays_as_a_plugin_with_nothing_else_edited(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "VERSUS_GAMES"}
    env.update(VERSUS_GAMES="tests.engine.toy_plugin", PYTHONPATH=str(ROOT),
               XDG_CONFIG_HOME=str(tmp_path / "config"), XDG_DATA_HOME=str(tmp_path / "data"))
    done = subprocess.run(
        [sys.executable, "-m", "versus.cli.main", "demo", "--game", TOY.id, "--seed", "70",
         "--quiet", "--out", str(tmp_path / "match")],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert "verify: OK:" in done.stdout, done.stdout
    assert len(list((tmp_path / "match").glob("*/transcript.vtr"))) == 1
