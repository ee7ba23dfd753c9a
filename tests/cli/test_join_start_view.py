# What a joiner is shown of a host's start position before it accepts (SPEC §3.3 "What the
# joiner is shown"; cli/match_text.py start_lines, the games' `start_view`).
#
# The attack replayed: a host offers a start whose one-line summary reads like a fair one (the
# same heroes, Life and hidden counts but an 8-hex tag) while the position gives the joiner an
# armor card for a hero, freezes and curses it for 99 turns and gives the host 99 Shield and 99
# Storage Energy. Now the joiner is shown the whole public position and every value that
# differs from the game's new game, before the y/N prompt and before a headless `join --start
# FILE` declines or accepts. Each game is tested through the real cli over loopback TCP: a host
# (`host_match`, a bot) offers the start; the joiner reads it at the prompt (`cmd_join`, a fake
# terminal answering "n") and headless (`join_match` with --start FILE, no --accept-rules).
# Starts are built from a real new game at its first turn decision (api.first_turn), so a fair
# one shows "no differences", and from it by editing a few values, each of which must be named.
from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
import trio

from tests.cli.test_join_rules import FakeTerminal, _args
from versus.cli.boundary import CommandError
from versus.cli.host_cmd import host_match
from versus.cli.join_cmd import cmd_join, join_match
from versus.engine.api import first_turn, rules_for_position, start_view
from versus.engine.errors import PositionError
from versus.engine.registry import get_game
from versus.p2p.link import DeclinedError
from versus.p2p.session import open_nursery


@pytest.fixture(autouse=True)
def _own_config(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


def fair(game_id: str) -> dict:
    """The position of a new game of `game_id` at its first turn decision, host (seat 0) to
    play first: a start that differs from the new game in nothing."""
    game = get_game(game_id)
    state = first_turn(game, game.default_rules(), game.default_catalogue(),
                       lambda s: getattr(s, "first", s.active) == 0)
    return json.loads(game.dump_position(state))


def _vanquishers_sides(obj: dict) -> list[list[int]]:
    return obj["state"]["sides"]


def deceptive_vanquishers() -> dict:
    """The issue's start: the joiner's hero an armor card, Frozen and Cursed 99, the host's
    Shield and Storage Energy 99; Life and hidden counts as a new game's."""
    from versus.engine.vanquishers.cards import CardType
    from versus.engine.vanquishers.engine import S

    obj = fair("vanquishers")
    cat = get_game("vanquishers").default_catalogue()
    armor = next(i for i, c in enumerate(cat.cards) if c.type is CardType.ARMOR)
    host, joiner = _vanquishers_sides(obj)
    joiner[S.HERO], joiner[S.FROZEN], joiner[S.CURSE] = armor, 99, 99
    host[S.SHIELD], host[S.STORAGE] = 99, 99
    return obj


def uneven_vanquishers() -> dict:
    """A start that stays legal: other Life and Shield."""
    from versus.engine.vanquishers.engine import S

    obj = fair("vanquishers")
    host, joiner = _vanquishers_sides(obj)
    host[S.LIFE] -= 5
    joiner[S.SHIELD] -= 2
    return obj


def uneven_versus() -> dict:
    """The host's hand card face down on c2, the joiner's deck card discarded face up."""
    obj = fair("versus42")
    cards = obj["cards"]
    host_hand = next(c for c in cards[:12] if c["zone"] == "hand")
    host_hand.update(zone="field", area="c2")
    joiner_deck = next(c for c in cards[12:] if c["zone"] == "deck")
    catalogue = get_game("versus42").default_catalogue()
    joiner_deck.update(zone="discarded", card=catalogue.cards[0].id)
    return obj


def uneven_grid() -> dict:
    """The host's hand card face down on a1 (its home row)."""
    obj = fair("grid")
    host_hand = next(c for c in obj["cards"] if c["zone"] == "hand" and c["holder"] == 0)
    host_hand.update(zone="grid", cell="a1")
    return obj


def join_output(tmp_path: Path, game: str, start: dict) -> tuple[str, str]:
    """What a person at the prompt and a headless `join --start FILE` are shown of the start
    a real host offers over loopback TCP (both decline)."""
    path = tmp_path / f"{game}-start.json"
    path.write_text(json.dumps(start))
    lines: list[str] = []
    prompt, headless = io.StringIO(), io.StringIO()

    async def main() -> None:
        with trio.fail_after(60):
            await play()

    async def play() -> None:
        async with open_nursery() as nursery:
            host = _args(tmp_path, "host", "--game", game, "--port", "0", "--bind",
                         "127.0.0.1", "--bot", "random", "--start", str(path))

            async def run() -> None:
                await host_match(host, io.StringIO(), note=lines.append)

            nursery.start_soon(run)
            while not any(line.startswith("listening on port") for line in lines):
                await trio.sleep(0.01)
            port = next(x for x in lines if x.startswith("listening on port")).split()[3]
            target = f"127.0.0.1:{port.rstrip(';')}"
            person = _args(tmp_path, "join", target, "--game", game)
            with pytest.raises(CommandError, match="did not accept the host's rules"):
                await trio.to_thread.run_sync(cmd_join, person, prompt, FakeTerminal("n\n"))
            bot = _args(tmp_path, "join", target, "--game", game, "--bot", "random",
                        "--start", str(path))
            with pytest.raises((CommandError, DeclinedError)):
                await join_match(bot, headless)
            nursery.cancel_scope.cancel()

    trio.run(main)
    return prompt.getvalue(), headless.getvalue()


def differences(out: str) -> list[str]:
    """The differences section of a join's output (one item per "  - " line, wraps joined)."""
    assert "public value(s):" in out, out
    section = out.split("public value(s):", 1)[1].split("accept these rules")[0]
    items: list[str] = []
    for line in section.splitlines():
        if line.startswith("  - "):
            items.append(line[4:])
        elif line.startswith("      ") and items:
            items[-1] += " " + line.strip()
        elif line.strip():
            break
    return items


def _shown_before_the_prompt(out: str) -> None:
    assert "the match starts from this position (you are player 2):" in out
    assert out.index("the match starts from this position") < out.index("[y/N]")
    offer = out.rindex("\n", 0, out.index(" offers: ")) + 1  # the offer's first line
    shown = out[offer:out.index("[y/N]")]
    assert all(len(line) <= 80 for line in shown.splitlines()), shown


@pytest.mark.parametrize("game", ["versus42", "grid", "vanquishers"])
def test_a_fair_start_shows_no_differences(tmp_path, game) -> None:
    prompt, headless = join_output(tmp_path, game, fair(game))
    _shown_before_the_prompt(prompt)
    for out in (prompt, headless):
        assert "no differences from a new game of these rules" in out, out
        assert "the match starts from this position" in out


@pytest.mark.parametrize(("game", "build", "expected"), [
    ("versus42", uneven_versus, ["opponent's hand: 2 hidden card(s) (new game: 3",
                                 "opponent's field: c2 face down (new game: empty)",
                                 "your deck: 8 hidden card(s) (new game: 9",
                                 "your eliminated: ", "(discarded) (new game: none)",
                                 "your cards left: 11 (new game: 12)"]),
    ("grid", uneven_grid, ["opponent's hand: 4 hidden card(s) (new game: 5",
                           "opponent's cards on the grid: a1 face down (new game: none)"]),
    ("vanquishers", uneven_vanquishers, ["opponent's Life: 15 of 20 (new game: 20 of 20)",
                                         "your Shield: 8 of 10 (new game: 10 of 10)"]),
])
def test_every_differing_value_is_named(tmp_path, game, build, expected) -> None:
    prompt, headless = join_output(tmp_path, game, build())
    _shown_before_the_prompt(prompt)
    for out in (prompt, headless):
        listed = differences(out)
        for value in expected:
            assert any(value in item for item in listed), (value, listed)


def test_the_deceptive_vanquishers_start_is_shown_for_what_it_is(tmp_path) -> None:
    """The issue's start: refused by the start reader, or shown with each of its lies."""
    start = deceptive_vanquishers()
    try:
        rules_for_position(get_game("vanquishers"), json.dumps(start))
    except PositionError:
        return  # the reader refuses it: no host can offer it
    prompt, headless = join_output(tmp_path, "vanquishers", start)
    _shown_before_the_prompt(prompt)
    for out in (prompt, headless):
        listed = " | ".join(differences(out))
        assert "(an armor card, not a hero) (new game: Nyra Vale)" in listed, listed
        assert "your condition frozen: 99 turn(s) (new game: none)" in listed
        assert "your condition curse: 99 turn(s) (new game: none)" in listed
        assert "opponent's Shield: 99 of " in listed
        assert "opponent's Storage Energy: 99 " in listed


def test_a_game_without_start_view_says_so() -> None:
    """A plugin game with starts but no description: the joiner is told it is not shown."""
    from dataclasses import replace

    class Bare:
        id = "bare"

        def __init__(self) -> None:
            self.inner = get_game("grid")

        def rules_to_options(self, rules):  # type: ignore[no-untyped-def]
            return self.inner.rules_to_options(rules)

    grid = get_game("grid")
    rules = rules_for_position(grid, json.dumps(fair("grid")))
    view = start_view(Bare(), rules, 1)  # type: ignore[arg-type]
    assert view is not None and view.lines == ()
    assert "does not describe its start positions" in view.differences[0]
    assert start_view(grid, replace(rules, start=""), 1) is None


def test_a_description_is_printable_and_wrapped(monkeypatch) -> None:
    """A game's description is peer-derived text (§4.13): escapes and bidi controls are shown
    escaped, and every line is at most 80 columns."""
    from versus.cli.match_text import start_lines
    from versus.engine import api
    from versus.engine.api import StartView
    from versus.protocol.match.rules import DealMode, MatchRules

    grid = get_game("grid")
    rules = MatchRules(rules_for_position(grid, json.dumps(fair("grid"))), DealMode.DECKLIST,
                       game="grid")
    monkeypatch.setattr(api, "start_view", lambda game, rules, seat: StartView(
        ("\x1b[2Jcleared " + "word " * 40,), ("\u202eevil: 1 (new game: 0)",)))
    lines = start_lines(rules, 1)
    assert all(line.isprintable() and len(line) <= 80 for line in lines), lines
    assert "\\x1b[2Jcleared" in lines[1] and "\\u202eevil" in lines[-1]
