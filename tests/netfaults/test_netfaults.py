# Whole matches between two hosts under network faults: `versus host --bot random`
# in one network namespace and `versus join --bot random` in another, the namespaces joined by a
# link of their own (10.77.0.1/24 and 10.77.0.2/24, inside namespaces this module creates and
# deletes), with (1) 100 ms of added delay each way, (2) 10 % packet loss, (3) the link cut for
# longer than the channel's idle timeout mid-match, then restored: the session resumes. Each match
# must end exactly as the same match without faults.
#
# "The same match": host and join take `--insecure-test-seed` (master secrets and bot seeds from
# one seed, as `versus demo --seed` does) and fixed identity files, so a match is a pure
# function of the seed: its transcript is the same bytes whatever the network did. The
# reference run (a plain veth pair, no fault) gives those bytes once per module; every faulty
# run must produce them on both sides, verify, and print the same result line.
#
# The link. A veth pair, and faults with `tc qdisc ... netem` when the kernel has sch_netem.
# Where it has not (some container kernels), the faults come from tests/netfaults/wire.py: two
# TUN devices joined by a userspace process that delays and drops real IP packets, so both
# kernels' TCP stacks see real latency and loss. A cut is `ip link set DEV down` on both ends
# either way. Everything is probed first; where namespaces or both fault methods are not
# allowed, the tests skip with the reason.
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from versus.protocol.match.verify import verify_transcript
from versus.protocol.wire.transcript import load_transcript

pytestmark = pytest.mark.netns

ROOT = Path(__file__).resolve().parents[2]
WIRE = Path(__file__).with_name("wire.py")
TAG = f"vf{os.getpid() % 100000}"
HOST_IP, JOIN_IP = "10.77.0.1", "10.77.0.2"
PORT = 47820
SEED = "0e7f4a17"  # the match every test plays
IDENTITIES = {"host": "11" * 32, "join": "22" * 32}
MATCH_ARGS = ("--deal", "decklist")  # the default ruleset; see the timing note in README
#: the channels' idle timeout in the cut test (the hidden --insecure-test-idle-timeout; 30 s by
#: default): the cut must outlast it, and a short one keeps the suite short
IDLE_TIMEOUT = 4.0


def _ip(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["ip", *args], check=check, capture_output=True, text=True,
                          timeout=10)


def _error(error: BaseException) -> str:
    if isinstance(error, subprocess.CalledProcessError):
        return (error.stderr or str(error)).strip()
    return str(error)


@dataclass
class Link:
    """Two namespaces `ns[0]` (the host, 10.77.0.1) and `ns[1]` (the joiner, 10.77.0.2) joined
    by `devices`, with an optional fault. Close it to delete everything it made."""

    ns: tuple[str, str] = (f"{TAG}h", f"{TAG}j")
    devices: tuple[str, str] = (f"{TAG}a", f"{TAG}b")
    method: str = "veth"
    wire: subprocess.Popen[str] | None = None
    made: list[str] = field(default_factory=list)

    def open(self, *, delay: float = 0.0, loss: float = 0.0, tun: bool = False) -> None:
        for ns in self.ns:
            _ip("netns", "add", ns)
            self.made.append(ns)
            _ip("-n", ns, "link", "set", "lo", "up")
        if tun:
            self._open_wire(delay, loss)
        else:
            _ip("link", "add", self.devices[0], "type", "veth", "peer", "name", self.devices[1])
            for ns, dev in zip(self.ns, self.devices, strict=True):
                _ip("link", "set", dev, "netns", ns)
        for ns, dev, address in zip(self.ns, self.devices, (HOST_IP, JOIN_IP), strict=True):
            _ip("-n", ns, "addr", "add", f"{address}/24", "dev", dev)
            _ip("-n", ns, "link", "set", dev, "up")
        if not tun and (delay or loss):  # netem on each end: the fault in both directions
            for ns, dev in zip(self.ns, self.devices, strict=True):
                netem = ["delay", f"{delay * 1000:g}ms"] if delay else []
                netem += ["loss", f"{loss * 100:g}%"] if loss else []
                subprocess.run(["ip", "netns", "exec", ns, "tc", "qdisc", "add", "dev", dev,
                                "root", "netem", *netem], check=True, capture_output=True,
                               text=True, timeout=10)

    def _open_wire(self, delay: float, loss: float) -> None:
        self.method = "tun wire"
        self.wire = subprocess.Popen(
            [sys.executable, str(WIRE), *self.devices, "--delay-ab", str(delay),
             "--delay-ba", str(delay), "--loss", str(loss)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert self.wire.stdout is not None
        if self.wire.stdout.readline().strip() != "ready":
            self.wire.kill()
            raise RuntimeError(f"wire.py did not start: {self.wire.communicate()[1].strip()}")
        for ns, dev in zip(self.ns, self.devices, strict=True):
            _ip("link", "set", dev, "netns", ns)

    def set_up(self, up: bool) -> None:
        for ns, dev in zip(self.ns, self.devices, strict=True):
            _ip("-n", ns, "link", "set", dev, "up" if up else "down")

    def dropped(self) -> int:
        """Packets the fault dropped so far (stops a wire.py wire: call it last)."""
        if self.wire is not None:
            self.wire.terminate()
            out, _ = self.wire.communicate(timeout=10)
            self.wire = None
            return int(out.split()[-1])
        total = 0
        for ns, dev in zip(self.ns, self.devices, strict=True):
            shown = subprocess.run(["ip", "netns", "exec", ns, "tc", "-s", "qdisc", "show",
                                    "dev", dev], check=True, capture_output=True, text=True,
                                   timeout=10).stdout
            total += int(shown.split("dropped", 1)[1].split(",", 1)[0])
        return total

    def close(self) -> None:
        if self.wire is not None:
            self.wire.kill()
            self.wire.communicate()
        for ns in self.made:
            _ip("netns", "del", ns, check=False)
        _ip("link", "del", self.devices[0], check=False)  # a veth left in the root namespace


def _probe() -> tuple[bool, str]:
    """(netem works, why not): skips the module when namespaces cannot be made at all."""
    if sys.platform != "linux" or shutil.which("ip") is None:
        pytest.skip("network namespaces not available: needs Linux and the ip command")
    link = Link(ns=(f"{TAG}p", f"{TAG}q"), devices=(f"{TAG}x", f"{TAG}y"))
    try:
        link.open()
    except (subprocess.CalledProcessError, OSError, subprocess.TimeoutExpired) as error:
        link.close()
        pytest.skip(f"network namespaces not available: {_error(error)}")
    try:
        if shutil.which("tc") is None:
            return False, "no tc command"
        try:
            subprocess.run(["ip", "netns", "exec", link.ns[0], "tc", "qdisc", "add", "dev",
                            link.devices[0], "root", "netem", "delay", "1ms"], check=True,
                           capture_output=True, text=True, timeout=10)
        except (subprocess.CalledProcessError, OSError) as error:
            return False, f"tc netem: {_error(error)}"
        return True, ""
    finally:
        link.close()


@pytest.fixture(scope="module")
def netem() -> Iterator[bool]:
    """Whether faults come from tc netem (True) or wire.py over TUN devices (False)."""
    has_netem, why = _probe()
    if not has_netem:
        try:
            os.close(os.open("/dev/net/tun", os.O_RDWR))
        except OSError as error:
            pytest.skip(f"no way to inject faults: {why}; /dev/net/tun: {error.strerror}")
    yield has_netem


@pytest.fixture
def make_link(netem: bool) -> Iterator[object]:
    links: list[Link] = []

    def make(delay: float = 0.0, loss: float = 0.0, *, fault_link: bool = True) -> Link:
        link = Link()
        links.append(link)
        link.open(delay=delay, loss=loss, tun=fault_link and not netem)
        return link

    try:
        yield make
    finally:
        for link in links:
            link.close()


# --- running a match ----------------------------------------------------------------------------


@dataclass
class Played:
    seconds: float
    outputs: tuple[str, str]
    transcripts: tuple[bytes, bytes]
    cut_at_bytes: int | None = None


def _side(tmp: Path, name: str, idle_timeout: float | None = None
          ) -> tuple[list[str], dict[str, str]]:
    key = tmp / f"{name}.key"
    key.write_text(f"versus-ed25519-secret-v1 {IDENTITIES[name]}\n")
    key.chmod(0o600)
    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp / name / "config"),
               XDG_DATA_HOME=str(tmp / name / "data"), PYTHONPATH=str(ROOT))
    common = ["--bot", "random", "--identity", str(key), "--data-dir",
              str(tmp / name / "matches"), "--insecure-test-seed", SEED, "--resume-window", "120"]
    if idle_timeout is not None:
        common += ["--insecure-test-idle-timeout", str(idle_timeout)]
    return common, env


def _spawn(ns: str, args: list[str], env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(["ip", "netns", "exec", ns, sys.executable, "-m", "versus.cli.main",
                             *args],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def _invite(host: subprocess.Popen[str], deadline: float) -> tuple[str, list[str]]:
    lines: list[str] = []
    assert host.stdout is not None
    while time.monotonic() < deadline:
        line = host.stdout.readline()
        if not line:
            break
        lines.append(line)
        if line.startswith(f"invite: versus://{HOST_IP}:"):
            return line.split()[1], lines
    raise AssertionError(f"the host printed no invite for {HOST_IP}: {lines!r}")


def _transcript(output: str) -> bytes:
    line = next(line for line in output.splitlines() if line.startswith("transcript: "))
    return Path(line.split(": ", 1)[1]).read_bytes()


def play_match(link: Link, tmp: Path, timeout: float, *, cut_after: int | None = None,
               cut_seconds: float = 0.0, idle_timeout: float | None = None) -> Played:
    """One seeded match across `link`. With `cut_after`, the link goes down once the host's
    transcript holds that many bytes, for `cut_seconds`, then comes back."""
    host_args, host_env = _side(tmp, "host", idle_timeout)
    join_args, join_env = _side(tmp, "join", idle_timeout)
    start = time.monotonic()
    deadline = start + timeout
    host = _spawn(link.ns[0], ["host", "--port", str(PORT), "--bind", HOST_IP, *MATCH_ARGS,
                               *host_args], host_env)
    join = None
    cut_at = None
    try:
        invite, host_lines = _invite(host, deadline)
        join = _spawn(link.ns[1], ["join", invite, "--accept-rules", *join_args], join_env)
        if cut_after is not None:
            cut_at = _cut_when(link, tmp / "host" / "matches", cut_after, cut_seconds, deadline)
        join_out, join_err = join.communicate(timeout=max(1, deadline - time.monotonic()))
        host_out, host_err = host.communicate(timeout=max(1, deadline - time.monotonic()))
    finally:
        for process in (host, join):
            if process is not None and process.poll() is None:
                process.kill()
                process.communicate()
    seconds = time.monotonic() - start
    host_out = "".join(host_lines) + host_out
    assert host.returncode == 0, f"host exit {host.returncode}: {host_err}\n{host_out}"
    assert join.returncode == 0, f"join exit {join.returncode}: {join_err}\n{join_out}"
    return Played(seconds, (host_out, join_out), (_transcript(host_out), _transcript(join_out)),
                  cut_at)


def _cut_when(link: Link, matches: Path, size: int, seconds: float, deadline: float) -> int:
    """Wait until the host's transcript reaches `size` bytes, cut the link for `seconds`;
    the transcript's size at the cut."""
    while time.monotonic() < deadline:
        files = list(matches.glob("*/*/transcript.vtr"))  # <fingerprint>/<match id>/
        if files and (grown := files[0].stat().st_size) >= size:
            link.set_up(False)
            try:
                time.sleep(seconds)
            finally:
                link.set_up(True)
            return grown
        time.sleep(0.005)
    raise AssertionError("the match never reached the size at which to cut the link")


def _result_line(output: str) -> str:
    """`match <id>: player N wins (how) — you ...` without the per-seat ending."""
    line = next(line for line in output.splitlines() if line.startswith("match "))
    return line.rsplit(" — ", 1)[0]


def _replayed_result(summary: dict) -> str:
    """`player N wins (how` from `versus verify`'s summary (its seat counted from 1), as
    cli/match_text.py result_text starts."""
    result = summary["result"]
    who = "no winner" if result["winner"] is None else f"player {result['winner'] + 1} wins"
    return f"{who} ({result['outcome'] or result['ending']}"  # then ")" or ": detail)"


def assert_same_match(played: Played, reference: Played) -> None:
    host_bytes, join_bytes = played.transcripts
    assert host_bytes == join_bytes, "host and joiner hold different transcripts"
    assert host_bytes == reference.transcripts[0], "the faulty run played a different match"
    report = verify_transcript(host_bytes)
    assert report.ok, report.describe()
    for output in played.outputs:
        assert _result_line(output) == _result_line(reference.outputs[0])


@pytest.fixture(scope="module")
def reference(netem: bool, tmp_path_factory: pytest.TempPathFactory) -> Played:
    """The match without faults, over a plain veth pair."""
    link = Link()
    try:
        link.open()
        played = play_match(link, tmp_path_factory.mktemp("reference"), timeout=30)
    finally:
        link.close()
    host_bytes, join_bytes = played.transcripts
    assert host_bytes == join_bytes
    report = verify_transcript(host_bytes)
    assert report.ok, report.describe()
    result = load_transcript(host_bytes)
    assert len(result.envelopes) > 50  # a real match, not a setup
    # the result both programs printed is the one the independent replay finds
    for output in played.outputs:
        assert _result_line(output).split(": ", 1)[1].startswith(
            _replayed_result(report.summary))
    return played


def test_reference_match_is_reproducible(reference: Played, make_link, tmp_path) -> None:
    """Without faults, the seed fixes the match: a second run is the same bytes."""
    played = play_match(make_link(fault_link=False), tmp_path, timeout=30)
    assert_same_match(played, reference)


def test_delay_100ms(reference: Played, make_link, tmp_path) -> None:
    # 100 ms each way (an intercontinental path): every round trip of the match waits for it,
    # yet the match ends the same; longer only costs the suite time, not coverage
    played = play_match(make_link(delay=0.10), tmp_path, timeout=60)
    assert_same_match(played, reference)
    assert played.seconds > reference.seconds + 3  # the delay was real


def test_loss_10_percent(reference: Played, make_link, tmp_path) -> None:
    link = make_link(loss=0.10)
    played = play_match(link, tmp_path, timeout=60)
    assert_same_match(played, reference)
    dropped = link.dropped()
    print(f"packets dropped: {dropped}")
    assert dropped > 0  # the loss was real: TCP retransmitted


def test_cut_link_resumes(reference: Played, make_link, tmp_path) -> None:
    """Cut mid-match for longer than the idle timeout: both sides lose the connection, the
    joiner redials (failing while the link is down), and the resumed match ends the same."""
    size = len(reference.transcripts[0])
    link = make_link(delay=0.04)  # 40 ms each way, so the match is still running at the cut
    played = play_match(link, tmp_path, timeout=IDLE_TIMEOUT + 45, cut_after=size // 3,
                        cut_seconds=IDLE_TIMEOUT + 2, idle_timeout=IDLE_TIMEOUT)
    assert played.cut_at_bytes is not None and played.cut_at_bytes < size  # mid-match
    assert_same_match(played, reference)
    assert "retrying in" in played.outputs[1]  # the joiner's redials during the cut
