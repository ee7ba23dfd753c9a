# A deliberately tiny second game on the Game interface (engine/api.py), registered only by
# the tests that load it: it proves a game needs no Versus module, and it exercises all five
# decision kinds. "toy-duel": one shared deck of three cards (one, two, three); each player is
# dealt one (DEAL), player 0 bets or passes (TURN), player 1 calls or folds a bet (CHOICE), a
# public die is rolled (CHANCE, `sides` outcomes), both cards are revealed (REVEAL). Higher
# card wins; a roll above half the sides adds 1 to player 0's card; a fold loses at once.
#
# Inputs are their own canonical text ("deal 2", "bet", "call", "roll 4", "reveal 0 two"), and
# the state is a frozen dataclass hashed through its canonical JSON.
from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

from versus.engine import (
    DecisionKind,
    Finished,
    HiddenDeck,
    IllegalActionError,
    MalformedActionError,
    Pending,
    PositionError,
    RulesetError,
    RulesOption,
    Setup,
    only_version,
)

CARDS = ("one", "two", "three")
FORMAT = "versus-position/1"


def _tagged(purpose: str, data: bytes) -> bytes:
    return hashlib.sha256(b"versus/v1/toy-duel/" + purpose.encode() + b"\x00" + data).digest()


def _canonical(obj: Any) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":")).encode()


@dataclass(frozen=True)
class ToyState:
    sides: int
    dealt: tuple[int, ...] = ()  # player p holds handle dealt[p]
    bet: str = ""  # "", "bet", "pass"
    answer: str = ""  # "", "call", "fold"
    roll: int = 0  # 1..sides once rolled
    revealed: tuple[str, ...] = ()  # card ids, player 0's first


class ToyKnowledge:
    def __init__(self, player: int) -> None:
        self.player, self.cards = player, {}

    def learn(self, handle: int, card_id: str) -> None:
        self.cards[handle] = card_id


class ToyDuel:
    id = "toy-duel"
    title = "Toy duel (tests only)"
    players = 2
    rules_options = (RulesOption("sides", 6, "faces of the die", 2, 12),)
    chance = True

    def default_rules(self) -> int:
        return 6

    def rules_from_options(self, options: Mapping[str, Any]) -> int:
        unknown = set(options) - {"sides"}
        if unknown:
            raise RulesetError(f"unknown toy-duel option(s) {sorted(unknown)}")
        sides = options.get("sides", 6)
        if type(sides) is not int or not 2 <= sides <= 12:
            raise RulesetError(f"toy-duel option sides={sides!r}: must be 2..12")
        return sides

    def rules_to_options(self, rules: int) -> dict[str, Any]:
        return {"sides": rules}

    def encode_rules(self, rules: int) -> bytes:
        return _canonical({"format": "toy-duel-rules/1", "sides": rules})

    def decode_rules(self, data: bytes) -> int:
        try:
            obj = json.loads(data)
            rules = self.rules_from_options({"sides": obj["sides"]})
        except (ValueError, KeyError, TypeError):
            raise RulesetError(f"not toy-duel rules: {data!r:.60}") from None
        if self.encode_rules(rules) != data:
            raise RulesetError("toy-duel rules encoding is not canonical")
        return rules

    def rules_digest(self, rules: int) -> bytes:
        return _tagged("rules", self.encode_rules(rules))

    def describe_rules(self, rules: int) -> str:
        return f"{rules}-sided die"

    def default_catalogue(self) -> tuple[str, ...]:
        return CARDS

    def load_catalogue(self, data: str | bytes) -> tuple[str, ...]:
        return CARDS

    def catalogue_digest(self, catalogue: tuple[str, ...]) -> bytes:
        return _tagged("catalogue", _canonical(list(catalogue)))

    def catalogue_for_digest(self, digest: bytes) -> tuple[str, ...] | None:
        return only_version(self, digest)

    def card_ids(self, catalogue: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(catalogue)

    def decks(self, rules: int) -> tuple[HiddenDeck, ...]:
        return (HiddenDeck(None, len(CARDS)),)  # one shared deck: handles 0, 1, 2

    def deal_input(self, handle: int) -> str:
        return f"deal {handle}"

    def reveal_input(self, handle: int, card_id: str) -> str:
        return f"reveal {handle} {card_id}"

    def new_game(self, setup: Setup) -> ToyState:
        return ToyState(setup.rules)

    def decision(self, s: ToyState) -> Pending | Finished:
        if len(s.dealt) < 2:
            return Pending(DecisionKind.DEAL, len(s.dealt), "hand", deck=0)
        if not s.bet:
            return Pending(DecisionKind.TURN, 0)
        if s.bet == "bet" and not s.answer:
            return Pending(DecisionKind.CHOICE, 1, "call-or-fold")
        if s.answer == "fold":
            return Finished("fold", 0)
        if not s.roll:
            return Pending(DecisionKind.CHANCE, None, "die", outcomes=s.sides)
        if len(s.revealed) < 2:
            p = len(s.revealed)
            return Pending(DecisionKind.REVEAL, p, handle=s.dealt[p])
        score0 = CARDS.index(s.revealed[0]) + (1 if 2 * s.roll > s.sides else 0)
        score1 = CARDS.index(s.revealed[1])
        return Finished("showdown", None if score0 == score1 else 0 if score0 > score1 else 1)

    def legal_actions(self, s: ToyState) -> Sequence[str]:
        d = self.decision(s)
        if isinstance(d, Finished):
            return []
        return {DecisionKind.TURN: ["bet", "pass"], DecisionKind.CHOICE: ["call", "fold"],
                DecisionKind.CHANCE: [f"roll {k}" for k in range(1, s.sides + 1)]}.get(d.kind, [])

    def step(self, s: ToyState, inp: str) -> ToyState:
        d = self.decision(s)
        self.parse_input(inp)
        if isinstance(d, Finished):
            raise IllegalActionError(f"input {inp!r} after the end of the game")
        word, *args = inp.split(" ")
        if d.kind is DecisionKind.DEAL and word == "deal":
            h = int(args[0])
            if h in s.dealt or h >= len(CARDS):
                raise IllegalActionError(f"illegal input {inp!r}: card {h} is not in the deck")
            return replace(s, dealt=(*s.dealt, h))
        if d.kind is DecisionKind.REVEAL and word == "reveal" and int(args[0]) == d.handle:
            if args[1] not in CARDS or args[1] in s.revealed:
                raise IllegalActionError(f"illegal input {inp!r}: not a card left")
            return replace(s, revealed=(*s.revealed, args[1]))
        if inp not in self.legal_actions(s):
            raise IllegalActionError(f"illegal input {inp!r} awaiting {d.kind.value}")
        if d.kind is DecisionKind.TURN:
            return replace(s, bet=inp)
        if d.kind is DecisionKind.CHOICE:
            return replace(s, answer=inp)
        return replace(s, roll=int(args[0]))

    def new_knowledge(self, player: int) -> ToyKnowledge:
        return ToyKnowledge(player)

    def view(self, s: ToyState, player: int, knowledge: ToyKnowledge) -> dict[str, Any]:
        mine = s.dealt[player] if len(s.dealt) > player else None
        return {"state": s, "mine": knowledge.cards.get(mine) if mine is not None else None}

    def encode_state(self, s: ToyState) -> bytes:
        return _canonical(asdict(s))

    def state_hash(self, s: ToyState) -> bytes:
        return _tagged("state", self.rules_digest(s.sides) + self.encode_state(s))

    def parse_input(self, text: str) -> str:
        words = text.split(" ") if isinstance(text, str) else []
        ok = (words in (["bet"], ["pass"], ["call"], ["fold"])
              or (len(words) == 2 and words[0] in ("deal", "roll") and words[1].isdigit()
                  and str(int(words[1])) == words[1])
              or (len(words) == 3 and words[0] == "reveal" and words[1] in ("0", "1", "2")
                  and words[2] in CARDS))
        if not ok:
            raise MalformedActionError(f"malformed toy-duel input {text!r:.60}")
        return text

    def format_input(self, inp: str) -> str:
        return inp

    def narrate(self, before: ToyState, inp: str, after: ToyState, viewer: int,
                knowledge: ToyKnowledge) -> list[str]:
        return [f"player {'?' if inp.startswith('deal') else viewer} saw: {inp.split(' ')[0]}"]

    def narrate_start(self, s: ToyState, viewer: int) -> list[str]:
        return ["player 0 bets or passes first"]

    def dump_position(self, s: ToyState) -> str:
        return _canonical({"format": FORMAT, "game": self.id, "state": asdict(s)}).decode()

    def load_position(self, text: str | bytes, catalogue: Any = None) -> ToyState:
        try:
            obj = json.loads(text)
            fields = obj["state"]
            s = ToyState(fields["sides"], tuple(fields["dealt"]), fields["bet"],
                         fields["answer"], fields["roll"], tuple(fields["revealed"]))
        except (ValueError, KeyError, TypeError) as e:
            raise PositionError(f"not a toy-duel position: {e}") from None
        if self.dump_position(s) != (text if isinstance(text, str) else text.decode()):
            raise PositionError("toy-duel position is not canonical")
        return s


TOY = ToyDuel()


# --- a variant whose hidden decks differ in size per seat ---------------------------------------
# "toy-decks": each seat brings its own deck (decklist mode), of `deck0` and `deck1` cards
# (a match from a start position gives the seats different decks). Seat 0 is dealt two cards
# from its deck, then seat 1 two from its own (DEAL, alternating); seat 0 bets or passes
# (TURN), seat 1 calls or folds a bet (CHOICE); each reveals the first card it was dealt
# (REVEAL). The higher card wins; a fold loses at once.

HAND = 2


@dataclass(frozen=True)
class ToyDecksState:
    sizes: tuple[int, int]
    dealt: tuple[tuple[int, ...], tuple[int, ...]] = ((), ())  # handles, by seat
    bet: str = ""
    answer: str = ""
    revealed: tuple[str, ...] = ()  # card ids, seat 0's first


class ToyDecks(ToyDuel):
    id = "toy-decks"
    title = "Toy decks of two sizes (tests only)"
    rules_options = (RulesOption("deck0", 7, "cards in seat 0's deck", HAND, 12),
                     RulesOption("deck1", 5, "cards in seat 1's deck", HAND, 12))
    chance = False

    def default_rules(self) -> tuple[int, int]:  # type: ignore[override]
        return 7, 5

    def rules_from_options(self, options: Mapping[str, Any]) -> tuple[int, int]:  # type: ignore[override]
        unknown = set(options) - {"deck0", "deck1"}
        if unknown:
            raise RulesetError(f"unknown toy-decks option(s) {sorted(unknown)}")
        sizes = options.get("deck0", 7), options.get("deck1", 5)
        if any(type(n) is not int or not HAND <= n <= 12 for n in sizes):
            raise RulesetError(f"toy-decks deck sizes {sizes!r}: each must be {HAND}..12")
        return sizes

    def rules_to_options(self, rules: tuple[int, int]) -> dict[str, Any]:  # type: ignore[override]
        return {"deck0": rules[0], "deck1": rules[1]}

    def encode_rules(self, rules: tuple[int, int]) -> bytes:  # type: ignore[override]
        return _canonical({"format": "toy-decks-rules/1", "deck0": rules[0], "deck1": rules[1]})

    def decode_rules(self, data: bytes) -> tuple[int, int]:  # type: ignore[override]
        try:
            obj = json.loads(data)
            rules = self.rules_from_options({"deck0": obj["deck0"], "deck1": obj["deck1"]})
        except (ValueError, KeyError, TypeError):
            raise RulesetError(f"not toy-decks rules: {data!r:.60}") from None
        if self.encode_rules(rules) != data:
            raise RulesetError("toy-decks rules encoding is not canonical")
        return rules

    def rules_digest(self, rules: tuple[int, int]) -> bytes:  # type: ignore[override]
        return _tagged("decks-rules", self.encode_rules(rules))

    def describe_rules(self, rules: tuple[int, int]) -> str:  # type: ignore[override]
        return f"decks of {rules[0]} and {rules[1]}"

    def decks(self, rules: tuple[int, int]) -> tuple[HiddenDeck, ...]:  # type: ignore[override]
        return HiddenDeck(0, rules[0], 0), HiddenDeck(1, rules[1], rules[0])

    def new_game(self, setup: Setup) -> ToyDecksState:  # type: ignore[override]
        return ToyDecksState(tuple(setup.rules))  # type: ignore[arg-type]

    def decision(self, s: ToyDecksState) -> Pending | Finished:  # type: ignore[override]
        for p in (0, 1):
            if len(s.dealt[p]) < HAND:
                return Pending(DecisionKind.DEAL, p, "hand", deck=p)
        if not s.bet:
            return Pending(DecisionKind.TURN, 0)
        if s.bet == "bet" and not s.answer:
            return Pending(DecisionKind.CHOICE, 1, "call-or-fold")
        if s.answer == "fold":
            return Finished("fold", 0)
        if len(s.revealed) < 2:
            p = len(s.revealed)
            return Pending(DecisionKind.REVEAL, p, handle=s.dealt[p][0])
        score0, score1 = (CARDS.index(card) for card in s.revealed)
        return Finished("showdown", None if score0 == score1 else 0 if score0 > score1 else 1)

    def legal_actions(self, s: ToyDecksState) -> Sequence[str]:  # type: ignore[override]
        d = self.decision(s)
        if isinstance(d, Finished):
            return []
        return {DecisionKind.TURN: ["bet", "pass"],
                DecisionKind.CHOICE: ["call", "fold"]}.get(d.kind, [])

    def step(self, s: ToyDecksState, inp: str) -> ToyDecksState:  # type: ignore[override]
        d = self.decision(s)
        self.parse_input(inp)
        if isinstance(d, Finished):
            raise IllegalActionError(f"input {inp!r} after the end of the game")
        word, *args = inp.split(" ")
        if d.kind is DecisionKind.DEAL and word == "deal":
            p, h = d.player, int(args[0])
            assert p is not None
            first = 0 if p == 0 else s.sizes[0]
            if not first <= h < first + s.sizes[p] or h in s.dealt[p]:
                raise IllegalActionError(f"illegal input {inp!r}: card {h} is not in seat "
                                         f"{p}'s deck")
            dealt = list(s.dealt)
            dealt[p] = (*dealt[p], h)
            return replace(s, dealt=(dealt[0], dealt[1]))
        if d.kind is DecisionKind.REVEAL and word == "reveal" and int(args[0]) == d.handle:
            if args[1] not in CARDS:
                raise IllegalActionError(f"illegal input {inp!r}: not a card")
            return replace(s, revealed=(*s.revealed, args[1]))
        if inp not in self.legal_actions(s):
            raise IllegalActionError(f"illegal input {inp!r} awaiting {d.kind.value}")
        if d.kind is DecisionKind.TURN:
            return replace(s, bet=inp)
        return replace(s, answer=inp)

    def view(self, s: ToyDecksState, player: int,  # type: ignore[override]
             knowledge: ToyKnowledge) -> dict[str, Any]:
        return {"state": s, "mine": [knowledge.cards.get(h) for h in s.dealt[player]]}

    def state_hash(self, s: ToyDecksState) -> bytes:  # type: ignore[override]
        return _tagged("decks-state", self.rules_digest(s.sizes) + self.encode_state(s))

    def parse_input(self, text: str) -> str:
        words = text.split(" ") if isinstance(text, str) else []
        number = len(words) >= 2 and words[1].isdigit() and str(int(words[1])) == words[1]
        ok = (words in (["bet"], ["pass"], ["call"], ["fold"])
              or (len(words) == 2 and words[0] == "deal" and number)
              or (len(words) == 3 and words[0] == "reveal" and number and words[2] in CARDS))
        if not ok:
            raise MalformedActionError(f"malformed toy-decks input {text!r:.60}")
        return text

    def narrate_start(self, s: ToyDecksState, viewer: int) -> list[str]:  # type: ignore[override]
        return [f"decks of {s.sizes[0]} and {s.sizes[1]} cards"]

    def load_position(self, text: str | bytes,  # type: ignore[override]
                      catalogue: Any = None) -> ToyDecksState:
        try:
            fields = json.loads(text)["state"]
            dealt = fields["dealt"]
            s = ToyDecksState((fields["sizes"][0], fields["sizes"][1]),
                              (tuple(dealt[0]), tuple(dealt[1])), fields["bet"],
                              fields["answer"], tuple(fields["revealed"]))
        except (ValueError, KeyError, TypeError, IndexError) as e:
            raise PositionError(f"not a toy-decks position: {e}") from None
        if self.dump_position(s) != (text if isinstance(text, str) else text.decode()):
            raise PositionError("toy-decks position is not canonical")
        return s


TOY_DECKS = ToyDecks()
