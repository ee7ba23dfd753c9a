# `versus host` / `versus join` across routers, as separate processes: a whole headless
# match through a REAL magic-wormhole transit relay on 127.0.0.1 (the joiner's direct address is
# dead, so it falls back to the relay named in the invite), the port-mapping lines the host
# prints, the invite with several addresses, and the one-line errors. Every process is killed by a
# deadline if it hangs; the relay tests skip, saying why, when the relay is not installed.
from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.p2p.nat.test_relay import relay_server  # noqa: F401 - the fixture
from versus.p2p.invite import Invite
from versus.p2p.keystore import load_or_create_identity
from versus.p2p.nat.relay import RelayAddress
from versus.protocol.match.verify import verify_transcript

ROOT = Path(__file__).resolve().parents[2]


def _env(tmp_path: Path, name: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(XDG_CONFIG_HOME=str(tmp_path / name / "config"),
               XDG_DATA_HOME=str(tmp_path / name / "data"), PYTHONPATH=str(ROOT))
    return env


def _versus(tmp_path: Path, name: str, *args: str) -> subprocess.Popen[str]:
    key = tmp_path / f"{name}.key"
    load_or_create_identity(key)
    return subprocess.Popen(
        [sys.executable, "-m", "versus.cli.main", *args, "--identity", str(key)],
        cwd=ROOT, env=_env(tmp_path, name), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True)


def _read_until_invite(process: subprocess.Popen[str], deadline: float) -> list[str]:
    """The host's lines up to its first (shared) invite."""
    lines: list[str] = []
    assert process.stdout is not None
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        lines.append(line.rstrip("\n"))
        if line.startswith("invite: versus://"):
            return lines
    process.kill()
    raise AssertionError(f"the host printed no invite: {lines!r} {process.stderr.read()!r}")


def _refusing_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _transcript(output: str) -> Path:
    line = next(line for line in output.splitlines() if line.startswith("transcript: "))
    return Path(line.split(": ", 1)[1])


@pytest.mark.slow
def test_a_whole_match_through_the_real_transit_relay(
    tmp_path: Path, relay_server: RelayAddress,  # noqa: F811 - the fixture
) -> None:
    deadline = time.monotonic() + 90
    host = _versus(tmp_path, "host", "host", "--port", "0", "--bot", "random", "--no-map",
                   "--relay", str(relay_server), "--deal", "decklist", "--clock", "5+2")
    try:
        head = _read_until_invite(host, deadline)
        assert "port mapping: not tried (--no-map)" in head
        shared = Invite.parse(head[-1].split()[1])
        assert shared.relay == (relay_server.host, relay_server.port)
        assert shared.room is not None and len(shared.room) == 16
        # the joiner cannot reach the host directly: only the relay is left
        dead = _refusing_port()
        invite = Invite.of([("127.0.0.1", dead)], shared.fingerprint, relay=shared.relay,
                           room=shared.room)
        join = _versus(tmp_path, "join", "join", str(invite), "--bot", "greedy",
                       "--accept-rules")
        join_out, join_err = join.communicate(timeout=max(1, deadline - time.monotonic()))
        host_out, host_err = host.communicate(timeout=max(1, deadline - time.monotonic()))
    finally:
        host.kill()
    assert join.returncode == 0, join_err + join_out
    assert host.returncode == 0, host_err + host_out
    assert f"joined the host via relay {relay_server} ({shared.fingerprint})" in join_out
    assert f"the joining player via relay {relay_server} joined" in host_out
    paths = [_transcript("\n".join(head) + "\n" + host_out), _transcript(join_out)]
    assert paths[0] != paths[1] and paths[0].read_bytes() == paths[1].read_bytes()
    report = verify_transcript(paths[0].read_bytes())
    assert report.ok, report.describe()


def test_host_prints_one_line_per_mapping_method_and_a_several_address_invite(
    tmp_path: Path,
) -> None:
    deadline = time.monotonic() + 30
    # nothing answers PCP on 127.0.0.1:5351: refused at once; then UPnP (miniupnpc not
    # installed, or, with the upnp extra, no IGD answers its SSDP discovery: about 4 s)
    host = _versus(tmp_path, "host", "host", "--port", "0", "--bot", "random",
                   "--gateway", "127.0.0.1")
    try:
        head = _read_until_invite(host, deadline)
    finally:
        host.kill()
        host.communicate(timeout=10)
    mapping = [line for line in head if line.startswith("port mapping: ")]
    assert mapping[0].startswith("port mapping: PCP: gateway 127.0.0.1:5351 ")
    assert len(mapping) == 2 and mapping[1].startswith("port mapping: UPnP: ")
    invite = Invite.parse(head[-1].split()[1])
    assert invite.relay is None
    assert all(port == invite.port for _host, port in invite.addresses)


def test_join_lists_each_failure_then_one_error_line(tmp_path: Path) -> None:
    key = tmp_path / "k.key"
    fingerprint = load_or_create_identity(key).fingerprint
    dead = _refusing_port()
    invite = Invite.of([("127.0.0.1", dead), ("localhost", dead)], fingerprint)
    result = subprocess.run(
        [sys.executable, "-m", "versus.cli.main", "join", str(invite), "--bot", "random",
         "--accept-rules", "--identity", str(key)],
        cwd=ROOT, env=_env(tmp_path, "j"), capture_output=True, text=True, timeout=60)
    assert result.returncode == 1, result.stderr
    failed = [line for line in result.stdout.splitlines() if line.startswith("failed: ")]
    assert len(failed) == 2
    assert failed[0].startswith(f"failed: 127.0.0.1:{dead}: could not connect")
    assert failed[1].startswith(f"failed: localhost:{dead}: ")
    assert len(result.stderr.strip().splitlines()) == 1
    assert "could not reach the host at any of its 2 addresses" in result.stderr


@pytest.mark.parametrize(("args", "message"), [
    (["--relay", "relay.example.org:4001"], "--relay: relay 'relay.example.org:4001' is not "
                                            "tcp:HOST:PORT"),
    (["--gateway", "router.local"], "--gateway 'router.local' is not an IP address"),
])
def test_host_option_errors_are_one_line(tmp_path: Path, args: list[str], message: str) -> None:
    key = tmp_path / "k.key"
    load_or_create_identity(key)
    result = subprocess.run(
        [sys.executable, "-m", "versus.cli.main", "host", "--port", "0", "--bot", "random",
         *args, "--identity", str(key)],
        cwd=ROOT, env=_env(tmp_path, "h"), capture_output=True, text=True, timeout=30)
    assert result.returncode == 1 and message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_invite_address_order(monkeypatch: pytest.MonkeyPatch) -> None:
    from versus.cli import host_cmd

    monkeypatch.setattr(host_cmd, "outward_addresses",
                        lambda bind: ["192.168.1.20", "fd00::2", "2a01:4f8::20", "127.0.0.1"])
    assert host_cmd.invite_addresses([("203.0.113.5", 7)], None, 47820) == [
        ("203.0.113.5", 7), ("2a01:4f8::20", 47820), ("192.168.1.20", 47820),
        ("fd00::2", 47820)]
    monkeypatch.setattr(host_cmd, "outward_addresses", lambda bind: ["127.0.0.1"])
    assert host_cmd.invite_addresses([], None, 5) == [("127.0.0.1", 5)]

# A host behind a real NAT (miniupnpd in network namespaces) mapped by PCP, NAT-PMP and UPnP,
# each with a WAN joiner playing a whole match: tests/p2p/nat/test_miniupnpd.py.
