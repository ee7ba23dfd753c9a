# "a whole P2P match over TCP per mode and per deal type, verified offline; tamper
# tests": the real `versus demo --game grid` path in process (two bots, both peers' protocol
# stacks over loopback TCP on 127.0.0.1, the transcript written to disk), for each mode with
# decklist commitments and with the shared-pool deal, and the shared-deck rules option (one
# encrypted deck both players draw from); each transcript is then verified offline by the real
# verifier (signatures, hash chain, commitments and proofs, a full engine replay), and one
# flipped byte of a signed grid input is refused. The in-memory protocol matches are in
# tests/engine/grid/test_protocol.py; these are the whole command over the network.
from __future__ import annotations

import functools
import tempfile
from pathlib import Path

import pytest

from versus.cli.main import main
from versus.protocol.match.verify import verify_transcript
from versus.protocol.wire.envelope import MessageKind, parse_envelope
from versus.protocol.wire.transcript import Transcript, load_transcript

CASES = [("fast", "decklist", ()), ("normal", "decklist", ()), ("vs", "decklist", ()),
         ("fast", "shared-pool", ()), ("normal", "shared-pool", ()), ("vs", "shared-pool", ()),
         ("fast", "shared-pool", ("deck=shared",))]


@functools.cache
def demo(mode: str, deal: str, rules: tuple[str, ...]) -> tuple[str, bytes]:
    """One seeded grid demo over loopback TCP: (its standard output, its transcript file)."""
    argv = ["demo", "--game", "grid", "--rule", f"mode={mode}", "--deal", deal,
            "--bot-a", "greedy", "--bot-b", "random", "--seed", "17", "--quiet"]
    for rule in rules:
        argv += ["--rule", rule]
    with tempfile.TemporaryDirectory(prefix="test-grid-match-") as out_dir:
        import contextlib
        import io

        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            code = main([*argv, "--out", out_dir])
        assert code == 0, out.getvalue()
        return out.getvalue(), next(Path(out_dir).glob("*/transcript.vtr")).read_bytes()


@pytest.mark.parametrize(("mode", "deal", "rules"), CASES,
                         ids=["-".join((m, d, *r)) for m, d, r in CASES])
def test_a_whole_grid_match_over_tcp_verifies_offline(mode: str, deal: str,
                                                      rules: tuple[str, ...]) -> None:
    out, raw = demo(mode, deal, rules)
    assert f"{deal} deal, over TCP on 127.0.0.1" in out and "verify: OK" in out
    report = verify_transcript(raw)
    assert report.ok, report.describe()
    summary = report.summary
    assert summary["rules"]["game"] == "grid" and summary["deal_mode"] == deal
    options = summary["rules"]["ruleset"]
    assert options["mode"] == mode
    assert options["deck"] == ("shared" if "deck=shared" in rules else "individual")
    # played to the game's end (not a forfeit), every secret opened, both decks' cards named
    assert summary["ending"] == "game" and summary["secrets_revealed"]
    assert summary["result"]["outcome"] in ("home-base", "most-cards", "equal-cards")
    cards = {"fast": 20, "normal": 30, "vs": 40}[mode]
    assert len(summary["deal"]) == 2 * cards


def test_a_flipped_byte_of_a_signed_grid_input_is_refused() -> None:
    _, raw = demo("fast", "decklist", ())
    t = load_transcript(raw)
    actions = [i for i, env in enumerate(t.envelopes)
               if parse_envelope(env).kind is MessageKind.ACTION]
    i = actions[len(actions) // 2]
    envelopes = list(t.envelopes)
    data = bytearray(envelopes[i])
    data[len(data) // 2] ^= 0x01
    envelopes[i] = bytes(data)
    report = verify_transcript(Transcript(t.hellos, tuple(envelopes)))
    assert not report.ok
    assert report.bad_index == i + 2, report.describe()
