# Solo challenges (SPEC Part 11, "Verifiable solo runs", §11.7.1–11.7.4): a file signed by an
# organiser's Ed25519 key that fixes the game, its rules, the card data, a challenge id and a
# commitment to the organiser's 32-byte secret, from which every shuffle and die of every run of the
# challenge derives (per player key). The organiser keeps the secret file (the secret and its
# signing key, to attest reveals); the challenge file is public.
#
# A daily challenge is an ordinary challenge whose id, rules and secret are derived from the
# date: id "daily-YYYY-MM-DD", difficulty by the date's ordinal, secret = H(organiser key seed,
# date). Anyone holding the organiser's published public key checks that a daily file is the
# day's (`check_daily`); only the organiser can compute its secret.
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Protocol

from versus.protocol.crypto.identity import Identity, verify_signature
from versus.protocol.wire.canonical import TAG_SOLO_CHALLENGE as TAG_CHALLENGE
from versus.protocol.wire.canonical import TAG_SOLO_CHALLENGE_SIG as TAG_CHALLENGE_SIG
from versus.protocol.wire.canonical import TAG_SOLO_COMMIT as TAG_COMMIT
from versus.protocol.wire.canonical import TAG_SOLO_DAILY as TAG_DAILY
from versus.protocol.wire.canonical import decode, encode, tagged_hash

CHALLENGE_FORMAT = "versus-challenge/1"
SECRET_FORMAT = "versus-challenge-secret/1"

MAX_CHALLENGE = 64 * 1024
_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")


class ChallengeError(ValueError):
    """A challenge or secret file that is malformed or wrongly signed: `check` is the code."""

    def __init__(self, check: str, message: str) -> None:
        super().__init__(message)
        self.check = check


def require_solo(game: Any) -> Any:
    """`game` if a solo run can play it: one seat, and `unrevealed(state, deck)` (the cards a
    REVEAL may name, from which the run's randomness draws it: run.py); ChallengeError
    ("not-solo") otherwise, naming the game and its seats."""
    name = f"game {getattr(game, 'id', '?')!r:.40}"
    if getattr(game, "players", None) != 1:
        raise ChallengeError("not-solo", f"{name} is a {getattr(game, 'players', '?')}-player "
                             "game: solo challenges and runs are of a one-player game "
                             "(`versus games` shows each game's players)")
    if not callable(getattr(game, "unrevealed", None)):
        raise ChallengeError("not-solo", f"{name} cannot be played as a solo run: it does not "
                             "say which cards a reveal may name (`unrevealed`)")
    return game


def solo_game(game_id: object) -> Any:
    """The registered one-player game `game_id`; ChallengeError ("unknown-game" or
    "not-solo") otherwise."""
    from versus.engine.errors import UnknownGameError
    from versus.engine.registry import get_game

    try:
        game = get_game(game_id)  # type: ignore[arg-type]
    except UnknownGameError as e:
        raise ChallengeError("unknown-game", str(e)) from None
    return require_solo(game)


def commitment(secret: bytes) -> bytes:
    return tagged_hash(TAG_COMMIT, secret)


@dataclass(frozen=True)
class Challenge:
    game: str
    rules: bytes  # the game's encode_rules
    catalogue: bytes  # the game's catalogue_digest
    id: str
    commitment: bytes
    organiser: bytes  # Ed25519 public key
    note: str
    body: bytes
    signature: bytes

    @property
    def digest(self) -> bytes:
        return tagged_hash(TAG_CHALLENGE, self.body)

    def to_bytes(self) -> bytes:
        return encode([self.body, self.signature])


def make_challenge(organiser: Identity, game: Any, rules: Any, challenge_id: str,
                   secret: bytes, note: str = "") -> Challenge:
    require_solo(game)
    if not _ID.fullmatch(challenge_id):
        raise ChallengeError("challenge-id", f"challenge id {challenge_id!r:.70} must be 1-64 "
                             "letters, digits, '.', '_', '-'")
    if len(secret) != 32:
        raise ChallengeError("secret", "a challenge secret is 32 bytes")
    body = encode([CHALLENGE_FORMAT, game.id, game.encode_rules(rules),
                   game.catalogue_digest(game.default_catalogue()), challenge_id,
                   commitment(secret), organiser.public_key, note])
    return parse_challenge(encode([body, organiser.sign(TAG_CHALLENGE_SIG + body)]))


def parse_challenge(data: bytes) -> Challenge:
    """A challenge file, its signature checked; ChallengeError otherwise."""
    try:
        body, sig = decode(data, max_size=MAX_CHALLENGE)
        fields = decode(body, max_size=MAX_CHALLENGE)
        fmt, game, rules, cat, cid, commit, org, note = fields
    except (ValueError, TypeError) as e:
        raise ChallengeError("challenge-malformed", f"not a challenge file: {e}") from None
    ok = (fmt == CHALLENGE_FORMAT and type(game) is str and type(rules) is bytes
          and type(cat) is bytes and type(cid) is str and bool(_ID.fullmatch(cid))
          and type(commit) is bytes and len(commit) == 32 and type(org) is bytes
          and len(org) == 32 and type(note) is str and type(sig) is bytes)
    if not ok:
        raise ChallengeError("challenge-malformed", "not a challenge file: bad fields")
    if not verify_signature(org, sig, TAG_CHALLENGE_SIG + body):
        raise ChallengeError("challenge-signature",
                             "the challenge is not signed by the organiser key it names")
    return Challenge(game, rules, cat, cid, commit, org, note, body, sig)


@dataclass(frozen=True)
class OrganiserSecret:
    challenge: bytes  # the challenge digest it belongs to
    secret: bytes
    key: Identity

    def to_bytes(self) -> bytes:
        return encode([SECRET_FORMAT, self.challenge, self.secret, self.key.secret_bytes()])


def parse_secret(data: bytes, challenge: Challenge | None = None) -> OrganiserSecret:
    try:
        fmt, digest, secret, seed = decode(data, max_size=1024)
        ok = fmt == SECRET_FORMAT and len(digest) == 32 and len(secret) == 32
        key = Identity(seed)
    except (ValueError, TypeError) as e:
        raise ChallengeError("secret-malformed", f"not a challenge secret file: {e}") from None
    if not ok:
        raise ChallengeError("secret-malformed", "not a challenge secret file")
    if challenge is not None and (digest != challenge.digest
                                  or commitment(secret) != challenge.commitment
                                  or key.public_key != challenge.organiser):
        raise ChallengeError("secret-commitment", "the secret file is not this challenge's")
    return OrganiserSecret(digest, secret, key)


def new_challenge(organiser: Identity, game: Any, rules: Any, challenge_id: str,
                  rng: Any, note: str = "") -> tuple[Challenge, OrganiserSecret]:
    """A fresh challenge and the organiser's secret file (`rng(n)`: n secret bytes, e.g.
    secrets.token_bytes)."""
    secret = rng(32)
    ch = make_challenge(organiser, game, rules, challenge_id, secret, note)
    return ch, OrganiserSecret(ch.digest, secret, organiser)


# --- daily challenges -------------------------------------------------------------------------


class Day(Protocol):
    """A calendar day, given by the caller (a `datetime.date`): the protocol reads no clock."""

    def isoformat(self) -> str: ...

    def toordinal(self) -> int: ...


def daily_id(date: Day) -> str:
    return f"daily-{date.isoformat()}"


def daily_rules(game: Any, date: Day) -> Any:
    """The day's rules: difficulty easy/normal/hard by the date's ordinal (§11.7.2), default
    deck."""
    names = [o for o in game.rules_options if o.name == "difficulty"]
    if not names:
        return game.default_rules()
    return game.rules_from_options({"difficulty": names[0].choices[date.toordinal() % 3]})


def daily_challenge(organiser: Identity, game: Any,
                    date: Day) -> tuple[Challenge, OrganiserSecret]:
    secret = tagged_hash(TAG_DAILY, organiser.secret_bytes(), game.id, date.isoformat())
    ch = make_challenge(organiser, game, daily_rules(game, date), daily_id(date), secret,
                        f"daily:{date.isoformat()}")
    return ch, OrganiserSecret(ch.digest, secret, organiser)


def check_daily(ch: Challenge, game: Any, date: Day, organiser: bytes) -> None:
    """ChallengeError unless `ch` is the daily challenge of `date` by `organiser`."""
    if ch.organiser != organiser:
        raise ChallengeError("wrong-challenge", "the daily challenge is not by this organiser")
    if ch.id != daily_id(date) or ch.note != f"daily:{date.isoformat()}" or ch.game != game.id \
            or ch.rules != game.encode_rules(daily_rules(game, date)):
        raise ChallengeError("wrong-challenge", f"not the daily challenge of {date}")
