# One whole match between two players over real TCP on 127.0.0.1, through the full protocol
# (handshake, offer, sessions, transcript on disk), and the offline verdict on its transcript.
# `versus demo`, `versus play` and the tournament runner call it for every game.
#
# Seat 0 hosts, seat 1 joins. Only the host's side writes its match directory (under
# `transcript_dir`, a MatchStore root); both sides' transcripts are the same bytes, which the
# result checks. A player given as None is driven by the caller through the session that
# `on_start` receives (a person in the terminal UI). The others are driven by `drive` (the
# program's: cli/driving.py `drive_player`, which the session layer does not know), and the
# match plays whatever game `rules` names, with that game's card data unless given.
from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trio

from versus.p2p.connect import Rng, listening_port, open_listeners
from versus.p2p.link import HostLink, JoinLink
from versus.p2p.session import (
    MatchSession,
    SessionConfig,
    SessionError,
    SessionOutcome,
    create_peer,
    open_nursery,
)
from versus.p2p.store import MatchStore
from versus.protocol.crypto.identity import Identity
from versus.protocol.match import MatchResult
from versus.protocol.match.rules import MatchRules
from versus.protocol.match.verify import Report, verify_transcript

DeckArg = Sequence[str] | None
#: answers a session's decisions with a player until the session is done
Drive = Callable[[MatchSession, Any], Awaitable[None]]


@dataclass(frozen=True)
class LoopbackResult:
    result: MatchResult | None
    match_id: bytes | None
    transcript_path: Path | None
    transcript: bytes
    report: Report
    outcomes: tuple[SessionOutcome, SessionOutcome]
    setup_seconds: float  # connect + handshake + offer + setup until PLAY, as seen by seat 0


async def play_loopback_match(
    players: Sequence[Any], rules: MatchRules, *,
    transcript_dir: Path | str | None,
    catalogue: Any = None,
    identities: tuple[Identity, Identity] | None = None,
    decks: tuple[DeckArg, DeckArg] = (None, None),
    config: SessionConfig | None = None,
    on_start: Callable[[MatchSession, MatchSession], None] | None = None,
    timeout: float | None = None,
    master_secrets: tuple[bytes, bytes] | None = None,
    handshake_rngs: tuple[Rng, Rng] | None = None,
    drive: Drive | None = None,
) -> LoopbackResult:
    """Play one match (see the module comment). `timeout` bounds the whole match (seconds).
    `identities`, `master_secrets` and `handshake_rngs` (host, joiner) default to fresh ones
    from `secrets`; fixing all three (and deterministic players, no clock) makes the transcript
    reproducible byte for byte (the HELLOs carry the channel's handshake hash). `drive`
    answers a session's decisions with a player: the program's (the cli passes
    cli/driving.py `drive_player`); needed whenever a player is given."""
    if catalogue is None:
        catalogue = rules.game_impl.default_catalogue()
    if drive is None and any(player is not None for player in players):
        raise ValueError("play_loopback_match: give `drive` to answer the players' decisions")
    config = config or SessionConfig(narrate=False)
    if identities is None:
        identities = (Identity.generate(_token), Identity.generate(_token))
    store = MatchStore(transcript_dir) if transcript_dir is not None else None
    host_peer, host_secret = create_peer(0, identities[0], rules, catalogue, deck=decks[0],
                                         master_secret=_pick(master_secrets, 0))
    join_peer, join_secret = create_peer(1, identities[1], rules, catalogue, deck=decks[1],
                                         master_secret=_pick(master_secrets, 1))
    listeners = await open_listeners(0, bind="127.0.0.1")
    port = listening_port(listeners)
    host = MatchSession(host_peer, host_secret, store=store, role="host", port=port,
                        config=config)
    guest = MatchSession(join_peer, join_secret, store=None, role="join",
                         address=f"127.0.0.1:{port}", config=config)
    if on_start is not None:
        on_start(host, guest)
    outcomes: list[SessionOutcome | None] = [None, None]
    started = trio.current_time()
    setup = [0.0]
    with trio.fail_after(timeout if timeout is not None else float("inf")):
        async with open_nursery() as nursery:
            rngs = handshake_rngs or (secrets.token_bytes, secrets.token_bytes)
            link = HostLink(listeners, identities[0], config=config.channel, rng=rngs[0])
            await nursery.start(link.serve)
            dial = JoinLink("127.0.0.1", port, identities[1], config=config.channel,
                            rng=rngs[1])

            async def run_host() -> None:
                channel = await link.first(rules)
                outcomes[0] = await host.run(channel, link.reconnect)

            async def run_guest() -> None:
                channel, offered, seat = await dial.first()
                if offered != rules or seat != 1:
                    raise SessionError("the loopback host offered other rules")
                outcomes[1] = await guest.run(channel, dial.reconnect)

            async def time_setup() -> None:
                while host.peer.core is None or host.peer.core.state is None:
                    if host.done:
                        return
                    await host.wait_changed()
                setup[0] = trio.current_time() - started

            async with open_nursery() as match:
                match.start_soon(run_host)
                match.start_soon(run_guest)
                match.start_soon(time_setup)
                for session, player in ((host, players[0]), (guest, players[1])):
                    if player is not None:
                        assert drive is not None
                        match.start_soon(drive, session, player)
            nursery.cancel_scope.cancel()
    for listener in listeners:
        await listener.aclose()
    assert outcomes[0] is not None and outcomes[1] is not None
    transcript = host.peer.transcript_bytes() if host.peer.core is not None else b""
    if guest.peer.core is not None and guest.peer.transcript_bytes() != transcript:
        raise SessionError("the two sides of the loopback match hold different transcripts")
    report = verify_transcript(transcript, catalogue)
    return LoopbackResult(host.result, host.match_id, host.transcript_path, transcript, report,
                          (outcomes[0], outcomes[1]), setup[0])


def _pick(pair: tuple[bytes, bytes] | None, seat: int) -> bytes | None:
    return None if pair is None else pair[seat]


def _token(size: int) -> bytes:
    return secrets.token_bytes(size)
