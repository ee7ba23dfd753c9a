# `versus games`: the games of the registry (engine/registry.py), each with its rules options,
# and whether this version can play it peer to peer (protocol/match/rules.py unplayable_reason).
from __future__ import annotations

import argparse
import json
from typing import TextIO

from versus.engine.registry import games, get_game
from versus.protocol.match.rules import unplayable_reason


def cmd_games(args: argparse.Namespace, out: TextIO) -> int:
    listed = games()
    reasons = {g.id: unplayable_reason(get_game(g.id)) for g in listed}
    if args.json:
        print(json.dumps([{
            "id": g.id, "title": g.title, "players": g.players,
            "playable": reasons[g.id] is None,
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
    return 0
