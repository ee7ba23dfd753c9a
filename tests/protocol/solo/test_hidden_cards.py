# A verifiable solo run keeps face-down cards hidden (SPEC §11.3, §11.1.5, §11.7.3): the attack of
# looking a face-down card's handle up in the public decklist (when handles were decklist indices,
# this named every hidden card from the first deal) now guesses no better than chance.
from __future__ import annotations

from versus.cli.solo import make_bot
from versus.engine.multiverse import MULTIVERSE as G
from versus.engine.multiverse.rules import power_decklist
from versus.protocol.crypto.identity import Identity
from versus.protocol.solo import run as R
from versus.protocol.solo import service as S
from versus.protocol.solo.challenge import new_challenge

ORG, PLAYER = Identity(b"\x01" * 32), Identity(b"\x02" * 32)
RULES = G.rules_from_options({"difficulty": "normal", "deck": 50})


def _face_down(view: dict) -> list[int]:
    st = view["state"]
    mine = [h for h, up in zip(st["pdef"], st["pup"], strict=True) if h >= 0 and not up]
    return mine + [h for row in st["rows"] for h, up in zip(row["cards"], row["up"], strict=True)
                   if h >= 0 and not up]


def test_a_face_down_card_is_not_named_by_its_handle():
    """The attack: while a card lies face down, guess it from the view as the decklist's
    card at its handle; score the guess when the card flips. Chance is about 5% (the most
    common card is 3 of 50); a handle that indexes the decklist scores 100%."""
    decklist = power_decklist(RULES, G.default_catalogue())
    flips = named = 0
    for i in range(8):
        ch, sec = new_challenge(ORG, G, RULES, f"hide-{i}", lambda n, i=i: bytes([i + 1]) * n)
        guesses: dict[int, str] = {}

        def watch(before, inp, after, guesses=guesses):
            nonlocal flips, named
            words = inp.split(" ")
            if words[0] == "reveal" and int(words[1]) in guesses:
                flips += 1
                named += guesses.pop(int(words[1])) == words[2]
            for h in _face_down(G.view(after, 0, None)):
                if h < len(decklist):
                    guesses.setdefault(h, decklist[h])

        R.play(G, ch, PLAYER, S.RevealService(ch, sec).reveal, make_bot("greedy", i),
               on_step=watch)
    assert flips >= 20
    assert named / flips < 0.3, (named, flips)

