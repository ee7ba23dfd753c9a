# `versus games`: the games of the registry (engine/registry.py), each with its rules options,
# and whether this version can play it peer to peer (protocol/match/rules.py PLAYABLE_GAMES).
from __future__ import annotations

import argparse
import json
from typing import TextIO

from versus.engine.registry import games
from versus.protocol.match.rules import PLAYABLE_GAMES


def cmd_games(args: argparse.Namespace, out: TextIO) -> int:
    listed = games()
    if args.json:
        print(json.dumps([{
            "id": g.id, "title": g.title, "players": g.players,
            "playable": g.id in PLAYABLE_GAMES,
            "options": [{"name": o.name, "default": o.default, "help": o.help,
                         "minimum": o.minimum, "maximum": o.maximum,
                         "choices": list(o.choices) if o.choices else None}
                        for o in g.options]} for g in listed], indent=2), file=out)
        return 0
    for game in listed:
        playable = "" if game.id in PLAYABLE_GAMES else " (not yet playable peer to peer)"
        print(f"{game.id}: {game.title}, {game.players} players{playable}", file=out)
        for option in game.options:
            print(f"  {option.describe()}", file=out)
    return 0
