# The reveal service, sans-IO (SPEC Part 11, §11.7.5, §11.7.8–11.7.10): wire messages, the ledger's
# bounds and refusals, answers checked against the organiser key, the published secret.
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from versus.cli.solo import make_bot
from versus.engine.multiverse import MULTIVERSE as G
from versus.protocol.crypto.identity import Identity
from versus.protocol.errors import LocalProtocolError
from versus.protocol.solo import run as R
from versus.protocol.solo import service as S
from versus.protocol.solo.challenge import ChallengeError, new_challenge
from versus.protocol.wire.canonical import decode, encode

ORG, PLAYER, OTHER = Identity(b"\x01" * 32), Identity(b"\x02" * 32), Identity(b"\x03" * 32)
EASY = G.rules_from_options({"difficulty": "easy", "deck": 50})
H1, H2 = b"\x11" * 32, b"\x22" * 32


def _svc(max_players=S.DEFAULT_MAX_PLAYERS):
    ch, sec = new_challenge(ORG, G, EASY, "s1", lambda n: b"\x07" * n)
    return ch, sec, S.RevealService(ch, sec, max_players=max_players)


def _ask(svc, ch, who=PLAYER, stream="d6", k=0, head=H1):
    req = S.RevealRequest.signed(who, ch.digest, stream, k, head)
    body, refused = svc.answer(req.to_bytes())
    assert len(body) <= S.MAX_ANSWER
    if refused is None:
        return S.parse_answer(body, req, ch.organiser)
    with pytest.raises(type(refused)):
        S.parse_answer(body, req, ch.organiser)  # the client raises the same class
    return refused


def test_answer_is_the_attested_value_and_retry_is_idempotent():
    ch, sec, svc = _svc()
    a = _ask(svc, ch)
    assert a.value == R.value(sec.secret, ch.digest, PLAYER.public_key, "d6", 0)
    assert _ask(svc, ch) == a  # the same head: the same answer
    assert isinstance(_ask(svc, ch, head=H2), S.SecondHistory)
    assert isinstance(_ask(svc, ch, k=2), S.OutOfOrder)
    assert isinstance(_ask(svc, ch, stream="deck-7"), S.UnknownStream)
    assert isinstance(_ask(svc, ch, stream="deck-0", k=50), S.OutOfOrder)  # a 50-card deck
    assert svc.ledger.answered(PLAYER.public_key, "d6") == 1


def test_ledger_is_bounded_per_player_and_in_players():
    ch, _, svc = _svc(max_players=1)
    _ask(svc, ch)
    assert isinstance(_ask(svc, ch, who=OTHER), S.ServiceFull)
    _ask(svc, ch, stream="deck-0")  # a known key keeps playing
    assert svc.ledger.limits == {"deck-0": 50, "deck-1": G.decks(EASY)[1].size,
                                 "d6": S.MAX_D6}


def test_requests_validated():
    ch, _, svc = _svc()
    req = S.RevealRequest.signed(PLAYER, ch.digest, "d6", 0, H1)
    assert S.RevealRequest.from_bytes(req.to_bytes()) == req
    forged = S.RevealRequest(ch.digest, PLAYER.public_key, "d6", 0, H1, OTHER.sign(b"x"))
    assert svc.answer(forged.to_bytes())[1].code == "request-signature"
    wrong = S.RevealRequest.signed(PLAYER, b"\x09" * 32, "d6", 0, H1)
    assert svc.answer(wrong.to_bytes())[1].code == "wrong-challenge"
    for junk in (b"\xc1", encode(["versus-reveal/1", "reveal"]), encode([1] * 9),
                 encode(["versus-reveal/1", "reveal", ch.digest, PLAYER.public_key, "d6", -1,
                         H1, bytes(64)]),
                 encode(["versus-reveal/1", "reveal", ch.digest, PLAYER.public_key, "d66", 0,
                         H1, bytes(64)]), b"\x00" * 600):
        body, refused = svc.answer(junk)
        assert isinstance(refused, S.MalformedRequest), junk
        assert decode(body, max_size=S.MAX_ANSWER)[2] == "malformed"
        assert "\n" not in decode(body, max_size=S.MAX_ANSWER)[3]
    with pytest.raises(LocalProtocolError):
        S.RevealRequest.signed(PLAYER, ch.digest, "dice", 0, H1)


def test_answers_checked_by_the_player():
    ch, _, svc = _svc()
    req = S.RevealRequest.signed(PLAYER, ch.digest, "d6", 0, H1)
    body, _ = svc.answer(req.to_bytes())
    other = S.RevealRequest.signed(PLAYER, ch.digest, "d6", 0, H2)
    with pytest.raises(S.BadAnswer, match="not signed"):
        S.parse_answer(body, other, ch.organiser)  # an answer for another head
    for junk in (b"junk", encode(["versus-reveal/1", "value", b"v", b"s"]),
                 encode(["versus-reveal/1", "other", 1, 2])):
        with pytest.raises(S.BadAnswer):
            S.parse_answer(junk, req, ch.organiser)


def test_persist_failure_answers_nothing():
    ch, _, svc = _svc()

    def broken(entry):
        raise OSError("disk full")

    req = S.RevealRequest.signed(PLAYER, ch.digest, "d6", 0, H1)
    with pytest.raises(OSError):
        svc.answer(req.to_bytes(), broken)
    assert svc.ledger.answered(PLAYER.public_key, "d6") == 0  # not committed: ask again
    seen = []
    assert svc.answer(req.to_bytes(), seen.append)[1] is None
    assert seen == [S.Entry(PLAYER.public_key, "d6", 0, H1)]
    assert svc.answer(req.to_bytes(), seen.append)[1] is None and len(seen) == 1


def test_ledger_load_refuses_gaps():
    _, _, svc = _svc()
    with pytest.raises(S.StateError, match="entry 0"):
        svc.ledger.load([S.Entry(PLAYER.public_key, "d6", 1, H1)])
    assert S.Entry.from_bytes(S.Entry(PLAYER.public_key, "d6", 0, H1).to_bytes()).k == 0
    with pytest.raises(S.StateError):
        S.Entry.from_bytes(b"\x93\x01\x02\x03")


def test_published_secret_and_completed_run():
    ch, sec, svc = _svc()
    run, _ = R.play(G, ch, PLAYER, svc.reveal, make_bot("greedy", 1))
    digest, secret = S.parse_published(S.published_bytes(sec), ch)
    assert (digest, secret) == (ch.digest, sec.secret)
    assert sec.key.secret_bytes() not in S.published_bytes(sec)
    full = R.with_secret(run.to_bytes(), secret, digest)
    rep = R.verify_run(full, ch)
    assert rep.ok and "recomputed" in rep.summary["randomness"]
    with pytest.raises(ChallengeError) as e:
        R.with_secret(run.to_bytes(), b"\x00" * 32)
    assert e.value.check == "secret-commitment"
    with pytest.raises(ChallengeError) as e:
        R.with_secret(run.to_bytes(), secret, b"\x05" * 32)
    assert e.value.check == "wrong-challenge"
    other, _ = new_challenge(ORG, G, EASY, "s2", lambda n: b"\x08" * n)
    with pytest.raises(ChallengeError):
        S.parse_published(S.published_bytes(sec), other)
    with pytest.raises(ChallengeError):
        S.parse_published(b"junk")


_FIELD = st.one_of(st.binary(max_size=70), st.text(max_size=20), st.integers(-2**40, 2**40),
                   st.none(), st.sampled_from(["d6", "deck-0", "deck-9"]))


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.binary(max_size=700), st.lists(_FIELD, max_size=9).map(
    lambda fields: encode(["versus-reveal/1", "reveal", *fields]))))
def test_any_bytes_get_a_refusal_never_an_exception(data):
    _, _, svc = _SHARED
    body, refused = svc.answer(data)
    fields = decode(body, max_size=S.MAX_ANSWER)
    assert refused is not None and fields[:3] == ["versus-reveal/1", "refused", refused.code]


_SHARED = _svc()


# --- the connection slots ----------------------------------------------------------------------


def _full(slots: S.Slots, groups: dict[str, int], now: float = 0.0) -> list[S.Slot]:
    return [slots.admit(g, now)[0] for g, n in groups.items() for _ in range(n)]


def test_a_full_service_makes_room_for_a_newcomer_from_a_less_crowded_group():
    slots = S.Slots(S.SlotLimits(total=8, per_group=4))
    held = _full(slots, {"a": 4, "b": 4})
    held[0].progress = 0.5  # "a"'s first connection made progress: its stalest is another
    _, victim = slots.admit("player", 1.0)
    assert victim is held[1] and len(slots) == 8
    # the flood cannot win the slot back: "a" holds 3, the player 1 (not 2 fewer)
    with pytest.raises(S.ServiceBusy, match="8 connections"):
        slots.admit("a", 2.0)
    with pytest.raises(S.ServiceBusy, match=r"per address \(b\)"):
        slots.admit("b", 2.0)
    # one connection per group everywhere: only a connection without progress for `grace`
    # seconds makes room, and the player's (progress at 9.0) is not it
    even = S.Slots(S.SlotLimits(total=3, per_group=4, grace=10.0))
    x, y = _full(even, {"x": 1, "y": 1})
    mine, _ = even.admit("player", 1.0)
    even.answered(mine, "d6", 0, S.Step.NEW, 9.0)
    with pytest.raises(S.ServiceBusy):
        even.admit("z", 9.9)
    assert even.admit("z", 10.0)[1] is x
    assert even.admit("w", 10.0)[1] is y
    with pytest.raises(S.ServiceBusy):
        even.admit("v", 18.9)


def test_slots_per_key_and_repeats():
    slots = S.Slots(S.SlotLimits(per_key=2, repeats=1))
    a, b, c = (slots.admit(f"10.0.0.{i}", float(i))[0] for i in range(3))
    for slot in (a, b, c):
        slots.bind(slot, PLAYER.public_key)
    assert slots.answered(a, "d6", 0, S.Step.NEW, 3.0) is None
    assert slots.answered(b, "deck-0", 0, S.Step.NEW, 4.0) is None
    # the key's third counted connection: its stalest other one gives way
    assert slots.answered(c, "d6", 1, S.Step.NEW, 5.0) is a
    assert len(slots) == 2
    with pytest.raises(S.LimitReached, match="one player key"):
        slots.bind(c, OTHER.public_key)
    assert slots.answered(c, "d6", 0, S.Step.REPEAT, 6.0) is None
    assert c.progress == 5.0  # a repeat renews nothing
    slots.answered(c, "deck-0", 0, S.Step.REPEAT, 6.0)  # another step: its own count
    with pytest.raises(S.LimitReached, match="d6 step 0"):
        slots.answered(c, "d6", 0, S.Step.REPEAT, 7.0)
    slots.release(c)
    slots.release(c)  # again: nothing
    assert len(slots) == 1


def test_a_replayed_request_never_closes_the_player_s_connection():
    """Someone who saw one of a player's requests (plain TCP) replays it from other addresses:
    before, each replay counted against the player's key and closed its own connection. A
    replay is only ever a repeat, and only a connection with a new step counts against a key."""
    slots = S.Slots(S.SlotLimits(per_key=1))
    player, _ = slots.admit("198.51.100.7", 0.0)
    slots.bind(player, PLAYER.public_key)
    assert slots.answered(player, "d6", 0, S.Step.NEW, 0.0) is None
    for i, now in enumerate((1.0, 1.1, 1.2)):
        replay, evicted = slots.admit(f"203.0.113.{i}", now)
        assert evicted is None
        slots.bind(replay, PLAYER.public_key)
        assert slots.answered(replay, "d6", 0, S.Step.REPEAT, now) is None
    assert player in slots._slots
