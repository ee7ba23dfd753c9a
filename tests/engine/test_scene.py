# The scene (engine/scene.py): plain data a game builds and every shell draws. A malformed
# scene is refused where it is built, naming the field; the text drawing keeps every line within
# its width; and a game without the optional `scene` member still gets one (api.scene_of) whose
# inputs are its legal lines for the deciding seat and none for the other.
from __future__ import annotations

import pytest

from tests.engine.toy_game import TOY
from versus.engine.api import Setup, scene_of
from versus.engine.referee_loop import HashBelow, LocalPlay, pool_deal
from versus.engine.scene import (
    Board,
    Card,
    Cell,
    Face,
    Scene,
    SceneError,
    Zone,
    player_name,
    scene_lines,
)


def _scene() -> Scene:
    ogre = Card("h3", "Ogre 4", Face("Ogre", "character", (("Strength", "4"),),
                                     "When the Ogre wins a battle, draw a card. " * 4), owner=0,
                inputs=("move a1 b1",))
    hidden = Card("h9", "?", owner=1, status=("face down",))
    cells = tuple(Cell(f"{c}{r}", shade="white", cards=(ogre,) if (c, r) == ("a", 1) else ())
                  for r in (2, 1) for c in "ab")
    board = Board(("a", "b"), ("2", "1"), cells, legend="W: a White tile")
    return Scene("toy · turn 1", 0, ("your turn",), board,
                 (Zone("Your hand", 0, (ogre,), hand=True),
                  Zone("Opponent's hand", 1, (hidden,), 3)),
                 prompt="move or pass", inputs=("move a1 b1", "pass"),
                 notes=(("pass", "passing gives up your move"),))


def test_a_scene_finds_its_visible_cards_and_notes() -> None:
    scene = _scene()
    assert scene.card("h3") is not None and scene.card("h9") is None  # hidden: no face
    assert scene.note("pass") == "passing gives up your move" and scene.note("move a1 b1") is None
    assert scene.hand() is scene.zones[0] and scene.zones[1].size == 3


@pytest.mark.parametrize("make, field", [
    (lambda: Board(("a",), ("1", "2"), (Cell("a1"),)), "board needs 2 cells"),
    (lambda: Zone("Deck", cards=(Card("h1", "?"), Card("h2", "?")), count=1), "counts 1"),
    (lambda: Card("", "x"), "needs a ref"),
    (lambda: Face("Ogre", numbers=(("Strength", 4),)), "numbers"),  # type: ignore[arg-type]
    (lambda: Scene("t", 0, inputs=("pass",), notes=(("draw", "why"),)), "legal input"),
    (lambda: Scene("t", 0, status=["a list"]), "status"),  # type: ignore[arg-type]
])
def test_a_malformed_scene_is_refused_naming_the_field(make: object, field: str) -> None:
    with pytest.raises(SceneError, match=field):
        make()  # type: ignore[operator]


@pytest.mark.parametrize("width", [40, 80, 120])
def test_the_text_drawing_keeps_within_its_width(width: int) -> None:
    lines = scene_lines(_scene(), width)
    assert all(len(line) <= width for line in lines)
    text = "\n".join(lines)
    assert "Ogre" in text and "Your hand: 1 card" in text and "move or pass" in text


def test_a_game_without_a_scene_member_gets_one_from_its_interface() -> None:
    rules, catalogue = TOY.default_rules(), TOY.default_catalogue()
    identity, orders = pool_deal(TOY, rules, catalogue, b"scene")
    play = LocalPlay.start(TOY, Setup(rules, catalogue, b"scene"), identity, orders,
                           HashBelow(b"scene").below)
    d = play.to_player()
    mine = scene_of(TOY, play.state, d.player, play.knowledge[d.player])
    theirs = scene_of(TOY, play.state, 1 - d.player, play.knowledge[1 - d.player])
    legal = tuple(TOY.format_input(i) for i in TOY.legal_actions(play.state))
    assert mine.inputs == legal and mine.prompt and theirs.inputs == () and not theirs.prompt


def test_player_names_are_third_person_for_the_public() -> None:
    assert [player_name(0, 0), player_name(1, 0), player_name(1, None)] == [
        "you", "the opponent", "player 2"]


def test_shades_get_letters_no_two_share() -> None:
    cells = tuple(Cell(f"{c}1", shade=shade) for c, shade in zip("abc", ("black", "blue",
                                                                          "white"), strict=True))
    board = Board(("a", "b", "c"), ("1",), cells)
    from versus.engine.scene import board_lines, shade_letters

    assert shade_letters(board) == {"black": "B", "blue": "L", "white": "W"}
    assert "grounds: B black, L blue, W white" in board_lines(board)
