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
        Invite.parse("versus://" + "a" * 400)
