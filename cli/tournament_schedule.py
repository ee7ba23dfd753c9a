# What a tournament plays, decided before any game starts: its settings (everything that fixes
# the schedule and the games, kept in the manifest), the schedule of ScheduledGames (round
# robin or gauntlet, seats swapped every other game, or paired deals played twice with the
# seats swapped), each game's seed and deal (`--deals FILE` or the `--srand` suite), and the
# participants' names. Pure: no I/O except reading the deals file. TournamentError is the
# one-line failure of every tournament module, with its exit status.
from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from versus.engine.registry import DEFAULT_GAME
from versus.protocol.match.rules import DealMode

from .bots.base import BotError
from .bots.registry import parse_bot
from .files import UnreadableFile, read_limited
from .parsers import DEFAULT_GAME_TIMEOUT
from .tournament_stats import Sprt
from .tournament_worker import bot_of

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_UNFINISHED, EXIT_UNVERIFIED = 0, 1, 2, 3, 4
MAX_DEALS_FILE = 4 << 20
DEAL_LABEL = re.compile(r"[A-Za-z0-9._-]{1,64}")


class TournamentError(Exception):
    """A one-line failure; `status` is the exit status."""

    def __init__(self, message: str, status: int = EXIT_ERROR) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Settings:
    """Everything that fixes the schedule and the games (concurrency does not)."""

    format: str = "round-robin"
    games: int = 2
    champion: str | None = None  # gauntlet: the participant who plays everyone
    deal: str = DealMode.DECKLIST.value
    seed: str | None = None  # hex; None: every game draws fresh secrets
    time_per_decision_ms: int | None = None
    game_timeout: float = DEFAULT_GAME_TIMEOUT
    game: str = DEFAULT_GAME  # the registry id of the game every match plays
    rules: tuple[tuple[str, Any], ...] = ()  # its rules options (--rule), as plain values
    paired: bool = False  # each deal twice, seats swapped (the CLI default)
    srand: int | None = None  # the random deal suite's number (None: fresh deals, unpaired)
    deals: tuple[tuple[str, tuple[tuple[str, Any], ...]], ...] = ()  # --deals: (label, rules)
    sprt: tuple[tuple[str, Any], ...] | None = None  # --sprt, as Sprt.to_dict() items
    records: bool = False  # --records: a text record per game

    def to_dict(self) -> dict[str, Any]:
        return {"format": self.format, "games": self.games, "champion": self.champion,
                "deal": self.deal, "seed": self.seed,
                "time_per_decision_ms": self.time_per_decision_ms,
                "game_timeout": self.game_timeout, "game": self.game,
                "rules": dict(self.rules), "paired": self.paired, "srand": self.srand,
                "deals": [{"seed": label, "rules": dict(rules)} for label, rules in self.deals],
                "sprt": None if self.sprt is None else dict(self.sprt),
                "records": self.records}

    @classmethod
    def from_dict(cls, data: Any) -> Settings:
        if isinstance(data, dict):  # a manifest of the first format: a Versus tournament;
            # from before paired deals: unpaired, fresh deals, no SPRT
            data = {"game": DEFAULT_GAME, "rules": {}, "paired": False, "srand": None,
                    "deals": [], "sprt": None, "records": False, **data}
        if not isinstance(data, dict) or set(data) != set(cls().to_dict()) or not isinstance(
                data["rules"], dict) or not isinstance(data["game"], str) or not isinstance(
                data["deals"], list) or not all(isinstance(d, dict) and isinstance(
                    d.get("rules"), dict) for d in data["deals"]) or not isinstance(
                data["sprt"], dict | None):
            raise ValueError("settings are not the expected object")
        return cls(**{**data, "rules": tuple(data["rules"].items()),
                      "deals": tuple((d["seed"], tuple(d["rules"].items()))
                                     for d in data["deals"]),
                      "sprt": None if data["sprt"] is None else tuple(data["sprt"].items())})

    @property
    def sprt_test(self) -> Sprt | None:
        return None if self.sprt is None else Sprt(**dict(self.sprt))


@dataclass(frozen=True)
class ScheduledGame:
    """One scheduled game: `pairing` (i, j) are participant indexes, `seats` who plays seat 0
    and seat 1; `round` counts the games of the pairing from 1."""

    id: str
    round: int
    pairing: tuple[int, int]
    seats: tuple[int, int]
    deal: int = 0  # the deal played, from 1 (0: fresh secrets)
    pair: int | None = None  # paired deals: the pair of the pairing (its two games share it)

    def to_dict(self) -> dict[str, Any]:
        return {"game": self.id, "round": self.round, "pairing": list(self.pairing),
                "seats": list(self.seats), "deal": self.deal, "pair": self.pair}


def pairings(participants: Sequence[str], settings: Settings) -> list[tuple[int, int]]:
    if settings.format == "gauntlet":
        champion = participants.index(settings.champion or participants[0])
        return [(champion, j) for j in range(len(participants)) if j != champion]
    return [(i, j) for i in range(len(participants)) for j in range(i + 1, len(participants))]


def make_schedule(participants: Sequence[str], settings: Settings) -> list[ScheduledGame]:
    """Round by round, so a tournament stopped early is balanced between pairings; seat 0 goes
    to the pairing's first participant in odd rounds and to the second in even ones. Paired:
    pair by pair (rounds 2k-1 and 2k play deal k, one after the other), so a run stopped early
    leaves few pairs incomplete."""
    games = []
    fresh = settings.srand is None and not settings.deals
    if settings.paired:
        for k in range(1, settings.games // 2 + 1):
            for i, j in pairings(participants, settings):
                for n, seats in ((2 * k - 1, (i, j)), (2 * k, (j, i))):
                    games.append(ScheduledGame(f"p{i}-p{j}-{n:03d}", n, (i, j), seats, k, k))
        return games
    for n in range(1, settings.games + 1):
        for i, j in pairings(participants, settings):
            seats = (i, j) if n % 2 == 1 else (j, i)
            games.append(ScheduledGame(f"p{i}-p{j}-{n:03d}", n, (i, j), seats, 0 if fresh else n))
    return games


def game_seed(settings: Settings, game: ScheduledGame) -> str | None:
    if settings.seed is None:
        return None
    return hashlib.sha256(b"versus/v1/tournament-game\x00" + bytes.fromhex(settings.seed)
                          + game.id.encode()).hexdigest()


def deal_of(settings: Settings, game: ScheduledGame) -> tuple[str, dict[str, Any]] | None:
    """The label of the game's deal and its rules options (None: fresh secrets)."""
    if game.deal == 0:
        return None
    if settings.deals:
        label, rules = settings.deals[(game.deal - 1) % len(settings.deals)]
        return label, dict(rules)
    return f"{settings.srand}-{game.deal}", {}


def deal_seed(label: str) -> str:
    return hashlib.sha256(b"versus/v1/tournament-deal\x00" + label.encode()).hexdigest()


def number_duplicates(given: Sequence[str]) -> list[str]:
    """Participants by name; the second `random` becomes `random#2` and so on (the bot is the
    name without its `#N`, see `bot_of`)."""
    names: list[str] = []
    for name in given:
        count = sum(bot_of(n) == name for n in names)
        unique = name if count == 0 else f"{name}#{count + 1}"
        if unique in names:
            raise TournamentError(f"participant {unique!r} is given twice", EXIT_USAGE)
        names.append(unique)
    return names


def participant_names(participants: Sequence[str]) -> list[str]:
    """Each participant's name: its `name=` option (with the `#N` of a repeated spec), else
    the spec as given."""
    names = []
    for participant in participants:
        base = bot_of(participant)
        try:
            given = parse_bot(base).name
        except BotError:
            given = None
        names.append(participant if given is None else given + participant[len(base):])
    return names


def read_deals(path: str, game: str, rules_given: bool = False
               ) -> tuple[tuple[str, tuple[tuple[str, Any], ...]], ...]:
    """`--deals FILE` (SPEC §8.3): a JSON list (of labels, of {"seed": label, "rules":
    {name: value}}, of positions, or of {"seed": label, "position": ...}) or text, one deal a
    line: `LABEL [NAME=VALUE ...]` or `[LABEL] {position JSON}`, `#` comments. A label is 1-64
    characters of A-Z a-z 0-9 . _ -; a position without one is labelled by its hash. A
    position becomes the game's rules with that start (`rules_for_position`), so the match
    starts there. TournamentError (one line) on any mistake."""
    from .game_options import GameOptionError, game_of, game_rules, rules_options

    def bad(why: str) -> TournamentError:
        return TournamentError(f"--deals {path}: {why}", EXIT_USAGE)

    try:
        data = read_limited(path, MAX_DEALS_FILE)
    except UnreadableFile as error:
        raise bad(str(error)) from None
    if data is None:
        raise bad(f"larger than {MAX_DEALS_FILE} bytes")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise bad("not UTF-8 text") from None
    # (line or item number, label or None, rules: NAME=VALUE pairs or a mapping, position)
    entries: list[tuple[int, str | None, Any, Any]] = []
    if text.lstrip().startswith("["):
        try:
            items = json.loads(text)
        except (ValueError, RecursionError) as error:
            raise bad(f"not JSON: {error}") from None
        if not isinstance(items, list):
            raise bad("a JSON deal file is a list")
        for n, item in enumerate(items, 1):
            entries.append((n, *_json_deal(item, n, bad)))
    else:
        for n, line in enumerate(text.splitlines(), 1):
            brace = line.find("{")
            if brace >= 0:  # `[LABEL] {position}`: the JSON runs to the end of the line
                label = line[:brace].split()
                if len(label) > 1:
                    raise bad(f"line {n}: a position line is `[LABEL] {{...}}`, got "
                              f"{line[:brace].strip()!r:.60} before it")
                entries.append((n, label[0] if label else None, {}, line[brace:]))
                continue
            words = line.split("#", 1)[0].split()
            if not words:
                continue
            pairs = []
            for word in words[1:]:
                name, eq, value = word.partition("=")
                if not eq or not name or not value:
                    raise bad(f"line {n}: {word!r} is not NAME=VALUE")
                pairs.append((name, value))
            entries.append((n, words[0], pairs, None))
    if not entries:
        raise bad("no deals")
    impl = game_of(game)
    deals = []
    for n, label, rules, position in entries:
        try:
            if position is not None:
                if rules_given:
                    raise GameOptionError("a start position carries its own rules: drop --rule")
                label, options = _position_deal(impl, label, position)
            else:
                options = (rules_options(impl, rules) if isinstance(rules, list)
                           else rules_options(impl, [(k, str(v)) for k, v in rules.items()]))
                game_rules(impl, options)
        except GameOptionError as error:
            raise bad(f"deal {n}: {error}") from None
        assert label is not None
        if not DEAL_LABEL.fullmatch(label):
            raise bad(f"deal {n}: label {label!r} is not 1-64 characters of A-Z a-z 0-9 . _ -")
        deals.append((label, tuple(options.items())))
    return tuple(deals)


def _json_deal(item: Any, n: int, bad: Callable[[str], TournamentError]
               ) -> tuple[str | None, Any, Any]:
    """(label, rules, position) of one item of a JSON deal file."""
    if isinstance(item, str):
        return item, {}, None
    if isinstance(item, dict) and "format" in item:  # a bare position
        return None, {}, json.dumps(item)
    if isinstance(item, dict) and isinstance(item.get("seed"), str):
        if set(item) <= {"seed", "rules"} and isinstance(item.get("rules", {}), dict):
            return item["seed"], item.get("rules", {}), None
        if set(item) == {"seed", "position"} and isinstance(item["position"], dict | str):
            position = item["position"]
            return item["seed"], {}, position if isinstance(position, str) else json.dumps(
                position)
    raise bad(f"item {n}: expected a label, {{\"seed\": ..., \"rules\": {{...}}}}, a position "
              "or {\"seed\": ..., \"position\": {...}}")


def _position_deal(game: Any, label: str | None, position: str) -> tuple[str, dict[str, Any]]:
    """A start position as a deal: its label (given, or `start-` and 12 hex digits of the
    position's canonical text) and the game's rules options with it as their start."""
    from versus.engine.api import Setup, rules_for_position
    from versus.engine.errors import EngineError

    from .game_options import GameOptionError

    try:
        rules = rules_for_position(game, position)
        options = game.rules_to_options(rules)
        # the organiser's card data must be the position's: find out now, not in every game
        game.new_game(Setup(rules, game.default_catalogue(), b"deal-check"))
    except EngineError as error:
        raise GameOptionError(f"start position: {' '.join(str(error).split())}"[:300]) from None
    if label is None:
        digest = hashlib.sha256(game.encode_rules(rules)).hexdigest()
        label = f"start-{digest[:12]}"
    return label, options
