# A whole headless match through a REAL magic-wormhole transit relay (started on 127.0.0.1 by
# tests/p2p/nat/test_relay.py's fixture) behind a relay that misbehaves mid-match: `versus host
# --relay` names a test proxy that speaks to the real relay, and the joiner's only direct
# address is dead, so every byte of the match crosses the proxy. Once the match is under way the
# proxy flips, drops or injects one byte of the joiner's connection, then "goes down" for a
# moment (it hangs up on every new connection), then "comes back" and passes bytes untouched.
#
# What must happen: the tampered record fails authentication (or the stream stops parsing), so
# the connection ends like a network fault: no side records a result from it; both sides meet
# at the relay again once it is back, the session resumes, and the match ends with equal,
# verifying transcripts on both sides. The proxy is plain threads and blocking sockets, so the
# test can drive the two `versus` processes with ordinary subprocess calls.
from __future__ import annotations

import contextlib
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.p2p.nat.cli_support import transcript_path, until_invite, versus_process
from tests.p2p.nat.test_relay import relay_server  # noqa: F401 - the fixture
from versus.p2p.invite import Invite
from versus.p2p.nat import relay as rl
from versus.p2p.nat.relay import RelayAddress
from versus.protocol.match.verify import verify_transcript

ROOT = Path(__file__).resolve().parents[3]
#: joiner -> host bytes after the relay's "ok" before the tamper: the handshake (195 bytes),
#: the joiner's HELLO and some of the match's first records
TAMPER_AT = 1200
DOWN_FOR = 1.5  # seconds the relay hangs up on everyone after tampering

Tamper = Callable[[bytes], bytes]  # the one byte at TAMPER_AT -> what the proxy sends instead
TAMPERS: dict[str, Tamper] = {
    "flip": lambda byte: bytes([byte[0] ^ 0x40]),
    "drop": lambda byte: b"",
    "inject": lambda byte: b"\x00\x00\x00\x05hello" + byte,
}


class MisbehavingRelay:
    """A proxy in front of the real relay: see the module comment. `tampered` is set once the
    byte was changed; `joins` counts the joiner's connections (by its relay side)."""

    def __init__(self, relay: RelayAddress, tamper: Tamper) -> None:
        self.relay, self.tamper = relay, tamper
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.listener.settimeout(0.2)
        self.address = RelayAddress("127.0.0.1", self.listener.getsockname()[1])
        self.tampered = threading.Event()
        self.down_until = 0.0
        self.joins = 0
        self.stopped = threading.Event()
        self.sockets: list[socket.socket] = []
        self.thread = threading.Thread(target=self._serve, daemon=True)

    def __enter__(self) -> MisbehavingRelay:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopped.set()
        self.thread.join(timeout=5)
        self.listener.close()
        for sock in self.sockets:
            sock.close()

    def _serve(self) -> None:
        while not self.stopped.is_set():
            try:
                client, _ = self.listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            if time.monotonic() < self.down_until:
                client.close()  # down: every new connection is hung up on
                continue
            threading.Thread(target=self._handle, args=(client,), daemon=True).start()

    def _handle(self, client: socket.socket) -> None:
        self.sockets.append(client)
        line = b""
        while not line.endswith(b"\n") and len(line) < 200:
            byte = client.recv(1)
            if not byte:
                client.close()
                return
            line += byte
        words = line.split()
        tamper = False
        join_side = len(words) == 6 and words[5].decode() == rl.relay_side(
            words[2].decode(), rl.RelayRole.JOIN)
        if join_side:
            self.joins += 1
            tamper = self.joins == 1
        upstream = socket.create_connection((self.relay.host, self.relay.port))
        self.sockets.append(upstream)
        upstream.sendall(line)
        threading.Thread(target=self._pump, args=(upstream, client, None), daemon=True).start()
        self._pump(client, upstream, TAMPER_AT + len(rl.OK) if tamper else None)

    def _pump(self, source: socket.socket, sink: socket.socket, at: int | None) -> None:
        offset = 0
        try:
            while data := source.recv(4096):
                if at is not None and offset <= at < offset + len(data):
                    i = at - offset
                    data = data[:i] + self.tamper(data[i:i + 1]) + data[i + 1:]
                    self.down_until = time.monotonic() + DOWN_FOR
                    self.tampered.set()
                    at = None
                offset += len(data)
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (source, sink):
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)





def _dead_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def processes() -> Iterator[list[subprocess.Popen[str]]]:
    started: list[subprocess.Popen[str]] = []
    yield started
    for process in started:
        if process.poll() is None:
            process.kill()
            process.communicate(timeout=10)


@pytest.mark.slow
@pytest.mark.parametrize("kind", sorted(TAMPERS))
def test_a_relay_that_tampers_mid_match_then_comes_back_the_match_resumes(
    tmp_path: Path, relay_server: RelayAddress,  # noqa: F811 - the fixture
    processes: list[subprocess.Popen[str]], kind: str,
) -> None:
    deadline = time.monotonic() + 60
    with MisbehavingRelay(relay_server, TAMPERS[kind]) as proxy:
        host = versus_process(tmp_path, "host", "host", "--port", "0", "--bot", "random",
                              "--no-map", "--relay", str(proxy.address))
        processes.append(host)
        head = until_invite(host, deadline)
        shared = Invite.parse(head[-1].split()[1])
        invite = Invite.of([("127.0.0.1", _dead_port())], shared.fingerprint,
                           relay=shared.relay, room=shared.room)
        join = versus_process(tmp_path, "join", "join", str(invite), "--bot", "random",
                       "--accept-rules")
        processes.append(join)
        join_out, join_err = join.communicate(timeout=max(1, deadline - time.monotonic()))
        host_out, host_err = host.communicate(timeout=max(1, deadline - time.monotonic()))
        assert proxy.tampered.is_set(), "the match ended before the proxy could tamper"
        assert proxy.joins >= 2, "the joiner never came back through the relay"
    assert join.returncode == 0, join_err + join_out
    assert host.returncode == 0, host_err + host_out
    paths = [transcript_path("\n".join(head) + "\n" + host_out), transcript_path(join_out)]
    assert paths[0] != paths[1] and paths[0].read_bytes() == paths[1].read_bytes()
    report = verify_transcript(paths[0].read_bytes())
    assert report.ok, report.describe()
