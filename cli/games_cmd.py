# `versus games`: the games of the registry (engine/registry.py), each with its rules options,
# its bots (the generic ones and those the game registers, engine/shell.py `game_bots`, so a
# game's new bot shows up here by itself), and whether this version can play it peer to peer
# (protocol/match/rules.py unplayable_reason).
from __future__ import annotations

import argparse
import json
from typing import TextIO

from versus.engine.registry import games, get_game
from versus.engine.shell import game_bots
from versus.protocol.match.rules import unplayable_reason

from .bots.registry import GENERIC_BOTS


def bots_of(game: object, players: int) -> list[str]:
    """The bot names `--bot` takes for `game`: a two-player game's generic bots, its own, and
    an external program; a solo game's own (`versus solo --bot`)."""
    own = list(game_bots(game))
    return [*GENERIC_BOTS, *own, "cmd:<command line>"] if players == 2 else own


def cmd_games(args: argparse.Namespace, out: TextIO) -> int:
    listed = games()
    reasons = {g.id: unplayable_reason(get_game(g.id)) for g in listed}
    if args.json:
        print(json.dumps([{
            "id": g.id, "title": g.title, "players": g.players,
            "playable": reasons[g.id] is None,
            "bots": bots_of(get_game(g.id), g.players),
            "options": [{"name": o.name, "default": o.default, "help": o.help,
                         "minimum": o.minimum, "maximum": o.maximum,
                         "choices": list(o.choices) if o.choices else None}
                        for o in g.options]} for g in listed], indent=2), file=out)
        return 0
    for game in listed:
        reason = reasons[game.id]
        if game.players == 1:  # a solo game: verifiable runs on a challenge (SPEC Part 11)
            how = f", 1 player (solo: versus solo --game {game.id})"
        else:
            how = f", {game.players} players" + (
                "" if reason is None else f" (not playable peer to peer: {reason})")
        print(f"{game.id}: {game.title}{how}", file=out)
        for option in game.options:
            print(f"  {option.describe()}", file=out)
        bots = bots_of(get_game(game.id), game.players)
        if bots:
            print(f"  bots: {', '.join(bots)}", file=out)
    return 0
