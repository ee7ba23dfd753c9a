# The optional compiled build (versus/compiled.py): built once per source digest into its cache
# folder (skipped, with the reason, without mypy or a C compiler or if the build takes over a
# minute), it must play exactly as the pure build, the reference: a few seeded random games of
# every registered game, run once in this process (pure) and once in a child process with
# VERSUS_COMPILED=1, give the same state hash and legal list after every input. The child
# reports whether its rules module really was the compiled one, so a silent fallback to the
# pure build fails the test instead of passing it.
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from versus import compiled
from versus.engine.api import Setup
from versus.engine.referee_loop import HashBelow, LocalPlay, local_deal
from versus.engine.registry import BUILTIN_GAMES, get_game

ROOT = Path(__file__).resolve().parents[1]
# twelve games of each: among Versus's, games that end by elimination and by the fourth
# absorption (a compiled build once failed only on the second: a handler ending the game)
SEEDS = tuple(b"compiled-%d" % i for i in range(1, 13))


def trace() -> dict[str, Any]:
    """Per game, a digest of every state hash and legal list of SEEDS' random games and the
    outcomes they ended with; and whether the compiled build ran."""
    out: dict[str, Any] = {}
    outcomes: dict[str, list[str]] = {}
    for game_id in sorted(BUILTIN_GAMES):
        game = get_game(game_id)
        rules, catalogue = game.default_rules(), game.default_catalogue()
        digest = hashlib.sha256()
        for seed in SEEDS:
            identity, orders = local_deal(game, rules, catalogue, seed)
            play = LocalPlay.start(game, Setup(rules, catalogue, seed), identity, orders,
                                   HashBelow(seed + b"/chance").below)

            def record(state: Any, inp: Any, game: Any = game, digest: Any = digest) -> None:
                digest.update(game.state_hash(state))
                digest.update(repr(list(game.legal_actions(state))).encode())
                digest.update(game.format_input(inp).encode())

            play.on_input = record
            picks = HashBelow(seed + b"/a").below, HashBelow(seed + b"/b").below
            players = [picks[p % 2] for p in range(game.players)]
            result = play.play_random(players, max_inputs=20_000)
            digest.update(game.state_hash(play.state) + repr(result).encode())
            outcomes.setdefault(game_id, []).append(result.outcome)
        out[game_id] = digest.hexdigest()
    out["outcomes"] = {g: sorted(set(o)) for g, o in outcomes.items()}
    out["compiled"] = compiled.active()  # (after the games: the registry imports them lazily)
    return out


@pytest.fixture(scope="module")
def build() -> Path:
    try:
        return compiled.build(timeout=60, quiet=True)
    except (compiled.BuildToolsMissing, OSError) as e:
        pytest.skip(f"no compiled build: {e}")
    # (any other CompiledBuildError, e.g. mypyc refusing a type in the engine, fails the test:
    # an engine edit must keep the compiled build building)


def test_both_builds_play_the_same_games(build: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), compiled.ENV: "1",
           compiled.CACHE_ENV: str(build.parent)}
    code = "import json, tests.test_compiled as t; print(json.dumps(t.trace()))"
    child = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False)
    assert child.returncode == 0, child.stderr[-2000:]
    theirs = json.loads(child.stdout)
    assert theirs.pop("compiled") is True, child.stderr
    ours = trace()
    assert ours.pop("compiled") is False
    assert theirs == ours
    assert {"absorption", "elimination"} <= set(ours["outcomes"]["versus42"])


def test_the_sources_are_never_written_to(build: Path) -> None:
    """The build lives in its cache folder: no extension beside a source file (it would
    shadow the .py for every test and every command)."""
    assert ROOT not in build.parents
    suffixes = (".so", ".pyd")
    assert [p for p in (ROOT / "engine").rglob("*") if p.suffix in suffixes] == []
