# Verifiable solo runs (SPEC Part 11, §11.7.1–11.7.12): challenges, reveal service, run
# verification, tampering, wrong challenges, randomness used before it could be known, d6
# uniformity.
from __future__ import annotations

import datetime

import pytest

from versus.cli.solo import make_bot
from versus.engine.multiverse import MULTIVERSE as G
from versus.protocol.crypto.identity import Identity
from versus.protocol.solo import run as R
from versus.protocol.solo import service as S
from versus.protocol.solo.challenge import (
    ChallengeError,
    check_daily,
    daily_challenge,
    new_challenge,
    parse_challenge,
    parse_secret,
)
from versus.protocol.wire.canonical import decode, encode

ORG, PLAYER = Identity(b"\x01" * 32), Identity(b"\x02" * 32)
EASY = G.rules_from_options({"difficulty": "easy"})


def _challenge(cid: str = "c1", fill: int = 7):
    return new_challenge(ORG, G, EASY, cid, lambda n: bytes([fill]) * n)


def _play(ch, sec, bot="greedy", player=PLAYER, reveal=None):
    svc = S.RevealService(ch, sec)
    return R.play(G, ch, player, reveal or svc.reveal, make_bot(bot, 1)), svc


def _resign(data: bytes, edit) -> bytes:
    """The run with its records edited by `edit(list of [body fields, ...])` and re-signed
    by the player (what a cheating player can do with its own key)."""
    fmt, chb, records, secret = decode(data, max_size=1 << 23, max_array_len=1 << 17)
    bodies = [decode(decode(r, max_size=1 << 20)[0], max_size=1 << 20) for r in records]
    edit(bodies)
    ch = parse_challenge(chb)
    run = R.Run(ch, PLAYER, head=R.genesis(ch.digest, PLAYER.public_key))
    for b in bodies:
        run.add(*b[2:])
    return encode([fmt, chb, run.records, secret])


def test_challenge_signed_and_parsed():
    ch, sec = _challenge()
    assert parse_challenge(ch.to_bytes()) == ch
    assert parse_secret(sec.to_bytes(), ch).secret == sec.secret
    bad = bytearray(ch.to_bytes())
    bad[-1] ^= 1
    with pytest.raises(ChallengeError) as e:
        parse_challenge(bytes(bad))
    assert e.value.check == "challenge-signature"
    other, _ = _challenge("c2", 8)
    with pytest.raises(ChallengeError):
        parse_secret(sec.to_bytes(), other)


def test_daily_challenge():
    day = datetime.date(2025, 3, 1)
    ch, _ = daily_challenge(ORG, G, day)
    again, _ = daily_challenge(ORG, G, day)
    assert ch.id == "daily-2025-03-01" and ch.commitment == again.commitment
    check_daily(ch, G, day, ORG.public_key)
    with pytest.raises(ChallengeError):
        check_daily(ch, G, datetime.date(2025, 3, 2), ORG.public_key)
    with pytest.raises(ChallengeError):
        check_daily(ch, G, day, PLAYER.public_key)


def test_whole_run_verifies_and_tampered_copy_fails():
    ch, sec = _challenge()
    (run, state), svc = _play(ch, sec)
    data = run.to_bytes()
    rep = R.verify_run(data, ch)
    assert rep.ok, rep.describe()
    assert rep.summary["score"] == G.score(state)
    full = run.to_bytes(svc.publish_secret())
    assert R.verify_run(full).ok
    for i in (len(full) // 2, len(full) - 300):
        bad = bytearray(full)
        bad[i] ^= 0x10
        rep = R.verify_run(bytes(bad))
        assert not rep.ok and rep.check in ("record-signature", "malformed", "chain")


def test_restart_gives_same_randomness():
    ch, sec = _challenge()
    (a, _), _ = _play(ch, sec)
    (b, _), _ = _play(ch, sec)  # a fresh service: the same secret, the same values
    assert a.records == b.records


def test_service_refuses_second_history_and_look_ahead():
    ch, sec = _challenge()
    svc = S.RevealService(ch, sec)
    svc.reveal(PLAYER.public_key, "d6", 0, b"h" * 32)
    assert svc.reveal(PLAYER.public_key, "d6", 0, b"h" * 32)  # the same history: same answer
    with pytest.raises(S.RevealRefused):
        svc.reveal(PLAYER.public_key, "d6", 0, b"x" * 32)
    with pytest.raises(S.RevealRefused):
        svc.reveal(PLAYER.public_key, "d6", 2, b"h" * 32)


def test_wrong_challenge():
    ch, sec = _challenge()
    other, _ = _challenge("c2", 9)
    (run, _), _ = _play(ch, sec)
    rep = R.verify_run(run.to_bytes(), other)
    assert rep.check == "wrong-challenge"
    fmt, _chb, records, s = decode(run.to_bytes(), max_size=1 << 23, max_array_len=1 << 17)
    swapped = encode([fmt, other.to_bytes(), records, s])
    assert R.verify_run(swapped).check == "wrong-challenge"


def test_randomness_it_could_not_have_known():
    """A player who learnt values along one history (greedy) replays them in another (random):
    the organiser's attestations are bound to the first history's heads."""
    ch, sec = _challenge()
    (first, _), _svc = _play(ch, sec, "greedy")
    learnt = {}
    for rec in first.records:
        body = decode(decode(rec, max_size=1 << 20)[0], max_size=1 << 20)
        if body[2] == "random":
            learnt[(body[3], body[4])] = (body[5], body[6])
    honest = S.RevealService(ch, sec)

    def replay(pk, stream, k, head):
        if (stream, k) in learnt:
            return learnt[(stream, k)]
        return R.value(sec.secret, ch.digest, pk, stream, k), ORG.sign(
            R.attestation(ch.digest, pk, stream, k, head,
                          R.value(sec.secret, ch.digest, pk, stream, k)))

    assert honest
    (second, _), _ = _play(ch, sec, "random", reveal=replay)
    rep = R.verify_run(second.to_bytes())
    assert not rep.ok and rep.check == "reveal-not-bound"


def test_dishonest_organiser_caught_by_published_secret():
    ch, sec = _challenge()

    def lying(pk, stream, k, head):
        val = bytes(32) if stream == "d6" else R.value(sec.secret, ch.digest, pk, stream, k)
        return val, ORG.sign(R.attestation(ch.digest, pk, stream, k, head, val))

    (run, _), _ = _play(ch, sec, reveal=lying)
    assert R.verify_run(run.to_bytes()).ok  # attested: only the published secret shows it
    rep = R.verify_run(run.to_bytes(sec.secret))
    assert rep.check == "random-value"
    assert R.verify_run(run.to_bytes(b"\x00" * 32)).check == "secret-commitment"


def test_edited_runs_rejected_with_codes():
    ch, sec = _challenge()
    (run, _), _ = _play(ch, sec)
    data = run.to_bytes()
    assert R.verify_run(_resign(data, lambda b: b[-1].__setitem__(4, 999))).check == \
        "end-mismatch"
    assert R.verify_run(_resign(data, lambda b: b.pop())).check == "unfinished"
    assert R.verify_run(_resign(data, lambda b: b.append(b[-1]))).check == "trailing"

    def swap_action(bodies):
        i = next(i for i, b in enumerate(bodies) if b[2] == "action")
        bodies[i][3] = "attack 999 0"

    assert R.verify_run(_resign(data, swap_action)).check == "illegal-action"

    def drop_random(bodies):
        i = next(i for i, b in enumerate(bodies) if b[2] == "random")
        del bodies[i]

    assert R.verify_run(_resign(data, drop_random)).check in ("random-order", "sequence")
    fmt, chb, records, s = decode(data, max_size=1 << 23, max_array_len=1 << 17)
    del records[3]
    assert R.verify_run(encode([fmt, chb, records, s])).check == "chain"
    assert R.verify_run(b"junk").check == "malformed"


def test_d6_uniformity():
    counts = [0] * 6
    for k in range(6000):
        counts[R.below(R.value(b"s" * 32, b"c" * 32, b"p" * 32, "d6", k), 6)] += 1
    assert all(850 < c < 1150 for c in counts), counts  # ~5 sigma around 1000
