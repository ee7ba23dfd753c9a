# Match rules: everything two peers must agree on before a match, as one canonical value.
#
# The game (a registry id) and its rules fix what is played; a match also needs the deal mode
# (decklist commitments or the shared-pool mental-poker deal), the pool of the shared-pool deal, the
# clock and, for tournaments, registered decklist hashes. MatchRules carries all of it; its
# canonical msgpack encoding travels in the HELLO's `ruleset` field, so the match id commits to it
# and both HELLOs must carry identical bytes (SPEC §4.5, §4.11).
#
# `master_rng` turns a per-match master secret into the deterministic byte stream a MatchPeer draws
# every secret from; a peer rebuilt with the same secret and fed its transcript reproduces itself
# exactly (how the session resumes after a restart).
from __future__ import annotations

import contextlib
import enum
import functools
import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from versus.engine.api import Game, HiddenDeck, Setup, check_decks
from versus.engine.errors import EngineError, RulesetError, UnknownGameError
from versus.engine.registry import DEFAULT_GAME, get_game
from versus.protocol.errors import LocalProtocolError, MalformedMessage
from versus.protocol.wire.canonical import HASH_SIZE, TAG_PEER_RNG, decode, encode

RULES_FORMAT = "versus-match-rules/2"
#: the format before the game id: read as a versus42 match, so old transcripts verify
RULES_FORMAT_V1 = "versus-match-rules/1"
def unplayable_reason(game: Game) -> str | None:
    """Why this protocol cannot run a peer-to-peer match of `game`, or None: a match has two
    seats (a solo game is verified another way)."""
    if game.players != 2:
        return f"game {game.id!r} is for {game.players} player(s); a match has two seats"
    return None


MAX_CLOCK_MS = 24 * 3600 * 1000
MAX_POOL_CARDS = 255



class DealMode(enum.Enum):
    DECKLIST = "decklist"  # each player brings a deck; commit-reveal hashing (SPEC §4.7-4.8)
    SHARED_POOL = "shared-pool"  # mental poker over one shuffled pool (SPEC Part 5)


@dataclass(frozen=True)
class MatchRules:
    """The agreed rules of one match. Defaults: the casual match of the default game (standard
    ruleset, shared pool of the whole catalogue, no clock). `ruleset` holds the game's own rules
    value (a Versus `Ruleset` for versus42): the protocol handles it only through the game."""

    ruleset: Any = None  # None: the game's default rules
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
        if self.ruleset is None and type(self.game) is str:
            with contextlib.suppress(UnknownGameError):
                object.__setattr__(self, "ruleset", get_game(self.game).default_rules())
        problem = self._problem()
        if problem is not None:
            raise LocalProtocolError(f"invalid match rules: {problem}")

    def _problem(self) -> str | None:
        if type(self.game) is not str:
            return f"game must be a registry id, got {self.game!r:.40}"
        try:
            game = get_game(self.game)
        except UnknownGameError as error:
            return str(error)
        unplayable = unplayable_reason(game)
        if unplayable is not None:
            return unplayable
        try:
            game.encode_rules(self.ruleset)
        except (RulesetError, TypeError, ValueError, AttributeError) as error:
            return f"ruleset is not {self.game!r} rules: {error}"
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
        try:
            decks = check_decks(game.decks(self.ruleset), 2)
        except (ValueError, TypeError) as error:
            return f"game {self.game!r} declares bad hidden decks: {error}"
        if self.deal_mode is DealMode.DECKLIST and [d.owner for d in decks] != [0, 1]:
            return (f"decklist mode needs one deck per seat, seat 0's first (each player "
                    f"brings its own, of the size the game gives that seat); game "
                    f"{self.game!r} declares {_decks_text(decks)}: deal it from a shared pool")
        return None

    @property
    def game_impl(self) -> Game:
        """The game object (engine/api.py) this match plays."""
        return get_game(self.game)

    @functools.cached_property
    def decks(self) -> tuple[HiddenDeck, ...]:
        """The game's hidden decks under these rules (checked on construction)."""
        return tuple(self.game_impl.decks(self.ruleset))

    @property
    def deck_sizes(self) -> tuple[int, int]:
        """Decklist mode: the cards each seat brings, by seat (seats may differ: a match that
        starts from a position, SPEC §4.7). LocalProtocolError in shared-pool mode."""
        if self.deal_mode is not DealMode.DECKLIST:
            raise LocalProtocolError("deck sizes by seat exist in decklist mode only")
        return self.decks[0].size, self.decks[1].size

    def card_ids(self, catalogue: Any) -> tuple[str, ...]:
        """The ids a deck may hold under this catalogue."""
        return tuple(self.game_impl.card_ids(catalogue))

    def catalogue_digest(self, catalogue: Any) -> bytes:
        return self.game_impl.catalogue_digest(catalogue)

    def start_problem(self, catalogue: Any) -> str | None:
        """Why these rules cannot start a game with this card data, or None: the game's
        `new_game` tried once with a dummy seed (a start position made with other card data,
        SPEC §3.3, fails here rather than at the first state of a match). Whatever the game
        raises is such a reason (rules from a HELLO are untrusted: an engine error on them is no
        traceback, SPEC §4.9)."""
        try:
            game = self.game_impl
            game.decision(game.new_game(Setup(self.ruleset, catalogue, b"\x00" * 32)))
        except EngineError as error:
            return " ".join(str(error).split())
        except Exception as error:
            return " ".join(f"{type(error).__name__}: {error}".split())[:300]
        return None

    @property
    def has_clock(self) -> bool:
        return self.clock_initial_ms > 0

    def pool_ids(self, catalogue: Any) -> tuple[str, ...]:
        """The shared pool for this catalogue; LocalProtocolError when it cannot deal."""
        known = self.card_ids(catalogue)
        ids = self.pool or known
        known_set = frozenset(known)
        missing = [c for c in ids if c not in known_set]
        if missing:
            raise LocalProtocolError(f"pool cards {missing[:5]} are not in the catalogue")
        needed = max(d.first + d.size for d in self.decks)
        if len(ids) < needed:
            raise LocalProtocolError(
                f"a pool of {len(ids)} cards cannot deal {_decks_text(self.decks)}")
        return ids

    def encode(self) -> bytes:
        return encode(
            [
                RULES_FORMAT,
                self.game,
                self.game_impl.encode_rules(self.ruleset),
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
                get_game(game).decode_rules(ruleset), DealMode(mode), tuple(pool), initial,
                increment, tuple(regs), game,  # type: ignore[arg-type]
            )  # fmt: skip
        except (ValueError, RulesetError, LocalProtocolError, TypeError, UnknownGameError,
                RecursionError, KeyError, IndexError, AttributeError) as error:
            # the game's decode_rules reads peer bytes: a game that lets another error escape
            # (deeply nested JSON: RecursionError) must not crash the verifier or an offer
            raise MalformedMessage(f"malformed match rules: {type(error).__name__}: "
                                   f"{str(error)[:200]}", [bytes(data)]) from None
        if legacy:
            if rules.encode_v1() != data:
                raise MalformedMessage("match rules are not canonical", [bytes(data)])
        elif rules.encode() != data:
            raise MalformedMessage("match rules are not canonical", [bytes(data)])
        return rules

    def encode_v1(self) -> bytes:
        """The format before the game id (versus42 only): how old transcripts wrote it."""
        return encode([RULES_FORMAT_V1, self.game_impl.encode_rules(self.ruleset),
                       self.deal_mode.value, list(self.pool), self.clock_initial_ms,
                       self.clock_increment_ms, list(self.registered_decklists)])

    def describe(self) -> str:
        """The rules in one human line: game, deal mode, the game's own rules, the clock."""
        initial, increment = self.clock_initial_ms / 1000, self.clock_increment_ms / 1000
        clock = f"clock {initial:g} s + {increment:g} s" if initial else "no clock"
        return (f"{self.game}, {self.deal_mode.value}, "
                f"{self.game_impl.describe_rules(self.ruleset)}, {clock}")

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "ruleset": self.game_impl.rules_to_options(self.ruleset),
            "deal_mode": self.deal_mode.value,
            "pool": list(self.pool) or "catalogue",
            "clock_initial_ms": self.clock_initial_ms,
            "clock_increment_ms": self.clock_increment_ms,
            "registered_decklists": [
                None if r is None else r.hex() for r in self.registered_decklists
            ],
        }


def _decks_text(decks: tuple[HiddenDeck, ...]) -> str:
    return ", ".join(f"{d.size} cards of " + ("both seats" if d.owner is None else
                                               f"seat {d.owner}") for d in decks)


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
