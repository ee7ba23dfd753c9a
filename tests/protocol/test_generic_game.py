# The protocol is generic: the toy duel of tests/engine/toy_game.py, which shares no
# code with Versus, plays whole matches through MatchPeer: one shared hidden deck dealt from the
# mental-poker pool (DEAL), a turn, a choice, a public die (CHANCE, settled by the two seats'
# hash-chain preimages) and the reveals. The verifier re-derives every outcome; every way to
# cheat a roll is caught with signed evidence that the verifier re-checks.
from __future__ import annotations

import collections
from collections.abc import Callable, Iterator

import pytest

from tests.engine.toy_game import TOY
from tests.protocol.pair import Pair, identities, reseal
from versus.engine.registry import register_game, unregister_game
from versus.protocol import errors
from versus.protocol.crypto.chance import CHANCE_ROLLS, ChanceChain, chance_link, chance_outcome
from versus.protocol.match import Phase
from versus.protocol.match.rules import MatchRules
from versus.protocol.match.verify import replay_inputs, verify_transcript
from versus.protocol.wire.envelope import Envelope, MessageKind, parse_envelope, seal

K = MessageKind


@pytest.fixture(autouse=True)
def toy_registered() -> Iterator[None]:
    register_game(TOY)
    yield
    unregister_game(TOY.id)


def toy_pair(label: str, seed: int = 0, tamper: Callable[..., object] | None = None) -> Pair:
    return Pair(MatchRules(game=TOY.id), label=label, seed=seed,
                catalogue=TOY.default_catalogue(), tamper=tamper)  # type: ignore[arg-type]


def kinds(pair: Pair, seat: int = 0) -> list[MessageKind]:
    return [parse_envelope(raw).kind for raw in pair.transcript(seat).envelopes]


def test_a_whole_toy_match_closes_and_both_transcripts_verify() -> None:
    pair = toy_pair("toy/whole").run()
    assert not pair.errors
    assert [p.phase for p in pair.peers] == [Phase.CLOSED, Phase.CLOSED]
    assert pair.transcript(0).records == pair.transcript(1).records
    report = verify_transcript(pair.transcript(0), TOY.default_catalogue())
    assert report.ok, report
    assert report.summary["rules_text"] == "toy-duel, shared-pool, 6-sided die, no clock"
    # the shared deck: position 0 went to seat 0, position 1 to seat 1, each knew only its own
    assert pair.peers[0].knowledge.cards.keys() >= {0}
    assert 1 not in pair.peers[0].knowledge.cards or pair.peers[0].core.state.revealed  # type: ignore[union-attr]


def test_the_verifier_re_derives_every_roll_from_the_preimages() -> None:
    for label in ("toy/roll/a", "toy/roll/b", "toy/roll/c"):
        pair = toy_pair(label, seed=2).run()
        replay = replay_inputs(pair.transcript(0), TOY.default_catalogue())
        assert replay.report.ok
        texts = [step.text for step in replay.inputs]
        envelopes = [parse_envelope(raw) for raw in pair.transcript(0).envelopes]
        chances = [e for e in envelopes if e.kind is K.CHANCE]
        if not any(t.startswith("roll ") for t in texts):
            assert chances == [] and "fold" in texts  # the duel ended on a fold: no die
            continue
        opener, answer = chances
        assert len(opener.body) == 1 and len(answer.body) == 2 and opener.sender != answer.sender
        pair_of = ((opener.body[0], answer.body[0]) if opener.sender == 0
                   else (answer.body[0], opener.body[0]))
        outcome = chance_outcome(pair.peers[0].core.match_id, 0, pair_of, 6)  # type: ignore[union-attr]
        assert f"roll {outcome + 1}" in texts
        # the opener is the seat that signed the envelope before it
        assert envelopes[opener.seq - 1].sender == opener.sender


def test_every_decision_kind_crosses_the_wire() -> None:
    seen: set[str] = set()
    for seed in range(12):
        pair = toy_pair(f"toy/kinds/{seed}", seed=seed).run()
        assert not pair.errors
        seen.update(k.name for k in kinds(pair))
    assert {"DRAW", "ACTION", "CHOICE", "CHANCE", "OPEN"} <= seen


def test_chance_outcomes_are_uniform() -> None:
    """chi-square, df = 5, p = 0.001 -> 20.5; 1,200 rolls of a die from independent chains."""
    counts = collections.Counter(
        chance_outcome(b"match", roll, (bytes([roll % 256, 0]) * 16, bytes([roll // 256, 1]) * 16),
                       6)
        for roll in range(1200))
    expected = 1200 / 6
    assert sum((c - expected) ** 2 / expected for c in counts.values()) < 20.5


def test_a_chain_s_preimages_walk_back_to_its_anchor() -> None:
    rng_bytes = iter(range(1 << 20))
    chain = ChanceChain(b"m", 1, lambda n: bytes(next(rng_bytes) % 256 for _ in range(n)))
    head = chain.anchor
    for roll in range(5):
        assert chance_link(b"m", 1, chain.preimage(roll)) == head
        head = chain.preimage(roll)
    with pytest.raises(errors.LocalProtocolError, match=f"at most {CHANCE_ROLLS}"):
        chain.preimage(CHANCE_ROLLS)


# --- cheating a roll ------------------------------------------------------------------------


def on_chance(index: int, change: Callable[[Envelope], object]) -> Callable[..., object]:
    """A tamper rewriting the `index`-th CHANCE envelope on the wire (0: the opener's, 1: the
    answer), re-signed by its sender."""
    count = 0

    def tamper(seat: int, raw: bytes) -> object:
        nonlocal count
        env = parse_envelope(raw)
        if env.kind is not K.CHANCE:
            return raw
        count += 1
        return change(env) if count - 1 == index else raw

    return tamper


def resigned(label: str, **fields: Callable[[Envelope], object]) -> Callable[[Envelope], bytes]:
    ids = identities(label)
    return lambda env: reseal(ids[env.sender], env,
                              **{name: make(env) for name, make in fields.items()})


def cheat(label: str, index: int, **fields: Callable[[Envelope], object]
          ) -> tuple[Pair, Exception]:
    for seed in range(12):  # a seed whose duel reaches the die (no fold)
        run = f"{label}/{seed}"
        pair = toy_pair(run, seed=seed, tamper=on_chance(index, resigned(run, **fields))).run()
        if pair.errors:
            return pair, pair.errors[0][1]
    raise AssertionError("no duel reached the die")


def honest_side_proves_it(pair: Pair, error: Exception, culprit: int) -> None:
    victim = 1 - culprit
    assert pair.peers[victim].phase is Phase.ABORTED
    report = verify_transcript(pair.transcript(victim), TOY.default_catalogue())
    assert report.ok and report.summary["fault"]["player"] == culprit, report
    assert report.summary["fault"]["code"] == getattr(error, "code", None)


@pytest.mark.parametrize("index", [0, 1], ids=["opener", "answer"])
def test_a_preimage_off_the_chain_is_caught(index: int) -> None:
    pair, error = cheat(f"toy/off/{index}", index,
                        body=lambda env: [bytes(32), *env.body[1:]])
    assert isinstance(error, errors.CommitmentMismatch) and "does not hash" in str(error)
    honest_side_proves_it(pair, error, _cheater(pair))


def test_the_answer_cannot_reuse_the_opener_s_preimage() -> None:
    """Copying the other seat's value would make the roll the answerer's choice of nothing new:
    the chain link binds the seat, so it does not hash to the answerer's chain."""
    opened: list[bytes] = []

    def copy(env: Envelope) -> list[object]:
        return [opened[0], env.body[1]] if opened else list(env.body)

    def remember(env: Envelope) -> bytes:
        opened.append(env.body[0])
        return env.raw

    for seed in range(12):
        opened.clear()
        run = f"toy/copy/{seed}"
        tamper_open, answer = on_chance(0, remember), on_chance(1, resigned(run, body=copy))

        def both(seat: int, raw: bytes, tamper_open=tamper_open, answer=answer) -> object:
            out = tamper_open(seat, raw)
            return answer(seat, out) if isinstance(out, bytes) else out

        pair = toy_pair(run, seed=seed, tamper=both).run()
        if pair.errors:
            error = pair.errors[0][1]
            assert isinstance(error, errors.CommitmentMismatch)
            honest_side_proves_it(pair, error, _cheater(pair))
            return
    raise AssertionError("no duel reached the die")


def test_the_answerer_cannot_open_the_roll() -> None:
    """The seat that did not sign the last envelope sends the first CHANCE: out of turn."""
    for seed in range(12):
        run = f"toy/turn/{seed}"
        pair = toy_pair(run, seed=seed).run()
        core = pair.peers[0].core
        assert core is not None
        opening = next((e for e in core.chain.envelopes if e.kind is K.CHANCE), None)
        if opening is None:
            continue  # a fold: no die in this duel
        answerer = 1 - opening.sender
        forged = seal(identities(run)[answerer], match_id=core.match_id, seq=opening.seq,
                      prev_hash=opening.prev_hash, sender=answerer, kind=K.CHANCE,
                      body=[bytes(32)]).raw
        referee = core.audit_prefix(opening.seq)  # the match as it stood before the roll
        with pytest.raises(errors.OutOfTurn, match=f"only seat {opening.sender} may send"):
            referee.receive(forged)
        return
    raise AssertionError("no duel reached the die")


def test_a_reveal_without_its_chance_anchor_is_malformed() -> None:
    def drop_anchor(seat: int, raw: bytes) -> object:
        env = parse_envelope(raw)
        if env.kind is K.REVEAL and seat == 1:
            return reseal(identities("toy/anchor")[1], env, body=list(env.body[:1]))
        return raw

    pair = toy_pair("toy/anchor", tamper=drop_anchor).run()
    error = pair.errors[0][1]
    assert isinstance(error, errors.MalformedMessage) and "chance anchor" in str(error)
    honest_side_proves_it(pair, error, 1)


def test_a_lie_about_the_state_after_the_roll_is_caught() -> None:
    pair, error = cheat("toy/hash", 1, body=lambda env: [env.body[0], bytes(32)])
    assert isinstance(error, errors.StateHashMismatch)
    honest_side_proves_it(pair, error, _cheater(pair))


def _cheater(pair: Pair) -> int:
    """The seat whose envelope the honest side refused (the one that did not abort first)."""
    aborted = [p.seat for p in pair.peers if p.phase is Phase.ABORTED]
    receiver = pair.errors[0][0]
    assert receiver in aborted
    return 1 - receiver


def test_an_answerer_that_withholds_its_roll_loses_on_time() -> None:
    """a seat that sees the opener's preimage (and so the roll's outcome) and never
    answers forfeits: with a clock, the opener claims after AUTOMATIC_GRACE_MS, and its
    transcript, ending in the claim and its secret reveal, verifies as a timeout win."""
    from versus.protocol.match import AUTOMATIC_GRACE_MS, Ending

    for seed in range(12):
        run = f"toy/withhold/{seed}"
        silenced: list[int] = []

        def withhold(seat: int, raw: bytes, silenced: list[int] = silenced) -> object:
            env = parse_envelope(raw)
            if silenced and seat == silenced[0]:
                return None  # the answerer's program went quiet after seeing the opening
            if env.kind is K.CHANCE and len(env.body) == 2:
                silenced.append(seat)
                return None
            return raw

        pair = Pair(MatchRules(game=TOY.id, clock_initial_ms=60_000), label=run, seed=seed,
                    catalogue=TOY.default_catalogue(), tamper=withhold)  # type: ignore[arg-type]
        pair.start()
        pair.deliver(now_ms=0)
        if not silenced:
            continue  # a fold: no die
        opener = pair.peers[1 - silenced[0]]
        with pytest.raises(errors.LocalProtocolError, match="ms left"):
            opener.claim_timeout(AUTOMATIC_GRACE_MS - 1)  # not yet: the grace runs
        opener.claim_timeout(AUTOMATIC_GRACE_MS + 1)
        assert opener.result is not None and opener.result.ending is Ending.TIMEOUT
        assert opener.result.winner == opener.seat
        report = verify_transcript(opener.transcript(), TOY.default_catalogue())
        assert report.ok and report.summary["result"]["ending"] == "timeout", report
        return
    raise AssertionError("no duel reached the die")
