# What a program does with a match session (p2p/session.py) that the session itself does not:
# it tells the match (narration) and it answers the decisions (players). Both need the game,
# which p2p/ never looks into: the session hands every event of its MatchPeer to the hook the
# program installed (`SessionConfig.on_events`), and takes actions through `submit`/`resign`.
#
# Narration. `narrate_events` is that hook for the cli: each event becomes log lines on
# `session.log` (what the UI and the headless commands show), told through the game's own
# narration, from our seat: `Game.narrate_start` when the match starts, `Game.narrate(before,
# input, after, seat, knowledge)` for every input (the events carry both states, so nothing is
# re-run), and the result. `narrated_config` is a SessionConfig with it installed.
#
# Players. `drive_player` answers every decision of our seat with a `Player` (a bot through
# cli.bots.as_async, or a person at a line terminal, cli/line_ui.py) until the session is done.
from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Sequence
from typing import Any

import trio

from versus.cli.client import outcome_words, seat_words
from versus.p2p.session import MatchSession, SessionConfig
from versus.protocol.errors import LocalProtocolError
from versus.protocol.match import Event, MatchEnded, MatchStarted, StateChanged

# --- narration ----------------------------------------------------------------------------------


def narrate_events(session: MatchSession, events: list[Event]) -> None:
    """The cli's `SessionConfig.on_events`: the events as log lines, from our seat."""
    game, seat = session.game, session.seat
    for event in events:
        if isinstance(event, MatchStarted):
            told = game.narrate_start(event.state, seat)
            session.log.append("; ".join([f"Match {event.match_id.hex()[:16]} started", *told]))
        elif isinstance(event, StateChanged):
            session.log.extend(game.narrate(event.before, event.input, event.after, seat,
                                            session.knowledge))
        elif isinstance(event, MatchEnded):
            session.log.append(f"Match over: {result_words(event.result, seat)}")


def result_words(result: Any, seat: int) -> str:
    """A match result told to `seat`: "you win (resignation: the opponent resigned)", never a
    seat number the screen does not show (it counts players from 1)."""
    who = ("no winner" if result.winner is None else
           "you win" if result.winner == seat else "the opponent wins")
    what = outcome_words(result.outcome) if result.outcome is not None else result.ending.value
    detail = seat_words(result.detail, seat)
    return f"{who} ({what}{': ' + detail if detail else ''})"


def narrated_config(config: SessionConfig | None = None, **changes: Any) -> SessionConfig:
    """`config` (default: the default one) with `changes`, narrated by `narrate_events`
    (unless `changes` says narrate=False)."""
    return dataclasses.replace(config or SessionConfig(),
                               **{"narrate": True, "on_events": narrate_events, **changes})


# --- players ------------------------------------------------------------------------------------


class Player:
    """What `drive_player` needs: an AsyncPlayer (cli.bots.as_async(bot)) or a person. `view`
    is the game's view for our seat (`Game.view`), `legal` its legal inputs."""

    name: str

    async def choose(self, view: Any, legal: Sequence[Any]) -> Any: ...


async def drive_player(session: MatchSession, player: Player) -> None:
    """Answer every decision of ours with `player` until the session is done. A player that
    answers an illegal action, or fails (any exception from `choose`, e.g. cli.bots'
    BotForfeit), resigns for its seat: the RESIGN is signed like any envelope, so the
    transcript is complete and verifies, and the reason is a log line and the outcome's
    `detail`. A crashing bot loses its match; it never tears the session down. A player
    still thinking when the match ends (the peer's resignation, EVIDENCE or timeout claim) is
    cancelled then, and one still thinking when our own clock runs out is cut off."""
    while not session.done:
        if session.result is not None:  # over: nothing to answer until the session is done
            await session.turn_changed.wait()
            continue
        # The player thinks in this task, under one cancel scope for as long as it is not
        # cancelled (a scope per decision cost more than a random bot's choice): the session
        # cancels it when the match ends, and our clock's deadline is set on it while the
        # player thinks; no nursery nor watcher task per decision either.
        with trio.CancelScope() as scope:
            session.cancel_at_end(scope)
            try:
                await _answer(session, player, scope)
            finally:
                session.forget_scope(scope)


async def _answer(session: MatchSession, player: Player, scope: trio.CancelScope) -> None:
    """Answer our decisions until the session is done or `scope` is cancelled."""
    woken = False
    while not session.done:
        changed = session.turn_changed
        legal = session.legal_actions()
        if not legal:
            await changed.wait()
            woken = True
            continue
        if woken:
            # Woken to a decision: one pass for the other tasks first, so the receiver takes
            # what has arrived meanwhile (a timeout claim, EVIDENCE) before we sign answers it
            # would make us drop and roll back (SPEC §4.11; the nursery per decision used to
            # give that pass). Not a safeguard: a claim crossing any number of our envelopes
            # is still disputed; this only spares the roll-back when the claim is already in.
            woken = False
            await trio.lowlevel.checkpoint()
            continue
        action, failure = await _think(session, player, legal, scope)
        if failure:
            await _resign_for(session, f"{player.name} failed ({failure})"[:300])
            continue
        if session.legal_actions() != legal:
            # the match moved on while the player answered (the peer's EVIDENCE or timeout
            # claim arrived, or our clock ran out): submitting now would raise
            # LocalProtocolError and tear the session's nursery down
            continue
        if action not in legal:
            await _resign_for(session, f"{player.name} answered an illegal action "
                                       f"{str(action)[:80]!r}")
            continue
        await _submit_playable(session, action, legal)


async def _think(session: MatchSession, player: Player, legal: list[Any],
                 scope: trio.CancelScope) -> tuple[Any, str]:
    """(the player's answer, "") or (None, why it failed); `scope` carries our clock's
    deadline while the player thinks (past it, the Cancelled leaves through the scope)."""
    view, deadline = session.view(), session.own_deadline()
    if deadline is not None:
        scope.deadline = deadline
    try:
        return await player.choose(view, legal), ""
    except Exception as error:
        text = " ".join(str(getattr(error, "reason", "") or error).split())
        return None, f"{type(error).__name__}: {text}" if text else type(error).__name__
    finally:
        if deadline is not None:
            scope.deadline = math.inf


async def _submit_playable(session: MatchSession, action: Any, legal: list[Any]) -> None:
    """Submit `action`; when our own engine cannot apply it although it listed it (a bug of
    ours: nothing was signed, SPEC §4.9 "Engine errors"), the next listed input it can apply
    instead, said in the log. When it can apply none, our side stops (leaves: the match stays
    unfinished, no seat signed a loss) rather than resign: a bug of ours is never a verdict
    against our seat, and the opponent is not left waiting for a move that never comes."""
    failures = []
    # the others are only looked at if `action` fails (a list of them would compare every
    # listed input with it on every submit)
    for candidate in itertools.chain([action], (x for x in legal if x != action)):
        try:
            await session.submit(candidate)
        except LocalProtocolError as error:
            failures.append(f"{str(candidate)[:40]!r} ({' '.join(str(error).split())[:80]})")
            if session.result is not None or session.done or \
                    session.legal_actions() != legal:
                return  # the match moved on (it ended, or its decision changed)
            continue
        if failures:
            session.log.append(f"our engine could not play {failures[0]}; played "
                               f"{str(candidate)[:40]!r} instead")
        return
    why = f"our engine could not play any listed input: {'; '.join(failures)[:300]}"
    session.log.append(f"{why}; stopping (no loss signed)")
    await session.leave(why)


async def _resign_for(session: MatchSession, why: str) -> None:
    """Resign our seat because our player failed; `why` becomes the outcome's detail."""
    session.log.append(f"{why}; resigning")
    if session.result is not None or session.done:
        return
    try:
        await session.resign(f"{why}; resigned")
    except LocalProtocolError as error:  # e.g. the match ended in the meantime
        session.log.append(f"cannot resign: {error}")


__all__ = ["Player", "drive_player", "narrate_events", "narrated_config"]
