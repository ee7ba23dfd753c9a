# The shell's part of the bots (cli/bots/), which names no game: `python -m versus.cli.bots`
# plays bots by name in any two-player game of the registry, `play_match` plays a local game of
# any game with async players in the one full-information loop (a player answering an illegal
# input forfeits), and a game's bots get the shell's generators (BotRequest), so one seed
# gives one game.
from __future__ import annotations

import io
from typing import Any

import pytest
import trio

from versus.cli.bots import BotForfeit, RandomBot, as_async, make_bot, play_match
from versus.cli.bots.__main__ import main, new_game, run
from versus.cli.bots.registry import bot_request
from versus.engine.api import Finished


@pytest.mark.parametrize("game", ["grid", "vanquishers"])
def test_bots_play_any_two_player_game_by_name(game: str) -> None:
    out = io.StringIO()
    assert trio.run(run, ["random", "greedy"], 2, b"\x01", out, game) == 0
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("game 1: random vs greedy: ")
    assert lines[1].startswith("game 2: greedy vs random: ")
    assert lines[2].startswith("wins: random: ")


def test_an_unknown_game_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["random", "random", "--game", "nope", "--games", "1"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "'nope'" in err and len(err.splitlines()) == 1


class _Illegal:
    name = "liar"

    async def choose(self, view: Any, legal: list[Any]) -> Any:
        return object()


async def test_play_match_plays_a_game_with_chance_and_forfeits_an_illegal_answer() -> None:
    result = await play_match(new_game("vanquishers", b"m"),
                              [as_async(RandomBot(1)), as_async(RandomBot(2))])
    assert isinstance(result, Finished)
    with pytest.raises(BotForfeit, match=r"bot 'liar' answered an illegal action .* decision 1"):
        await play_match(new_game("grid", b"m"), [_Illegal(), as_async(RandomBot(2))])


def test_a_games_bot_gets_the_shells_generators() -> None:
    request = bot_request("greedy", 7, None)
    assert request.rng.random() == request.seeded(7).random()  # same seed, same stream
    assert request.seeded(3).random() == request.seeded(3).random()

    def game(seed: int) -> tuple[Any, ...]:
        bots = [make_bot("greedy", seed=seed + p, game="versus42") for p in (0, 1)]
        play = new_game("versus42", b"same")
        end = play.play(lambda view, legal, seat: bots[seat].choose(view, legal))
        return end, play.inputs

    assert game(5) == game(5)
