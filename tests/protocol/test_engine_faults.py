# A game engine that raises (SPEC §4.9 "Engine errors", Decided): whatever a game does, the
# protocol sorts it by whose input it was. The peer's signed input the engine cannot apply is
# `unplayable-input` evidence against it, kept in the honest transcript and re-checked by the
# verifier; our own is a LocalProtocolError before anything is signed; rules whose new game
# raises are `unplayable-rules` at record 1. The verifier never raises on what a file holds.
#
# The engine is the toy duel (tests/engine/toy_game.py) taught to raise any exception on one
# input, on encoding the state after it, or at its new game; the same game id is registered
# with or without the fault, so a transcript played on the sound engine is replayed on the
# faulty one. The real case: a Vanquishers start whose Storage Energy is 32767, where one
# `exile` overflows the state encoding.
from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.engine.toy_game import ToyDuel, ToyState
from tests.protocol.pair import Pair
from versus.engine.api import Setup
from versus.engine.errors import UnknownGameError
from versus.engine.registry import register_game, unregister_game
from versus.protocol import errors
from versus.protocol.match import Phase
from versus.protocol.match import verify as verify_module
from versus.protocol.match.rules import DealMode, MatchRules
from versus.protocol.match.verify import verify_transcript
from versus.protocol.wire.envelope import MessageKind, parse_envelope
from versus.protocol.wire.transcript import Transcript

K = MessageKind
FAULTS = [OverflowError, IndexError, KeyError, RecursionError, ZeroDivisionError]


class FaultyToy(ToyDuel):
    """The toy duel under the id "toy-faulty", raising `error` where told: `step` of an input
    starting with `on`, `encode` of a state whose bet is `on` (the state hash after it), or
    `new_game` (for every seed but the all-zero one `start_problem` tries, or for all)."""

    id = "toy-faulty"

    def __init__(self, error: type[Exception] | None = None, where: str = "step",
                 on: str = "pass") -> None:
        self.error, self.where, self.on = error, where, on

    def _fault(self, what: str) -> None:
        assert self.error is not None
        raise self.error(f"toy engine fault on {what}")

    def new_game(self, setup: Setup) -> ToyState:
        if self.error is not None and (
                self.where == "new_game-all"
                or (self.where == "new_game" and setup.seed != bytes(32))):
            self._fault("the new game")
        return super().new_game(setup)

    def step(self, s: ToyState, inp: str) -> ToyState:
        if self.error is not None and self.where == "step" and inp.startswith(self.on):
            self._fault(inp)
        return super().step(s, inp)

    def encode_state(self, s: ToyState) -> bytes:
        if self.error is not None and self.where == "encode" and s.bet == self.on:
            self._fault("encode")
        return super().encode_state(s)


@pytest.fixture
def engine() -> Iterator[Any]:
    """`engine(error, where, on)` registers the toy under "toy-faulty" with that fault (no
    arguments: the sound toy); the last one stays registered for the test."""
    def use(error: type[Exception] | None = None, where: str = "step", on: str = "pass"
            ) -> FaultyToy:
        with contextlib.suppress(UnknownGameError):
            unregister_game(FaultyToy.id)
        game = FaultyToy(error, where, on)
        register_game(game)
        return game

    use()
    yield use
    unregister_game(FaultyToy.id)


def toy_pair(label: str, **kwargs: Any) -> Pair:
    return Pair(MatchRules(game=FaultyToy.id), label=label,
                catalogue=FaultyToy().default_catalogue(), **kwargs)  # type: ignore[arg-type]


def records_of(pair: Pair, seat: int) -> list[Any]:
    return [parse_envelope(raw) for raw in pair.transcript(seat).envelopes]


def assert_same_both_paths(data: Transcript | bytes) -> Any:
    """The report, checked equal on the fast path and with every signature checked."""
    fast, full = verify_transcript(data), verify_transcript(data, full=True)
    assert fast.to_dict() == full.to_dict()
    return fast


def cheater_forges_pass(pair_box: list[Pair]) -> Any:
    """Seat 0's tamper: its turn action goes out as a signed "pass" its engine cannot apply
    (with a made-up state hash: the cheater runs other code)."""
    def tamper(seat: int, raw: bytes) -> bytes:
        env = parse_envelope(raw)
        if seat == 0 and env.kind is K.ACTION:
            return pair_box[0].forge(0, raw, body=["pass", bytes(32)])
        return raw
    return tamper


# --- the peer's input ------------------------------------------------------------------------


@pytest.mark.parametrize("where", ["step", "encode"])
@pytest.mark.parametrize("error", FAULTS, ids=lambda e: e.__name__)
def test_the_peer_s_input_the_engine_cannot_apply_is_evidence_against_it(
        engine: Any, error: type[Exception], where: str) -> None:
    engine(error, where)
    box: list[Pair] = []
    pair = toy_pair(f"faulty/peer/{where}", tamper=cheater_forges_pass(box))
    box.append(pair)
    pair.start()
    pair.deliver(choose=False)
    pair.peers[0].submit("bet")  # what the cheater's own engine applies; "pass" goes out
    pair.deliver()
    (seat, raised), = pair.errors
    assert seat == 1 and isinstance(raised, errors.UnplayableInput), raised
    assert raised.code == "unplayable-input" and raised.player == 0 and raised.attributable
    assert error.__name__ in str(raised) and "'pass'" in str(raised)
    forged = parse_envelope(raised.evidence[-1])
    assert (forged.kind, forged.sender, forged.body[0]) == (K.ACTION, 0, "pass")
    # the honest seat kept its transcript, ending with its EVIDENCE; it verifies, naming seat 0
    assert pair.peers[1].phase is Phase.ABORTED
    assert records_of(pair, 1)[-1].kind is K.EVIDENCE
    report = assert_same_both_paths(pair.transcript(1))
    assert report.ok, report.describe()
    fault = report.summary["fault"]
    assert (fault["code"], fault["player"], fault["attributable"]) == (
        "unplayable-input", 0, True)
    # the cheater's own story (the honest prefix and its forged action) is INVALID at that
    # record, against seat 0
    honest = pair.transcript(1)
    prefix = tuple(raw for raw in honest.envelopes if parse_envelope(raw).seq < forged.seq)
    cheat = Transcript(honest.hellos, (*prefix, raised.evidence[-1]))
    report = assert_same_both_paths(cheat)
    assert not report.ok and (report.check, report.player) == ("unplayable-input", 0)
    assert report.bad_index == forged.seq + 2


def test_a_transcript_the_engine_cannot_replay_is_a_verdict_at_that_record(engine: Any) -> None:
    """A match played on the sound engine, replayed on one that raises on "pass": INVALID at
    the record that carried it, against its signer, on both paths (no traceback)."""
    for seed in range(20):
        pair = toy_pair("faulty/replay", seed=seed).run()
        texts = [e.body[0] for e in records_of(pair, 0) if e.kind is K.ACTION]
        if texts == ["pass"]:
            break
    else:
        raise AssertionError("no seed among 0..19 passes")
    assert verify_transcript(pair.transcript(0)).ok
    action = next(e for e in records_of(pair, 0) if e.kind is K.ACTION)
    for error in FAULTS:
        engine(error, "encode")
        report = assert_same_both_paths(pair.transcript(0))
        assert not report.ok and report.check == "unplayable-input", report.describe()
        assert (report.bad_index, report.player) == (action.seq + 2, action.sender)
        assert error.__name__ in report.message


# --- our own input ---------------------------------------------------------------------------


@pytest.mark.parametrize("where", ["step", "encode"])
def test_our_own_input_the_engine_cannot_apply_is_our_bug_and_is_never_signed(
        engine: Any, where: str) -> None:
    engine(OverflowError, where)
    pair = toy_pair(f"faulty/own/{where}")
    pair.start()
    pair.deliver(choose=False)
    seat0 = pair.peers[0]
    assert seat0.my_turn and "pass" in seat0.legal_actions()
    before = pair.transcript(0)
    with pytest.raises(errors.LocalProtocolError, match="OverflowError") as raised:
        seat0.submit("pass")
    assert not isinstance(raised.value, errors.RemoteProtocolError)
    assert seat0.outgoing() == [] and pair.transcript(0) == before and seat0.fault is None
    # the match goes on with another input, and ends verified
    seat0.submit("bet")
    pair.deliver()
    assert not pair.errors and [p.phase for p in pair.peers] == [Phase.CLOSED] * 2
    assert verify_transcript(pair.transcript(0)).ok


def test_our_own_automatic_message_the_engine_cannot_apply_is_not_sent(engine: Any) -> None:
    """The engine raises on seat 0's reveal (its OPEN, which the peer sends by itself): a
    LocalProtocolError out of the call that led to it, nothing signed, no EVIDENCE."""
    engine(IndexError, "step", on="reveal")
    pair = toy_pair("faulty/open")
    pair.run()
    (seat, raised), = pair.errors
    assert seat == 0 and type(raised) is errors.LocalProtocolError, raised
    assert "our own OPEN cannot be made" in str(raised) and "IndexError" in str(raised)
    kinds = [e.kind for e in records_of(pair, 0)]
    assert K.OPEN not in kinds and K.EVIDENCE not in kinds
    assert records_of(pair, 0) == records_of(pair, 1)


# --- rules that cannot be played -------------------------------------------------------------


def test_rules_whose_new_game_raises_cannot_be_played_at_record_1(engine: Any) -> None:
    pair = toy_pair("faulty/rules").run()
    data = pair.peers[0].transcript_bytes()
    for error in FAULTS:
        engine(error, "new_game")  # the seed of this match only
        report = assert_same_both_paths(data)
        assert not report.ok and (report.check, report.bad_index, report.player) == (
            "unplayable-rules", 1, None), report.describe()
        assert "cannot be played" in report.message and error.__name__ in report.message
        engine(error, "new_game-all")  # found before the replay, as a start the data refuses
        report = assert_same_both_paths(data)
        assert not report.ok and (report.bad_index, report.player) == (1, None)
        assert "cannot start a game" in report.message and error.__name__ in report.message
        with pytest.raises(errors.LocalProtocolError, match=error.__name__):
            toy_pair("faulty/rules/peer")


def test_live_rules_whose_new_game_raises_end_both_transcripts_at_the_setup(
        engine: Any) -> None:
    """Both seats took the rules, the joint seed makes the new game raise: the last setup
    message (a SHUFFLE in the shared pool, else a REVEAL) is kept and sent, both seats stop
    with UnplayableRules, and both identical transcripts say the rules cannot be played at
    record 1 (not `incomplete` against the seat that sent it)."""
    engine(IndexError, "new_game")
    pair = toy_pair("faulty/rules/live").run()
    pair.deliver()  # (the pair stops at its first error: the sending seat's)
    assert sorted(seat for seat, _ in pair.errors) == [0, 1], pair.errors
    assert all(type(e) is errors.UnplayableRules for _, e in pair.errors)
    assert pair.transcript(0) == pair.transcript(1)
    assert records_of(pair, 0)[-1].kind is K.SHUFFLE and len(records_of(pair, 0)) == 6
    assert all(p.phase is Phase.ABORTED for p in pair.peers)
    report = assert_same_both_paths(pair.transcript(0))
    assert (report.ok, report.check, report.bad_index, report.player) == (
        False, "unplayable-rules", 1, None), report.describe()


def test_the_verifier_turns_its_own_failure_into_a_verdict_naming_the_record(
        engine: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    pair = toy_pair("faulty/internal").run()
    data = pair.peers[0].transcript_bytes()
    first_action = next(e for e in records_of(pair, 0) if e.kind in (K.ACTION, K.CHOICE))

    def broken(self: Any, envelope: Any, body: Any, own: bool) -> Any:
        raise TypeError("a bug of ours")

    from versus.protocol.match import core

    monkeypatch.setitem(core._HANDLERS, K.ACTION, broken)
    monkeypatch.setitem(core._HANDLERS, K.CHOICE, broken)
    report = assert_same_both_paths(data)
    assert not report.ok and (report.check, report.bad_index, report.player) == (
        "internal-error", first_action.seq + 2, None), report.describe()
    assert "TypeError" in report.message
    monkeypatch.undo()
    monkeypatch.setattr(verify_module, "_checked_run", lambda *a: 1 / 0)
    report = verify_transcript(data)
    assert not report.ok and report.check == "internal-error" and "ZeroDivisionError" in \
        report.message


# --- the real case: a Vanquishers start with Storage Energy 32767 ----------------------------


def hostile_start() -> tuple[Any, int]:
    """Rules starting from a real position at the exile step with the active player's Storage
    Energy at 32767 (the 16-bit encoding's largest value), and that player's seat; skipped once
    the position reader refuses such a start."""
    from tests.engine.vanquishers.referee import Game
    from versus.engine.api import Finished, rules_for_position
    from versus.engine.errors import EngineError
    from versus.engine.vanquishers import VANQUISHERS as G
    from versus.engine.vanquishers.engine import D, S
    from versus.engine.vanquishers.rules import Rules
    from versus.engine.vanquishers.text import dump_position

    game = Game(Rules(), seed="attack")
    while not isinstance(G.decision(game.state), Finished):
        game.advance()
        s = game.state
        if s.dec[0] == D.TURN and s.phase == 3 and any(
                G.format_input(a).startswith("exile ") for a in G.legal_actions(s)):
            break
    obj = json.loads(dump_position(s))
    obj["state"]["sides"][s.active][S.STORAGE] = 32767
    try:
        return rules_for_position(G, json.dumps(obj)), s.active
    except EngineError as error:  # the reader refuses it (its own regression, test_bounds.py)
        assert "32767" in str(error) and "storage" in str(error), error
        pytest.skip(f"the position reader refuses the hostile start: {error}")


def vanquishers_pair(label: str, **kwargs: Any) -> tuple[Pair, int]:
    from versus.engine.vanquishers import VANQUISHERS as G
    from versus.engine.vanquishers import starter_deck

    rules, active = hostile_start()
    cat = G.default_catalogue()
    decks = tuple(starter_deck(cat, rules.heroes[d.owner], 70)[:d.size] for d in G.decks(rules))
    return Pair(MatchRules(rules, DealMode.DECKLIST, game=G.id), label=label, decks=decks,
                catalogue=cat, **kwargs), active  # type: ignore[arg-type]


def exile_text(pair: Pair, seat: int) -> str:
    from versus.engine.vanquishers import VANQUISHERS as G

    state = pair.peers[seat].core.state  # type: ignore[union-attr]
    return next(t for t in map(G.format_input, G.legal_actions(state)) if t.startswith("exile "))


def test_a_hostile_vanquishers_start_the_cheater_exiles_on_is_a_fault_verdict(
        tmp_path: Any) -> None:
    box: list[Pair] = []
    cheater = [-1]

    def tamper(seat: int, raw: bytes) -> bytes:
        env = parse_envelope(raw)
        if seat == cheater[0] and env.kind is K.ACTION:  # as the receiver stands before it
            text = exile_text(box[0], 1 - seat)
            return box[0].forge(seat, raw, body=[text, bytes(32)])
        return raw

    pair, active = vanquishers_pair("vq-hostile/cheat", tamper=tamper)
    cheater[0] = active
    box.append(pair)
    pair.start()
    pair.deliver(choose=False)
    mover = pair.peers[active]
    mover.submit(next(a for a in mover.legal_actions()  # its own engine applies this one
                      if not str(pair.rules.game_impl.format_input(a)).startswith("exile")))
    pair.deliver()
    (seat, raised), = pair.errors
    assert seat == 1 - active and isinstance(raised, errors.UnplayableInput), raised
    assert raised.player == active and "OverflowError" in str(raised)
    honest = pair.peers[1 - active].transcript_bytes()
    report = assert_same_both_paths(honest)
    assert report.ok and report.summary["fault"]["player"] == active, report.describe()
    # the cheater's transcript with its exile: one INVALID line from `versus verify`, exit 1
    transcript = pair.transcript(1 - active)
    forged = parse_envelope(raised.evidence[-1])
    prefix = tuple(r for r in transcript.envelopes if parse_envelope(r).seq < forged.seq)
    from versus.cli.main import main
    from versus.protocol.wire.transcript import dump_transcript

    path = tmp_path / "cheat.vtr"
    path.write_bytes(dump_transcript(Transcript(transcript.hellos,
                                                (*prefix, raised.evidence[-1]))))
    report = assert_same_both_paths(path.read_bytes())
    assert (report.check, report.player, report.bad_index) == (
        "unplayable-input", active, forged.seq + 2)
    assert main(["verify", "-q", str(path)]) == 1


def test_a_hostile_vanquishers_start_the_honest_seat_exiles_on_is_its_local_error() -> None:
    pair, active = vanquishers_pair("vq-hostile/own")
    pair.start()
    pair.deliver(choose=False)
    mover = pair.peers[active]
    assert mover.my_turn
    with pytest.raises(errors.LocalProtocolError, match="OverflowError"):
        mover.submit(exile_text(pair, active))
    assert mover.outgoing() == [] and mover.fault is None and mover.my_turn
