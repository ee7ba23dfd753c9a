# Versus's full-information referee is the one loop of every game (engine/referee_loop.py
# LocalPlay): it deals from the given orders, reveals the true cards, asks its choosers for
# turns and choices, and tells a dealt card to its owner but one dealt to be discarded (which
# the rules reveal at once), as it always did.
from __future__ import annotations

from versus.engine import HashRng
from versus.engine.referee_loop import LocalPlay
from versus.engine.versus42 import (
    Deal,
    DealDecision,
    DealPurpose,
    Referee,
    Ruleset,
    default_catalogue,
    random_chooser,
    random_deal,
)

CAT = default_catalogue()


def test_the_owner_learns_its_deals_but_a_discards() -> None:
    told = {purpose: 0 for purpose in DealPurpose}
    for i in range(40):
        seed = b"referee-%d" % i
        ids, orders = random_deal(CAT, Ruleset(), HashRng(seed, "deal"))
        ref = Referee(Ruleset(), CAT, seed, ids, orders,
                      (random_chooser(HashRng(seed, "a")), random_chooser(HashRng(seed, "b"))))
        assert isinstance(ref.local, LocalPlay)
        while ref.state.result is None:
            d = ref.state.pending
            inp = ref.advance()
            if isinstance(d, DealDecision):
                assert isinstance(inp, Deal) and inp.handle == ref.orders[d.player][
                    sum(isinstance(x, Deal) and x.handle in ref.orders[d.player]
                        for x in ref.history) - 1]
                known = ref.knowledge[d.player].cards.get(inp.handle)
                assert known == (None if d.purpose is DealPurpose.DISCARD else ids[inp.handle])
                told[d.purpose] += 1
        if told[DealPurpose.DISCARD]:
            break
    assert told[DealPurpose.HAND] and told[DealPurpose.DISCARD]
