from __future__ import annotations

import json

import pytest

from versus.engine import CatalogueError, default_catalogue, load_catalogue
from versus.engine.catalogue import ACTIVE_OPS, CONTINUOUS, PASSIVE_OPS, TRIGGERS


def _doc():
    return json.loads(default_catalogue().encoding)


def test_default_catalogue_shape_and_balance():
    cat = default_catalogue()
    assert len(cat) >= 42
    light = [c for c in cat.cards if c.energy_name == "light"]
    dark = [c for c in cat.cards if c.energy_name == "dark"]
    assert len(light) == len(dark)
    assert sorted(c.strength for c in light) == sorted(c.strength for c in dark)
    assert {c.strength for c in cat.cards} == {1, 2, 3, 4, 5}


def test_vocabulary_is_covered():
    cat = default_catalogue()
    assert {c.active.op for c in cat.cards} == set(ACTIVE_OPS)
    assert {c.passive.trigger for c in cat.cards} == set(TRIGGERS + CONTINUOUS)
    assert {c.passive.op for c in cat.cards} == set(PASSIVE_OPS)


def test_rules_text_is_generated():
    card = default_catalogue()["aurora-knight"]
    assert card.text == ("Active: Destroy 1 enemy adjacent to this card with Strength 2 or less."
                         " Passive: +1 Strength while in a White area.")


def test_digest_is_stable_and_canonical():
    cat = default_catalogue()
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
