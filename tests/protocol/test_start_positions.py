# A match from a start position through the real MatchPeer pair (SPEC §3.3 "Start positions",
# §4.12): the HELLOs bind the start, each seat's hidden cards of the position are dealt from
# its own committed deck (of the size it holds hidden), the verifier replays from the start,
# and a peer cannot impose a start (or drop one) the other seat did not take.
from __future__ import annotations

import pytest

from tests.engine.versus42.test_start_positions import with_verso_field_cards
from tests.protocol.pair import Pair, identities, master_secret
from versus.engine import load_position
from versus.engine.api import rules_for_position
from versus.engine.registry import get_game
from versus.engine.versus42 import default_catalogue
from versus.engine.versus42.catalogue import catalogue_version
from versus.protocol.errors import LocalProtocolError, SetupMismatch
from versus.protocol.match import MatchPeer
from versus.protocol.match.rules import DealMode, MatchRules
from versus.protocol.match.verify import replay_inputs, verify_transcript

VERSUS = get_game("versus42")


def start_rules(seed: bytes, mode: DealMode) -> MatchRules:
    return MatchRules(rules_for_position(VERSUS, with_verso_field_cards(seed, uneven=True)),
                      mode)


@pytest.mark.parametrize("mode", list(DealMode))
def test_a_match_from_a_start_position_verifies(mode: DealMode) -> None:
    rules = start_rules(b"start-1", mode)
    pair = Pair(rules, label=f"start-{mode.value}").run()
    assert not pair.errors, pair.errors
    raw = pair.peers[0].transcript_bytes()
    assert raw == pair.peers[1].transcript_bytes()
    report = verify_transcript(raw)
    assert report.ok and report.summary["result"] is not None
    replay = replay_inputs(raw)
    assert replay.rules.ruleset.start == rules.ruleset.start
    # each seat's committed deck is the size of its hidden cards, not the ruleset's deck size
    position = load_position(rules.ruleset.start)
    hidden = [sum(position.ident[h] < 0 for h in range(p * position.n, (p + 1) * position.n))
              for p in (0, 1)]
    assert [d.size for d in rules.decks] == hidden and hidden[0] != hidden[1]


def test_a_peer_cannot_impose_or_drop_a_start() -> None:
    """Seat 1 plays the new game, seat 0 sends HELLOs for a start (or the other way round):
    the HELLOs do not agree, and the match never starts."""
    with_start = start_rules(b"start-2", DealMode.DECKLIST)
    plain = MatchRules(VERSUS.default_rules(), DealMode.DECKLIST)
    for rules in ((with_start, plain), (plain, with_start)):
        ids = identities("impose")
        peers = [MatchPeer(seat, ids[seat], rules[seat], default_catalogue(),
                           master_secret=master_secret("impose", seat), software="test")
                 for seat in (0, 1)]
        hellos = [peer.start()[0] for peer in peers]
        with pytest.raises(SetupMismatch, match="hellos do not agree"):
            peers[1].receive(hellos[0])
        assert peers[1].core is None


def test_a_start_of_other_card_data_is_refused_before_the_match() -> None:
    """Our own misuse, found at once: a start made with the packaged card data and a peer set
    up with catalogue version 1 (the match would fail at its first state)."""
    rules = start_rules(b"start-2", DealMode.DECKLIST)
    with pytest.raises(LocalProtocolError, match="made with catalogue"):
        MatchPeer(0, identities("old")[0], rules, catalogue_version(1),
                  master_secret=master_secret("old", 0), software="test")


def test_the_verifier_refuses_a_start_the_card_data_cannot_play(monkeypatch) -> None:
    """A forger's (or a broken peer's) transcript whose HELLOs bind catalogue version 1 and a
    start made with the packaged one: the verifier says the rules cannot start a game, in one
    line, instead of failing inside the replay."""
    rules = start_rules(b"start-2", DealMode.DECKLIST)
    monkeypatch.setattr(MatchRules, "start_problem", lambda self, catalogue: None)
    pair = Pair(rules, label="old-data", catalogue=catalogue_version(1)).run()
    assert pair.errors  # the match itself could not start (its first state)
    monkeypatch.undo()
    report = verify_transcript(pair.peers[0].transcript_bytes())
    assert not report.ok and report.check == "malformed-message"
    assert "cannot start a game with this card data" in report.message
    assert "made with catalogue" in report.message
