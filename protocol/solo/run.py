# Verifiable solo runs (SPEC Part 11, §11.7.3–11.7.7): playing a challenge, the run file and its
# verification (the organiser's reveal service: service.py).
#
# How it works. Every card REVEAL and every d6 of a run is settled by a 32-byte value
#     v(stream, k) = H(organiser secret, challenge digest, player key, stream, k)
# where `stream` is "deck-<d>" (the k-th card revealed from hidden deck d) or "d6" (the k-th
# die). A DEAL takes no value: a card's handle is its deal position (the deck's next one), so
# dealing says nothing about the card; its identity is drawn only when it is revealed, from the
# cards of its deck not revealed yet (`game.unrevealed`), so a face-down card stays unknown to
# everyone, the player included, until it is flipped (§11.1.5). The values are fixed by the
# challenge and the player's key, never by the player's choices, and restarting gives the same
# cards and dice (§11.7.3). The player never holds the secret: before each value it signs and
# hash-chains every action it has taken, and asks the reveal service for v(stream, k) with its
# chain head; the service answers only the next k of each stream, once per head (a second
# history for the same step is refused), and signs (challenge, player, stream, k, head, value)
# (§11.7.5; the service itself: service.py). The run file holds the challenge, the player's signed
# records and, once the organiser publishes it, the secret (`with_secret`). `verify_run`
# replays the run through the game and checks everything (codes in CHECKS); whatever the file
# holds, it returns a verdict and never raises.
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from versus.engine.api import DecisionKind, Finished
from versus.protocol.crypto.commitment import HashStream
from versus.protocol.crypto.identity import Identity, fingerprint, verify_signature
from versus.protocol.errors import LocalProtocolError
from versus.protocol.solo import MAX_RUN, RUN_FORMAT, RUN_FORMAT_PREFIX
from versus.protocol.wire.canonical import TAG_SOLO_ATTEST as TAG_ATTEST
from versus.protocol.wire.canonical import TAG_SOLO_GENESIS as TAG_GENESIS
from versus.protocol.wire.canonical import TAG_SOLO_RECORD as TAG_RECORD
from versus.protocol.wire.canonical import TAG_SOLO_RECORD_SIG as TAG_RECORD_SIG
from versus.protocol.wire.canonical import TAG_SOLO_VALUE as TAG_VALUE
from versus.protocol.wire.canonical import decode, encode, tagged_hash
from versus.protocol.wire.text import printable

from .challenge import Challenge, ChallengeError, commitment, parse_challenge, solo_game

MAX_RECORDS = 100_000
SHOWN = 300  # characters of a message or summary field `describe` shows

#: every code verify_run may return, and what it means (SPEC §11.7.6)
CHECKS = {
    "malformed": "the file is not a solo run",
    "old-format": "a run file of an older format, which this version cannot replay",
    "challenge-malformed": "the enclosed challenge is not a challenge file",
    "challenge-signature": "the challenge is not signed by the organiser key it names",
    "wrong-challenge": "the run was played on another challenge",
    "unknown-game": "the challenge's game is not registered here",
    "not-solo": "the challenge's game is not a one-player game",
    "rules": "the challenge's rules or card data are not the game's",
    "record-signature": "a record is not signed by the run's player",
    "chain": "a record does not follow the previous one (sequence or hash)",
    "sequence": "a record is not what the game waited for",
    "random-order": "a random value is for another stream or step than the one the game used",
    "reveal-not-bound": "a random value was not revealed by the organiser for this history "
                        "(the run used randomness it could not have known at that point)",
    "secret-commitment": "the revealed secret does not match the challenge's commitment",
    "random-value": "a random value is not the one the secret derives",
    "illegal-action": "the game refuses an action (or fails on it)",
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


def _run_fields(data: bytes) -> tuple[bytes, list[Any], Any]:
    """(challenge file, records, secret or None) of a run file of the current format;
    _Bad("malformed"/"old-format") otherwise."""
    try:
        fmt, ch_bytes, records, secret = decode(data, max_size=MAX_RUN,
                                                max_array_len=MAX_RECORDS)
    except (ValueError, TypeError) as e:
        raise _Bad("malformed", None, f"not a solo run file: {e}") from None
    if type(fmt) is str and fmt.startswith(RUN_FORMAT_PREFIX) and fmt != RUN_FORMAT:
        raise _Bad("old-format", None, f"a {fmt[:40]!r} run file: this version replays "
                   f"{RUN_FORMAT!r} only (since /2 a card's handle is its deal position and "
                   "its identity is drawn when it is revealed, so older runs do not replay)")
    if fmt != RUN_FORMAT or type(ch_bytes) is not bytes or type(records) is not list or \
            not (secret is None or (type(secret) is bytes and len(secret) == 32)):
        raise _Bad("malformed", None, "not a solo run file: fields")
    return ch_bytes, records, secret


def with_secret(data: bytes, secret: bytes, challenge: bytes | None = None) -> bytes:
    """The run file `data` completed with the organiser's published secret (checked against
    its challenge's commitment, and the challenge digest `challenge` when given; ChallengeError
    otherwise). The records are not touched."""
    try:
        ch_bytes, records, _old = _run_fields(data)
    except _Bad as bad:
        raise ChallengeError(bad.check, bad.message) from None
    ch = parse_challenge(ch_bytes)
    if challenge is not None and challenge != ch.digest:
        raise ChallengeError("wrong-challenge", f"the run is of challenge {ch.id!r}, not the "
                             "secret's")
    if type(secret) is not bytes or commitment(secret) != ch.commitment:
        raise ChallengeError("secret-commitment", f"the secret is not challenge {ch.id!r}'s")
    return encode([RUN_FORMAT, ch_bytes, records, secret])


def _setup(ch: Challenge) -> tuple[Any, Any, Any]:
    """The challenge's game (a registered one-player game), rules and start state;
    ChallengeError ("unknown-game", "not-solo", "rules") otherwise."""
    from versus.engine.api import Setup

    game = solo_game(ch.game)
    try:
        rules = game.decode_rules(ch.rules)
        cat = game.catalogue_for_digest(ch.catalogue)  # any version the game shipped
        if cat is None:
            raise ValueError("the challenge's card data is not this game's")
        return game, rules, game.new_game(Setup(rules, cat, ch.digest))
    except Exception as e:  # signed, but the game cannot start from it: any failure is "rules"
        raise ChallengeError("rules", f"the challenge's rules cannot be played: "
                             f"{type(e).__name__}: {e}"[:300]) from None


class _Dealer:
    """How a run answers the decisions nobody chooses, the same for the player (`play`) and
    the verifier: a DEAL is the deck's next position (no value); a REVEAL of a deck's card and
    a CHANCE each take the next value of their stream (`stream`, then `answer`). A game that
    deals or reveals outside its decks is a bug here (LocalProtocolError; in a verification,
    INVALID at the record being replayed)."""

    def __init__(self, game: Any, rules: Any) -> None:
        self.game = game
        self.decks = game.decks(rules)
        self.dealt = [0] * len(self.decks)
        self.counts: dict[str, int] = {}

    def deal(self, d: Any) -> Any:
        if not 0 <= d.deck < len(self.decks) or self.dealt[d.deck] >= self.decks[d.deck].size:
            raise LocalProtocolError(f"the game deals from deck {d.deck}, which has no card "
                                     "left")
        handle = self.decks[d.deck].first + self.dealt[d.deck]
        self.dealt[d.deck] += 1
        return self.game.deal_input(handle)

    def _deck(self, handle: int) -> int:
        for i, deck in enumerate(self.decks):
            if handle in deck.handles:
                return i
        raise LocalProtocolError(f"the game reveals handle {handle}, which is in none of its "
                                 "decks")

    def stream(self, d: Any) -> tuple[str, int]:
        """The stream and step the next value of `d` (a REVEAL or CHANCE) comes from."""
        stream = (f"deck-{self._deck(d.handle)}" if d.kind is DecisionKind.REVEAL else "d6")
        k = self.counts.get(stream, 0)
        self.counts[stream] = k + 1
        return stream, k

    def answer(self, state: Any, d: Any, val: bytes) -> Any:
        """The input `val` settles: the revealed card, drawn from the cards its deck has not
        revealed yet; or the die's outcome."""
        if d.kind is DecisionKind.REVEAL:
            pool = self.game.unrevealed(state, self._deck(d.handle))
            if not pool:
                raise LocalProtocolError(f"the game reveals handle {d.handle} from an exhausted "
                                         "deck")
            return self.game.reveal_input(d.handle, pool[below(val, len(pool))])
        return self.game.legal_actions(state)[below(val, d.outcomes)]


def play(game: Any, challenge: Challenge, player: Identity, reveal: Reveal,
         chooser: Chooser, *, on_step: Callable[[Any, str, Any], None] | None = None
         ) -> tuple[Run, Any]:
    """Play a whole run of `challenge` (whose game must be `game`): `chooser(game, state,
    legal)` answers every TURN and CHOICE, `reveal` every random step. Returns the signed run
    and the final state. ChallengeError when the challenge cannot be played here."""
    own, rules, state = _setup(challenge)
    if own is not game:
        raise ChallengeError("wrong-challenge", f"the challenge is of game {challenge.game!r}, "
                             f"not {getattr(game, 'id', '?')!r}")
    run = Run(challenge, player, head=genesis(challenge.digest, player.public_key))
    run.add("start", challenge.digest, player.public_key)
    dealer = _Dealer(game, rules)
    while True:
        d = game.decision(state)
        if isinstance(d, Finished):
            break
        if d.kind in (DecisionKind.TURN, DecisionKind.CHOICE):
            inp = chooser(game, state, list(game.legal_actions(state)))
            run.add("action", inp)
        elif d.kind is DecisionKind.DEAL:
            inp = dealer.deal(d)
        else:
            stream, k = dealer.stream(d)
            val, sig = reveal(player.public_key, stream, k, run.head)
            inp = dealer.answer(state, d, val)
            run.add("random", stream, k, val, sig)
        before = state
        state = game.step(state, inp)
        if on_step is not None:
            on_step(before, inp, state)
    fin = game.decision(state)
    run.add("end", fin.outcome, game.score(state), game.state_hash(state))
    return run, state


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
        """The verdict line, then the run. Every field is shown printable and on one line (a
        challenge names its game and the messages quote the file: never raw text)."""
        s = self.summary
        if self.ok:
            head = (f"OK: solo run verified, score {printable(s.get('score'), 20)} "
                    f"({printable(s.get('outcome'), 40)})")
        else:
            where = "" if self.record is None else f" at record {self.record}"
            head = f"INVALID{where}: {self.check}: {printable(self.message, SHOWN)}"
        lines = [head]
        for key in ("game", "rules", "challenge", "organiser", "player", "records", "turns",
                    "randomness"):
            if key in s:
                lines.append(f"  {key:<11}{printable(s[key], SHOWN)}")
        return "\n".join(lines)


class _Bad(Exception):
    def __init__(self, check: str, record: int | None, message: str) -> None:
        super().__init__(message)
        self.check, self.record, self.message = check, record, message


@dataclass
class _Cursor:
    """Where the verification is: the record being checked (None before the records) and the
    code a failure nobody foresaw gets there, so it is still reported at its record."""

    record: int | None = None
    check: str = "malformed"
    game: Any = None  # the run's game and start state, once set up
    start: Any = None
    steps: list[RunStep] = field(default_factory=list)  # the inputs applied so far


def verify_run(data: bytes, expected: Challenge | None = None) -> RunReport:
    """Replay a run file (§11.7.6); `expected`: the challenge it must be a run of. Never raises: a
    file the checks did not foresee is INVALID at the record being checked."""
    return replay_run(data, expected).report


@dataclass(frozen=True)
class RunStep:
    """One game input of a run, as the verification fed it to `step`: `record` is the run
    record that carried it (an action or a random value), None for a deal (it takes none)."""

    input: Any
    record: int | None
    text: str


@dataclass(frozen=True)
class RunReplay:
    """What a replay of a run needs, from the same pass as its verification: the game, its
    start state (None when the run failed before the game could start) and every input the
    verification applied, in order, up to the first failure the report names."""

    report: RunReport
    game: Any = None
    start: Any = None
    steps: tuple[RunStep, ...] = ()


def replay_run(data: bytes, expected: Challenge | None = None) -> RunReplay:
    """`verify_run`, with the game, its start and the inputs it applied (see RunReplay)."""
    summary: dict[str, Any] = {}
    at = _Cursor()
    try:
        _verify(data, expected, summary, at)
    except _Bad as bad:
        report = RunReport(False, bad.check, bad.record, bad.message, summary)
    except Exception as e:  # the verifier's contract: any file gets a verdict, not a traceback
        report = RunReport(False, at.check, at.record, f"the run cannot be replayed here: "
                           f"{type(e).__name__}: {e}"[:300], summary)
    else:
        report = RunReport(True, None, None, "", summary)
    return RunReplay(report, at.game, at.start, tuple(at.steps))


def _verify(data: bytes, expected: Challenge | None, summary: dict[str, Any],
            at: _Cursor) -> None:
    ch_bytes, records, secret = _run_fields(data)
    try:
        ch = parse_challenge(ch_bytes)
    except ChallengeError as e:
        raise _Bad(e.check, None, str(e)) from None
    summary.update(challenge=ch.id, organiser=fingerprint(ch.organiser), game=ch.game)
    if expected is not None and expected.digest != ch.digest:
        raise _Bad("wrong-challenge", None, f"the run is of challenge {ch.id!r}, not of the "
                   f"expected {expected.id!r} (or not by the same organiser)")
    try:
        game, rules, state = _setup(ch)
        at.game, at.start = game, state
        summary["rules"] = game.describe_rules(rules)
    except ChallengeError as e:
        raise _Bad(e.check, None, str(e)) from None
    if secret is not None and commitment(secret) != ch.commitment:
        raise _Bad("secret-commitment", None, "the secret in the run file does not match the "
                   "challenge's commitment")
    player, bodies = _chain(ch, records, at)
    summary["player"] = fingerprint(player)
    summary["records"] = len(records)
    summary["randomness"] = ("recomputed from the published secret" if secret is not None else
                             "attested step by step by the organiser (secret not published)")
    if player == ch.organiser:
        summary["randomness"] += "; self-issued practice challenge: proves nothing about luck"
    _replay(game, _Dealer(game, rules), state, ch, player, secret, bodies, summary, at)


def _chain(ch: Challenge, records: list[Any], at: _Cursor) -> tuple[bytes, list[list[Any]]]:
    """The player key and every record's [head before it, kind, fields...], once every
    record's form, sequence number, chain link and signature are checked."""
    if not records:
        raise _Bad("malformed", None, "the run has no records")
    bodies: list[list[Any]] = []
    player = head = b""
    for i, rec in enumerate(records):
        at.record = i
        try:
            body, sig = decode(rec, max_size=MAX_RUN)
            fields = decode(body, max_size=MAX_RUN)
            if type(fields) is not list or len(fields) < 3 or type(sig) is not bytes or \
                    type(fields[0]) is not int or type(fields[2]) is not str:
                raise ValueError("fields")
        except (ValueError, TypeError) as e:
            raise _Bad("malformed", i, f"record {i} is not a record: {e}") from None
        if i == 0:
            if fields[2:3] != ["start"] or len(fields) != 5 or type(fields[4]) is not bytes \
                    or len(fields[4]) != 32:
                raise _Bad("malformed", 0, "the first record is not a start record")
            if fields[3] != ch.digest:
                raise _Bad("wrong-challenge", 0, "the run's records were made for another "
                           "challenge than the one the file encloses")
            player = fields[4]
            head = genesis(ch.digest, player)
        if fields[0] != i or fields[1] != head:
            raise _Bad("chain", i, f"record {i} does not follow record {i - 1}")
        if not verify_signature(player, sig, TAG_RECORD_SIG + body):
            raise _Bad("record-signature", i, f"record {i} is not signed by the run's player")
        bodies.append([head, *fields[2:]])
        head = tagged_hash(TAG_RECORD, body, sig)
    return player, bodies


_WAITS = {"action": "an action", "random": "a random value", "end": "the end record"}


def _replay(game: Any, dealer: _Dealer, state: Any, ch: Challenge, player: bytes,
            secret: bytes | None, bodies: list[list[Any]], summary: dict[str, Any],
            at: _Cursor) -> None:
    """Replay the records through the game: every action legal, every value attested (and
    the secret's, when published), the end record the replay's."""
    idx = 1
    at.record, at.check = 1, "illegal-action"

    def take(kind: str) -> list[Any]:
        nonlocal idx
        if idx >= len(bodies):
            raise _Bad("unfinished", None, "the run ends before the game does")
        rec = bodies[idx]
        at.record = idx
        if rec[1] != kind:
            raise _Bad("sequence", idx, f"record {idx} is a {str(rec[1])[:20]!r} record where "
                       f"the game waits for {_WAITS[kind]}")
        idx += 1
        return rec

    while not isinstance(d := game.decision(state), Finished):
        record: int | None = idx
        if d.kind in (DecisionKind.TURN, DecisionKind.CHOICE):
            rec = take("action")
            if len(rec) != 3 or type(rec[2]) is not str:
                raise _Bad("malformed", idx - 1, "an action record holds one text")
            inp = rec[2]
        elif d.kind is DecisionKind.DEAL:
            inp, record = dealer.deal(d), None
        else:
            stream, k = dealer.stream(d)
            rec = take("random")
            val = _value(rec, stream, k, ch, player, secret, idx - 1)
            inp = dealer.answer(state, d, val)
        try:
            state = game.step(state, inp)
        except ValueError as e:
            raise _Bad("illegal-action", idx - 1, str(e)[:200]) from None
        at.steps.append(RunStep(inp, record, _input_text(game, inp)))
    end = take("end")
    summary.update(outcome=d.outcome, score=game.score(state),
                   turns=getattr(state, "d", {}).get("turn"))
    if end[2:] != [d.outcome, game.score(state), game.state_hash(state)]:
        raise _Bad("end-mismatch", idx - 1, "the end record claims another outcome, score or "
                   "final state than the replay's")
    if idx != len(bodies):
        raise _Bad("trailing", idx, "records follow the end record")


def _input_text(game: Any, inp: Any) -> str:
    """The input in the game's notation (a game that cannot write it: its repr, cut)."""
    try:
        return str(game.format_input(inp))
    except Exception:
        return printable(repr(inp), 80)


def _value(rec: list[Any], stream: str, k: int, ch: Challenge, player: bytes,
           secret: bytes | None, i: int) -> bytes:
    """The value of random record `i`, checked: for this stream and step, attested by the
    organiser for the head it is used at, and the secret's when the secret is published."""
    if len(rec) != 6 or rec[2] != stream or type(rec[3]) is not int or rec[3] != k or \
            type(rec[4]) is not bytes or len(rec[4]) != 32 or type(rec[5]) is not bytes:
        raise _Bad("random-order", i, f"record {i} should reveal {stream} step {k}")
    val, sig = rec[4], rec[5]
    if not verify_signature(ch.organiser, sig, attestation(ch.digest, player, stream, k, rec[0],
                                                           val)):
        raise _Bad("reveal-not-bound", i, f"{stream} step {k}: " + CHECKS["reveal-not-bound"])
    if secret is not None and val != value(secret, ch.digest, player, stream, k):
        raise _Bad("random-value", i, f"{stream} step {k} is not the value the published "
                   "secret derives")
    return val
