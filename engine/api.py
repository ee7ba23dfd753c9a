# The one interface every game implements (SPEC Part 3, "Game interface"). The protocol, the
# network, the auditor, the tournament runner and the generic bots know a game only through
# it and through the registry (engine/registry.py), which maps a stable game id to the one
# object implementing it. Each game lives in its own sub-package (engine/versus42/ ...).
#
# How it works. A game object is stateless: its methods are pure functions of their arguments,
# and game states, inputs, rules and card data are values the game makes and takes back; the
# caller never looks inside them except through the game's own helpers. What the caller must
# understand is generic and defined here: the next decision (`Pending`, one of five
# `DecisionKind`s, or `Finished`), the rules options a game accepts (`RulesOption`), and the
# setup a match starts from (`Setup`).
#
# Why a Protocol rather than a base class: a game is checked by shape (`isinstance(g, Game)`
# in the registry), so a test can register a tiny game in a few dozen lines with no import of
# any other game. Model: OpenSpiel's `pyspiel.register_game` and its Game/State split, with
# chance as a decision like the others (kuhn_poker.py).
from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any, Protocol, TypeVar, runtime_checkable

from .options import RulesOption

#: a game's state, input, rules, card data, private knowledge and view: values of the game's
#: own types, opaque to the caller (Any, since each game has its own)
GameState = Any
GameInput = Any
GameRules = Any
GameCatalogue = Any
GameKnowledge = Any

MAX_PLAYERS = 8
#: most cards one hidden deck holds
MAX_DECK_CARDS = 1024
#: largest outcome space of one CHANCE decision (the protocol draws it in one tagged hash)
MAX_CHANCE_OUTCOMES = 1 << 16
GAME_ID_RE = re.compile(r"[a-z][a-z0-9-]{0,31}")
_LABEL_RE = re.compile(r"[a-z0-9-]{0,40}")


class DecisionKind(Enum):
    """Who answers the next decision, and how (ARCHITECTURE "Hidden information")."""

    TURN = "turn"  # `player` picks one of legal_actions: a person or a bot
    CHOICE = "choice"  # a rule names `player`, who picks one of legal_actions (`options`)
    DEAL = "deal"  # the protocol says which hidden card of `player`'s deck comes next
    REVEAL = "reveal"  # `player`, the owner of `handle`, proves the card's identity
    CHANCE = "chance"  # public randomness: nobody answers; the protocol derives the outcome


def _is_int(x: object) -> bool:
    return type(x) is int


_Rules = TypeVar("_Rules")


@functools.cache
def _label_ok(label: str) -> bool:
    """Whether `label` is a decision label (a game has a handful: the answer is kept)."""
    return bool(_LABEL_RE.fullmatch(label))


def _handles_ok(options: tuple[Any, ...]) -> bool:
    return (all(type(h) is int and h >= 0 for h in options)
            and len(set(options)) == len(options))

@dataclass(frozen=True, slots=True)
class Pending:
    """The decision a game waits for. `player`: who answers (TURN, CHOICE) or whose card or
    deck it is (DEAL, REVEAL); None for CHANCE. `label`: the game's own sub-kind (Versus: the
    choice kind `discard-from-hand`, the deal purpose `hand`/`discard`; a die game: `d6`).
    `options`: the handles a CHOICE among cards offers (empty for another choice: its answers
    are legal_actions either way). `handle`: the card a REVEAL is about. `outcomes`: a
    CHANCE decision's number of equally likely outcomes (see `Game`). `deck`: the index, in
    `Game.decks(rules)`, of the hidden deck a DEAL draws from (which card of it comes next is
    the protocol's business: the next undealt one in the deck's secret order)."""

    kind: DecisionKind
    player: int | None
    label: str = ""
    options: tuple[int, ...] = ()
    handle: int = -1
    outcomes: int = 0
    deck: int = -1

    def __post_init__(self) -> None:
        # The common decisions in one test (a game builds one per step): a TURN or a CHOICE
        # of a player, with a plain label and distinct handles; anything else takes the
        # field-by-field check below, which names what is wrong.
        kind, player, options = self.kind, self.player, self.options
        if ((kind is DecisionKind.TURN or kind is DecisionKind.CHOICE)
                and type(player) is int and 0 <= player < MAX_PLAYERS
                and self.outcomes == 0 and self.handle == -1 and self.deck == -1
                and type(self.label) is str and (not self.label or _label_ok(self.label))
                and type(options) is tuple
                and (not options or (kind is DecisionKind.CHOICE and _handles_ok(options)))):
            return
        self._check()

    def _check(self) -> None:
        def need(ok: bool, what: str) -> None:
            if not ok:
                raise ValueError(f"{self.kind} decision: {what} (got {self!r})")

        if not isinstance(self.kind, DecisionKind):
            raise ValueError(f"decision kind must be a DecisionKind, got {self.kind!r}")
        chance = self.kind is DecisionKind.CHANCE
        if chance:
            need(self.player is None, "a chance decision has no player")
            need(_is_int(self.outcomes) and 2 <= self.outcomes <= MAX_CHANCE_OUTCOMES,
                 f"outcomes must be 2..{MAX_CHANCE_OUTCOMES}")
        else:
            need(_is_int(self.player) and 0 <= self.player < MAX_PLAYERS,  # type: ignore[operator]
                 f"player must be 0..{MAX_PLAYERS - 1}")
            need(self.outcomes == 0, "only a chance decision has outcomes")
        need(isinstance(self.label, str) and bool(_LABEL_RE.fullmatch(self.label)),
             "label must be 0-40 chars of a-z, 0-9, '-'")
        need(isinstance(self.options, tuple) and all(_is_int(h) and h >= 0 for h in self.options),
             "options must be a tuple of handles")
        need(len(set(self.options)) == len(self.options), "options must be distinct")
        need(self.kind is DecisionKind.CHOICE or self.options == (), "only a choice has options")
        need(_is_int(self.handle), "handle must be an int")
        if self.kind is DecisionKind.REVEAL:
            need(self.handle >= 0, "a reveal names a handle")
        else:
            need(self.handle == -1, "only a reveal has a handle")
        need(_is_int(self.deck), "deck must be an int")
        if self.kind is DecisionKind.DEAL:
            need(self.deck >= 0, "a deal names the deck it draws from")
        else:
            need(self.deck == -1, "only a deal names a deck")


@dataclass(frozen=True, slots=True)
class Finished:
    """The game is over: the game's outcome label and the winner (None: a draw)."""

    outcome: str
    winner: int | None

    def __post_init__(self) -> None:
        if not isinstance(self.outcome, str) or not _LABEL_RE.fullmatch(self.outcome) or \
                not self.outcome:
            raise ValueError(f"outcome must be 1-40 chars of a-z, 0-9, '-', got {self.outcome!r}")
        if self.winner is not None and not (_is_int(self.winner)
                                            and 0 <= self.winner < MAX_PLAYERS):
            raise ValueError(f"winner must be None or a player 0..{MAX_PLAYERS - 1}, "
                             f"got {self.winner!r}")


@dataclass(frozen=True, slots=True)
class HiddenDeck:
    """A zone of face-down cards the protocol deals from (SPEC Part 3, "Hidden decks"): the
    cards with handles `first` .. `first + size - 1`, in a secret order fixed at setup.
    `owner`: the player the deck belongs to (in decklist mode that player brings its cards;
    only that player is dealt from it), or None for one shared deck both players draw from
    (shared-pool mode only). A game's decks never overlap; dealt cards leave their deck for
    the game's own zones (hand, board, a shared graveyard), which the protocol never sees."""

    owner: int | None
    size: int
    first: int = 0

    def __post_init__(self) -> None:
        if self.owner is not None and not (_is_int(self.owner)
                                           and 0 <= self.owner < MAX_PLAYERS):
            raise ValueError(f"deck owner must be None or a player, got {self.owner!r}")
        if not (_is_int(self.size) and 1 <= self.size <= MAX_DECK_CARDS):
            raise ValueError(f"deck size must be 1..{MAX_DECK_CARDS}, got {self.size!r}")
        if not (_is_int(self.first) and self.first >= 0):
            raise ValueError(f"deck first handle must be >= 0, got {self.first!r}")

    @property
    def handles(self) -> range:
        return range(self.first, self.first + self.size)


def check_decks(decks: Sequence[HiddenDeck], players: int) -> tuple[HiddenDeck, ...]:
    """A game's declared decks, checked: at least one, owners below `players`, handle ranges
    disjoint. ValueError names the problem (a game's bug, found when a match is set up)."""
    decks = tuple(decks)
    if not decks or not all(isinstance(d, HiddenDeck) for d in decks):
        raise ValueError(f"a game declares one or more HiddenDeck values, got {decks!r:.80}")
    taken: set[int] = set()
    for deck in decks:
        if deck.owner is not None and deck.owner >= players:
            raise ValueError(f"deck {deck} names a player beyond the game's {players}")
        if taken.intersection(deck.handles):
            raise ValueError(f"deck {deck} overlaps another deck's handles")
        taken.update(deck.handles)
    return decks


@dataclass(frozen=True, slots=True)
class Setup:
    """What a match starts from: the rules and card data both peers agreed (HELLO) and the
    setup seed they derived jointly (§4.6; Versus lays out its tiles with it)."""

    rules: GameRules
    catalogue: GameCatalogue
    seed: bytes

    def __post_init__(self) -> None:
        if not isinstance(self.seed, bytes) or not 1 <= len(self.seed) <= 64:
            raise ValueError(f"setup seed must be 1..64 bytes, got {self.seed!r:.80}")


@runtime_checkable
class Game(Protocol):
    """A game the platform can host. Every method is pure: it never mutates its arguments.

    Decisions. `decision(state)` is a `Pending` (what the game waits for) or `Finished`.
    TURN and CHOICE are answered by `player` with one of `legal_actions(state)`; DEAL and
    REVEAL by the protocol (a dealt card's handle; a card's identity, with proof), their
    inputs written in the game's notation; CHANCE by nobody:

    CHANCE (a die roll, a coin). The decision states its outcome space as `outcomes = n`:
    n equally likely outcomes numbered 0..n-1 (a coin: 2, a die: 6), and
    `legal_actions(state)` lists exactly n inputs in outcome order, so outcome k is answered
    by `legal_actions(state)[k]`. The protocol derives k from joint randomness (both peers'
    committed seeds, bound to the match id and the input's position) as an unbiased integer
    below n, and the verifier re-derives it; a peer never chooses it. Non-uniform chance is
    the game's business: two dice are two CHANCE decisions, or one of 36 outcomes it maps.

    Hashing. `encode_state(state)` is the canonical public encoding (no hidden identity ever
    enters a state), and `state_hash(state)` binds it to the rules and the card data; both
    peers compare it after every input. The game's SPEC Part defines both completely.
    """

    #: the stable id HELLO carries and the registry keys (lowercase, e.g. "versus42")
    id: str
    #: a one-line human name
    title: str
    #: how many seats the game has
    players: int
    #: every rules option, in the order a listing shows them
    rules_options: tuple[RulesOption, ...]
    #: whether a CHANCE decision can occur (the protocol then fixes each seat's chance chain
    #: at setup: SPEC §4.11 "Chance")
    chance: bool

    # --- rules ---------------------------------------------------------------------------
    def default_rules(self) -> GameRules:
        """The rules with every option at its default."""
        ...

    def rules_from_options(self, options: Mapping[str, Any]) -> GameRules:
        """Validated rules from plain option values; an unknown or bad option raises
        RulesetError naming it."""
        ...

    def rules_to_options(self, rules: GameRules) -> dict[str, Any]:
        """The plain option values (round-trips through rules_from_options)."""
        ...

    def encode_rules(self, rules: GameRules) -> bytes:
        """The canonical encoding peers exchange and sign."""
        ...

    def decode_rules(self, data: bytes) -> GameRules:
        """The inverse of encode_rules; non-canonical or invalid bytes raise RulesetError."""
        ...

    def rules_digest(self, rules: GameRules) -> bytes:
        """The tagged hash of encode_rules (bound into the match id and every state hash)."""
        ...

    def describe_rules(self, rules: GameRules) -> str:
        """The rules in one short human line (a join offer, `versus verify`)."""
        ...

    # --- card data -------------------------------------------------------------------------
    def default_catalogue(self) -> GameCatalogue:
        """The card data shipped with the game."""
        ...

    def load_catalogue(self, data: str | bytes) -> GameCatalogue:
        """Validated card data from a file's text; bad data raises CatalogueError."""
        ...

    def catalogue_digest(self, catalogue: GameCatalogue) -> bytes:
        """The tagged hash of the card data's canonical encoding."""
        ...

    def catalogue_for_digest(self, digest: bytes) -> GameCatalogue | None:
        """The shipped card data whose digest is `digest` (any version the game ever shipped),
        None when none is: how a match made with an older card pool is verified, replayed
        and resumed (HELLO binds the digest). A game with one version: `only_version`."""
        ...

    def card_ids(self, catalogue: GameCatalogue) -> tuple[str, ...]:
        """The id of every card a deck may hold, in catalogue order (the default pool of a
        shared-pool deal; what a decklist may name)."""
        ...

    # --- hidden decks (SPEC Part 3, "Hidden decks") ------------------------------------------
    def decks(self, rules: GameRules) -> tuple[HiddenDeck, ...]:
        """The hidden decks a match under `rules` deals from, in a fixed order (a DEAL names
        one by its index)."""
        ...

    def deal_input(self, handle: int) -> GameInput:
        """The input answering a DEAL with the card `handle` (its identity stays hidden)."""
        ...

    def reveal_input(self, handle: int, card_id: str) -> GameInput:
        """The input answering a REVEAL of `handle`: its card is `card_id`."""
        ...

    # --- play ------------------------------------------------------------------------------
    def new_game(self, setup: Setup) -> GameState:
        """The state at the start: its decision is the first thing to answer."""
        ...

    def decision(self, state: GameState) -> Pending | Finished:
        """What the game waits for next, or how it ended."""
        ...

    def legal_actions(self, state: GameState) -> Sequence[GameInput]:
        """Every legal answer to a TURN or CHOICE (deterministic order), the n outcomes of a
        CHANCE in outcome order, [] for DEAL, REVEAL and a finished game."""
        ...

    def step(self, state: GameState, inp: GameInput) -> GameState:
        """The state after `inp` (resolved up to the next decision); a bad input raises
        MalformedActionError, IllegalActionError or GameOverError, naming it."""
        ...

    def new_knowledge(self, player: int) -> GameKnowledge:
        """An empty private knowledge for `player`; the protocol calls its
        `learn(handle, card_id)` for each card dealt to that player."""
        ...

    def view(self, state: GameState, player: int, knowledge: GameKnowledge) -> Any:
        """Everything `player` may see (the public state and its own knowledge), nothing more;
        its `legal_actions` are non-empty only when `player` decides."""
        ...

    def encode_state(self, state: GameState) -> bytes:
        """The canonical public encoding of `state`."""
        ...

    def state_hash(self, state: GameState) -> bytes:
        """The 32-byte hash both peers compare after every input."""
        ...

    # --- notation and narration ------------------------------------------------------------
    def parse_input(self, text: str) -> GameInput:
        """An input from its one canonical line; anything else raises MalformedActionError."""
        ...

    def format_input(self, inp: GameInput) -> str:
        """The canonical line of an input: parse_input(format_input(x)) == x."""
        ...

    def narrate(self, before: GameState, inp: GameInput, after: GameState, viewer: int,
                knowledge: GameKnowledge) -> list[str]:
        """What `viewer` may learn from the step before --inp--> after, as sentences that
        never name a card hidden from it."""
        ...

    def narrate_start(self, state: GameState, viewer: int) -> list[str]:
        """What `viewer` is told when the game begins in `state` (e.g. who plays first), as
        short clauses."""
        ...

    # --- positions (SPEC Part 3, "Positions") ----------------------------------------------
    def dump_position(self, state: GameState) -> str:
        """The canonical position text (JSON, format "versus-position/1", this game's id)."""
        ...

    def load_position(self, text: str | bytes,
                      catalogue: GameCatalogue | None = None) -> GameState:
        """The state a position text describes (card data: the default one unless given); a
        malformed or impossible position raises PositionError naming the field."""
        ...


def only_version(game: Game, digest: bytes) -> Any:
    """`Game.catalogue_for_digest` of a game that shipped one version of its card data."""
    catalogue = game.default_catalogue()
    return catalogue if game.catalogue_digest(catalogue) == digest else None


def protocol_members() -> tuple[str, ...]:
    """The names a Game must have (its attributes and methods), for precise registry errors."""
    attributes = [name for name in Game.__annotations__ if not name.startswith("_")]
    methods = [name for name, value in vars(Game).items()
               if callable(value) and not name.startswith("_")]
    return tuple(attributes + methods)


# --- what the shell asks a game ---------------------------------------------------------------
# Optional members: a game that lacks one gets the default below. The shell (cli/) asks through
# these functions and never branches on a game id.


def full_screen_ui(game: Game) -> bool:
    """Whether the full-screen terminal UI draws this game (the optional attribute
    `full_screen_ui`); without it a person plays at the line interface (cli/line_ui.py)."""
    return bool(getattr(game, "full_screen_ui", False))


def offer_notes(game: Game, rules: GameRules) -> list[str]:
    """What a joiner is told of `rules` beside `describe_rules` before it accepts them (the
    optional member `offer_notes(rules)`, e.g. a rule that differs from the standard one)."""
    member = getattr(game, "offer_notes", None)
    return [] if member is None else list(member(rules))


def tournament_deal(game: Game) -> str | None:
    """The deal a tournament uses when none is asked (the optional attribute
    `tournament_deal`, a DealMode value); None: the same default as a single match's."""
    deal = getattr(game, "tournament_deal", None)
    return None if deal is None else str(deal)


def text_board(game: Game, state: GameState) -> str:
    """A few lines that show `state` at a terminal (the optional member `text_board(state)`;
    without it, the position text, `dump_position`)."""
    member = getattr(game, "text_board", None)
    return game.dump_position(state) if member is None else str(member(state))


def scene_of(game: Game, state: GameState, seat: int | None,
             knowledge: GameKnowledge | None) -> Any:
    """What `seat` (None: the public, third person) sees of `state`, as an engine/scene.py
    `Scene` (the optional member `scene(state, seat, knowledge)`). Without it, a scene whose
    status lines are `text_board` and whose inputs are the seat's legal input lines."""
    from .scene import Scene, SceneError

    member = getattr(game, "scene", None)
    if member is not None:
        scene = member(state, seat, knowledge)
        if not isinstance(scene, Scene):
            raise SceneError(f"game {game.id!r}: scene must return a Scene, got "
                             f"{type(scene).__name__}")
        return scene
    decision = game.decision(state)
    deciding = isinstance(decision, Pending) and decision.player == seat
    inputs = tuple(game.format_input(i) for i in game.legal_actions(state)) if deciding else ()
    result = None
    if isinstance(decision, Finished):
        result = ("a draw" if decision.winner is None
                  else f"player {decision.winner + 1} wins") + f" ({decision.outcome})"
    return Scene(title=game.title, seat=seat,
                 status=tuple(text_board(game, state).splitlines()),
                 prompt="your move" if deciding else "", inputs=inputs, result=result)


def rules_text(game: Game, rules: GameRules) -> str:
    """The game's short rules and notation for a player at the table (F1, `?`): the optional
    member `rules_text(rules)`; without it, `describe_rules`."""
    member = getattr(game, "rules_text", None)
    return game.describe_rules(rules) if member is None else str(member(rules))


def rules_for_position(game: Game, text: str | bytes) -> GameRules:
    """The rules of a match of `game` that starts from the position `text` instead of the new
    game (SPEC Part 3, "Start positions"): the game's optional member `rules_for_position`,
    which folds the position into the rules, so HELLO, match id, state hash and verifier bind
    it. PositionError when the game has no start positions or this one cannot start a match."""
    member = getattr(game, "rules_for_position", None)
    if member is None:
        from .errors import PositionError

        raise PositionError(f"game {game.id!r} cannot start from a position (only its new game)")
    return position_reader(member)(text)


def position_object_of(text: str | bytes, limit: int) -> dict[str, Any]:
    """The JSON object of a position text (SPEC §3.3: untrusted input): at most `limit` bytes
    of UTF-8 JSON whose top level is an object. PositionError says why not; nothing else
    escapes (the JSON parser raises RecursionError on a deeply nested text)."""
    import json

    from .errors import PositionError

    if isinstance(text, str):
        text = text.encode("utf-8", "surrogatepass")
    if not isinstance(text, bytes | bytearray):
        raise PositionError(f"a position is text, not {type(text).__name__}")
    if len(text) > limit:
        raise PositionError(f"position is {len(text)} bytes, limit {limit}")
    try:
        obj = json.loads(text)
    except (ValueError, UnicodeDecodeError) as e:
        raise PositionError(f"position is not JSON: {e}") from None
    except RecursionError:
        raise PositionError("position is not JSON: nested too deeply") from None
    if not isinstance(obj, dict):
        raise PositionError("a position is a JSON object")
    return obj


def without_start(obj: dict[str, Any]) -> dict[str, Any]:
    """A position object with any `start` dropped from its rules: the position of a match that
    had a start, about to start another one (SPEC §3.3 "Start positions": no nesting)."""
    rules = obj.get("rules")
    if isinstance(rules, dict) and "start" in rules:
        return {**obj, "rules": {k: v for k, v in rules.items() if k != "start"}}
    return obj


_Read = TypeVar("_Read", bound=Callable[..., Any])


def position_reader(read: _Read) -> _Read:
    """For a function that reads an untrusted position (a loader, a start's canonical form):
    an error its checks missed (a list used as a key, an engine error of a resolving step,
    RecursionError of a deep value) becomes a PositionError naming it, so every caller
    catches one class and never shows a traceback (SPEC §3.3)."""
    import functools

    from .errors import PositionError

    @functools.wraps(read)
    def reading(*args: Any, **kwargs: Any) -> Any:
        try:
            return read(*args, **kwargs)
        except PositionError:
            raise
        except (TypeError, KeyError, IndexError, ValueError, ArithmeticError, AttributeError,
                RecursionError) as error:
            raise PositionError(f"position is malformed ({type(error).__name__}: "
                                f"{error})"[:300]) from None

    return reading  # type: ignore[return-value]


def start_of(game: Game, rules: GameRules) -> str:
    """The start position the rules carry (its canonical text), or "" for the new game: a game
    with start positions has the rules option `start` (SPEC §3.3 "Start positions")."""
    start = game.rules_to_options(rules).get("start", "")
    return start if isinstance(start, str) else ""


#: the format every game's position text names (SPEC §3.3); each game's reader has its own size
#: limit, at most MAX_POSITION_TEXT (what the registry's reader of any game accepts)
POSITION_FORMAT = "versus-position/1"
MAX_POSITION_TEXT = 1 << 20

#: the longest canonical start text a game's rules carry (a 21-card Versus position is ~3 KiB)
MAX_START_BYTES = 32 * 1024


def start_problem(rules: Any, planned_rules: Callable[[str], Any]) -> str | None:
    """Why `rules.start` (a game's frozen rules value with a `start` text) cannot start a match
    under `rules`, or None: too long, not a canonical start of the game (`planned_rules` reads
    it, raising PositionError or RulesetError), or made under other rules options."""
    import json
    from dataclasses import replace

    from .errors import PositionError, RulesetError

    if len(rules.start) > MAX_START_BYTES:
        return f"a start position is at most {MAX_START_BYTES} bytes"
    try:
        planned = planned_rules(rules.start)
    except (PositionError, RulesetError) as error:
        return str(error)
    if planned != replace(rules, start=""):
        return ("the start position's rules differ from the rules' other options "
                f"({json.dumps(planned.to_options(), sort_keys=True)})")
    return None


def checked_start_rules(rules: _Rules, label: str,
                        problem_of: Callable[[_Rules], str | None]) -> _Rules:
    """`rules`, once its start (if it has one) is known to be a canonical start of these very
    rules (`problem_of`: the game's `start_problem`); RulesetError "LABEL start: why" if not.
    Every way rules enter a game goes through this (its rules_from_options, decode_rules,
    rules_for_position, load_position and start state): a rules value checks its own options
    only, as reading a position needs the rules engine, which builds on the rules value."""
    if rules.start:  # type: ignore[attr-defined]
        problem = problem_of(rules)
        if problem is not None:
            from .errors import RulesetError

            raise RulesetError(f"{label} start: {problem}")
    return rules


def checked_start_text(text: str) -> str:
    """A canonical start text, refused (PositionError) over MAX_START_BYTES."""
    from .errors import PositionError

    if len(text) > MAX_START_BYTES:
        raise PositionError(f"a start position is at most {MAX_START_BYTES} bytes, this one "
                            f"is {len(text)}")
    return text


def start_object(text: str | bytes, game_id: str, limit: int,
                 find_catalogue: Callable[[bytes], Any]) -> tuple[dict[str, Any], Any]:
    """A position text about to become a start (SPEC §3.3 "Start positions"): its JSON object,
    any `start` in its rules dropped, checked to be of `game_id` and to name a shipped card
    data version (`find_catalogue(digest)`, None when not shipped); with that card data."""
    from .errors import PositionError

    obj = without_start(position_object_of(text, limit))
    if obj.get("game") != game_id:  # first: another game's fields say nothing here
        raise PositionError(f"position field 'game': must be {game_id!r} (a position of "
                            f"{obj.get('game')!r:.40} starts that game)")
    digest = obj.get("catalogue")
    if not isinstance(digest, str):
        raise PositionError("position field 'catalogue': a start position names the catalogue "
                            "it was made with (its digest in hex)")
    try:
        found = find_catalogue(bytes.fromhex(digest))
    except ValueError:
        found = None
    if found is None:
        raise PositionError(f"position field 'catalogue': {digest[:70]!r} is not a shipped "
                            "catalogue version (a start position uses one both peers have)")
    return obj, found


@dataclass(frozen=True)
class StartPlan:
    """What a game's canonical start text fixes beyond the position (SPEC §3.3 "Start
    positions"): the rules it was made under (without the start), the digest of its card data,
    the size of each hidden deck (by `decks` index) and the deals that rebuild it, as the
    game's tasks in the order they run."""

    rules: Any
    catalogue: bytes
    hidden: tuple[int, ...]
    tasks: tuple[tuple[int, ...], ...]

    def check_catalogue(self, digest: bytes) -> None:
        """RulesetError unless the match plays the card data the start was made with."""
        if digest != self.catalogue:
            from .errors import RulesetError

            raise RulesetError(f"the start position was made with catalogue "
                               f"{self.catalogue.hex()}, the match plays {digest.hex()}")


# --- what a joiner is shown of a start (SPEC §3.3 "What the joiner is shown") ------------------


@dataclass(frozen=True)
class StartView:
    """A start position as one seat sees it before it accepts to play from it: `lines`, every
    public value of the position (whose turn and step, each side's values, the board drawn as
    the game's text UI draws it, face-up cards by name, hidden cards counted), and
    `differences`, each public value that differs from the game's new game under the same
    rules at its first turn decision, as "label: value (new game: value)". No differences: the
    position is one a new game under these rules reaches before anybody has acted."""

    lines: tuple[str, ...]
    differences: tuple[str, ...]

    def __post_init__(self) -> None:
        for name in ("lines", "differences"):
            value = getattr(self, name)
            if not isinstance(value, tuple) or not all(isinstance(x, str) for x in value):
                raise ValueError(f"StartView.{name} must be a tuple of str, got {value!r:.80}")


#: a public value of a position as a seat sees it: (label, value), e.g. ("your Life", "20")
Fact = tuple[str, str]


def fact_differences(facts: Sequence[Fact], new_game: Sequence[Fact]) -> tuple[str, ...]:
    """Each fact of a start that differs from the same-labelled fact of the new game (or that
    the new game lacks, or has and the start lacks), in the start's order."""
    theirs = dict(new_game)
    ours = dict(facts)
    out = [f"{label}: {value} (new game: {theirs.get(label, 'none')})"
           for label, value in facts if theirs.get(label) != value]
    out += [f"{label}: none (new game: {value})" for label, value in new_game
            if label not in ours]
    return tuple(out)


def fact_lines(facts: Sequence[Fact], seat: int) -> list[str]:
    """The facts of a two-player position as a few long lines (a terminal wraps them): the
    general ones, then yours ("your ..." labels), then the opponent's ("opponent's ...")."""
    sides: dict[str, list[str]] = {"your ": [], "opponent's ": []}
    general: list[str] = []
    for label, value in facts:
        prefix = next((p for p in sides if label.startswith(p)), "")
        (sides[prefix] if prefix else general).append(f"{label[len(prefix):]}: {value}")
    lines = ["; ".join(general)] if general else []
    lines += [f"{who} (player {player}): {'; '.join(sides[prefix])}"
              for who, player, prefix in (("you", seat, "your "),
                                          ("opponent", 1 - seat, "opponent's "))
              if sides[prefix]]
    return lines


def first_turn(game: Game, rules: GameRules, catalogue: GameCatalogue,
               wanted: Callable[[GameState], bool], tries: int = 16) -> GameState:
    """A new game of `rules` (no start) played to its first turn decision, for what a start is
    compared with: each DEAL takes its deck's handles in order (as from a shared pool), each
    CHANCE an outcome of a fixed schedule, each CHOICE its first answer. Of the schedules tried
    in order (the setup seed and the chance outcomes vary), the first whose state is `wanted`
    (e.g. the same player plays first as in the start), else the first one."""
    import hashlib

    decks = game.decks(rules)
    found = None
    for attempt in range(tries):
        state = game.new_game(Setup(rules, catalogue, b"new-game-%d" % attempt))
        dealt, rolls = [0] * len(decks), 0
        for _ in range(10 * MAX_DECK_CARDS):
            d = game.decision(state)
            if isinstance(d, Finished) or d.kind in (DecisionKind.TURN, DecisionKind.REVEAL):
                break
            if d.kind is DecisionKind.DEAL:
                state = game.step(state, game.deal_input(decks[d.deck].first + dealt[d.deck]))
                dealt[d.deck] += 1
                continue
            options = game.legal_actions(state)
            if d.kind is DecisionKind.CHANCE:  # 0: high then low, 1: low then high, then mixed
                pick = (len(options) - 1) * ((rolls + attempt + 1) % 2) if attempt < 2 else \
                    hashlib.sha256(b"%d/%d" % (attempt, rolls)).digest()[0] % len(options)
                rolls += 1
            else:
                pick = 0
            state = game.step(state, options[pick])
        if wanted(state):
            return state
        found = state if found is None else found
    return found


def start_view(game: Game, rules: GameRules, seat: int) -> StartView | None:
    """What `seat` is shown of the start `rules` carry before it accepts (the game's optional
    member `start_view(rules, seat)`), None for rules without a start. A game without the
    member, or one whose description fails, says so as a difference: the joiner then knows it
    is not shown what it would rely on."""
    if not start_of(game, rules):
        return None
    member = getattr(game, "start_view", None)
    if member is None:
        return StartView((), (f"game {game.id!r} does not describe its start positions: what "
                              "differs from its new game is not known",))
    from .errors import EngineError

    try:
        view = member(rules, seat)
    except (EngineError, ValueError, TypeError, KeyError, IndexError, AttributeError,
            ArithmeticError, AssertionError, RecursionError) as error:
        return StartView((), (f"the start position cannot be described ({type(error).__name__}:"
                              f" {error})"[:300],))
    if not isinstance(view, StartView):
        raise TypeError(f"game {game.id!r}: start_view must return a StartView, got "
                        f"{type(view).__name__}")
    return view
