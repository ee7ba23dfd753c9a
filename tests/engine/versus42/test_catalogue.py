from __future__ import annotations

import json

import pytest

from versus.engine import CatalogueError
from versus.engine.versus42 import default_catalogue, load_catalogue
from versus.engine.versus42.catalogue import ACTIVE_OPS, CONTINUOUS, PASSIVE_OPS, TRIGGERS


def _doc():
    """Version 1's canonical document: the loader's tests mutate its known cards."""
    from versus.engine.versus42.catalogue import catalogue_version

    return json.loads(catalogue_version(1).encoding)


def test_default_catalogue_shape_and_balance():
    cat = default_catalogue()
    assert len(cat) >= 42
    light = [c for c in cat.cards if c.energy_name == "light"]
    dark = [c for c in cat.cards if c.energy_name == "dark"]
    assert len(light) == len(dark)
    assert sorted(c.strength for c in light) == sorted(c.strength for c in dark)
    # version 2 has no Strength-5 card (SPEC Part 2, "Balance"); version 1 had all of 1-5
    assert {1, 2, 3, 4} <= {c.strength for c in cat.cards} <= {1, 2, 3, 4, 5}


def test_vocabulary_is_covered():
    cat = default_catalogue()
    assert {c.active.op for c in cat.cards} == set(ACTIVE_OPS)
    assert {c.passive.trigger for c in cat.cards} == set(TRIGGERS + CONTINUOUS)
    assert {c.passive.op for c in cat.cards} == set(PASSIVE_OPS)


def test_rules_text_is_generated():
    card = default_catalogue()["aurora-knight"]
    assert card.text == ("Active: Destroy 1 recto enemy adjacent to this card with Strength 2 or "
                         "less. Passive: +1 Strength while in a White area.")


def test_digest_is_stable_and_canonical():
    from versus.engine.versus42.catalogue import catalogue_version

    cat = catalogue_version(1)
    again = load_catalogue(json.dumps(_doc(), indent=3))
    assert again.digest == cat.digest and len(cat.digest) == 32
    doc = _doc()
    doc["cards"][0]["strength"] = 2 if doc["cards"][0]["strength"] != 2 else 3
    assert load_catalogue(json.dumps(doc)).digest != cat.digest


@pytest.mark.parametrize("mutate, message", [
    (lambda d: d["cards"][3].update(strength=6), r"card #3 'dusk-bat'.*'strength'"),
    (lambda d: d["cards"][0].update(energy="fire"), r"'lumen-sprite'.*'energy'"),
    (lambda d: d["cards"][1]["active"].update(op="telport"), r"'shade-mite'.*'active.op'"),
    (lambda d: d["cards"][2]["active"].update(range="far"), r"'dawn-moth'.*'active.range'"),
    (lambda d: d["cards"][2]["passive"].pop("colour"), r"'dawn-moth'.*'passive.colour'"),
    (lambda d: d["cards"][0]["active"].pop("amount"), r"'active.amount': missing"),
    (lambda d: d["cards"][5].update(id=d["cards"][4]["id"]), r"duplicate id"),
    (lambda d: d["cards"][0].update(extra=1), r"'extra'"),
    (lambda d: d.update(format="x"), r"'format'"),
    (lambda d: d["cards"][0]["passive"].update(op="increase"), r"'passive.op'"),
    (lambda d: d["cards"][0]["passive"].update(target="battle_opponent", op="destroy",
                                                amount=None),
     r"'lumen-sprite'"),
])
def test_malformed_catalogues_are_rejected_with_card_and_field(mutate, message):
    doc = _doc()
    mutate(doc)
    with pytest.raises(CatalogueError, match=message):
        load_catalogue(json.dumps(doc))


@pytest.mark.parametrize("data", [b"", b"[]", b"{", b"\xff\xfe", b'{"format":"versus-catalogue/1"}',
                                  b"x" * (1 << 21)])
def test_garbage_is_rejected(data):
    with pytest.raises(CatalogueError):
        load_catalogue(data)


# --- versions (SPEC Part 2, "Versions") and honest texts ---------------------------

def test_every_shipped_version_loads_and_the_latest_is_the_default():
    from versus.engine.versus42.catalogue import LATEST, VERSIONS, catalogue_version, find_catalogue

    versions = [catalogue_version(v) for v in range(1, LATEST + 1)]
    assert len(VERSIONS) == LATEST >= 2
    assert default_catalogue() is versions[-1]
    assert len({c.digest for c in versions}) == LATEST  # each version has its own digest
    for cat in versions:
        assert find_catalogue(cat.digest) is cat
    assert find_catalogue(bytes(32)) is None
    with pytest.raises(CatalogueError, match="version"):
        catalogue_version(LATEST + 1)


def test_version_1_is_frozen():
    """Old transcripts bind this digest (tests/protocol/data): cards.json is never edited."""
    from versus.engine.versus42.catalogue import catalogue_version

    assert catalogue_version(1).digest.hex() == (
        "09d3492b75c1709f8a9ffc1037b326406aaff6a130db4bf4d3e92de5ad7556a0")


def _mirror(obj):
    swap = {"white": "black", "black": "white"}
    if isinstance(obj, dict):
        return {k: _mirror(v) for k, v in obj.items() if k not in ("id", "name", "energy")}
    return swap.get(obj, obj) if isinstance(obj, str) else obj


def test_light_and_dark_cards_are_true_mirrors():
    """Card 2k is Light, card 2k+1 Dark, and they differ only in Energy and colour words."""
    cards = json.loads(default_catalogue().encoding)["cards"]
    for light, dark in zip(cards[::2], cards[1::2], strict=True):
        assert (light["energy"], dark["energy"]) == ("light", "dark"), light["id"]
        assert _mirror(light) == {k: v for k, v in dark.items()
                                  if k not in ("id", "name", "energy")}, (light["id"], dark["id"])


def _conditions(card) -> list[tuple[str, str]]:
    """(part of the text, words it must contain) for every rule of card texts (SPEC Part 2) that
    applies to `card`, derived from its definition."""
    a, p = card.active, card.passive
    out = []
    if a.op == "destroy" and a.max_strength:
        out.append(("active", "recto"))
    if p.op == "destroy" and p.max_strength:
        out.append(("passive", "recto"))
    if p.op == "flip":  # which card: the first by area order
        out += [("passive", "first verso enemy adjacent to this card"),
                ("passive", "order a1, b1")]
    if a.op == "flip":
        out.append(("active", "even on Gray"))
    if a.op == "copy":
        out.append(("active", "except a Copy"))
    if p.trigger == "destroyed":
        out.append(("passive", "destroyed while recto"))
    if p.trigger == "battle_adjacent":
        out.append(("passive", "adjacent to this card"))
    if p.target == "adjacent_weakest":
        out.append(("passive", "weakest recto enemy adjacent to this card"))
    return out


def test_card_texts_state_every_rule_a_player_needs():
    from versus.engine.versus42.catalogue import shipped_catalogues

    checked = 0
    for cat in shipped_catalogues():  # the texts of old versions are generated the same way
        for card in cat.cards:
            active, passive = card.text.split(" Passive: ")
            parts = {"active": active, "passive": passive}
            for part, words in _conditions(card):
                assert words in parts[part], (card.id, part, words, card.text)
                checked += 1
            # "it" is never left to guess: every text names "this card"
            assert not any(f" {w} it " in card.text or card.text.endswith(f" {w} it.")
                           for w in ("to", "adjacent")), card.text
    assert checked > 40


def test_no_passive_only_hurts_its_owner():
    """A Passive that destroys the card it battles, with a Strength limit, must be able to hit
    a card the battle would not destroy anyway (one at least as strong as its owner)."""
    for card in default_catalogue().cards:
        p = card.passive
        if p.op == "destroy" and p.target == "battle_opponent" and p.max_strength:
            assert p.max_strength >= card.strength, card.id
