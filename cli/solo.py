# `versus solo` and `versus challenge`: verifiable solo runs (issue 19, SPEC Part M).
#
# `versus challenge new --out DIR` (an organiser): a signed challenge file and the secret file
# the organiser keeps; `versus challenge daily --date D` the same for a date's public daily
# challenge. `versus solo --game multiverse [--challenge FILE --secret FILE] [--bot NAME]`
# plays a run: the reveal service runs in this process from the organiser's secret file (an
# organiser testing, or a hosted terminal), or, without a challenge, a self-issued practice
# challenge (the player's own key is the organiser, which the verifier reports). The run file
# is written to --out and `versus verify` checks it.
from __future__ import annotations

import argparse
import datetime
import random
import secrets
import sys
from pathlib import Path
from typing import Any, TextIO

from versus.protocol.solo.challenge import (
    ChallengeError,
    daily_challenge,
    new_challenge,
    parse_challenge,
    parse_secret,
)
from versus.protocol.solo.run import RevealService, play, verify_run

EXIT_OK, EXIT_ERROR, EXIT_USAGE = 0, 1, 2
BOTS = ("random", "greedy")


# --- bots -------------------------------------------------------------------------------------


def random_bot(seed: int = 0) -> Any:
    rng = random.Random(seed)

    def choose(game: Any, state: Any, legal: list[str]) -> str:
        return legal[rng.randrange(len(legal))]

    return choose


def _power(state: Any, h: int) -> Any:
    return state.cat.power(state.d["known"][str(h)])


def greedy_bot(seed: int = 0) -> Any:
    """Slow draw/rally cards first; attack the weakest known (else any) target with the
    smallest Super that beats it, or draw; instants only to turn a combat; discard the
    weakest card over the hand limit."""

    def choose(game: Any, state: Any, legal: list[str]) -> str:
        d = state.d
        slows = [a for a in legal if a.startswith("slow ")]
        if slows:
            return max(slows, key=lambda a: (_power(state, int(a.split()[1])).effect == "draw",
                                             a))
        attacks = [a for a in legal if a.startswith("attack ")]
        if attacks:
            r = next(i for i, row in enumerate(d["rows"]) if any(h >= 0 for h in row["cards"]))
            row = d["rows"][r]

            def margin(a: str) -> tuple[int, int]:
                _, h, c = a.split()
                me = _power(state, int(h))
                tgt = row["cards"][int(c)]
                defence = _power(state, tgt).power if row["up"][int(c)] else 3
                m = me.power + (me.amount if me.activation == "offensive" else 0) - defence
                return (1 if m > 0 else 0, -me.power if m > 0 else m)

            best = max(attacks, key=margin)
            if margin(best)[0] or len(d["hand"]) >= 6:
                return best
        if "draw" in legal:
            return "draw"
        if "end" in legal:
            return "end"
        cb = d["combat"]
        inst = [a for a in legal if a.startswith("instant ")]
        if cb is not None and inst:
            mine = cb["side"] == 0
            losing = cb["a"] <= cb["d"] if mine else cb["a"] > cb["d"]
            if losing:
                return inst[0]
            return "done"
        discards = [a for a in legal if a.startswith("discard ")]
        if discards:
            return min(discards, key=lambda a: _power(state, int(a.split()[1])).power)
        return legal[0]

    return choose


def make_bot(name: str, seed: int = 0) -> Any:
    if name == "random":
        return random_bot(seed)
    if name == "greedy":
        return greedy_bot(seed)
    raise ValueError(f"unknown solo bot {name!r}: one of {', '.join(BOTS)}")


def line_chooser(out: TextIO, inp: TextIO = sys.stdin) -> Any:
    """A simple line UI: the board, the numbered legal inputs; a number or the input's text;
    `?` prints help."""
    from versus.engine.multiverse.text import board

    def choose(game: Any, state: Any, legal: list[str]) -> str:
        print(board(state), file=out)
        for i, a in enumerate(legal):
            print(f"  {i:>2}: {a}", file=out)
        while True:
            out.write("> ")
            out.flush()
            line = inp.readline()
            if not line:
                raise KeyboardInterrupt
            text = line.strip()
            if text in ("?", "help"):
                print("type the number or the text of an input; attack H C attacks column C "
                      "with card H; slow H activates a slow card; draw; end; instant H; done",
                      file=out)
                continue
            if text.isdigit() and int(text) < len(legal):
                return legal[int(text)]
            matches = [a for a in legal if a == text] or [a for a in legal if a.startswith(text)]
            if len(matches) == 1:
                return matches[0]
            print(f"not one legal input: {text!r}", file=out)

    return choose


# --- commands ---------------------------------------------------------------------------------


def _identity(path: str | None) -> Any:
    from versus.p2p.keystore import load_or_create_identity

    return load_or_create_identity(path)


def _game(name: str | None) -> Any:
    from versus.engine.registry import get_game

    return get_game(name or "multiverse")


def _rules(game: Any, pairs: list[tuple[str, Any]] | None) -> Any:
    return game.rules_from_options(dict(pairs or []))


def cmd_challenge(args: argparse.Namespace, out: TextIO) -> int:
    game = _game(args.game)
    organiser = _identity(args.identity)
    outdir = Path(args.out)
    outdir.mkdir(parents=True, exist_ok=True)
    if args.action == "daily":
        date = datetime.date.fromisoformat(args.date) if args.date else datetime.date.today()
        ch, sec = daily_challenge(organiser, game, date)
    else:
        cid = args.id or f"c-{secrets.token_hex(6)}"
        ch, sec = new_challenge(organiser, game, _rules(game, args.rule), cid,
                                secrets.token_bytes)
    cpath, spath = outdir / f"{ch.id}.challenge", outdir / f"{ch.id}.secret"
    cpath.write_bytes(ch.to_bytes())
    spath.touch(mode=0o600)
    spath.write_bytes(sec.to_bytes())
    print(f"challenge {ch.id}: {cpath} (public); organiser secret: {spath} (keep it)", file=out)
    return EXIT_OK


def cmd_solo(args: argparse.Namespace, out: TextIO) -> int:
    game = _game(args.game)
    player = _identity(args.identity)
    if args.challenge:
        ch = parse_challenge(Path(args.challenge).read_bytes())
        if not args.secret:
            print("versus solo: the reveal service needs the organiser's secret file "
                  "(--secret); a networked reveal service is not available yet",
                  file=sys.stderr)
            return EXIT_USAGE
        sec = parse_secret(Path(args.secret).read_bytes(), ch)
    else:  # a self-issued practice challenge
        ch, sec = new_challenge(player, game, _rules(game, args.rule),
                                f"practice-{secrets.token_hex(4)}", secrets.token_bytes)
    service = RevealService(ch, sec)
    chooser = make_bot(args.bot, args.seed) if args.bot else line_chooser(out)
    run, state = play(game, ch, player, service.reveal, chooser)
    fin = game.decision(state)
    publish = args.publish_secret or not args.challenge
    data = run.to_bytes(service.publish_secret() if publish else None)
    path = Path(args.out or f"{ch.id}.run")
    path.write_bytes(data)
    print(f"{fin.outcome}: score {game.score(state)} after {state.d['turn']} turns; run "
          f"written to {path}", file=out)
    return EXIT_OK


def cmd_solo_verify(path: str, challenge: str | None, out: TextIO) -> int:
    expected = parse_challenge(Path(challenge).read_bytes()) if challenge else None
    report = verify_run(Path(path).read_bytes(), expected)
    print(report.describe(), file=out)
    return EXIT_OK if report.ok else EXIT_ERROR


__all__ = ["ChallengeError", "cmd_challenge", "cmd_solo", "cmd_solo_verify", "make_bot"]
