# A disconnect at every envelope index of one whole (small) match, over real TCP: the joiner's
# connection is cut the moment the host's chain reaches n envelopes, for every n.
#
#   * and it comes back: both sides resume (RESUME exchange, resend of what the other lacks)
#     and finish with exactly the transcript of the uncut match, which verifies;
#   * and it never comes back: the host gives the match up after its resume window, holding a
#     prefix of that transcript that checks record by record (only its end is missing).
# n = 0 cuts right after both HELLOs (the match id exists, so the match is resumable).
from __future__ import annotations

import pytest
import trio

from tests.hostile.harness import (
    CATALOGUE,
    CHEATER,
    DECK_RULES,
    FAST_SESSION,
    IDS,
    LABEL,
    HashPlayer,
    arena,
    assert_valid_prefix,
    binding_of,
    handshake_binding,
    reference_transcript,
    seeded_rng,
)
from tests.protocol.pair import master_secret
from versus.cli.driving import drive_player
from versus.p2p.channel import SecureChannel
from versus.p2p.link import Backoff, JoinLink
from versus.p2p.session import MatchSession, open_nursery
from versus.protocol.match import MatchPeer, Phase
from versus.protocol.wire.transcript import load_transcript

# Both sides' handshakes are seeded, so every run is the same match (it is bound to its first
# channel's handshake hash, SPEC §4.5) and its length is known before any socket opens.
BINDING = handshake_binding("joiner", "host")
REFERENCE = reference_transcript(DECK_RULES, BINDING)
ENVELOPES = len(load_transcript(REFERENCE).envelopes)


class CutJoinLink(JoinLink):
    """A JoinLink that remembers its live channel (to cut it) and may never come back."""

    def __init__(self, port: int, *, come_back: bool) -> None:
        super().__init__("127.0.0.1", port, IDS[CHEATER], config=FAST_SESSION.channel,
                         rng=seeded_rng("joiner"),
                         backoff=Backoff(0.01, 2.0, 0.05))
        self.come_back = come_back
        self.live: SecureChannel | None = None

    async def first(self, check=None):  # type: ignore[no-untyped-def]
        channel, rules, seat = await super().first(check)
        self.live = channel
        return channel, rules, seat

    async def reconnect(self) -> SecureChannel:
        if not self.come_back:
            await trio.sleep_forever()
        self.live = await super().reconnect()
        return self.live


async def _cut_at(index: int, *, come_back: bool) -> tuple[bytes, bytes, object]:
    with trio.fail_after(10):
        async with trio.open_nursery() as outer:
            a = await arena(outer)
            host = a.host
            dial = CutJoinLink(a.port, come_back=come_back)
            peer = MatchPeer(CHEATER, IDS[CHEATER], DECK_RULES, CATALOGUE,
                             master_secret=master_secret(LABEL, CHEATER), software="test")
            joiner = MatchSession(peer, master_secret(LABEL, CHEATER), store=None, role="join",
                                  address=f"127.0.0.1:{a.port}", config=FAST_SESSION)

            async def join() -> None:
                channel, _rules, _seat = await dial.first()
                await joiner.run(channel, dial.reconnect)

            async def cut() -> None:
                while (host.session is None or host.session.peer.core is None
                       or joiner.peer.core is None or host.session.peer.seq < index):
                    await trio.sleep(0)
                assert dial.live is not None
                await trio.aclose_forcefully(dial.live._stream)

            async with open_nursery() as match:
                match.start_soon(host.play)
                match.start_soon(join)
                match.start_soon(drive_player, joiner, HashPlayer())
                match.start_soon(cut)
            outer.cancel_scope.cancel()
    assert host.session is not None
    return host.transcript(), joiner.peer.transcript_bytes(), host


@pytest.mark.parametrize("index", range(ENVELOPES))
async def test_disconnect_and_resume_at_every_envelope(index: int) -> None:
    host_bytes, join_bytes, host = await _cut_at(index, come_back=True)
    assert binding_of(host_bytes) == BINDING
    assert host_bytes == REFERENCE and join_bytes == REFERENCE
    assert host.session.peer.phase is Phase.CLOSED
    assert host.report().ok


@pytest.mark.parametrize("index", range(ENVELOPES))
async def test_disconnect_for_good_at_every_envelope(index: int) -> None:
    host_bytes, _join_bytes, host = await _cut_at(index, come_back=False)
    records = load_transcript(host_bytes).records
    assert list(records) == list(load_transcript(REFERENCE).records[:len(records)])
    assert len(records) - 2 >= index
    outcome = host.outcome
    assert outcome is not None
    if outcome.result is None:
        assert outcome.abandoned
    assert_valid_prefix(host.report())
