# The networked reveal service (SPEC Part 11, §11.7.8–11.7.9) over real TCP on 127.0.0.1: a whole
# run against it verifies; a second history is refused, also after a restart (the state file);
# garbage, oversized, empty and dripped frames get a clear refusal and the service goes on.
from __future__ import annotations

import os
import struct
import subprocess
import sys

import pytest
import trio

from versus.cli.main import main
from versus.cli.solo import make_bot
from versus.cli.solo_service import (
    Limits,
    Server,
    ServiceClient,
    ServiceUnreachable,
    open_state,
    parse_address,
)
from versus.engine.multiverse import MULTIVERSE as G
from versus.protocol.crypto.identity import Identity
from versus.protocol.solo import run as R
from versus.protocol.solo import service as S
from versus.protocol.solo.challenge import (
    OrganiserSecret,
    new_challenge,
    parse_challenge,
    parse_secret,
)
from versus.protocol.wire.canonical import decode

ORG, PLAYER = Identity(b"\x01" * 32), Identity(b"\x02" * 32)
EASY = G.rules_from_options({"difficulty": "easy"})


def _challenge():
    return new_challenge(ORG, G, EASY, "net1", lambda n: b"\x05" * n)


class Running:
    """A Server on 127.0.0.1 inside a nursery, restartable on the same state file."""

    def __init__(self, ch, sec, path, limits=None):
        self.ch, self.sec, self.path, self.limits = ch, sec, path, limits
        self.log: list[str] = []

    async def start(self, nursery):
        self.state, entries = open_state(self.path, self.ch)
        self.server = Server(S.RevealService(self.ch, self.sec), self.state, entries,
                             self.log.append, self.limits)
        self.scope = trio.CancelScope()

        async def run(task_status=trio.TASK_STATUS_IGNORED):
            with self.scope:
                await self.server.serve("127.0.0.1", 0, task_status=task_status)

        listeners = await nursery.start(run)
        self.port = listeners[0].socket.getsockname()[1]
        return self

    def stop(self):
        self.scope.cancel()
        self.state.close()


async def _play(ch, port, bot="greedy", player=PLAYER):
    def go():
        client = ServiceClient(("127.0.0.1", port), ch, player)
        try:
            return R.play(G, ch, player, client.reveal, make_bot(bot, 1))
        finally:
            client.close()

    return await trio.to_thread.run_sync(go)


async def _raw(port, data: bytes) -> list:
    """Send raw bytes, read one answer frame, decoded."""
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    async with stream:
        await stream.send_all(data)
        buf = b""
        with trio.fail_after(5):
            while len(buf) < 4 or len(buf) < 4 + struct.unpack(">I", buf[:4])[0]:
                chunk = await stream.receive_some(4096)
                assert chunk, "closed without an answer"
                buf += chunk
        return decode(buf[4:], max_size=1024)


async def test_whole_run_second_history_and_restart(tmp_path):
    ch, sec = _challenge()
    svc = Running(ch, sec, tmp_path / "net1.state")
    async with trio.open_nursery() as nursery:
        await svc.start(nursery)
        run, state = await _play(ch, svc.port)
        rep = R.verify_run(run.to_bytes(), ch)
        assert rep.ok and rep.summary["score"] == G.score(state), rep.describe()
        assert R.verify_run(run.to_bytes(sec.secret), ch).ok
        # the same key, another history: refused at the first step that differs
        with pytest.raises(S.SecondHistory, match="another history"):
            await _play(ch, svc.port, "random")
        svc.stop()
        # a restarted service (same state file) still refuses, and still answers the first
        # history's steps the same (idempotent retries)
        await svc.start(nursery)
        assert svc.server.service.ledger.players == 1
        with pytest.raises(S.SecondHistory):
            await _play(ch, svc.port, "random")
        again, _ = await _play(ch, svc.port)
        assert again.records == run.records
        # another key plays its own, unrelated run
        other, _ = await _play(ch, svc.port, "random", Identity(b"\x03" * 32))
        assert R.verify_run(other.to_bytes(), ch).ok
        svc.stop()


async def test_bad_frames_refused_and_service_survives(tmp_path):
    ch, sec = _challenge()
    svc = Running(ch, sec, tmp_path / "s", Limits(frame=0.3))
    async with trio.open_nursery() as nursery:
        await svc.start(nursery)
        assert (await _raw(svc.port, b"GET / HTTP/1.1\r\n\r\n"))[1:3] == ["refused", "oversize"]
        assert (await _raw(svc.port, b"\x00\x00\x00\x00"))[2] == "malformed"
        assert (await _raw(svc.port, b"\x00\x00\x00\x03abc"))[2] == "malformed"
        assert (await _raw(svc.port, struct.pack(">I", 513) + b"x" * 513))[2] == "oversize"
        drip = await _raw(svc.port, b"\x00\x00\x00\x40")  # a frame that never completes
        assert drip[2] == "timeout"
        req = S.RevealRequest.signed(PLAYER, bytes(32), "d6", 0, bytes(32)).to_bytes()
        wrong = await _raw(svc.port, struct.pack(">I", len(req)) + req)
        assert wrong[2] == "wrong-challenge"
        forged = S.RevealRequest(ch.digest, ORG.public_key, "d6", 0, bytes(32), bytes(64))
        body = forged.to_bytes()
        assert (await _raw(svc.port, struct.pack(">I", len(body)) + body))[2] == \
            "request-signature"
        assert any("oversize" in line for line in svc.log)
        run, _ = await _play(ch, svc.port)  # the service is alive and well
        assert R.verify_run(run.to_bytes(), ch).ok
        svc.stop()


async def test_forged_service_answer_is_caught(tmp_path):
    """A service that is not the organiser's (another key) cannot feed a player values."""
    ch, sec = _challenge()
    impostor = OrganiserSecret(ch.digest, sec.secret, Identity(b"\x09" * 32))
    state, _ = open_state(tmp_path / "s", ch)
    server = Server(S.RevealService(ch, impostor), state, [], lambda line: None)
    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(server.serve, "127.0.0.1", 0)
        with pytest.raises(S.BadAnswer, match="not signed by the challenge's organiser"):
            await _play(ch, listeners[0].socket.getsockname()[1])
        nursery.cancel_scope.cancel()
    state.close()


def test_state_file_lock_tail_and_other_challenge(tmp_path):
    ch, _sec = _challenge()
    path = tmp_path / "s"
    state, entries = open_state(path, ch)
    assert entries == []
    with pytest.raises(S.StateError, match="in use"):
        open_state(path, ch)
    state.append(S.Entry(PLAYER.public_key, "d6", 0, b"h" * 32))
    state.close()
    with open(path, "ab") as f:  # a crash in the middle of the next append
        f.write(b"\x00\x00\x00\x50abc")
    state, entries = open_state(path, ch)
    assert entries == [S.Entry(PLAYER.public_key, "d6", 0, b"h" * 32)]
    state.close()
    other, _ = new_challenge(ORG, G, EASY, "net2", lambda n: b"\x06" * n)
    with pytest.raises(S.StateError, match="not this challenge's"):
        open_state(path, other)


def test_client_errors_are_one_line():
    ch, _ = _challenge()
    with pytest.raises(ValueError, match="HOST:PORT"):
        parse_address("nope")
    assert parse_address("[::1]:4242") == ("::1", 4242)
    client = ServiceClient(("127.0.0.1", 1), ch, PLAYER, timeout=2)
    with pytest.raises(ServiceUnreachable, match=r"127\.0\.0\.1:1"):
        client.reveal(PLAYER.public_key, "d6", 0, bytes(32))


def test_cli_serve_and_solo_service(tmp_path, capsys):
    """`versus challenge serve` in its own process, `versus solo --service` against it."""
    os.chmod(tmp_path, 0o700)
    org, me = str(tmp_path / "org.key"), str(tmp_path / "me.key")
    assert main(["challenge", "new", "--identity", org, "--out", str(tmp_path), "--id", "t1",
                 "--rule", "difficulty=easy"]) == 0
    ch, sec, run = (str(tmp_path / n) for n in ("t1.challenge", "t1.secret", "t1.run"))
    proc = subprocess.Popen([sys.executable, "-m", "versus.cli.main", "challenge", "serve",
                             "--challenge", ch, "--secret", sec, "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        assert "listening on 127.0.0.1:" in line, line + proc.stderr.read()
        address = line.split("listening on ")[1].split()[0]
        capsys.readouterr()
        assert main(["solo", "--challenge", ch, "--service", address, "--bot", "greedy",
                     "--identity", me, "--out", run]) == 0
        assert main(["verify", "--challenge", ch, run]) == 0
        assert "attested step by step" in capsys.readouterr().out
        assert main(["solo", "--challenge", ch, "--service", address, "--bot", "random",
                     "--identity", me, "--out", run + "2"]) == 1
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "second-history" in err
    finally:
        proc.terminate()
        proc.wait(5)
    assert (tmp_path / "t1.state").stat().st_size > 100
    # the organiser publishes; the run file then verifies from the secret
    assert main(["challenge", "publish", "--challenge", ch, "--secret", sec]) == 0
    assert main(["challenge", "complete", "--published", str(tmp_path / "t1.published"),
                 "--run", run]) == 0
    capsys.readouterr()
    assert main(["verify", run]) == 0
    assert "recomputed from the published secret" in capsys.readouterr().out
    published = (tmp_path / "t1.published").read_bytes()
    key = parse_secret((tmp_path / "t1.secret").read_bytes(),
                       parse_challenge((tmp_path / "t1.challenge").read_bytes())).key
    assert key.secret_bytes() not in published  # the secret, never the organiser's signing key


async def test_no_one_holds_slots_with_requests_that_cost_nothing(tmp_path):
    """Review finding: a wrong-challenge request needs no signature; before, the connection
    then stayed open for the 300 s idle time, so 64 of them locked every player out."""
    ch, sec = _challenge()
    svc = Running(ch, sec, tmp_path / "s", Limits(per_source=2))
    req = S.RevealRequest.signed(PLAYER, bytes(32), "d6", 0, bytes(32)).to_bytes()
    async with trio.open_nursery() as nursery:
        await svc.start(nursery)
        stream = await trio.open_tcp_stream("127.0.0.1", svc.port)
        async with stream:
            await stream.send_all(struct.pack(">I", len(req)) + req)
            data = b""
            with trio.fail_after(5):  # the refusal, then the end of the stream
                while chunk := await stream.receive_some(4096):
                    data += chunk
            assert decode(data[4:], max_size=1024)[2] == "wrong-challenge"
        # at most `per_source` connections from one address at once
        held = [await trio.open_tcp_stream("127.0.0.1", svc.port) for _ in range(2)]
        await trio.sleep(0.1)
        assert (await _raw(svc.port, b""))[2] == "busy"
        for stream in held:
            await stream.aclose()
        await trio.sleep(0.1)
        run, _ = await _play(ch, svc.port)  # slots are given back
        assert R.verify_run(run.to_bytes(), ch).ok
        svc.stop()


# --- denial of service: who holds the slots ----------------------------------------------------


def _frame(who: Identity, ch, k: int, head: bytes = b"\x44" * 32) -> bytes:
    body = S.RevealRequest.signed(who, ch.digest, "d6", k, head).to_bytes()
    return struct.pack(">I", len(body)) + body


async def _ask(stream, frame: bytes) -> list | None:
    """Send one request, read its answer (None: the service closed the connection)."""
    await stream.send_all(frame)
    buf = b""
    while len(buf) < 4 or len(buf) < 4 + struct.unpack(">I", buf[:4])[0]:
        chunk = await stream.receive_some(4096)
        if not chunk:
            return None
        buf += chunk
    return decode(buf[4:], max_size=1024)


async def _connect_from(address: str, port: int) -> trio.SocketStream:
    sock = trio.socket.socket()
    await sock.bind((address, 0))
    await sock.connect(("127.0.0.1", port))
    return trio.SocketStream(sock)


class Flood:
    """The attacker: from each of `addresses` loopback addresses, `per_address` connections,
    each with its own fresh key; each makes a new step, asks it again (repeated answers), then
    holds its connection, and reconnects at once (a new step) whenever it loses it."""

    def __init__(self, ch, port: int, addresses: int, per_address: int) -> None:
        self.ch, self.port = ch, port
        self.sources = [f"127.0.0.{2 + i}" for i in range(addresses)]
        self.per_address = per_address
        self.held = 0
        self.lost = 0

    async def run(self, nursery) -> None:
        for source in self.sources:
            for _ in range(self.per_address):
                nursery.start_soon(self._one, source)

    async def _one(self, source: str) -> None:
        key, k = Identity(os.urandom(32)), 0
        while True:
            try:
                stream = await _connect_from(source, self.port)
            except OSError:
                await trio.sleep(0.2)
                continue
            async with stream:
                try:
                    answer = await _ask(stream, _frame(key, self.ch, k))
                    if answer is None or answer[1] != "value":  # busy
                        await trio.sleep(0.2)
                        continue
                    k += 1
                    for _ in range(2):
                        await _ask(stream, _frame(key, self.ch, k - 1))
                    self.held += 1
                    try:
                        await stream.receive_some(4096)  # hold it until the service closes it
                    finally:
                        self.held -= 1
                        self.lost += 1
                except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                    await trio.sleep(0.05)


@pytest.mark.parametrize("addresses, per_address", [(16, 8), (63, 2)])
async def test_a_player_is_served_while_a_flood_holds_every_slot(tmp_path, addresses,
                                                                 per_address):
    """Review finding: 16 loopback addresses x 4 connections with throwaway keys held all 64
    slots, and every player was told "busy". The flood here comes from 16 addresses with 8
    connections each (more than any address may hold), or from 63 addresses (the most that
    SPEC §11.7.9 promises to withstand), every connection with its own key, asking again and
    again; a player from another address still plays a whole run that verifies."""
    ch, sec = _challenge()
    svc = Running(ch, sec, tmp_path / "s")
    flood = Flood(ch, 0, addresses, per_address)
    async with trio.open_nursery() as nursery:
        await svc.start(nursery)
        flood.port = svc.port
        await flood.run(nursery)
        with trio.fail_after(20):
            while flood.held < 64:  # every slot is the attacker's
                await trio.sleep(0.05)
        run, _ = await _play(ch, svc.port)
        assert R.verify_run(run.to_bytes(), ch).ok
        assert flood.held >= 60  # the player took one slot, not the attacker's whole flood
        nursery.cancel_scope.cancel()
    svc.stop()


async def test_a_repeated_ask_does_not_renew_the_idle_timer(tmp_path):
    """Review finding: asking an answered step again was answered forever, each time renewing
    the 300 s idle timer, so one connection held its slot as long as it kept asking."""
    ch, sec = _challenge()
    svc = Running(ch, sec, tmp_path / "s", Limits(idle=1.0))
    async with trio.open_nursery() as nursery:
        await svc.start(nursery)
        stream = await trio.open_tcp_stream("127.0.0.1", svc.port)
        async with stream:
            assert (await _ask(stream, _frame(PLAYER, ch, 0)))[1] == "value"
            progress = trio.current_time()
            with trio.fail_after(5):  # a repeat every 0.45 s: two fit in the idle second
                while True:
                    await trio.sleep(0.45)
                    answer = await _ask(stream, _frame(PLAYER, ch, 0))
                    if answer is None:  # closed
                        break
                    assert answer[1] == "value"
            assert trio.current_time() - progress < 2  # closed 1 s after the new step
        svc.stop()


async def test_repeats_keys_and_groups_are_limited_per_connection(tmp_path):
    ch, sec = _challenge()
    svc = Running(ch, sec, tmp_path / "s")
    async with trio.open_nursery() as nursery:
        await svc.start(nursery)
        async with await trio.open_tcp_stream("127.0.0.1", svc.port) as stream:
            assert (await _ask(stream, _frame(PLAYER, ch, 0)))[1] == "value"
            for _ in range(2):  # a retry gets the same answer ...
                assert (await _ask(stream, _frame(PLAYER, ch, 0)))[1] == "value"
            refused = await _ask(stream, _frame(PLAYER, ch, 0))  # ... twice, then no more
            assert refused[1:3] == ["refused", "limit"]
        async with await trio.open_tcp_stream("127.0.0.1", svc.port) as stream:
            assert (await _ask(stream, _frame(PLAYER, ch, 1)))[1] == "value"
            other = Identity(b"\x03" * 32)
            assert (await _ask(stream, _frame(other, ch, 0)))[2] == "limit"  # one key each
        # a key's third connection closes its stalest one (only the key's holder can ask)
        streams = [await trio.open_tcp_stream("127.0.0.1", svc.port) for _ in range(3)]
        for k, stream in enumerate(streams):
            assert (await _ask(stream, _frame(PLAYER, ch, 2 + k)))[1] == "value"
        with trio.fail_after(5):
            assert await streams[0].receive_some(4096) == b""
        assert (await _ask(streams[1], _frame(PLAYER, ch, 5)))[1] == "value"
        for stream in streams:
            await stream.aclose()
        svc.stop()
