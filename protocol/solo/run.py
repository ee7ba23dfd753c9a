# Verifiable solo runs (SPEC Part M, S3-S7): playing a challenge, the run file and its
# verification (the organiser's reveal service: service.py).
#
# How it works. Every DEAL and every d6 of a run is settled by a 32-byte value
#     v(stream, k) = H(organiser secret, challenge digest, player key, stream, k)
# where `stream` is "deck-<d>" (the k-th card drawn from hidden deck d) or "d6" (the k-th die):
# the deck order and the dice are therefore fixed by the challenge and the player's key, never
# by the player's choices, and restarting gives the same cards and dice (S3). The player never
# holds the secret: before each value it signs and hash-chains every action it has taken, and
# asks the reveal service for v(stream, k) with its chain head; the service answers only the
# next k of each stream, once per head (a second history for the same step is refused), and
# signs (challenge, player, stream, k, head, value) (S5; the service itself: service.py). The
# run file holds the challenge, the player's signed records and, once the organiser publishes
# it, the secret (`with_secret`). `verify_run` replays the run through the game and checks
# everything (codes in CHECKS).
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from versus.engine.api import DecisionKind, Finished
from versus.protocol.crypto.commitment import HashStream
from versus.protocol.crypto.identity import Identity, fingerprint, verify_signature
from versus.protocol.solo import MAX_RUN, RUN_FORMAT
from versus.protocol.wire.canonical import TAG_SOLO_ATTEST as TAG_ATTEST
from versus.protocol.wire.canonical import TAG_SOLO_GENESIS as TAG_GENESIS
from versus.protocol.wire.canonical import TAG_SOLO_RECORD as TAG_RECORD
from versus.protocol.wire.canonical import TAG_SOLO_RECORD_SIG as TAG_RECORD_SIG
from versus.protocol.wire.canonical import TAG_SOLO_VALUE as TAG_VALUE
from versus.protocol.wire.canonical import decode, encode, tagged_hash

from .challenge import Challenge, ChallengeError, commitment, parse_challenge

MAX_RECORDS = 100_000

#: every code verify_run may return, and what it means (SPEC M S6)
CHECKS = {
    "malformed": "the file is not a solo run",
    "challenge-malformed": "the enclosed challenge is not a challenge file",
    "challenge-signature": "the challenge is not signed by the organiser key it names",
    "wrong-challenge": "the run was played on another challenge",
    "unknown-game": "the challenge's game is not registered here",
    "rules": "the challenge's rules or card data are not the game's",
    "record-signature": "a record is not signed by the run's player",
    "chain": "a record does not follow the previous one (sequence or hash)",
    "sequence": "a record is not what the game waited for",
    "random-order": "a random value is for another stream or step than the one the game used",
    "reveal-not-bound": "a random value was not revealed by the organiser for this history "
                        "(the run used randomness it could not have known at that point)",
    "secret-commitment": "the revealed secret does not match the challenge's commitment",
    "random-value": "a random value is not the one the secret derives",
    "illegal-action": "the game refuses an action",
    "unfinished": "the run has no end record",
    "end-mismatch": "the end record's outcome, score or state differs from the replay",
    "trailing": "records follow the end record",
}


def value(secret: bytes, challenge: bytes, player: bytes, stream: str, k: int) -> bytes:
    return tagged_hash(TAG_VALUE, secret, challenge, player, stream, k)


def attestation(challenge: bytes, player: bytes, stream: str, k: int, head: bytes,
                val: bytes) -> bytes:
    return TAG_ATTEST + encode([challenge, player, stream, k, head, val])


def genesis(challenge: bytes, player: bytes) -> bytes:
    return tagged_hash(TAG_GENESIS, challenge, player)


def below(val: bytes, n: int) -> int:
    """An unbiased integer in [0, n) from a revealed value."""
    return HashStream("solo", val).below(n)


Reveal = Callable[[bytes, str, int, bytes], tuple[bytes, bytes]]
Chooser = Callable[[Any, Any, list[str]], str]


@dataclass
class Run:
    challenge: Challenge
    player: Identity
    records: list[bytes] = field(default_factory=list)
    head: bytes = b""

    def add(self, *fields: Any) -> None:
        body = encode([len(self.records), self.head, *fields])
        sig = self.player.sign(TAG_RECORD_SIG + body)
        self.records.append(encode([body, sig]))
        self.head = tagged_hash(TAG_RECORD, body, sig)

    def to_bytes(self, secret: bytes | None = None) -> bytes:
        return encode([RUN_FORMAT, self.challenge.to_bytes(), self.records, secret])


def with_secret(data: bytes, secret: bytes, challenge: bytes | None = None) -> bytes:
    """The run file `data` completed with the organiser's published secret (checked against
    its challenge's commitment, and the challenge digest `challenge` when given; ChallengeError
    otherwise). The records are not touched."""
    try:
        fmt, ch_bytes, records, _old = decode(data, max_size=MAX_RUN, max_array_len=MAX_RECORDS)
        if fmt != RUN_FORMAT or type(ch_bytes) is not bytes or type(records) is not list:
            raise ValueError("fields")
    except (ValueError, TypeError) as e:
        raise ChallengeError("malformed", f"not a solo run file: {e}") from None
    ch = parse_challenge(ch_bytes)
    if challenge is not None and challenge != ch.digest:
        raise ChallengeError("wrong-challenge", f"the run is of challenge {ch.id!r}, not the "
                             "secret's")
    if type(secret) is not bytes or commitment(secret) != ch.commitment:
        raise ChallengeError("secret-commitment", f"the secret is not challenge {ch.id!r}'s")
    return encode([fmt, ch_bytes, records, secret])


def _setup(game: Any, ch: Challenge) -> Any:
    from versus.engine.api import Setup

    rules = game.decode_rules(ch.rules)
    cat = game.catalogue_for_digest(ch.catalogue)  # any version the game shipped
    if cat is None:
        raise ChallengeError("rules", "the challenge's card data is not this game's")
    return game.new_game(Setup(rules, cat, ch.digest))


def play(game: Any, challenge: Challenge, player: Identity, reveal: Reveal,
         chooser: Chooser, *, on_step: Callable[[Any, str, Any], None] | None = None
         ) -> tuple[Run, Any]:
    """Play a whole run: `chooser(game, state, legal)` answers every TURN and CHOICE, `reveal`
    every random step. Returns the signed run and the final state."""
    run = Run(challenge, player, head=genesis(challenge.digest, player.public_key))
    run.add("start", challenge.digest, player.public_key)
    state = _setup(game, challenge)
    counts: dict[str, int] = {}
    while True:
        d = game.decision(state)
        if isinstance(d, Finished):
            break
        if d.kind in (DecisionKind.TURN, DecisionKind.CHOICE):
            inp = chooser(game, state, list(game.legal_actions(state)))
            run.add("action", inp)
        elif d.kind is DecisionKind.REVEAL:
            inp = game.reveal_input(d.handle, game.card_of(state, d.handle))
        else:
            inp, stream = _random_input(game, state, d, counts, None)
            k = counts[stream] - 1
            val, sig = reveal(player.public_key, stream, k, run.head)
            inp, _ = _random_input(game, state, d, None, val)
            run.add("random", stream, k, val, sig)
        before = state
        state = game.step(state, inp)
        if on_step is not None:
            on_step(before, inp, state)
    fin = game.decision(state)
    run.add("end", fin.outcome, game.score(state), game.state_hash(state))
    return run, state


def _random_input(game: Any, state: Any, d: Any, counts: dict[str, int] | None,
                  val: bytes | None) -> tuple[str, str]:
    """The stream of a DEAL/CHANCE (counting it when `counts` is given), and its input once
    `val` is known."""
    stream = f"deck-{d.deck}" if d.kind is DecisionKind.DEAL else "d6"
    if counts is not None:
        counts[stream] = counts.get(stream, 0) + 1
    if val is None:
        return "", stream
    if d.kind is DecisionKind.DEAL:
        left = game.undealt(state, d.deck)
        return game.deal_input(left[below(val, len(left))]), stream
    return game.legal_actions(state)[below(val, d.outcomes)], stream


# --- verification --------------------------------------------------------------------------


@dataclass
class RunReport:
    ok: bool
    check: str | None = None
    record: int | None = None
    message: str = ""
    summary: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "records": self.summary.get("records", 0),
                "bad_index": self.record, "check": self.check, "player": None,
                "message": self.message, "summary": self.summary}

    def describe(self) -> str:
        s = self.summary
        if self.ok:
            head = f"OK: solo run verified, score {s.get('score')} ({s.get('outcome')})"
        else:
            where = "" if self.record is None else f" at record {self.record}"
            head = f"INVALID{where}: {self.check}: {self.message}"
        lines = [head]
        for key in ("game", "rules", "challenge", "organiser", "player", "records", "turns",
                    "randomness"):
            if key in s:
                lines.append(f"  {key:<11}{s[key]}")
        return "\n".join(lines)


class _Bad(Exception):
    def __init__(self, check: str, record: int | None, message: str) -> None:
        super().__init__(message)
        self.check, self.record, self.message = check, record, message


def verify_run(data: bytes, expected: Challenge | None = None) -> RunReport:
    """Replay a run file (S6); `expected`: the challenge it must be a run of."""
    summary: dict[str, Any] = {}
    try:
        _verify(data, expected, summary)
    except _Bad as bad:
        return RunReport(False, bad.check, bad.record, bad.message, summary)
    return RunReport(True, None, None, "", summary)


def _verify(data: bytes, expected: Challenge | None, summary: dict[str, Any]) -> None:
    from versus.engine import UnknownGameError
    from versus.engine.registry import get_game

    try:
        fmt, ch_bytes, records, secret = decode(data, max_size=MAX_RUN,
                                                max_array_len=MAX_RECORDS)
        if fmt != RUN_FORMAT or type(ch_bytes) is not bytes or type(records) is not list or \
                not records or not (secret is None or (type(secret) is bytes
                                                       and len(secret) == 32)):
            raise ValueError("fields")
    except (ValueError, TypeError) as e:
        raise _Bad("malformed", None, f"not a solo run file: {e}") from None
    try:
        ch = parse_challenge(ch_bytes)
    except ChallengeError as e:
        raise _Bad(e.check, None, str(e)) from None
    summary.update(challenge=ch.id, organiser=fingerprint(ch.organiser), game=ch.game)
    if expected is not None and expected.digest != ch.digest:
        raise _Bad("wrong-challenge", None, f"the run is of challenge {ch.id!r}, not of the "
                   f"expected {expected.id!r} (or not by the same organiser)")
    try:
        game = get_game(ch.game)
        state = _setup(game, ch)
        summary["rules"] = game.describe_rules(game.decode_rules(ch.rules))
    except UnknownGameError as e:
        raise _Bad("unknown-game", None, str(e)) from None
    except (ValueError, ChallengeError) as e:
        raise _Bad("rules", None, str(e)) from None
    if secret is not None and commitment(secret) != ch.commitment:
        raise _Bad("secret-commitment", None, "the secret in the run file does not match the "
                   "challenge's commitment")
    # the records: signatures and chain first
    bodies: list[list[Any]] = []
    player = b""
    head = b""
    for i, rec in enumerate(records):
        try:
            body, sig = decode(rec, max_size=MAX_RUN)
            fields = decode(body, max_size=MAX_RUN)
            if type(fields) is not list or len(fields) < 3 or type(sig) is not bytes:
                raise ValueError("fields")
        except (ValueError, TypeError) as e:
            raise _Bad("malformed", i, f"record {i} is not a record: {e}") from None
        if i == 0:
            if fields[2:] != ["start", fields[3] if len(fields) > 3 else None,
                              fields[4] if len(fields) > 4 else None] or len(fields) != 5 \
                    or type(fields[4]) is not bytes or len(fields[4]) != 32:
                raise _Bad("malformed", 0, "the first record is not a start record")
            if fields[3] != ch.digest:
                raise _Bad("wrong-challenge", 0, "the run's records were made for another "
                           "challenge than the one the file encloses")
            player = fields[4]
            head = genesis(ch.digest, player)
            summary["player"] = fingerprint(player)
        if fields[0] != i or fields[1] != head:
            raise _Bad("chain", i, f"record {i} does not follow record {i - 1}")
        if not verify_signature(player, sig, TAG_RECORD_SIG + body):
            raise _Bad("record-signature", i, f"record {i} is not signed by the run's player")
        bodies.append([head, *fields[2:]])
        head = tagged_hash(TAG_RECORD, body, sig)
    summary["records"] = len(records)
    summary["randomness"] = ("recomputed from the published secret" if secret is not None else
                             "attested step by step by the organiser (secret not published)")
    if player == ch.organiser:
        summary["randomness"] += "; self-issued practice challenge: proves nothing about luck"
    # the replay
    idx = 1
    counts: dict[str, int] = {}

    def take(kind: str) -> list[Any]:
        nonlocal idx
        if idx >= len(bodies):
            raise _Bad("unfinished", None, "the run ends before the game does")
        rec = bodies[idx]
        if rec[1] != kind:
            raise _Bad("sequence", idx, f"record {idx} is a {rec[1]!r} record where the game "
                       f"waits for {'an action' if kind == 'action' else 'a random value'}")
        idx += 1
        return rec

    while not isinstance(d := game.decision(state), Finished):
        if d.kind in (DecisionKind.TURN, DecisionKind.CHOICE):
            rec = take("action")
            if len(rec) != 3 or type(rec[2]) is not str:
                raise _Bad("malformed", idx - 1, "an action record holds one text")
            inp = rec[2]
        elif d.kind is DecisionKind.REVEAL:
            inp = game.reveal_input(d.handle, game.card_of(state, d.handle))
        else:
            _, stream = _random_input(game, state, d, counts, None)
            k = counts[stream] - 1
            rec = take("random")
            if len(rec) != 6 or rec[2:4] != [stream, k] or type(rec[4]) is not bytes or \
                    len(rec[4]) != 32 or type(rec[5]) is not bytes:
                raise _Bad("random-order", idx - 1, f"record {idx - 1} should reveal {stream} "
                           f"step {k}")
            val, sig = rec[4], rec[5]
            if not verify_signature(ch.organiser, sig,
                                    attestation(ch.digest, player, stream, k, rec[0], val)):
                raise _Bad("reveal-not-bound", idx - 1, f"{stream} step {k}: "
                           + CHECKS["reveal-not-bound"])
            if secret is not None and val != value(secret, ch.digest, player, stream, k):
                raise _Bad("random-value", idx - 1, f"{stream} step {k} is not the value the "
                           "published secret derives")
            inp, _ = _random_input(game, state, d, None, val)
        try:
            state = game.step(state, inp)
        except ValueError as e:
            raise _Bad("illegal-action", idx - 1, str(e)[:200]) from None
    end = take("end")
    summary.update(outcome=d.outcome, score=game.score(state),
                   turns=getattr(state, "d", {}).get("turn"))
    if end[2:] != [d.outcome, game.score(state), game.state_hash(state)]:
        raise _Bad("end-mismatch", idx - 1, "the end record claims another outcome, score or "
                   "final state than the replay's")
    if idx != len(bodies):
        raise _Bad("trailing", idx, "records follow the end record")
