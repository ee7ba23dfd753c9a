# Hostile run and challenge files (SPEC §11.7, §11.7.6): whatever a run file holds, `verify_run`
# returns a verdict (INVALID with a code, at the record that caused it) and never raises; a
# challenge of a two-player game is refused as such ("not-solo") when it is made, served,
# played or verified; a run of the older format says so ("old-format").
from __future__ import annotations

import contextlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from versus.cli.solo import make_bot
from versus.engine.api import DecisionKind, Setup
from versus.engine.multiverse import MULTIVERSE as G
from versus.engine.registry import get_game
from versus.protocol.crypto.identity import Identity
from versus.protocol.solo import run as R
from versus.protocol.solo import service as S
from versus.protocol.solo.challenge import (
    CHALLENGE_FORMAT,
    ChallengeError,
    commitment,
    make_challenge,
    new_challenge,
    parse_challenge,
)
from versus.protocol.wire.canonical import TAG_SOLO_CHALLENGE_SIG, decode, encode
from versus.protocol.wire.text import printable

ORG, PLAYER = Identity(b"\x01" * 32), Identity(b"\x02" * 32)
SECRET = b"\x07" * 32
EASY = G.rules_from_options({"difficulty": "easy", "deck": 50})
TWO_PLAYER = ("grid", "versus42", "vanquishers")
#: odd values for a field: wrong types, sizes and nesting (no maps: the encoding has none)
ODD = (None, True, False, -1, 0, 2**63 - 1, -(2**63), "", "x" * 300,
       "attack 99999999999999999999 0", "reveal 0 ember-knight", "roll 1", "deal 0", b"",
       b"\x00" * 32, b"\xff" * 64, [], [[[[]]]], ["action", "draw"])


def _signed_challenge(game_id: str, rules: bytes, catalogue: bytes) -> object:
    """A challenge signed by the organiser as it pleases (make_challenge refuses it)."""
    body = encode([CHALLENGE_FORMAT, game_id, rules, catalogue, "evil", commitment(SECRET),
                   ORG.public_key, ""])
    return parse_challenge(encode([body, ORG.sign(TAG_SOLO_CHALLENGE_SIG + body)]))


def _attested(run: R.Run, ch, stream: str, k: int) -> None:
    val = R.value(SECRET, ch.digest, PLAYER.public_key, stream, k)
    run.add("random", stream, k, val, ORG.sign(R.attestation(ch.digest, PLAYER.public_key,
                                                               stream, k, run.head, val)))


def _two_player_run(game_id: str) -> bytes:
    """A run file of a two-player game's challenge, its first random steps attested by the
    organiser as an earlier verifier expected them (dice, then a deal)."""
    game = get_game(game_id)
    rules, cat = game.default_rules(), game.default_catalogue()
    ch = _signed_challenge(game_id, game.encode_rules(rules), game.catalogue_digest(cat))
    run = R.Run(ch, PLAYER, head=R.genesis(ch.digest, PLAYER.public_key))
    run.add("start", ch.digest, PLAYER.public_key)
    state = game.new_game(Setup(rules, cat, ch.digest))
    k = 0
    while (d := game.decision(state)).kind is DecisionKind.CHANCE:
        _attested(run, ch, "d6", k)
        val = R.value(SECRET, ch.digest, PLAYER.public_key, "d6", k)
        state = game.step(state, game.legal_actions(state)[R.below(val, d.outcomes)])
        k += 1
    if d.kind is DecisionKind.DEAL:
        _attested(run, ch, f"deck-{d.deck}", 0)
    run.add("end", "victory", 0, b"\x00" * 32)
    return run.to_bytes(SECRET)


@pytest.fixture(scope="module")
def real() -> tuple[object, bytes]:
    ch, sec = new_challenge(ORG, G, EASY, "real", lambda n: SECRET[:n])
    run, _ = R.play(G, ch, PLAYER, S.RevealService(ch, sec).reveal, make_bot("greedy", 1))
    return ch, run.to_bytes(sec.secret)


def _verdict(data: bytes, expected=None) -> R.RunReport:
    """verify_run's verdict, held to its contract: a report, never an exception; INVALID
    with a known code; every line printable."""
    rep = R.verify_run(data, expected)
    assert isinstance(rep, R.RunReport)
    assert rep.ok or rep.check in R.CHECKS, rep.check
    for line in rep.describe().splitlines():
        assert printable(line, 10_000) == line
    return rep


def _resigned(data: bytes, edit) -> bytes:
    """The run with its record bodies edited by `edit` and re-chained and re-signed by the
    player (a cheating player's own key: the edit reaches the replay)."""
    fmt, chb, records, secret = decode(data, max_size=R.MAX_RUN, max_array_len=R.MAX_RECORDS)
    bodies = [decode(decode(r, max_size=R.MAX_RUN)[0], max_size=R.MAX_RUN) for r in records]
    edit(bodies)
    ch = parse_challenge(chb)
    run = R.Run(ch, PLAYER, head=R.genesis(ch.digest, PLAYER.public_key))
    for b in bodies:
        run.add(*b[2:])
    return encode([fmt, chb, run.records, secret])


@pytest.mark.parametrize("game_id", TWO_PLAYER)
def test_a_run_of_a_two_player_game_is_not_solo(game_id):
    """It crashed the verifier (AttributeError: the game has no `undealt`)."""
    rep = _verdict(_two_player_run(game_id))
    assert rep.check == "not-solo" and rep.record is None
    assert f"game {game_id!r} is a 2-player game" in rep.message


@pytest.mark.parametrize("game_id", TWO_PLAYER)
def test_a_two_player_challenge_is_refused_when_made_served_or_played(game_id):
    game = get_game(game_id)
    with pytest.raises(ChallengeError) as made:
        make_challenge(ORG, game, game.default_rules(), "c", SECRET)
    assert made.value.check == "not-solo"
    ch = _signed_challenge(game_id, game.encode_rules(game.default_rules()),
                           game.catalogue_digest(game.default_catalogue()))
    from versus.protocol.solo.challenge import OrganiserSecret

    with pytest.raises(ChallengeError, match="2-player game"):
        S.RevealService(ch, OrganiserSecret(ch.digest, SECRET, ORG))
    with pytest.raises(ChallengeError, match="2-player game"):
        R.play(game, ch, PLAYER, lambda *a: (SECRET, b""), make_bot("random"))


def test_hostile_challenges_signed_by_the_organiser(real):
    _, data = real
    cat = G.catalogue_digest(G.default_catalogue())
    for game_id, rules, catalogue, check in (
            ("nope", b"", cat, "unknown-game"),
            ("multiverse", b"\xff", cat, "rules"),
            ("multiverse", b'{"deck":50,"difficulty":"easy"}', cat, "rules"),
            ("multiverse", G.encode_rules(EASY), b"\x00" * 32, "rules"),
            ("multiverse", G.encode_rules(EASY), b"", "rules")):
        evil = _signed_challenge(game_id, rules, catalogue)
        _, _, records, secret = decode(data, max_size=R.MAX_RUN, max_array_len=R.MAX_RECORDS)
        rep = _verdict(encode([R.RUN_FORMAT, evil.to_bytes(), records, secret]))
        assert rep.check == check, (game_id, rules, rep.describe())


def _samples(bodies: list[list]) -> list[int]:
    """Records to mutate: the first four, the first and a middle one of each kind and stream
    (action, random deck-0, deck-1, d6), the last three (replays stop at the mutated record,
    so the sweep's cost grows with how deep it goes)."""
    picked = {0, 1, 2, 3, len(bodies) - 3, len(bodies) - 2, len(bodies) - 1}
    for key in ("action", "deck-0", "deck-1", "d6"):
        hits = [i for i, b in enumerate(bodies) if key in (b[2], b[3] if len(b) > 3 else None)]
        picked.update(hits[:1] + hits[len(hits) // 2:len(hits) // 2 + 1])
    return sorted(picked)


def test_every_field_of_records_of_every_kind_mutated_and_resigned(real):
    """A mutation sweep: every field of records of every kind set to odd values, re-signed by
    the player so that it reaches the replay; the verdict is INVALID at that record or
    before."""
    _, data = real
    records = decode(data, max_size=R.MAX_RUN, max_array_len=R.MAX_RECORDS)[2]
    bodies = [decode(decode(r, max_size=R.MAX_RUN)[0], max_size=R.MAX_RUN) for r in records]
    n = 0
    for i in _samples(bodies):
        for j in range(2, len(bodies[i]) + 1):
            for odd in (ODD[(i * 5 + j) % len(ODD)],) if i > 3 else ODD[j::4]:
                if j < len(bodies[i]) and type(odd) is type(bodies[i][j]) and \
                        odd == bodies[i][j]:
                    continue  # not a change
                def edit(bs, i=i, j=j, odd=odd):
                    if j < len(bs[i]):
                        bs[i][j] = odd
                    else:
                        bs[i].append(odd)  # one field too many

                rep = _verdict(_resigned(data, edit))
                assert not rep.ok and (rep.record is None or rep.record <= i + 1), \
                    (i, j, odd, rep.describe())
                n += 1
    assert n > 60


def test_top_level_and_record_shapes(real):
    _, data = real
    fmt, chb, records, secret = decode(data, max_size=R.MAX_RUN, max_array_len=R.MAX_RECORDS)
    fields = [fmt, chb, records, secret]
    for i in range(4):
        for odd in ODD:
            if odd == fields[i] or (i == 3 and odd is None):
                continue
            bad = list(fields)
            bad[i] = odd
            assert not _verdict(encode(bad)).ok
    for odd in ODD:
        assert not _verdict(encode([fmt, chb, [*records[:5], odd, *records[5:]], secret])).ok
        assert not _verdict(encode([fmt, chb, [encode([odd, b"\x00" * 64])], secret])).ok
    for short in ([], [fmt], fields[:3], [*fields, None]):
        assert _verdict(encode(short)).check == "malformed"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
@given(cuts=st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 255),
                               st.sampled_from(["flip", "insert", "delete"])),
                     min_size=1, max_size=4))
def test_random_byte_edits_get_a_verdict(real, cuts):
    _, data = real
    bad = bytearray(data)
    for pos, byte, how in cuts:
        pos %= len(bad)
        if how == "flip":
            bad[pos] ^= byte or 1
        elif how == "insert":
            bad.insert(pos, byte)
        else:
            del bad[pos]
    _verdict(bytes(bad))


def test_an_old_format_run_says_so(real):
    ch, data = real
    _, chb, records, secret = decode(data, max_size=R.MAX_RUN, max_array_len=R.MAX_RECORDS)
    old = encode(["versus-solo-run/1", chb, records, secret])
    rep = _verdict(old)
    assert rep.check == "old-format" and "versus-solo-run/1" in rep.message
    with pytest.raises(ChallengeError) as e:
        R.with_secret(old, SECRET, ch.digest)
    assert e.value.check == "old-format"
    from versus.protocol.solo import is_run

    assert is_run(old) and is_run(data)


def test_with_secret_on_hostile_files_raises_only_challenge_errors(real):
    ch, data = real
    fmt, chb, records, _ = decode(data, max_size=R.MAX_RUN, max_array_len=R.MAX_RECORDS)
    for bad in (b"", b"junk", encode([fmt, b"x", records, None]), encode([fmt, chb, 5, None]),
                encode([fmt, chb]), encode(ODD[:4]), _two_player_run("grid")):
        with pytest.raises(ChallengeError):
            R.with_secret(bad, SECRET, ch.digest)


def test_a_failure_nobody_foresaw_is_a_verdict_at_its_record(real, monkeypatch):
    """Defence in depth: an exception the checks did not foresee (here the game's own, from a
    patched step) is INVALID at the record being replayed, never a traceback."""
    _, data = real
    calls = []
    step = type(G).step

    def failing(self, state, inp):
        calls.append(inp)
        if len(calls) == 20:
            raise KeyError("boom")
        return step(self, state, inp)

    monkeypatch.setattr(type(G), "step", failing)
    rep = _verdict(data)
    assert rep.check == "illegal-action" and "KeyError" in rep.message and rep.record > 1
    calls.clear()
    monkeypatch.setattr(type(G), "new_game", lambda self, setup: 1 / 0)
    rep = _verdict(data)
    assert rep.check == "rules" and "ZeroDivisionError" in rep.message


_ATOMS = st.one_of(st.none(), st.booleans(), st.integers(-(2**63), 2**63 - 1),
                   st.binary(max_size=70), st.text(max_size=12),
                   st.sampled_from(["versus-challenge/1", "versus-challenge-secret/1",
                                    "versus-challenge-published/1", R.RUN_FORMAT, "multiverse"]))


@settings(max_examples=60, deadline=None)
@given(value=st.recursive(_ATOMS, lambda inner: st.lists(inner, max_size=9), max_leaves=20))
def test_challenge_secret_and_published_readers_raise_only_challenge_errors(value):
    """Every reader of a solo file (challenge, secret, published secret, run completion)
    answers any canonical value with its result or a ChallengeError (one line in the CLI)."""
    from versus.protocol.solo.challenge import parse_secret

    data = encode(value)
    for read in (parse_challenge, parse_secret, S.parse_published,
                 lambda d: R.with_secret(d, SECRET)):
        with contextlib.suppress(ChallengeError):
            read(data)
    assert not _verdict(data).ok
