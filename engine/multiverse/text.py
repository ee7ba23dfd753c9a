# Narration and a plain-text board for "Against the Multiverse". Everything here reads only
# revealed identities (`known`): a face-down card is shown as "[face-down]", a dealt card's
# handle never names its card.
from __future__ import annotations

from typing import Any

from . import engine as E


def _name(state: E.State, h: int) -> str:
    cid = state.d["known"].get(str(h))
    if cid is None:
        return "[face-down]"
    try:
        p = state.cat.power(cid)
    except KeyError:
        return state.cat.battleground(cid).name
    return f"{p.name} ({p.type} {p.power}, {p.activation} {p.effect} {p.amount})"


def narrate(before: E.State, inp: str, after: E.State) -> list[str]:
    words = inp.split(" ")
    out: list[str] = []
    w = words[0]
    if w == "deal":
        out.append("a card is dealt")
    elif w == "reveal":
        out.append(f"revealed: {_name(after, int(words[1]))}")
    elif w == "roll":
        out.append(f"the Multiverse rolls {words[1]}: it aims at slot "
                   f"{after.d['combat']['target'][0] if after.d['combat'] else '?'}")
    elif w == "attack":
        out.append(f"you attack with {_name(before, int(words[1]))} at column {words[2]}")
    elif w == "slow":
        out.append(f"you activate {_name(before, int(words[1]))}")
    elif w == "instant":
        out.append(f"you add the instant {_name(before, int(words[1]))}")
    elif w == "discard":
        out.append(f"you discard {_name(before, int(words[1]))}")
    else:
        out.append(f"you {w}")
    if before.d["combat"] is not None and after.d["combat"] is None:
        cb = before.d["combat"]
        out.append(f"combat settled ({'you' if cb['side'] == 0 else 'the Multiverse'} "
                   "attacked)")
    if after.d["outcome"] is not None and before.d["outcome"] is None:
        out.append(f"game over: {after.d['outcome'][0]}")
    return out


def board(state: E.State) -> str:
    """A few lines for the terminal: the Multiverse's rows, yours, your hand."""
    d: dict[str, Any] = state.d
    lines = [f"turn {d['turn']}  deck {E.deck_left(d, state.rules, state.cat, 0)}  "
             f"defeated {d['defeated']}  shield you/mv {d['shield']}  rally {d['rally']}"]
    for r in reversed(range(len(d["rows"]))):
        row = d["rows"][r]
        cells = [("-" if h < 0 else _name(state, h) if row["up"][c] else "[face-down]")
                 for c, h in enumerate(row["cards"])]
        near = " <- nearest" if r == E.nearest_row(d) else ""
        lines.append(f"row {r} on {_name(state, row['bg'])}: {' | '.join(cells)}{near}")
    mine = [("-" if h < 0 else _name(state, h) if d["pup"][c] else "[face-down]")
            for c, h in enumerate(d["pdef"])]
    lines.append(f"you on {_name(state, d['pbg'])}: {' | '.join(mine)}")
    lines.append("hand: " + "; ".join(f"{h}={_name(state, h)}" for h in d["hand"]))
    if d["combat"]:
        cb = d["combat"]
        lines.append(f"combat: attack {cb['a']} vs defense {cb['d']}")
    return "\n".join(lines)
