# The organiser's reveal service (SPEC Part 11, §11.7.5 and §11.7.8–11.7.9), sans-IO: its ledger,
# its wire messages and its answers. The trio TCP server, the durable state file and the player's
# client live in cli/solo_service.py; this module does no I/O, reads no clock and holds no socket.
#
# How it works. The service holds the challenge's secret; the player never does, so it cannot
# look ahead. Before each random step the player sends a request signed with its key:
#     [challenge digest, player key, stream, k, head]   (tag "versus/v1/solo/reveal-request")
# and the service answers v(stream, k) with its attestation (run.attestation) when the ledger
# allows it: only the next k of each stream, and for a step already answered only the same
# head again (an idempotent retry: the same answer); another head for a revealed step is a
# second history and is refused (one attempt per challenge and key). The ledger is the only
# state: per player key and stream, the heads answered, in order. It is bounded (a stream's
# steps by its deck size, the d6 stream by MAX_D6, the number of players by `max_players`), and
# the caller makes it durable: `answer` hands every NEW entry to `persist` before it commits it
# and before the answer exists, so a crash between the two can only forget an answer never sent.
#
# Error families: a request that breaks the rules is the player's fault, a `RevealRefused`
# subclass (a RemoteProtocolError with a stable `code`) that the service sends back as a
# refusal; an answer that is not one, or not signed by the organiser, is the service's fault
# (`BadAnswer`) on the player's side; a message we would build wrongly is our own bug
# (LocalProtocolError).
from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from versus.protocol.crypto.identity import Identity, verify_signature
from versus.protocol.errors import LocalProtocolError, RemoteProtocolError
from versus.protocol.wire.canonical import TAG_SOLO_REQUEST, decode, encode

from .challenge import Challenge, ChallengeError, OrganiserSecret, solo_game
from .run import attestation, value

WIRE_FORMAT = "versus-reveal/1"
STATE_FORMAT = "versus-reveal-state/1"
#: hard frame limits: a request is ~230 bytes, an answer ~130, a refusal at most ~330
MAX_REQUEST = 512
MAX_ANSWER = 1024
MAX_MESSAGE = 200  # characters of a refusal's message
MAX_D6 = 1024  # dice per run and key (a run rolls once per Multiverse turn: < 100)
DEFAULT_MAX_PLAYERS = 10_000
_STREAM = re.compile(r"deck-[0-9]{1,3}|d6")


# --- errors ------------------------------------------------------------------------------------


class RevealRefused(RemoteProtocolError):
    """The service refuses a request (the player's fault); `code` says why (SPEC §11.7.9)."""

    code = "refused"


class MalformedRequest(RevealRefused):
    code = "malformed"


class RequestTooLarge(RevealRefused):
    code = "oversize"


class WrongChallenge(RevealRefused):
    code = "wrong-challenge"


class RequestSignature(RevealRefused):
    code = "request-signature"


class UnknownStream(RevealRefused):
    code = "unknown-stream"


class OutOfOrder(RevealRefused):
    code = "out-of-order"


class SecondHistory(RevealRefused):
    code = "second-history"


class ServiceFull(RevealRefused):
    code = "full"


class ServiceBusy(RevealRefused):
    code = "busy"


class Unavailable(RevealRefused):
    """Not the player's fault: the service could not record the step (its disk); retry later."""

    code = "unavailable"


class Timeout(RevealRefused):
    code = "timeout"


class LimitReached(RevealRefused):
    """A connection went past what one connection may ask (a second player key, the same
    answer again and again)."""

    code = "limit"


REFUSALS: dict[str, type[RevealRefused]] = {
    c.code: c for c in (RevealRefused, MalformedRequest, RequestTooLarge, WrongChallenge,
                        RequestSignature, UnknownStream, OutOfOrder, SecondHistory, ServiceFull,
                        ServiceBusy, Unavailable, Timeout, LimitReached)}


class BadAnswer(RemoteProtocolError):
    """The service's answer is not an answer, or not the organiser's attestation of the value
    for this very request (the service's fault, seen by the player)."""

    code = "bad-answer"


class StateError(ValueError):
    """A ledger entry or state file that cannot be used (corrupt, or another challenge's)."""


# --- messages -----------------------------------------------------------------------------------


def _check_fields(challenge: Any, player: Any, stream: Any, k: Any, head: Any) -> str | None:
    """Why these request/entry fields are not well-formed, or None."""
    for name, v in (("challenge", challenge), ("player", player), ("head", head)):
        if type(v) is not bytes or len(v) != 32:
            return f"{name} is not 32 bytes"
    if type(stream) is not str or not _STREAM.fullmatch(stream):
        return f"stream {str(stream)[:20]!r} is not deck-N or d6"
    if type(k) is not int or not 0 <= k < 1 << 31:
        return f"step {str(k)[:20]} is not 0..2^31-1"
    return None


def request_message(challenge: bytes, player: bytes, stream: str, k: int, head: bytes) -> bytes:
    return TAG_SOLO_REQUEST + encode([challenge, player, stream, k, head])


@dataclass(frozen=True)
class RevealRequest:
    """One signed request: v(stream, k) of `challenge` for `player` at chain head `head`."""

    challenge: bytes
    player: bytes
    stream: str
    k: int
    head: bytes
    signature: bytes

    def __post_init__(self) -> None:
        why = _check_fields(self.challenge, self.player, self.stream, self.k, self.head)
        if why is None and (type(self.signature) is not bytes or len(self.signature) != 64):
            why = "signature is not 64 bytes"
        if why is not None:
            raise MalformedRequest(f"not a reveal request: {why}")

    @classmethod
    def signed(cls, player: Identity, challenge: bytes, stream: str, k: int,
               head: bytes) -> RevealRequest:
        why = _check_fields(challenge, player.public_key, stream, k, head)
        if why is not None:
            raise LocalProtocolError(f"cannot ask for {stream!r} step {k}: {why}")
        sig = player.sign(request_message(challenge, player.public_key, stream, k, head))
        return cls(challenge, player.public_key, stream, k, head, sig)

    def signature_ok(self) -> bool:
        return verify_signature(self.player, self.signature, request_message(
            self.challenge, self.player, self.stream, self.k, self.head))

    def to_bytes(self) -> bytes:
        return encode([WIRE_FORMAT, "reveal", self.challenge, self.player, self.stream, self.k,
                       self.head, self.signature])

    @classmethod
    def from_bytes(cls, data: bytes) -> RevealRequest:
        try:
            fields = decode(data, max_size=MAX_REQUEST, max_depth=1, max_array_len=8,
                            max_bytes_len=64, max_str_len=32)
        except ValueError as e:
            raise MalformedRequest(f"not a reveal request: {e}") from None
        if type(fields) is not list or len(fields) != 8 or fields[:2] != [WIRE_FORMAT,
                                                                            "reveal"]:
            raise MalformedRequest(f"not a reveal request: expected [{WIRE_FORMAT!r}, "
                                   "'reveal', challenge, player, stream, k, head, signature]")
        return cls(*fields[2:])


@dataclass(frozen=True)
class RevealAnswer:
    value: bytes
    attestation: bytes

    def __post_init__(self) -> None:
        if type(self.value) is not bytes or len(self.value) != 32 or \
                type(self.attestation) is not bytes or len(self.attestation) != 64:
            raise BadAnswer("the service's answer is not a 32-byte value and a signature")

    def to_bytes(self) -> bytes:
        return encode([WIRE_FORMAT, "value", self.value, self.attestation])


def refusal_bytes(error: RevealRefused) -> bytes:
    text = " ".join(str(error).split())[:MAX_MESSAGE]
    return encode([WIRE_FORMAT, "refused", error.code, text])


def parse_answer(data: bytes, request: RevealRequest, organiser: bytes) -> RevealAnswer:
    """The service's answer to `request`, checked against the organiser's key; the refusal it
    carries is raised as its RevealRefused class, anything else as BadAnswer."""
    try:
        fields = decode(data, max_size=MAX_ANSWER, max_depth=1, max_array_len=4,
                        max_bytes_len=64, max_str_len=MAX_MESSAGE * 4)
    except ValueError as e:
        raise BadAnswer(f"the reveal service sent a malformed answer: {e}") from None
    if type(fields) is not list or len(fields) != 4 or fields[0] != WIRE_FORMAT:
        raise BadAnswer("the reveal service sent something that is not an answer")
    if fields[1] == "refused" and type(fields[2]) is str and type(fields[3]) is str:
        cls = REFUSALS.get(fields[2], RevealRefused)
        raise cls(f"the reveal service refused ({fields[2]}): {fields[3]}")
    if fields[1] != "value":
        raise BadAnswer("the reveal service sent something that is not an answer")
    answer = RevealAnswer(fields[2], fields[3])
    if not verify_signature(organiser, answer.attestation, attestation(
            request.challenge, request.player, request.stream, request.k, request.head,
            answer.value)):
        raise BadAnswer(f"the answer for {request.stream} step {request.k} is not signed by "
                        "the challenge's organiser for this request")
    return answer


# --- the ledger -------------------------------------------------------------------------------


class Step(Enum):
    NEW = "new"  # the next step of its stream: record it, then answer
    REPEAT = "repeat"  # already answered for this very head: the same answer again


@dataclass(frozen=True)
class Entry:
    """One answered step: what the ledger (and its state file) remembers."""

    player: bytes
    stream: str
    k: int
    head: bytes

    def __post_init__(self) -> None:
        why = _check_fields(bytes(32), self.player, self.stream, self.k, self.head)
        if why is not None:
            raise StateError(f"not a ledger entry: {why}")

    def to_bytes(self) -> bytes:
        return encode([self.player, self.stream, self.k, self.head])

    @classmethod
    def from_bytes(cls, data: bytes) -> Entry:
        try:
            fields = decode(data, max_size=256, max_depth=1, max_array_len=4,
                            max_bytes_len=32, max_str_len=16)
        except ValueError as e:
            raise StateError(f"not a ledger entry: {e}") from None
        if type(fields) is not list or len(fields) != 4:
            raise StateError("not a ledger entry: expected [player, stream, k, head]")
        return cls(*fields)


def stream_limits(game: Any, rules: Any) -> dict[str, int]:
    """The streams a run of `rules` uses and how many steps each can have: a deck's size (no
    run reveals more cards than its deck has), MAX_D6 dice."""
    limits = {f"deck-{i}": deck.size for i, deck in enumerate(game.decks(rules))}
    if getattr(game, "chance", False):
        limits["d6"] = MAX_D6
    return limits


class Ledger:
    """Per player key and stream, the heads answered in order. `check` decides, `commit`
    records a NEW step once it is durable."""

    def __init__(self, limits: dict[str, int], max_players: int = DEFAULT_MAX_PLAYERS) -> None:
        if max_players < 1 or not limits:
            raise LocalProtocolError("a ledger needs streams and room for one player")
        self.limits, self.max_players = dict(limits), max_players
        self._heads: dict[bytes, dict[str, list[bytes]]] = {}

    @property
    def players(self) -> int:
        return len(self._heads)

    def answered(self, player: bytes, stream: str) -> int:
        return len(self._heads.get(player, {}).get(stream, ()))

    def check(self, e: Entry) -> Step:
        limit = self.limits.get(e.stream)
        if limit is None:
            raise UnknownStream(f"stream {e.stream!r} is not one this challenge's game uses "
                                f"({', '.join(sorted(self.limits))})")
        if e.k >= limit:
            raise OutOfOrder(f"{e.stream} has only {limit} steps (asked step {e.k})")
        mine = self._heads.get(e.player)
        if mine is None and len(self._heads) >= self.max_players:
            raise ServiceFull(f"the service serves at most {self.max_players} player keys")
        heads = (mine or {}).get(e.stream, [])
        if e.k < len(heads):
            if heads[e.k] != e.head:
                raise SecondHistory(f"{e.stream} step {e.k} was already revealed to this "
                                    "player key for another history (one attempt per "
                                    "challenge and key)")
            return Step.REPEAT
        if e.k > len(heads):
            raise OutOfOrder(f"{e.stream} step {e.k} asked before step {len(heads)} (only the "
                             "next step of each stream is answered)")
        return Step.NEW

    def commit(self, e: Entry) -> None:
        if self.check(e) is not Step.NEW:
            raise LocalProtocolError(f"{e.stream} step {e.k} is not a new step to commit")
        self._heads.setdefault(e.player, {}).setdefault(e.stream, []).append(e.head)

    def load(self, entries: Iterable[Entry]) -> None:
        """Entries read back from a state file, in the order they were committed."""
        for i, e in enumerate(entries):
            try:
                self.commit(e)
            except (RevealRefused, LocalProtocolError) as err:
                raise StateError(f"state entry {i} does not follow the ones before it: "
                                 f"{err}") from None


# --- the service --------------------------------------------------------------------------------


Persist = Callable[[Entry], None]


class RevealService:
    """The organiser's side (§11.7.5): holds the secret, keeps the ledger. `reveal` for a player in
    the same process (practice, or the organiser's own runs); `answer` for wire requests."""

    def __init__(self, challenge: Challenge, secret: OrganiserSecret, *,
                 limits: dict[str, int] | None = None,
                 max_players: int = DEFAULT_MAX_PLAYERS) -> None:
        if secret.challenge != challenge.digest:
            raise ChallengeError("secret-commitment", "the secret is not this challenge's")
        if limits is None:
            game = solo_game(challenge.game)  # ChallengeError: not a one-player game's
            limits = stream_limits(game, game.decode_rules(challenge.rules))
        self.challenge, self._secret = challenge, secret
        self.ledger = Ledger(limits, max_players)

    def reveal(self, player: bytes, stream: str, k: int, head: bytes,
               persist: Persist | None = None) -> tuple[bytes, bytes]:
        """v(stream, k) for `player` at `head` and its attestation; RevealRefused otherwise."""
        val, sig, _ = self._reveal(player, stream, k, head, persist)
        return val, sig

    def _reveal(self, player: bytes, stream: str, k: int, head: bytes,
                persist: Persist | None) -> tuple[bytes, bytes, Step]:
        try:
            entry = Entry(player, stream, k, head)
        except StateError as e:
            raise MalformedRequest(str(e)) from None
        step = self.ledger.check(entry)
        if step is Step.NEW:
            if persist is not None:
                persist(entry)  # durable before it is answered (OSError: nothing answered)
            self.ledger.commit(entry)
        val = value(self._secret.secret, self.challenge.digest, player, stream, k)
        sig = self._secret.key.sign(attestation(self.challenge.digest, player, stream, k, head,
                                                val))
        return val, sig, step

    def request(self, frame: bytes) -> RevealRequest:
        """The request in a frame body, for this challenge and signed by the key it names;
        RevealRefused otherwise. Only then is its player key known (a connection counts
        against a key only once the key has signed)."""
        req = RevealRequest.from_bytes(frame)
        if req.challenge != self.challenge.digest:
            raise WrongChallenge(f"this service serves challenge {self.challenge.id!r}, "
                                 "not the one asked for")
        if not req.signature_ok():
            raise RequestSignature("the request is not signed by the player key it names")
        return req

    def respond(self, req: RevealRequest, persist: Persist | None = None
                ) -> tuple[bytes, Step]:
        """The answer frame body to a checked request (`request`), and whether it was a new
        step or a repeated one; RevealRefused when the ledger refuses it."""
        val, sig, step = self._reveal(req.player, req.stream, req.k, req.head, persist)
        return RevealAnswer(val, sig).to_bytes(), step

    def answer(self, frame: bytes, persist: Persist | None = None
               ) -> tuple[bytes, RevealRefused | None]:
        """The answer frame body to one request frame body, a value or a refusal, and the
        refusal (None for a value). Raises only OSError (from `persist`: our own disk)."""
        try:
            body, _ = self.respond(self.request(frame), persist)
        except RevealRefused as refused:
            return refusal_bytes(refused), refused
        return body, None

    def publish_secret(self) -> bytes:
        """The secret, for when the challenge closes (every run then verifies by itself)."""
        return self._secret.secret


# --- the connection slots -------------------------------------------------------------------

# Who may hold one of the service's connections (SPEC §11.7.9, Decided). Keys and connections
# cost an attacker nothing, so no count alone protects a player; what an attacker cannot make
# up freely is its number of address groups (an IPv4 address, an IPv6 /64: the caller names the
# group) and fresh progress (a new step answered is a fsynced ledger entry the organiser sees).
# So: a group holds at most `per_group` connections; a key at most `per_key` (its own oldest one
# makes room: only the key's holder signs for it); when every slot is taken a newcomer evicts
# a connection of a group holding at least two more than its own group does (max-min fair
# share: a player's one connection is never the victim of that rule), else one that has made
# no progress for `grace` seconds, the most crowded group's stalest first; else it is told
# "busy". An evicted connection is closed without a word: the client reconnects for its next
# request. Repeated answers (a retry gets the same answer) renew nothing and are capped per
# step and connection.


@dataclass(eq=False)
class Slot:
    """One connection's place. Mutable on purpose: the policy's own bookkeeping, keyed by
    identity (eq=False), never shown to a peer."""

    group: str
    opened: float
    progress: float  # when a new step was last answered on it (`opened` until then)
    key: bytes | None = None  # the player key of its first answered request
    counted: bool = False  # a new step of `key` was answered on it: it counts against the key
    repeats: dict[tuple[str, int], int] = field(default_factory=dict)  # per step: answered again


@dataclass(frozen=True)
class SlotLimits:
    total: int = 64
    per_group: int = 4
    per_key: int = 2
    repeats: int = 2
    grace: float = 10.0

    def __post_init__(self) -> None:
        if min(self.total, self.per_group, self.per_key) < 1 or self.repeats < 0 or \
                self.grace <= 0:
            raise LocalProtocolError(f"connection limits must be positive: {self}")


class Slots:
    """The connection slots (see above), sans-IO: every call takes our clock `now`."""

    def __init__(self, limits: SlotLimits) -> None:
        self.limits = limits
        self._slots: list[Slot] = []
        self._groups: dict[str, int] = {}

    def __len__(self) -> int:
        return len(self._slots)

    def admit(self, group: str, now: float) -> tuple[Slot, Slot | None]:
        """A slot for a new connection from `group`, and the connection it evicts (to be
        closed by the caller); ServiceBusy when there is none to give."""
        held = self._groups.get(group, 0)
        if held >= self.limits.per_group:
            raise ServiceBusy(f"the service serves {self.limits.per_group} connections at once "
                              f"per address ({group}); retry later")
        victim = None
        if len(self._slots) >= self.limits.total:
            victim = self._victim(held, now)
            if victim is None:
                raise ServiceBusy(f"the service serves {self.limits.total} connections at "
                                  "once; retry later")
            self.release(victim)
        slot = Slot(group, now, now)
        self._slots.append(slot)
        self._groups[group] = held + 1
        return slot, victim

    def _victim(self, held: int, now: float) -> Slot | None:
        def crowd(s: Slot) -> int:
            return self._groups[s.group]

        unfair = [s for s in self._slots if crowd(s) >= held + 2
                  or now - s.progress >= self.limits.grace]
        return max(unfair, key=lambda s: (crowd(s), now - s.progress), default=None)

    def bind(self, slot: Slot, key: bytes) -> None:
        """`slot` asks for `key` (its signature checked); LimitReached for a second key. It
        counts against the key's `per_key` connections only once it has a new step answered
        (`answered`): a request is not bound to its connection, so anyone who saw one can
        replay it, and a replay is only ever a repeat."""
        if slot.key is not None and slot.key != key:
            raise LimitReached("one player key per connection")
        slot.key = key

    def answered(self, slot: Slot, stream: str, k: int, step: Step, now: float
                 ) -> Slot | None:
        """Count an answer: a new step renews the slot, and the first one makes the slot
        count against its key: the key's stalest other counted connection is returned (to be
        closed) when it already holds `per_key`. A repeat renews nothing, and one step is
        answered again at most `repeats` times per connection (LimitReached beyond); the count
        is bounded: one per step the key has (a stream's size)."""
        if step is Step.NEW:
            slot.progress = now
            if slot.counted:
                return None
            slot.counted = True
            mine = [s for s in self._slots if s.counted and s.key == slot.key and s is not slot]
            if len(mine) < self.limits.per_key:
                return None
            victim = min(mine, key=lambda s: s.progress)
            self.release(victim)
            return victim
        again = slot.repeats[stream, k] = slot.repeats.get((stream, k), 0) + 1
        if again > self.limits.repeats:
            raise LimitReached(f"{stream} step {k} is answered again at most "
                               f"{self.limits.repeats} times on one connection")
        return None

    def release(self, slot: Slot) -> None:
        """Give the slot back (again: nothing)."""
        if slot in self._slots:
            self._slots.remove(slot)
            self._groups[slot.group] -= 1
            if not self._groups[slot.group]:
                del self._groups[slot.group]


# --- the published secret -----------------------------------------------------------------------

PUBLISHED_FORMAT = "versus-challenge-published/1"


def published_bytes(secret: OrganiserSecret) -> bytes:
    """The public file an organiser publishes when the challenge closes: the secret alone (never
    the signing key the secret file also holds)."""
    return encode([PUBLISHED_FORMAT, secret.challenge, secret.secret])


def parse_published(data: bytes, challenge: Challenge | None = None) -> tuple[bytes, bytes]:
    """(challenge digest, secret) of a published-secret file; ChallengeError otherwise."""
    from .challenge import commitment

    try:
        fmt, digest, secret = decode(data, max_size=256, max_depth=1, max_array_len=3,
                                     max_bytes_len=32, max_str_len=64)
        ok = fmt == PUBLISHED_FORMAT and type(digest) is bytes and len(digest) == 32 and \
            type(secret) is bytes and len(secret) == 32
    except (ValueError, TypeError) as e:
        raise ChallengeError("published-malformed", f"not a published secret file: {e}") \
            from None
    if not ok:
        raise ChallengeError("published-malformed", "not a published secret file")
    if challenge is not None and (digest != challenge.digest
                                  or commitment(secret) != challenge.commitment):
        raise ChallengeError("secret-commitment", "the published secret is not this "
                             f"challenge's ({challenge.id!r})")
    return digest, secret
