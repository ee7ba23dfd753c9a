# `versus games` lists the registry: every game with its rules options.
from __future__ import annotations

import json

from tests.engine.toy_game import TOY
from versus.cli.main import main
from versus.engine.registry import register_game, unregister_game


def test_games_lists_versus_with_its_options(capsys) -> None:
    assert main(["games"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("grid: ") and "\nversus42: " in out and "deck_size=12 (1..21)" in out
    assert "not playable" not in out
    assert "multiverse: " in out and "1 player (solo: versus solo --game multiverse)" in out


def test_games_lists_each_games_bots_from_its_registry(capsys) -> None:
    """A game's bots come from its `bots` member: a new one shows up without a shell edit."""
    assert main(["games"]) == 0
    out = capsys.readouterr().out
    vanquishers = out[out.index("vanquishers: "):].split("\n", 8)
    assert "  bots: random, greedy, ismcts, cmd:<command line>" in vanquishers
    assert main(["games", "--json"]) == 0
    listed = {g["id"]: g for g in json.loads(capsys.readouterr().out)}
    assert listed["vanquishers"]["bots"] == ["random", "greedy", "ismcts", "cmd:<command line>"]
    assert "ismcts-tree" in listed["versus42"]["bots"] and listed["multiverse"]["bots"] == []


def test_a_registered_game_shows_up_while_registered(capsys) -> None:
    register_game(TOY)
    try:
        assert main(["games", "--json"]) == 0
    finally:
        unregister_game(TOY.id)
    listed = {g["id"]: g for g in json.loads(capsys.readouterr().out)}
    assert listed["versus42"]["playable"] is True
    assert listed[TOY.id]["playable"] is True and listed[TOY.id]["options"][0]["name"] == "sides"
    assert main(["games"]) == 0  # unregistered again: gone from the listing
    assert TOY.id not in capsys.readouterr().out
