# What the networked commands say about a match, as text: the offer a joiner reads (the rules,
# then the start position it carries), the one summary line of a finished or unfinished match
# and its exit code, a guarded bot's forfeit. Every line that quotes the peer is printable.
#
# People read players counted from 1, as every screen shows them ("player 1" is seat 0,
# engine/scene.py player_name); the protocol counts seats from 0 and its texts say "seat N"
# (a resignation's "seat 0 resigned"): `player_words` turns those into the players people see,
# so a summary never names a number that means the other player.
from __future__ import annotations

import re
from collections.abc import Callable

from versus.engine.api import offer_notes
from versus.engine.scene import player_name
from versus.p2p.session import (
    SessionOutcome,
)
from versus.protocol.match import Ending, MatchResult
from versus.protocol.match.rules import DealMode, MatchRules
from versus.protocol.wire.text import printable

from .client import describe_fault, outcome_words
from .exit_codes import EXIT_ERROR, EXIT_FAULT, EXIT_OK, EXIT_UNFINISHED

MAX_LOG_LINE = 300
#: the width the joiner's view of a start is wrapped to (one terminal screen's width)
OFFER_COLUMNS = 80
#: longest line of a start's description before it is wrapped (a line quoting a long list)
MAX_START_LINE = 2000


def result_text(result: MatchResult | None, forfeits: dict[int, str]) -> str:
    """A match result, its players counted from 1: "player 2 wins (resignation: player 1
    resigned)"; a guarded bot's resignation reads "player 2 wins (forfeit: <reason>)"."""
    if result is None:
        return "no result (the match did not finish)"
    who = "no winner" if result.winner is None else f"{player_name(result.winner, None)} wins"
    if result.winner is not None and 1 - result.winner in forfeits:
        return f"{who} (forfeit: {forfeits[1 - result.winner]})"
    what = outcome_words(result.outcome) if result.outcome is not None else result.ending.value
    detail = player_words(result.detail)
    return f"{who} ({what}{': ' + detail if detail else ''})"


#: a seat as the protocol's texts name it (counted from 0)
_SEAT = re.compile(r"\bseat ([0-9])\b")


def player_words(text: str) -> str:
    """A protocol text ("seat 0 resigned") with its seats named as people see them ("player 1
    resigned")."""
    return _SEAT.sub(lambda m: player_name(int(m.group(1)), None), text)


def bot_failures(forfeits: dict[int, str]) -> str:
    """One line for the error boundary: which player's bot forfeited, and why."""
    return "; ".join(f"{player_name(seat, None)}'s bot forfeited: {reason}"
                     for seat, reason in sorted(forfeits.items()))


def describe_outcome(outcome: SessionOutcome, seat: int, command: str | None = None,
                     forfeits: dict[int, str] | None = None) -> tuple[str, int]:
    """One summary line for a match and its exit code. `command` ("host" or "join") makes the
    resume hint a whole command line; None: this kind of match cannot be resumed (play).
    `forfeits`: guarded bots that forfeited (the result says so, and the code is an error)."""
    mid = "" if outcome.match_id is None else f"match {outcome.match_id.hex()[:16]}: "
    result = outcome.result
    if result is None:
        why = outcome.detail or "not finished"
        resume = ""
        if outcome.match_id is not None:
            resume = (f"; continue it with: versus {command} --resume "
                      f"{outcome.match_id.hex()[:16]}" if command is not None
                      else "; a match against a local bot cannot be resumed (its transcript "
                           "so far is kept)")
        return f"{mid}unfinished ({why}){resume}", EXIT_UNFINISHED
    if result.ending is Ending.FAULT:
        blamed = outcome.fault_seat
        path = "" if outcome.transcript_path is None else str(outcome.transcript_path)
        return (mid + describe_fault(None if blamed is None else 1 - blamed, seat,
                                     outcome.detail, path)), EXIT_FAULT
    you = ("no one is credited" if result.winner is None
           and result.ending in (Ending.TIMEOUT, Ending.DISPUTE) else
           "a draw" if result.winner is None else
           "you won" if result.winner == seat else "you lost")
    if result.ending is Ending.TIMEOUT and result.winner is not None:
        you += " (on a timeout claim: a claim, not a proof)"
    code = EXIT_ERROR if forfeits else EXIT_OK
    return f"{mid}{result_text(result, forfeits or {})} — {you}", code


def describe_offer(rules: MatchRules, seat: int) -> str:
    """The offered rules as one line, for the joiner to accept: the verifier's summary of the
    rules (deal, deck, hand, action order, field, turns, clock), what it leaves out, the seat."""
    parts = [rules.describe()]
    if rules.deal_mode is DealMode.SHARED_POOL:
        parts.append(f"a pool of {len(rules.pool)} chosen cards" if rules.pool
                     else "the whole catalogue as the pool")
    parts += offer_notes(rules.game_impl, rules.ruleset)
    registered = [s for s, digest in enumerate(rules.registered_decklists) if digest]
    if registered:
        parts.append("registered decklists for " + " and ".join(
            player_name(s, None) for s in registered))
    parts.append(f"you are {player_name(seat, None)}")
    return "; ".join(parts)


def start_lines(rules: MatchRules, seat: int) -> list[str]:
    """What a joiner is shown of an offered start position before it accepts (SPEC §3.3 "What
    the joiner is shown"): the position as its seat sees it, then each public value that
    differs from the game's new game under the same rules, or that none does; [] for the new
    game. Each line is printable (it comes from the peer's rules, §4.13) and at most
    OFFER_COLUMNS wide: a longer one wraps, indented under its start."""
    from versus.engine.api import start_view

    view = start_view(rules.game_impl, rules.ruleset, seat)
    if view is None:
        return []
    out = [f"the match starts from this position (you are {player_name(seat, None)}):"]
    out += [x for line in view.lines for x in _wrapped("  " + line)]
    if view.differences:
        out.append(f"it differs from a new game of these rules in {len(view.differences)} "
                   "public value(s):")
        out += [x for line in view.differences for x in _wrapped("  - " + line)]
    else:
        out.append("no differences from a new game of these rules at its first turn")
    return out


def _wrapped(line: str) -> list[str]:
    """One printable line, wrapped at OFFER_COLUMNS (a board row that fits stays as it is)."""
    import textwrap

    line = printable(line, MAX_START_LINE)
    if len(line) <= OFFER_COLUMNS:
        return [line]
    indent = " " * (len(line) - len(line.lstrip()) + 4)
    return textwrap.wrap(line, OFFER_COLUMNS, subsequent_indent=indent,
                         break_on_hyphens=False, drop_whitespace=True)


def show_offer(say: Callable[[str], None], prefix: str, rules: MatchRules, seat: int,
               suffix: str = "") -> None:
    """Say the offered rules (`prefix`, then describe_offer, then `suffix`: one line, wrapped
    at OFFER_COLUMNS), then the start position they carry, if any (start_lines)."""
    for line in [*_wrapped(f"{prefix}{describe_offer(rules, seat)}{suffix}"),
                 *start_lines(rules, seat)]:
        say(line)
