# Match rules: everything two peers must agree on before a match, as one canonical value.
#
# The engine's Ruleset fixes the game; a match also needs the deal mode (decklist commitments or
# the shared-pool mental-poker deal), the pool of the shared-pool deal, the clock and, for
# tournaments, registered decklist hashes. MatchRules carries all of it; its canonical msgpack
# encoding travels in the HELLO's `ruleset` field, so the match id commits to it and both HELLOs
# must carry identical bytes (SPEC §4.5, §4.11).
#
# `master_rng` turns a per-match master secret into the deterministic byte stream a MatchPeer
# draws every secret from; a peer rebuilt with the same secret and fed its transcript reproduces
# itself exactly (how the session resumes after a restart).
from __future__ import annotations

import enum
import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from versus.engine import Catalogue, Ruleset, RulesetError
from versus.engine.errors import UnknownGameError
from versus.protocol.errors import LocalProtocolError, MalformedMessage
from versus.protocol.wire.canonical import HASH_SIZE, TAG_PEER_RNG, decode, encode

RULES_FORMAT = "versus-match-rules/2"
#: the format before the game id (issue 16): read as a versus42 match, so old transcripts verify
RULES_FORMAT_V1 = "versus-match-rules/1"
DEFAULT_GAME = "versus42"  # engine/registry.py's default game
#: the games this protocol can run a match of (the registry knows more: a game needs the
#: protocol's generic zones and CHANCE before it plays peer to peer, SPEC §4.11)
PLAYABLE_GAMES = (DEFAULT_GAME,)


def _game(game_id: str) -> Any:
    """The registry's game (imported on first use: the Versus engine alone serves versus42's
    rules, so verifying a Versus transcript does not load the registry)."""
    from versus.engine.registry import get_game

    return get_game(game_id)


def _encode_game_rules(game_id: str, rules: Any) -> bytes:
    return rules.encode() if game_id == DEFAULT_GAME else _game(game_id).encode_rules(rules)


def _decode_game_rules(game_id: str, data: bytes) -> Any:
    return Ruleset.decode(data) if game_id == DEFAULT_GAME else _game(game_id).decode_rules(data)
MAX_CLOCK_MS = 24 * 3600 * 1000
MAX_POOL_CARDS = 255


_STANDARD = Ruleset()


class DealMode(enum.Enum):
    DECKLIST = "decklist"  # each player brings a deck; commit-reveal hashing (SPEC §4.7-4.8)
    SHARED_POOL = "shared-pool"  # mental poker over one shuffled pool (SPEC Part 5)


@dataclass(frozen=True)
class MatchRules:
    """The agreed rules of one match. Defaults: the casual match (standard ruleset, shared
    pool of the whole catalogue, no clock)."""

    ruleset: Ruleset = _STANDARD
    deal_mode: DealMode = DealMode.SHARED_POOL
    #: shared-pool card ids; empty = every card of the catalogue, in catalogue order
    pool: tuple[str, ...] = ()
    clock_initial_ms: int = 0  # 0 = no clock
    clock_increment_ms: int = 0
    #: decklist mode: per seat, the registered decklist hash (SPEC §4.7) or None
    registered_decklists: tuple[bytes | None, bytes | None] = (None, None)
    #: the registry id of the game (HELLO carries it, so the match id binds it)
    game: str = DEFAULT_GAME

    def __post_init__(self) -> None:
        problem = self._problem()
        if problem is not None:
            raise LocalProtocolError(f"invalid match rules: {problem}")

    def _problem(self) -> str | None:
        if type(self.game) is not str:
            return f"game must be a registry id, got {self.game!r:.40}"
        if self.game != DEFAULT_GAME:
            try:
                _game(self.game)
            except UnknownGameError as error:
                return str(error)
        if self.game not in PLAYABLE_GAMES:
            return (f"game {self.game!r} cannot be played peer to peer yet (playable: "
                    f"{', '.join(PLAYABLE_GAMES)})")
        if not isinstance(self.ruleset, Ruleset):
            return "ruleset must be an engine Ruleset"
        if not isinstance(self.deal_mode, DealMode):
            return f"deal_mode must be a DealMode, got {self.deal_mode!r:.40}"
        if not isinstance(self.pool, tuple) or len(self.pool) > MAX_POOL_CARDS:
            return f"pool must be a tuple of at most {MAX_POOL_CARDS} card ids"
        if any(type(c) is not str or not c for c in self.pool) or len(set(self.pool)) != len(
            self.pool
        ):
            return "pool card ids must be distinct non-empty strings"
        for name in ("clock_initial_ms", "clock_increment_ms"):
            value = getattr(self, name)
            if type(value) is not int or not 0 <= value <= MAX_CLOCK_MS:
                return f"{name} must be an int in 0..{MAX_CLOCK_MS}"
        regs = self.registered_decklists
        if not isinstance(regs, tuple) or len(regs) != 2 or any(
            r is not None and (type(r) is not bytes or len(r) != HASH_SIZE) for r in regs
        ):
            return "registered_decklists is a pair of 32-byte hashes or None"
        if self.deal_mode is DealMode.SHARED_POOL and any(r is not None for r in regs):
            return "registered decklists apply to decklist mode only"
        return None

    @property
    def has_clock(self) -> bool:
        return self.clock_initial_ms > 0

    def pool_ids(self, catalogue: Catalogue) -> tuple[str, ...]:
        """The shared pool for this catalogue; LocalProtocolError when it cannot deal."""
        ids = self.pool or tuple(card.id for card in catalogue.cards)
        missing = [c for c in ids if c not in catalogue]
        if missing:
            raise LocalProtocolError(f"pool cards {missing[:5]} are not in the catalogue")
        if len(ids) < 2 * self.ruleset.deck_size:
            raise LocalProtocolError(
                f"a pool of {len(ids)} cards cannot deal two decks of {self.ruleset.deck_size}"
            )
        return ids

    def encode(self) -> bytes:
        return encode(
            [
                RULES_FORMAT,
                self.game,
                _encode_game_rules(self.game, self.ruleset),
                self.deal_mode.value,
                list(self.pool),
                self.clock_initial_ms,
                self.clock_increment_ms,
                list(self.registered_decklists),
            ]
        )

    @classmethod
    def decode(cls, data: bytes) -> MatchRules:
        """Parse canonical bytes; MalformedMessage naming the problem otherwise."""
        fields = decode(data, max_size=64 * 1024)
        try:
            if type(fields) is list and len(fields) == 7 and fields[0] == RULES_FORMAT_V1:
                fields = [RULES_FORMAT, DEFAULT_GAME, *fields[1:]]  # before the game id
                legacy = True
            else:
                legacy = False
            if type(fields) is not list or len(fields) != 8 or fields[0] != RULES_FORMAT:
                raise ValueError(f"expected [{RULES_FORMAT!r}, game, ...] of 8 fields")
            _, game, ruleset, mode, pool, initial, increment, regs = fields
            if (type(game) is not str or type(ruleset) is not bytes or type(pool) is not list
                    or type(regs) is not list):
                raise ValueError("game is str, ruleset bin, pool and registered decklists "
                                 "arrays")
            rules = cls(
                _decode_game_rules(game, ruleset), DealMode(mode), tuple(pool), initial,
                increment, tuple(regs), game,  # type: ignore[arg-type]
            )  # fmt: skip
        except (ValueError, RulesetError, LocalProtocolError, TypeError,
                UnknownGameError) as error:
            raise MalformedMessage(f"malformed match rules: {error}", [bytes(data)]) from None
        if legacy:
            if rules.encode_v1() != data:
                raise MalformedMessage("match rules are not canonical", [bytes(data)])
        elif rules.encode() != data:
            raise MalformedMessage("match rules are not canonical", [bytes(data)])
        return rules

    def encode_v1(self) -> bytes:
        """The format before the game id (versus42 only): how old transcripts wrote it."""
        return encode([RULES_FORMAT_V1, self.ruleset.encode(), self.deal_mode.value,
                       list(self.pool), self.clock_initial_ms, self.clock_increment_ms,
                       list(self.registered_decklists)])

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "ruleset": self.ruleset.to_options(),
            "deal_mode": self.deal_mode.value,
            "pool": list(self.pool) or "catalogue",
            "clock_initial_ms": self.clock_initial_ms,
            "clock_increment_ms": self.clock_increment_ms,
            "registered_decklists": [
                None if r is None else r.hex() for r in self.registered_decklists
            ],
        }


def master_rng(master_secret: bytes) -> Callable[[int], bytes]:
    """A deterministic rng: SHA-256(TAG_PEER_RNG || secret || counter) blocks, consumed in
    order. Feed a MatchPeer this (the session keeps the secret beside the transcript) and a
    rebuilt peer draws exactly the same nonces, seeds, salts and scalars."""
    if type(master_secret) is not bytes or len(master_secret) < 32:
        raise LocalProtocolError("a master secret is at least 32 bytes")
    state = {"counter": 0, "buffer": b""}

    def rng(size: int) -> bytes:
        buffer = state["buffer"]
        while len(buffer) < size:
            counter = state["counter"]
            buffer += hashlib.sha256(
                TAG_PEER_RNG + master_secret + counter.to_bytes(8, "big")  # type: ignore[attr-defined]
            ).digest()
            state["counter"] = counter + 1  # type: ignore[operator]
        state["buffer"] = buffer[size:]
        return buffer[:size]  # type: ignore[index,return-value]

    return rng
