# Security review of the generic protocol: the CHANCE chains, hostile rules in a
# HELLO, and rules that both seats signed but that cannot be dealt. Each test pins a hole found
# in the review (fixed) or an attack that the review judged not exploitable.
from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.engine.toy_game import TOY
from tests.protocol.pair import Pair, identities, rng_for
from versus.engine.registry import register_game, unregister_game
from versus.engine.versus42 import default_catalogue
from versus.protocol import errors
from versus.protocol.match import Phase
from versus.protocol.match.rules import RULES_FORMAT, DealMode, MatchRules
from versus.protocol.match.setup import make_hello
from versus.protocol.match.verify import verify_transcript
from versus.protocol.wire.canonical import encode
from versus.protocol.wire.envelope import MessageKind, parse_envelope
from versus.protocol.wire.transcript import Transcript

K = MessageKind


@pytest.fixture
def toy() -> Iterator[None]:
    register_game(TOY)
    yield
    unregister_game(TOY.id)


# --- hostile rules in a HELLO (or a join offer) ------------------------------------------------


@pytest.mark.parametrize("game", ["vanquishers", "multiverse", "grid", "versus42"])
@pytest.mark.parametrize("ruleset", [b"[" * 3000, b'{"a":' * 3000])
def test_deeply_nested_game_rules_are_malformed_not_a_traceback(game: str, ruleset: bytes
                                                                ) -> None:
    # The game's decode_rules reads peer bytes: vanquishers and multiverse let json's
    # RecursionError escape, which crashed `versus verify` and the joiner's take_offer.
    data = encode([RULES_FORMAT, game, ruleset, "shared-pool", [], 0, 0, [None, None]])
    with pytest.raises(errors.MalformedMessage):
        MatchRules.decode(data)


@pytest.mark.parametrize("mode", [[], [1], None, 1, "x"])
def test_a_hostile_deal_mode_is_malformed(mode: object) -> None:
    data = encode([RULES_FORMAT, "versus42", MatchRules().game_impl.encode_rules(
        MatchRules().ruleset), mode, [], 0, 0, [None, None]])
    with pytest.raises(errors.MalformedMessage):
        MatchRules.decode(data)


def test_a_game_id_names_only_registered_games() -> None:
    # a module path as game id is just an unknown id: the registry imports nothing for it
    for game in ("versus.engine.grid:GRID", "os", "tests.engine.toy_plugin", "toy-duel"):
        data = encode([RULES_FORMAT, game, b"{}", "shared-pool", [], 0, 0, [None, None]])
        with pytest.raises(errors.MalformedMessage, match="unknown game id"):
            MatchRules.decode(data)


def _hellos_only(rules: MatchRules, catalogue: object) -> Transcript:
    ids = identities("review/hellos")
    rng = rng_for("review/hellos/nonce")
    hellos = [make_hello(ids[seat], seat=seat, ruleset=rules.encode(),
                         catalogue_hash=rules.catalogue_digest(catalogue), rng=rng,
                         software="test") for seat in (0, 1)]
    return Transcript((hellos[0].raw, hellos[1].raw), ())


@pytest.mark.parametrize("pool", [("a-card-nobody-has", "another"), None])
def test_signed_rules_that_cannot_be_dealt_are_reported_not_raised(pool: object) -> None:
    # Both seats may sign rules whose shared pool cannot deal the game's decks (too small, or
    # naming cards outside the catalogue): the verifier raised LocalProtocolError on them.
    catalogue = default_catalogue()
    ids = pool if pool is not None else tuple(card.id for card in catalogue.cards[:3])
    rules = MatchRules(None, DealMode.SHARED_POOL, pool=ids)  # type: ignore[arg-type]
    report = verify_transcript(_hellos_only(rules, catalogue), catalogue)
    assert not report.ok
    assert report.check == "malformed-message" and report.player is None
    assert "cannot" in report.message or "not in the catalogue" in report.message


# --- CHANCE and a timeout claim that crosses the opening (not exploitable) ---------------------


def _staged_roll(label: str) -> tuple[Pair, list[tuple[int, bytes]]] | None:
    held: list[tuple[int, bytes]] = []

    def hold_first_chance(seat: int, raw: bytes) -> bytes | None:
        if not held and parse_envelope(raw).kind is K.CHANCE:
            held.append((seat, raw))
            return None
        return raw

    pair = Pair(MatchRules(game=TOY.id, clock_initial_ms=60_000), label=label,
                catalogue=TOY.default_catalogue(), tamper=hold_first_chance)  # type: ignore[arg-type]
    pair.start()
    pair.deliver(now_ms=0)
    return (pair, held) if held else None


def test_a_claim_crossing_a_chance_opening_rolls_back_and_both_transcripts_verify(toy: None
                                                                                   ) -> None:
    # The answerer sees the opener's preimage (so the outcome) and claims a timeout at the
    # opening's seq, as if it had crossed: the opener rolls its CHANCE back, rebuilt by
    # `restore` (chance_opened, chances.rolls and last_sender from the prefix), accepts the
    # claim and disputes it with its own clock. The roll is never applied; no one wins.
    for attempt in range(12):
        staged = _staged_roll(f"review/chance-race/{attempt}")
        if staged is not None:
            break
    else:
        raise AssertionError("no staged match reached a roll")
    pair, held = staged
    opener, raw = held[0]
    answerer = 1 - opener
    chance = parse_envelope(raw)
    assert pair.peers[opener].core.chance_opened is not None  # type: ignore[union-attr]
    # the answerer's claim, signed on the prefix before the opening (its own view)
    pair.peers[answerer].claim_timeout(10**6)
    pair.flush(answerer)
    claim = next(e for e in (parse_envelope(r) for _, r in pair.wire)
                 if e.kind is K.TIMEOUT_CLAIM)
    assert claim.kind is K.TIMEOUT_CLAIM and claim.seq == chance.seq
    assert pair.peers[answerer].receive(raw, 10**6) == []  # the crossing opening is dropped
    pair.deliver(now_ms=10**6 + 10, choose=False)
    assert not pair.errors, pair.errors
    rolled = pair.peers[opener]
    assert rolled.rolled_back == 1
    core = rolled.core
    assert core is not None
    assert core.chance_opened is None and core.chances is not None and core.chances.rolls == 0
    assert core.chain.envelopes[chance.seq].kind is K.TIMEOUT_CLAIM
    referee = core.audit_prefix(chance.seq)
    assert referee.last_sender == core.audit_prefix(chance.seq).last_sender == opener
    assert referee.chance_opened is None and referee.chances.rolls == 0  # type: ignore[union-attr]
    for seat in (0, 1):
        report = verify_transcript(pair.transcript(seat), TOY.default_catalogue())
        assert report.ok, report
        assert report.summary["ending"] == "dispute"
        assert report.summary["result"]["winner"] is None
    assert all(p.phase is Phase.CLOSED for p in pair.peers)
