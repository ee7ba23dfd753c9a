from __future__ import annotations

import hashlib

import pytest

from tests.protocol.support import (
    CATALOGUE_HASH,
    RULESET,
    make_hellos,
    make_players,
    make_rng,
)
from versus.protocol.crypto.identity import Identity
from versus.protocol.errors import (
    BadSignature,
    LocalProtocolError,
    MalformedMessage,
    SetupMismatch,
)
from versus.protocol.match.setup import MatchSetup, derive_match_id, make_hello, open_hello
from versus.protocol.wire.canonical import TAG_MATCH_ID, encode
from versus.protocol.wire.envelope import NO_MATCH_ID, MessageKind, seal

PLAYERS = make_players()


def test_hello_round_trip():
    hello = make_hellos(PLAYERS)[1]
    opened = open_hello(hello.raw)
    assert opened == hello
    assert (opened.seat, opened.public_key, opened.ruleset) == (1, PLAYERS[1].public_key, RULESET)
    assert len(opened.nonce) == 32


def test_match_id_is_the_hash_of_both_hellos_in_seat_order():
    first, second = make_hellos(PLAYERS)
    setup = MatchSetup.from_hellos(second, first)  # order of arrival does not matter
    expected = hashlib.sha256(TAG_MATCH_ID + encode([first.raw, second.raw])).digest()
    assert setup.match_id == derive_match_id(first.raw, second.raw) == expected
    assert setup.keys == (PLAYERS[0].public_key, PLAYERS[1].public_key)
    assert (setup.ruleset, setup.catalogue_hash) == (RULESET, CATALOGUE_HASH)
    assert setup.seat_of(PLAYERS[1]) == 1


def test_fresh_nonces_give_fresh_match_ids():
    one = MatchSetup.from_hellos(*make_hellos(PLAYERS, "a"))
    two = MatchSetup.from_hellos(*make_hellos(PLAYERS, "b"))
    assert one.match_id != two.match_id
    assert one.genesis != two.genesis


def _hello(player: int, seat: int, label: str = "x", **overrides):
    fields = {"ruleset": RULESET, "catalogue_hash": CATALOGUE_HASH}
    fields.update(overrides)
    return make_hello(PLAYERS[player], seat=seat, rng=make_rng(label), **fields)


@pytest.mark.parametrize(
    ("second", "reason"),
    [
        (lambda: _hello(1, 0), "both claim seat 0"),
        (lambda: _hello(0, 1, "y"), "same public key"),
        (lambda: _hello(1, 1, "x"), "same nonce"),
        (lambda: _hello(1, 1, "y", ruleset=b"other"), "different rulesets"),
        (lambda: _hello(1, 1, "y", catalogue_hash=bytes(32)), "different catalogues"),
    ],
)
def test_incompatible_hellos_are_refused(second, reason):
    first = _hello(0, 0)
    with pytest.raises(SetupMismatch, match=reason) as info:
        MatchSetup.from_hellos(first, second(), local_seat=0)
    assert info.value.player == 1
    assert len(info.value.evidence) == 2


def test_pinned_peer_key():
    first, second = make_hellos(PLAYERS)
    stranger = Identity.generate(make_rng("stranger")).public_key
    with pytest.raises(SetupMismatch, match="seat 1 is not the expected key"):
        MatchSetup.from_hellos(first, second, expected_keys=(None, stranger))
    MatchSetup.from_hellos(first, second, expected_keys=(None, PLAYERS[1].public_key))


def test_hello_signed_by_another_key_is_refused():
    # The body announces player 1's key, but player 0 signed it.
    body = [1, PLAYERS[1].public_key, RULESET, CATALOGUE_HASH, bytes(32), "", bytes(32)]
    raw = seal(PLAYERS[0], match_id=NO_MATCH_ID, seq=0, prev_hash=bytes(32), sender=1,
               kind=MessageKind.HELLO, body=body).raw
    with pytest.raises(BadSignature):
        open_hello(raw)


@pytest.mark.parametrize(
    ("overrides", "reason"),
    [
        ({"kind": MessageKind.ACTION}, "not HELLO"),
        ({"match_id": bytes([1]) * 32}, "all-zero"),
        ({"seq": 1}, "all-zero"),
        ({"body": [0, b"k" * 32]}, "7 fields"),
        ({"sender": 1}, "differs from sender"),
    ],
)
def test_malformed_hellos(overrides, reason):
    fields = {
        "match_id": NO_MATCH_ID, "seq": 0, "prev_hash": bytes(32), "sender": 0,
        "kind": MessageKind.HELLO,
        "body": [0, PLAYERS[0].public_key, RULESET, CATALOGUE_HASH, bytes(32), "", bytes(32)],
    }
    fields.update(overrides)
    raw = seal(PLAYERS[0], **fields).raw
    with pytest.raises(MalformedMessage, match=reason):
        open_hello(raw)


def test_make_hello_refuses_bad_input():
    with pytest.raises(LocalProtocolError, match="catalogue hash"):
        _hello(0, 0, catalogue_hash=b"short")
    with pytest.raises(LocalProtocolError, match="seat"):
        _hello(0, 2)


def test_seat_of_a_stranger():
    setup = MatchSetup.from_hellos(*make_hellos(PLAYERS))
    with pytest.raises(LocalProtocolError):
        setup.seat_of(Identity.generate(make_rng("stranger")))


def test_a_hello_of_the_format_before_the_binding_reads_as_unbound():
    """Transcripts signed before HELLOs carried a channel binding (6 fields) still verify:
    their HELLOs read as bound to no channel session."""
    body = [0, PLAYERS[0].public_key, RULESET, CATALOGUE_HASH, bytes([9]) * 32, "old"]
    raw = seal(PLAYERS[0], match_id=NO_MATCH_ID, seq=0, prev_hash=bytes(32), sender=0,
               kind=MessageKind.HELLO, body=body).raw
    hello = open_hello(raw)
    assert hello.binding == bytes(32) and not hello.bound and hello.raw == raw
