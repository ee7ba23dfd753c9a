# Two in-memory MatchPeers wired together: the shared helper of the match tests (and the bench).
#
# `Pair.run()` delivers every outgoing envelope to the other side in order and plays turn
# actions and choices with a seeded random chooser, until the match closes or an error stops it.
# A `tamper(seat, raw) -> raw | None` hook sits on the wire from `seat` (return None to drop);
# a cheating test swaps one envelope for a forged one signed with the cheater's key (a list
# sends several: a replay, an equivocation).
from __future__ import annotations

import hashlib
import itertools
import random
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from versus.engine.versus42 import ActionOrder, Catalogue, Ruleset, default_catalogue
from versus.protocol.crypto.identity import Identity
from versus.protocol.match import Event, MatchPeer
from versus.protocol.match.rules import DealMode, MatchRules
from versus.protocol.wire.envelope import Envelope, parse_envelope, seal
from versus.protocol.wire.transcript import Transcript

Tamper = Callable[[int, bytes], bytes | list[bytes] | None]


def rng_for(label: str) -> Callable[[int], bytes]:
    counter = itertools.count()
    return lambda size: hashlib.shake_256(f"{label}/{next(counter)}".encode()).digest(size)


def identities(label: str = "pair") -> tuple[Identity, Identity]:
    rng = rng_for(f"{label}/ids")
    return Identity.generate(rng), Identity.generate(rng)


def master_secret(label: str, seat: int) -> bytes:
    return hashlib.sha256(f"{label}/master/{seat}".encode()).digest()


def rules_for(mode: DealMode, order: ActionOrder = ActionOrder.ORDERED, **extra: object
              ) -> MatchRules:
    return MatchRules(Ruleset(action_order=order), mode, **extra)  # type: ignore[arg-type]


@dataclass
class Pair:
    rules: MatchRules
    label: str = "pair"
    decks: tuple[object, object] = (None, None)
    catalogue: Catalogue = field(default_factory=default_catalogue)
    tamper: Tamper | None = None
    seed: int = 0

    def __post_init__(self) -> None:
        self.ids = identities(self.label)
        self.peers = tuple(
            MatchPeer(seat, self.ids[seat], self.rules, self.catalogue,
                      deck=self.decks[seat],  # type: ignore[arg-type]
                      master_secret=master_secret(self.label, seat), software="test")
            for seat in (0, 1)
        )
        self.chooser = random.Random(self.seed)
        self.wire: deque[tuple[int, bytes]] = deque()
        self.events: tuple[list[Event], list[Event]] = ([], [])
        self.sent: list[tuple[int, bytes]] = []
        self.errors: list[tuple[int, Exception]] = []

    def start(self) -> None:
        for seat, peer in enumerate(self.peers):
            for raw in peer.start():
                self._put(seat, raw)

    def _put(self, seat: int, raw: bytes) -> None:
        out: bytes | list[bytes] | None = raw
        if self.tamper is not None:
            out = self.tamper(seat, raw)
        for item in [] if out is None else [out] if isinstance(out, bytes) else out:
            self.sent.append((seat, item))
            self.wire.append((seat, item))

    def flush(self, seat: int) -> None:
        for raw in self.peers[seat].outgoing():
            self._put(seat, raw)

    def deliver(self, max_steps: int = 100_000, now_ms: int | None = None,
                choose: bool = True) -> None:
        """Move envelopes and make random choices until nothing moves (or an error)."""
        for _ in range(max_steps):
            for seat in (0, 1):
                self.flush(seat)
            if self.wire:
                sender, raw = self.wire.popleft()
                receiver = 1 - sender
                try:
                    self.events[receiver].extend(self.peers[receiver].receive(raw, now_ms))
                except Exception as error:  # recorded: the test asserts on it
                    self.errors.append((receiver, error))
                    self.flush(receiver)
                    return
                continue
            mover = next((p for p in self.peers if p.my_turn), None)
            if mover is None or not choose:
                return
            legal = mover.legal_actions()
            self.events[mover.seat].extend(
                mover.submit(legal[self.chooser.randrange(len(legal))], now_ms))

    def run(self) -> Pair:
        self.start()
        self.deliver()
        return self

    def transcript(self, seat: int = 0) -> Transcript:
        return self.peers[seat].transcript()

    def forge(self, seat: int, raw: bytes, **changes: object) -> bytes:
        """Re-sign `raw` (an envelope of `seat`) with some fields changed: a cheater's edit."""
        env: Envelope = parse_envelope(raw)
        fields = {"match_id": env.match_id, "seq": env.seq, "prev_hash": env.prev_hash,
                  "sender": env.sender, "kind": env.kind, "body": list(env.body)}
        fields.update(changes)
        return seal(self.ids[seat], **fields).raw  # type: ignore[arg-type]


def seat_zero_to_move(rules: MatchRules, label_prefix: str) -> Pair:
    """A started pair, set up until the first decision, where seat 0 moves first (the first of
    labels `label_prefix/0`, `/1`, ... whose deal gives that): the late side of a timeout race
    in the tests that stage one. Its label is `pair.label`."""
    for attempt in range(20):
        pair = Pair(rules, label=f"{label_prefix}/{attempt}")
        pair.start()
        pair.deliver(now_ms=0, choose=False)
        if pair.peers[0].my_turn:
            return pair
    raise AssertionError(f"no deal among {label_prefix}/0..19 lets seat 0 move first")


def play(mode: DealMode, order: ActionOrder = ActionOrder.ORDERED, label: str = "pair",
         seed: int = 0, **kwargs: object) -> Pair:
    return Pair(rules_for(mode, order), label=label, seed=seed, **kwargs).run()  # type: ignore[arg-type]


def on_nth(seat: int, kind: object, n: int,
           change: Callable[[Envelope], bytes | list[bytes] | None]) -> Tamper:
    """A Tamper that rewrites the n-th (0-based) envelope of `kind` that `seat` sends."""
    seen = itertools.count()

    def tamper(sender: int, raw: bytes) -> bytes | list[bytes] | None:
        if sender != seat:
            return raw
        try:
            env = parse_envelope(raw)
        except Exception:
            return raw
        if env.kind != kind or next(seen) != n:
            return raw
        return change(env)

    return tamper


def reseal(identity: Identity, env: Envelope, **changes: object) -> bytes:
    """`env` re-signed by `identity` with some fields changed."""
    fields = {"match_id": env.match_id, "seq": env.seq, "prev_hash": env.prev_hash,
              "sender": env.sender, "kind": env.kind, "body": list(env.body)}
    fields.update(changes)
    return seal(identity, **fields).raw  # type: ignore[arg-type]
