from __future__ import annotations

import pytest

from tests.p2p.conftest import identity
from versus.p2p.errors import InviteError
from versus.p2p.invite import Invite

FP = identity(2).fingerprint


@pytest.mark.parametrize(
    "host, text",
    [
        ("192.168.1.20", "versus://192.168.1.20:47820#{fp}"),
        ("::1", "versus://[::1]:47820#{fp}"),
        ("fe80::1%eth0", "versus://[fe80::1%25eth0]:47820#{fp}"),
        ("game.example.org", "versus://game.example.org:47820#{fp}"),
    ],
)
def test_round_trip(host: str, text: str) -> None:
    invite = Invite(host, 47820, FP)
    assert str(invite) == text.format(fp=FP)
    assert Invite.parse(str(invite)) == invite


def test_parse_is_forgiving_about_the_fingerprint() -> None:
    sloppy = f"  VERSUS://Game.Example.org:1#{FP.lower().replace('-', ' ')}  "
    assert Invite.parse(sloppy) == Invite("game.example.org", 1, FP)


@pytest.mark.parametrize(
    "text, problem",
    [
        ("http://host:1#X", "does not start with versus://"),
        ("versus://host:1", "no #FINGERPRINT"),
        ("versus://host#{fp}", "has no :PORT"),
        ("versus://host:0#{fp}", "port 0 is outside 1..65535"),
        ("versus://host:http#{fp}", "port 'http' is not a number"),
        ("versus://::1:5#{fp}", "must be in brackets"),
        ("versus://[::1:5#{fp}", r"expected \[IPV6\]:PORT"),
        ("versus://[nope]:5#{fp}", "is not an IPv6 address"),
        ("versus://bad_host!:5#{fp}", "not a valid host name"),
        ("versus://300.1.1.1:5#{fp}", "not a valid IPv4 address"),
        ("versus://u@host:5#{fp}", "may only be HOST:PORT"),
        ("versus://host:5/path#{fp}", "may only be HOST:PORT"),
        ("versus://host:5#ABC", "not a fingerprint: 'ABC'"),
        ("versus://:5#{fp}", "has no host"),
    ],
)
def test_errors_name_the_problem(text: str, problem: str) -> None:
    text = text.format(fp=FP)
    with pytest.raises(InviteError, match=problem) as info:
        Invite.parse(text)
    assert "\n" not in str(info.value)


def test_too_long() -> None:
    with pytest.raises(InviteError, match="too long"):
        Invite.parse("versus://" + "a" * 600)


# --- several addresses and a relay ------------------------------------------------

ROOM = bytes(range(16))
ROOM_TEXT = "aaaqeayeaudaocajbifqydiob4"


def test_room_text_is_lowercase_unpadded_base32() -> None:
    from versus.p2p.invite import decode_room, encode_room

    assert encode_room(ROOM) == ROOM_TEXT and len(ROOM_TEXT) == 26
    assert decode_room(ROOM_TEXT, "x") == ROOM
    assert decode_room(ROOM_TEXT.upper(), "x") == ROOM


def test_several_addresses_and_a_relay_round_trip() -> None:
    invite = Invite.of([("203.0.113.5", 47820), ("192.168.1.20", 47820),
                        ("2001:db8::20", 47820), ("fe80::1%eth0", 5)], FP,
                       relay=("relay.example.org", 4001), room=ROOM)
    text = (f"versus://203.0.113.5:47820,192.168.1.20:47820,[2001:db8::20]:47820,"
            f"[fe80::1%25eth0]:5?relay=tcp:relay.example.org:4001&room={ROOM_TEXT}#{FP}")
    assert str(invite) == text
    assert Invite.parse(text) == invite
    assert invite.addresses[0] == (invite.host, invite.port) == ("203.0.113.5", 47820)
    assert invite.addresses[3] == ("fe80::1%eth0", 5)
    assert (invite.relay, invite.room) == (("relay.example.org", 4001), ROOM)


def test_relay_without_more_addresses_and_ipv6_relay() -> None:
    text = f"versus://127.0.0.1:1?room={ROOM_TEXT}&relay=tcp:[::1]:4001#{FP}"
    invite = Invite.parse(text)
    assert invite.relay == ("::1", 4001) and invite.room == ROOM and invite.more == ()
    assert str(invite) == f"versus://127.0.0.1:1?relay=tcp:[::1]:4001&room={ROOM_TEXT}#{FP}"
    assert Invite.parse(str(invite)) == invite


def test_old_invites_parse_exactly_as_before() -> None:
    invite = Invite.parse(f"versus://192.168.1.20:47820#{FP}")
    assert invite == Invite("192.168.1.20", 47820, FP)
    assert invite.more == () and invite.relay is None and invite.room is None
    assert invite.addresses == (("192.168.1.20", 47820),)
    assert str(invite) == f"versus://192.168.1.20:47820#{FP}"


def test_a_full_invite_fits_the_length_limit() -> None:
    addresses = [(f"fe80::{i}:aaaa:bbbb:cccc%25wlp0s20f3", 65535) for i in range(8)]
    text = (f"versus://{','.join(f'[{h}]:{p}' for h, p in addresses)}?relay=tcp:"
            f"{'r' * 60}.example.org:65535&room={ROOM_TEXT}#{FP}")
    assert len(text) <= 600
    assert len(Invite.parse(text).addresses) == 8


@pytest.mark.parametrize(
    "text, problem",
    [
        ("versus://a:1,#{fp}", "empty address"),
        ("versus://,a:1#{fp}", "empty address"),
        ("versus://a:1,a:1#{fp}", "listed twice"),
        ("versus://a:1,A:1#{fp}", "listed twice"),
        ("versus://" + ",".join(f"h{i}:1" for i in range(9)) + "#{fp}", "9 addresses, at most 8"),
        ("versus://a:1,b:x#{fp}", "port 'x' is not a number"),
        ("versus://a:1,::1:5#{fp}", "must be in brackets"),
        ("versus://a:1?relay=tcp:r:1#{fp}", "room= is missing"),
        ("versus://a:1?room=" + ROOM_TEXT + "#{fp}", "relay= is missing"),
        ("versus://a:1?relay=r:1&room=" + ROOM_TEXT + "#{fp}", "not tcp:HOST:PORT"),
        ("versus://a:1?relay=tcp:r:0&room=" + ROOM_TEXT + "#{fp}", "outside 1..65535"),
        ("versus://a:1?relay=tcp:r:1&room=abc#{fp}", "not 26 base32"),
        ("versus://a:1?relay=tcp:r:1&room=" + "1" * 26 + "#{fp}", "not base32"),
        ("versus://a:1?relay=tcp:r:1&room=" + ROOM_TEXT[:-1] + "5#{fp}", "not canonical"),
        ("versus://a:1?relay=tcp:r:1&relay=tcp:r:2&room=" + ROOM_TEXT + "#{fp}", "given twice"),
        ("versus://a:1?relay=tcp:r:1&room=" + ROOM_TEXT + "&x=1#{fp}", "unknown parameter 'x'"),
        ("versus://a:1?relay#{fp}", "is not NAME=VALUE"),
        ("versus://a:1?#{fp}", "is not NAME=VALUE"),
        ("versus://a:1/x,b:2#{fp}", "may only be HOST:PORT"),
    ],
)
def test_grammar_errors_name_the_input(text: str, problem: str) -> None:
    text = text.format(fp=FP)
    with pytest.raises(InviteError, match=problem) as info:
        Invite.parse(text)
    message = str(info.value)
    assert "\n" not in message and repr(text) in message


def test_constructor_checks_the_same_rules() -> None:
    with pytest.raises(InviteError, match="needs a room"):
        Invite("a", 1, FP, relay=("r", 1))
    with pytest.raises(InviteError, match="16 bytes"):
        Invite("a", 1, FP, relay=("r", 1), room=b"short")
    with pytest.raises(InviteError, match="listed twice"):
        Invite.of([("a", 1), ("a", 1)], FP)
    with pytest.raises(InviteError, match="at least one"):
        Invite.of([], FP)
    with pytest.raises(InviteError, match="not a valid host"):
        Invite.of([("a", 1), ("bad_host!", 2)], FP)
