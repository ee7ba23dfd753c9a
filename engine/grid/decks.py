# The grid's hidden decks (SPEC §3.3, §9.5): the handles the protocol deals from. Individual
# decks: player p's deck holds handles p*n .. p*n+n-1; the shared deck: one deck of 2n. From a
# start position: the position's hidden cards, which the start numbers first. Shared by the
# Game adapter and the referee (so neither imports the other), as is `random_deal`, the deal of a
# local game.
from __future__ import annotations

from ..api import HiddenDeck
from .cards import Catalogue, build_deck, build_pool
from .rules import GridRules


def hidden_decks(rules: GridRules) -> tuple[HiddenDeck, ...]:
    n = rules.deck_size
    if rules.start:
        from .start import start_plan  # the position reader loads only for a start

        hidden = start_plan(rules.start).hidden
        if rules.shared:
            return (HiddenDeck(None, hidden[0], 0),)
        return (HiddenDeck(0, hidden[0], 0), HiddenDeck(1, hidden[1], n))
    if rules.shared:
        return (HiddenDeck(None, 2 * n, 0),)
    return (HiddenDeck(0, n, 0), HiddenDeck(1, n, n))


def random_deal(catalogue: Catalogue, rules: GridRules, seed: bytes
                ) -> tuple[list[str], list[list[int]]]:
    """Card ids per handle and the deal order of each hidden deck: individual decks with the
    recommended mix (built from `seed`), or a shared deck of twice the mix. From a start
    position: its public cards are its own, and the hidden decks are its hidden cards."""
    if rules.shared:
        ids = build_pool(catalogue, rules.mode.value, rules.mix.value, seed)
        orders = [list(range(len(ids)))]
    else:
        ids = (build_deck(catalogue, rules.mode.value, rules.mix.value, seed + b"/0")
               + build_deck(catalogue, rules.mode.value, rules.mix.value, seed + b"/1"))
        n = rules.deck_size
        orders = [list(range(0, n)), list(range(n, 2 * n))]
    if rules.start:
        from .positions import load_position

        known = load_position(rules.start, catalogue)
        for h, i in enumerate(known.ident):
            if i >= 0:
                ids[h] = catalogue.cards[i].id
        orders = [list(deck.handles) for deck in hidden_decks(rules)]
    return ids, orders
