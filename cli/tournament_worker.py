# A tournament worker: `python -m versus.cli.tournament_worker`, started by `versus tournament`
# (cli/tournament.py) once per concurrency slot, plays one game at a time for as long as the
# runner feeds it.
#
# How it works. The runner writes one job per line on our stdin (JSON: game id, the two bot
# names by seat, the game played and its rules options, the deal mode, the per-decision time,
# the per-game limit, where to write the transcript, an optional seed); we answer one JSON
# line per job on a private copy of stdout (fd 1 itself is pointed at stderr, so a stray print
# anywhere cannot corrupt the channel). Each game is its own `trio.run` of
# `p2p.loopback.play_loopback_match`: a real match over TCP on 127.0.0.1 through the whole
# protocol, whose transcript the loopback already verified; we write the transcript atomically
# (temporary file, then rename) before answering.
#
# Bots lose by forfeit, never by taking the worker down. Each bot is wrapped in a `BotGuard`: a
# `BotForfeit` (an external bot that crashed, hung, answered garbage or an illegal action), any
# other exception of a built-in bot, an illegal action, or a built-in bot thinking past its
# hang limit is recorded with its one-line reason, and the guard answers a sentinel that is not
# a legal action, so `drive_player` resigns for that seat: the forfeit is a signed RESIGN in a
# complete, verifiable transcript. An external bot that cannot even start forfeits at its first
# decision the same way. A game over the per-game limit is lost by the seat that was thinking
# at that moment, or abandoned (no result) when nobody was.
#
# A process that is killed or dies is the runner's business (it records the game as abandoned
# and starts another worker); the runner stops a worker with SIGTERM first, on which we end
# our bots' process groups (each bot is in a session of its own) and exit.
#
# The record of a game is made from the board before its bots are ended (`play_job`), so a
# bot's cleanup cannot change it. With `seed` the game is reproducible: identities, master
# secrets and bot seeds all derive from it (otherwise they come from `secrets`). With `deal_seed`
# (paired deals, deal suites) the identities, master secrets and handshake randomness
# of both seats derive from it instead, so two games on the same deal seed have the same match
# id, decks, shuffles and layout whoever sits where; `seed` then seeds the bots only. With
# `record` the worker also writes a text game record there (`game_record`). With `sandbox`
# external bots run under bubblewrap (cli/bots/sandbox.py; each runs in its own per-game
# directory anyway). A job played on a Dask cluster (`play_inline`, cli/cluster.py) writes
# nothing: the transcript's bytes and the text record go back in the answer, and the
# organiser verifies and writes them.
from __future__ import annotations

import hashlib
import json
import math
import os
import re
import signal
import sys
import time
from collections.abc import Callable, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import trio

from versus.engine.registry import DEFAULT_GAME, get_game
from versus.p2p.errors import TransportError
from versus.p2p.loopback import LoopbackResult, play_loopback_match
from versus.p2p.session import SessionConfig
from versus.protocol.crypto.identity import Identity
from versus.protocol.errors import LocalProtocolError, RemoteProtocolError
from versus.protocol.match.rules import DealMode, MatchRules

from .bots import AsyncPlayer, BotForfeit, Budget, ExternalBot, as_async, make_bot
from .bots.external import end_live_groups
from .driving import drive_player

MAX_JOB_LINE = 64 * 1024
BUILTIN_HANG_S = 10.0  # a built-in bot thinking longer than this (or 3x its budget) is hung
SESSION = SessionConfig(narrate=False, resume_window=10.0, linger=5.0)


class _Forfeited:
    """What a forfeiting guard answers: equal to no legal action, so drive_player resigns."""

    def __str__(self) -> str:
        return "(forfeit)"


FORFEIT: Any = _Forfeited()


class BotGuard:
    """An AsyncPlayer around a bot that turns every way of misbehaving into a recorded forfeit
    (see the module comment)."""

    def __init__(self, player: AsyncPlayer, name: str, limit_s: float | None,
                 reason: str | None = None) -> None:
        self.player, self.name, self.limit_s = player, name, limit_s
        self.forfeit: str | None = reason
        self.thinking = False
        self.decisions = 0

    async def choose(self, view: Any, legal: Sequence[Any]) -> Any:
        if self.forfeit is not None:
            return FORFEIT
        self.decisions += 1
        self.thinking = True
        action: Any = None
        try:
            if self.limit_s is None:  # no cancel scope per decision when there is no limit
                action = await self.player.choose(view, legal)
            else:
                with trio.move_on_after(self.limit_s):
                    action = await self.player.choose(view, legal)
        except BotForfeit as error:
            self.forfeit = error.reason
        except Exception as error:  # a built-in bot's bug loses its game, not the tournament
            self.forfeit = (f"bot {self.name!r} crashed on decision {self.decisions}: "
                            f"{type(error).__name__}: {error}")[:300]
        self.thinking = False  # not on cancellation: the per-game limit blames who thinks
        if self.forfeit is None and action is None:
            self.forfeit = (f"bot {self.name!r} answered no action on decision "
                            f"{self.decisions}" if self.limit_s is None else
                            f"bot {self.name!r} exceeded {self.limit_s:g} s on decision "
                            f"{self.decisions}")
        elif self.forfeit is None and action not in legal:
            self.forfeit = (f"bot {self.name!r} answered an illegal action {str(action)!r:.80} "
                            f"on decision {self.decisions}")
        return FORFEIT if self.forfeit is not None else action


def bot_of(participant: str) -> str:
    """The bot behind a participant's name: `random#2` (a second `random`) is `random`."""
    return re.sub(r"#\d+$", "", participant)


def derive(seed: bytes, label: str) -> Callable[[int], bytes]:
    """A deterministic byte stream for one purpose of one seeded game."""
    counter = [0]
    buffer = bytearray()

    def take(size: int) -> bytes:
        while len(buffer) < size:
            buffer.extend(hashlib.sha256(b"versus/v1/tournament-worker\x00" + label.encode()
                                         + b"\x00" + seed + counter[0].to_bytes(8, "big"))
                          .digest())
            counter[0] += 1
        out = bytes(buffer[:size])
        del buffer[:size]
        return out

    return take


def bot_seed(seed: bytes | None, seat: int) -> int | None:
    return None if seed is None else int.from_bytes(derive(seed, f"bot-{seat}")(8), "big")


@dataclass(frozen=True)
class GameSecrets:
    """What one game's randomness comes from (None: fresh from `secrets`). With a deal seed
    (paired deals, deal suites) the match's secrets derive from it and are the same in both
    games of a pair: the protocol binds every piece of luck (deck and draw orders, dice, coin,
    shuffles) to the match id, which hashes both seats' identities, HELLO nonces and channel
    handshakes, so one deal needs all of them (SPEC §8.3). The bots' seeds never come from
    the deal seed: they are each game's own."""

    identities: tuple[Identity, Identity] | None
    master_secrets: tuple[bytes, bytes] | None
    handshake: tuple[Callable[[int], bytes], Callable[[int], bytes]] | None
    bot_seeds: tuple[int | None, int | None]


def game_secrets(job: dict[str, Any]) -> GameSecrets:
    """The secrets of the game `job` describes (see GameSecrets): from its deal seed, else
    from its seed, else fresh; the bots' seeds from its seed (per game) or fresh."""
    seed = bytes.fromhex(job["seed"]) if job.get("seed") else None
    deal = bytes.fromhex(job["deal_seed"]) if job.get("deal_seed") else None
    source = deal if deal is not None else seed
    identities = master_secrets = handshake = None
    if source is not None:
        identities = (Identity.generate(derive(source, "identity-0")),
                      Identity.generate(derive(source, "identity-1")))
        master_secrets = (derive(source, "master-0")(32), derive(source, "master-1")(32))
    if deal is not None:
        handshake = (derive(deal, "handshake-0"), derive(deal, "handshake-1"))
    return GameSecrets(identities, master_secrets, handshake,
                       (bot_seed(seed, 0), bot_seed(seed, 1)))


def write_atomically(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as file:
        file.write(data)
    os.replace(tmp, path)


async def play_job(job: dict[str, Any]) -> dict[str, Any]:
    """Play one game and describe it (the runner's per-game record, minus the names). The
    record is made from the board the moment the game ends, before the bots are ended: how
    their cleanup goes (bounded, cli/bots/external.py) cannot change it."""
    record: dict[str, Any] | None = None
    try:
        async with AsyncExitStack() as stack:
            record = await _play_and_score(job, stack)
    except Exception:
        if record is None:
            raise
        # a failure while ending the bots, after the game was scored: the result stands
    assert record is not None
    return record


async def _play_and_score(job: dict[str, Any], stack: AsyncExitStack) -> dict[str, Any]:
    """Play the game with its bots entered on `stack` and return its record; the bots that
    did not forfeit are then told the result (`stack` ends them all afterwards)."""
    time_ms = job.get("time_ms")
    budget = None if time_ms is None else Budget(seconds=time_ms / 1000)
    builtin_limit = BUILTIN_HANG_S if time_ms is None else max(BUILTIN_HANG_S, 3 * time_ms / 1000)
    game = job.get("game_id", DEFAULT_GAME)  # (a job of a runner from before games: Versus)
    options = job.get("rules") or {}
    rules = MatchRules(get_game(game).rules_from_options(options) if options else None,
                       DealMode(job["deal"]), game=game)
    started = time.perf_counter()
    guards: list[BotGuard] = []
    externals: list[ExternalBot | None] = []
    chosen = game_secrets(job)
    for seat, name in enumerate(job["players"]):
        bot = make_bot(bot_of(name), seed=chosen.bot_seeds[seat], budget=budget, game=game)
        if isinstance(bot, ExternalBot):
            bot.sandbox = bool(job.get("sandbox"))  # --sandbox: under bwrap
            reason = None
            try:
                await stack.enter_async_context(bot)
            except BotForfeit as error:
                reason = error.reason
            # the ExternalBot enforces its own time_ms (and the 10 s hello): no guard limit
            guards.append(BotGuard(bot, name, None, reason))
            externals.append(bot)
        else:
            # a cheap bot answers in our task without a checkpoint (cli/bots as_async): no
            # cancel scope could cut it off, so it gets none
            limit = None if getattr(bot, "cheap", False) else builtin_limit
            guards.append(BotGuard(as_async(bot), name, limit))
            externals.append(None)
    try:
        result = await play_loopback_match(
            guards, rules, transcript_dir=None, identities=chosen.identities,
            master_secrets=chosen.master_secrets, config=SESSION, timeout=job["game_timeout"],
            drive=drive_player, handshake_rngs=chosen.handshake)
    except trio.TooSlowError:
        return _over_time(job, guards, started)
    except (TransportError, LocalProtocolError, RemoteProtocolError, OSError) as error:
        return {"abandoned": True, "reason": f"the match failed: {error}"[:300],
                "seconds": time.perf_counter() - started}
    record = _describe(job, result, guards, started)
    for seat, bot in enumerate(externals):
        if bot is not None and guards[seat].forfeit is None:
            match_result = result.result
            with trio.move_on_after(2):
                await bot.finish(match_result if match_result is not None
                                 and match_result.outcome is not None else None, seat)
    return record


def _over_time(job: dict[str, Any], guards: list[BotGuard], started: float) -> dict[str, Any]:
    limit = job["game_timeout"]
    for seat, guard in enumerate(guards):
        if guard.thinking:
            return {"abandoned": False, "winner_seat": 1 - seat, "ending": "forfeit",
                    "outcome": None, "forfeit_seat": seat,
                    "reason": f"bot {guard.name!r} was still thinking when the game reached "
                              f"the per-game limit of {limit:g} s",
                    "verified": False, "check": "no-transcript", "transcript": None,
                    "seconds": time.perf_counter() - started}
    return {"abandoned": True, "reason": f"the game exceeded the per-game limit of {limit:g} s",
            "seconds": time.perf_counter() - started}


def _describe(job: dict[str, Any], result: LoopbackResult, guards: list[BotGuard],
              started: float) -> dict[str, Any]:
    path = Path(job["transcript"])
    inline = bool(job.get("inline"))  # a cluster job: the bytes go back, the organiser writes
    if not inline:
        write_atomically(path, result.transcript)
    report = result.report
    summary = report.summary
    verified_result = summary.get("result") or {}
    match_result = result.result
    winner = None if match_result is None else match_result.winner
    forfeits = [(seat, g.forfeit) for seat, g in enumerate(guards) if g.forfeit is not None]
    record: dict[str, Any] = {
        "abandoned": match_result is None, "winner_seat": winner,
        "ending": "abandoned" if match_result is None else match_result.ending.value,
        "outcome": None if match_result is None or match_result.outcome is None
        else match_result.outcome,
        "forfeit_seat": None,
        "reason": "" if match_result is None else match_result.detail,
        "verified": report.ok and match_result is not None
        and verified_result.get("winner") == winner,
        "check": report.check, "verify_message": report.message,
        "transcript": str(path), "bytes": len(result.transcript),
        "actions": summary.get("actions"), "fingerprints": summary.get("players"),
        "match_id": None if result.match_id is None else result.match_id.hex(),
        "seconds": time.perf_counter() - started, "setup_seconds": result.setup_seconds,
    }
    if match_result is None:
        record["reason"] = "; ".join(o.detail for o in result.outcomes if o.detail) or \
            "the match ended without a result"
    elif forfeits and winner == 1 - forfeits[0][0]:
        record.update(ending="forfeit", forfeit_seat=forfeits[0][0], reason=forfeits[0][1])
    if job.get("record") and not record["abandoned"]:
        text = game_record(result.transcript, {
            **job.get("tags", {}), "Result": result_tag(winner, record["abandoned"]),
            "Ending": record["ending"], "Outcome": str(record["outcome"] or ""),
            "Reason": record["reason"], "Transcript": path.name})
        if inline:
            record["record_text"] = text
        else:
            write_atomically(Path(job["record"]), text.encode())
        record["record"] = job["record"]
    if inline:
        record["transcript_bytes"] = result.transcript
    return record


def play_inline(job: dict[str, Any], limit: float | None = None) -> dict[str, Any]:
    """One game played where this runs (a Dask worker: cli/cluster.py): the record with the
    transcript's bytes (and the text record's text) instead of files, which the organiser
    verifies and writes. A game still running after `limit` seconds (the task's time limit)
    is cancelled, its bots ended, and answered abandoned with that reason."""
    try:
        record = trio.run(_play_within, {**job, "inline": True}, limit)
    except Exception as error:  # the game is abandoned, the task does not fail
        record = {"abandoned": True, "reason": f"the worker failed: "
                  f"{type(error).__name__}: {error}"[:300]}
    record["game"] = job["game"]
    return record


async def _play_within(job: dict[str, Any], limit: float | None) -> dict[str, Any]:
    with trio.move_on_after(math.inf if limit is None else limit):
        return await play_job(job)
    return {"abandoned": True, "reason": f"the game's task exceeded its time limit of "
                                         f"{limit:g} s (--task-timeout)"}


def result_tag(winner: int | None, abandoned: bool) -> str:
    if abandoned:
        return "*"
    return {0: "1-0", 1: "0-1", None: "1/2-1/2"}[winner]


def game_record(transcript: bytes, tags: dict[str, str]) -> str:
    """A small human-readable record of a game, like PGN (SPEC §8.3 "Game records"): tag
    lines `[Name "value"]`, a blank line, one line per game input `N. S<seat> <input in the
    game's notation>` in chain order, and the result tag again. `versus replay --print` on
    the transcript tells the same game with boards and narration."""
    from versus.protocol.match.verify import replay_inputs

    def quoted(value: str) -> str:
        return '"' + " ".join(value.split()).replace("\\", "\\\\").replace('"', '\\"') + '"'

    replay = replay_inputs(transcript)
    lines = [f"[{name} {quoted(str(value))}]" for name, value in tags.items() if value != ""]
    lines.append("")
    lines += [f"{n}. S{step.seat} {step.text}" for n, step in enumerate(replay.inputs, 1)]
    lines.append(tags.get("Result", "*"))
    return "\n".join(lines) + "\n"


def serve(jobs: TextIO, answers: TextIO) -> None:
    answers.write(json.dumps({"ready": os.getpid()}) + "\n")
    answers.flush()
    while line := jobs.readline(MAX_JOB_LINE):
        job = json.loads(line)
        try:
            record = trio.run(play_job, job)
        except Exception as error:  # never a traceback on the channel: the game is abandoned
            record = {"abandoned": True, "reason": f"the worker failed: "
                      f"{type(error).__name__}: {error}"[:300]}
        record["game"] = job["game"]
        answers.write(json.dumps(record) + "\n")
        answers.flush()


def _stop(signum: int, frame: object) -> None:
    """SIGTERM (the runner giving this worker up): end the bots' process groups, which are
    out of reach of a signal to the worker's own group, then exit at once."""
    end_live_groups()
    os._exit(128 + signum)


def main() -> int:
    signal.signal(signal.SIGTERM, _stop)
    answers = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    try:
        serve(sys.stdin, answers)
    except (KeyboardInterrupt, BrokenPipeError):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
