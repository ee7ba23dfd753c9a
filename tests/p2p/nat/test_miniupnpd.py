# The client against a REAL NAT gateway: miniupnpd (Debian package miniupnpd-nftables) with an
# nftables NAT, in network namespaces this module creates and deletes. LAN (10.88.1.2) -> gateway
# (10.88.1.1 | 61.88.0.1, masquerading) -> WAN (61.88.0.2). The WAN range is a public one that
# miniupnpd accepts (it refuses reserved ranges as external addresses); it exists only inside
# these namespaces, which have no route to anything else. In the LAN a listener maps its port
# by PCP or NAT-PMP; a client in the WAN connects to the mapped external address and port and
# gets an echo through the NAT; then the mapping is deleted and miniupnpd's rule is gone.
# Skips, with the reason, where namespaces, nft or miniupnpd are not available.
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.netns

ROOT = Path(__file__).resolve().parents[3]
TAG = f"nx{os.getpid() % 100000}"
LAN_NS, GW_NS, WAN_NS = f"{TAG}l", f"{TAG}g", f"{TAG}w"
LAN_DEV, GW_LAN_DEV, GW_WAN_DEV, WAN_DEV = f"{TAG}la", f"{TAG}lb", f"{TAG}wb", f"{TAG}wa"
NFT_RULES = """
table inet filter {{
  chain forward {{ type filter hook forward priority 0; policy drop;
    ct state established,related accept; iifname "{lan}" accept; jump miniupnpd; }}
  chain miniupnpd {{ }}
  chain prerouting {{ type nat hook prerouting priority -100; policy accept;
    jump prerouting_miniupnpd; }}
  chain postrouting {{ type nat hook postrouting priority 100; policy accept;
    jump postrouting_miniupnpd; oifname "{wan}" masquerade; }}
  chain prerouting_miniupnpd {{ }}
  chain postrouting_miniupnpd {{ }}
}}
"""
MINIUPNPD_CONF = """\
ext_ifname={wan}
listening_ip={lan}
enable_natpmp=yes
enable_upnp=no
secure_mode=yes
system_uptime=yes
upnp_table_name=filter
upnp_nat_table_name=filter
upnp_forward_chain=miniupnpd
upnp_nat_chain=prerouting_miniupnpd
upnp_nat_postrouting_chain=postrouting_miniupnpd
uuid=3d3cec3a-8cf0-11e0-98ee-001a6bd2d07d
allow 1024-65535 10.88.1.0/24 1024-65535
deny 0-65535 0.0.0.0/0 0-65535
"""


def _run(*args: str, input: str | None = None) -> None:
    subprocess.run(list(args), check=True, capture_output=True, text=True, timeout=15,
                   input=input)


def _reason(error: BaseException) -> str:
    if isinstance(error, subprocess.CalledProcessError):
        return (error.stderr or str(error)).strip()
    return str(error)


@pytest.fixture(scope="module")
def gateway(tmp_path_factory: pytest.TempPathFactory) -> Iterator[subprocess.Popen[str]]:
    if sys.platform != "linux" or os.geteuid() != 0:
        pytest.skip("needs Linux and root for network namespaces")
    for tool in ("ip", "nft", "miniupnpd"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed (apt-get install iproute2 nftables "
                        "miniupnpd-nftables)")
    made: list[str] = []
    daemon: subprocess.Popen[str] | None = None
    try:
        for ns in (LAN_NS, GW_NS, WAN_NS):
            try:
                _run("ip", "netns", "add", ns)
            except (subprocess.CalledProcessError, OSError) as error:
                pytest.skip(f"cannot create network namespaces here: {_reason(error)}")
            made.append(ns)
            _run("ip", "-n", ns, "link", "set", "lo", "up")
        _run("ip", "link", "add", LAN_DEV, "type", "veth", "peer", "name", GW_LAN_DEV)
        _run("ip", "link", "add", WAN_DEV, "type", "veth", "peer", "name", GW_WAN_DEV)
        for dev, ns, address in ((LAN_DEV, LAN_NS, "10.88.1.2/24"),
                                 (GW_LAN_DEV, GW_NS, "10.88.1.1/24"),
                                 (GW_WAN_DEV, GW_NS, "61.88.0.1/24"),
                                 (WAN_DEV, WAN_NS, "61.88.0.2/24")):
            _run("ip", "link", "set", dev, "netns", ns)
            _run("ip", "-n", ns, "addr", "add", address, "dev", dev)
            _run("ip", "-n", ns, "link", "set", dev, "up")
        _run("ip", "-n", LAN_NS, "route", "add", "default", "via", "10.88.1.1")
        _run("ip", "netns", "exec", GW_NS, "sysctl", "-qw", "net.ipv4.ip_forward=1")
        try:
            _run("ip", "netns", "exec", GW_NS, "nft", "-f", "-",
                 input=NFT_RULES.format(lan=GW_LAN_DEV, wan=GW_WAN_DEV))
        except subprocess.CalledProcessError as error:
            pytest.skip(f"nftables is not usable here: {_reason(error)}")
        folder = tmp_path_factory.mktemp("miniupnpd")
        conf = folder / "miniupnpd.conf"
        conf.write_text(MINIUPNPD_CONF.format(lan=GW_LAN_DEV, wan=GW_WAN_DEV))
        log = open(folder / "miniupnpd.log", "w")  # noqa: SIM115 - closed with the daemon
        daemon = subprocess.Popen(
            ["ip", "netns", "exec", GW_NS, "miniupnpd", "-d", "-f", str(conf)],
            stdout=log, stderr=subprocess.STDOUT, text=True,
        )
        time.sleep(1.0)
        if daemon.poll() is not None:
            log.close()
            pytest.skip("miniupnpd did not start: "
                        + (folder / "miniupnpd.log").read_text()[-500:])
        yield daemon
    finally:
        if daemon is not None:
            daemon.terminate()
            try:
                daemon.wait(timeout=10)
            except subprocess.TimeoutExpired:
                daemon.kill()
                daemon.wait(timeout=10)
        for ns in made:
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=15)


_LAN_SCRIPT = """
import json, sys, trio
from versus.p2p.nat import client
from versus.p2p.nat.client import RetryPolicy
FAST = RetryPolicy(0.5, 2.0, 3)

async def main():
    with trio.fail_after(40):
        listeners = await trio.open_tcp_listeners(47820, host="10.88.1.2")
        if {method!r} == "PCP":
            mapping = await client.pcp_map("10.88.1.1", 47820, suggested_port=47820,
                                           lifetime=120, policy=FAST)
        else:
            mapping = await client.natpmp_map("10.88.1.1", 47820, suggested_port=47820,
                                              lifetime=120, policy=FAST)
        print(json.dumps({{"method": mapping.method.value,
                          "address": str(mapping.external_address),
                          "port": mapping.external_port}}), flush=True)
        stream = await listeners[0].accept()
        data = await stream.receive_some(100)
        await stream.send_all(b"echo:" + data)
        await stream.aclose()
        renewed = await client.renew(mapping, pcp_policy=FAST, natpmp_policy=FAST)
        await client.delete(renewed, pcp_policy=FAST, natpmp_policy=FAST)
        print(json.dumps({{"deleted": True, "renewed_port": renewed.external_port}}), flush=True)

trio.run(main)
"""

_WAN_SCRIPT = """
import socket, sys
s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=10)
s.sendall(b"hello through the NAT")
print(s.recv(100).decode())
"""


@pytest.mark.parametrize("method", ["PCP", "NAT-PMP"])
def test_map_through_real_miniupnpd_and_connect_from_the_wan(
    gateway: subprocess.Popen[str], method: str,
) -> None:
    lan = subprocess.Popen(
        ["ip", "netns", "exec", LAN_NS, sys.executable, "-c",
         textwrap.dedent(_LAN_SCRIPT.format(method=method))],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        assert lan.stdout is not None
        first = lan.stdout.readline()
        if not first:
            pytest.fail(f"the LAN host could not map its port: {lan.stderr.read()[-1500:]}")
        mapped = json.loads(first)
        assert mapped == {"method": method, "address": "61.88.0.1", "port": 47820}
        wan = subprocess.run(
            ["ip", "netns", "exec", WAN_NS, sys.executable, "-c", _WAN_SCRIPT,
             mapped["address"], str(mapped["port"])],
            capture_output=True, text=True, timeout=30,
        )
        assert wan.stdout.strip() == "echo:hello through the NAT", wan.stderr
        out, err = lan.communicate(timeout=40)
        assert json.loads(out.strip().splitlines()[-1]) == {"deleted": True,
                                                            "renewed_port": 47820}, err
        rules = subprocess.run(["ip", "netns", "exec", GW_NS, "nft", "list", "chain", "inet",
                                "filter", "prerouting_miniupnpd"],
                               capture_output=True, text=True, timeout=15).stdout
        assert "47820" not in rules
    finally:
        if lan.poll() is None:
            lan.kill()
            lan.wait(timeout=10)
