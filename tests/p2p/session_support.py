# Helpers of the session tests: deterministic players, fixed-secret sessions, and an in-memory
# link whose connection the test can cut (and that hands both sides a new one on resume).
from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

import trio

from tests.p2p.conftest import channel_pair
from tests.protocol.pair import identities, master_secret, rng_for
from versus.engine.versus42 import Action, PlayerView, default_catalogue
from versus.p2p.channel import ChannelConfig, SecureChannel
from versus.p2p.session import MatchSession, SessionConfig
from versus.p2p.store import MatchStore
from versus.protocol.crypto.identity import Identity
from versus.protocol.match import MatchPeer
from versus.protocol.match.rules import MatchRules

CATALOGUE = default_catalogue()


class HashBot:
    """A stateless deterministic player: the same view and choices give the same answer, so a
    match replayed after a cut or a restart makes exactly the same moves."""

    name = "hash"

    def __init__(self, think: float = 0.0) -> None:
        self.think = think

    async def choose(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        if self.think:
            await trio.sleep(self.think)
        digest = hashlib.sha256(f"{view.turn}|{'|'.join(map(str, legal))}".encode()).digest()
        return legal[int.from_bytes(digest[:4], "big") % len(legal)]


class Stuck:
    """A player that never answers (a person who walked away)."""

    name = "stuck"

    async def choose(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        await trio.sleep_forever()
        raise AssertionError


def make_peer(rules: MatchRules, label: str, seat: int) -> MatchPeer:
    ids = identities(label)
    return MatchPeer(seat, ids[seat], rules, CATALOGUE, master_secret=master_secret(label, seat),
                     software="test")


def make_sessions(rules: MatchRules, label: str, dirs: Sequence[Path | None] = (None, None),
                  config: SessionConfig | None = None) -> list[MatchSession]:
    return [MatchSession(make_peer(rules, label, seat), master_secret(label, seat),
                         store=None if dirs[seat] is None else MatchStore(dirs[seat]),
                         role=("host", "join")[seat], config=config)
            for seat in (0, 1)]


class MemLink:
    """Channel pairs over memory streams; seat 1 'dials', seat 0 'listens'."""

    def __init__(self, config: ChannelConfig | None = None) -> None:
        self.config = config
        #: the channel keys: the players' own (a match is bound to the key its channel proved)
        self.ids: tuple[Identity, Identity] | None = None
        #: seeded handshakes: every new MemLink's first channel has the same handshake hash,
        #: so a match over it is the same match (the HELLOs carry that hash, SPEC §4.5)
        self.rngs = (rng_for("memlink/joiner"), rng_for("memlink/host"))
        self._send, self._receive = trio.open_memory_channel[SecureChannel](1)
        self.current: tuple[SecureChannel, SecureChannel] | None = None
        self.connections = 0
        self.refuse = False  # while set, redials fail (the host is "down")

    async def first(self, sessions: Sequence[MatchSession]) -> tuple[SecureChannel, SecureChannel]:
        self.ids = (sessions[1].peer.identity, sessions[0].peer.identity)
        joiner, host = await channel_pair(self.config, self.ids, self.rngs)
        self.current, self.connections = (joiner, host), self.connections + 1
        return host, joiner

    async def join_reconnect(self) -> SecureChannel:
        while self.refuse:
            await trio.sleep(0.25)
        joiner, host = await channel_pair(self.config, self.ids, self.rngs)
        self.current, self.connections = (joiner, host), self.connections + 1
        await self._send.send(host)
        return joiner

    async def host_reconnect(self) -> SecureChannel:
        return await self._receive.receive()

    async def cut(self) -> None:
        assert self.current is not None
        await trio.aclose_forcefully(self.current[0]._stream)
