# The UI's pure drawing (cli/ui/render.py): word wrapping, and a scene's board drawn as cells
# whose text says what their colour says.
from __future__ import annotations

from tests.cli.scene_game import SCENE_DUEL
from versus.cli.ui import render
from versus.engine import Setup
from versus.engine.scene import Board, Card, Cell


def test_wrapping_breaks_lines_only_between_words() -> None:
    from hypothesis import given, settings
    from hypothesis import strategies as st
    from prompt_toolkit.formatted_text import fragment_list_to_text

    word = st.text(alphabet="abcdefgh", min_size=1, max_size=12)

    @settings(max_examples=300, deadline=None)
    @given(st.lists(word, min_size=1, max_size=30), st.integers(0, 6), st.integers(4, 60),
           st.integers(1, 5))
    def check(words: list[str], lead: int, width: int, cut: int) -> None:
        text = " " * lead + " ".join(words)
        plain = fragment_list_to_text(render.wrap_fragments([("a", text)], width))
        split = fragment_list_to_text(render.wrap_fragments(  # styled pieces: same rows
            [("a", text[:cut]), ("b", text[cut:])], width))
        assert plain == split
        rows = plain.split("\n")
        assert all(len(r) <= width for r in rows)
        assert " ".join(plain.split()) == " ".join(text.split()) or any(
            len(w) > width // 2 for w in words)  # only over-long words are broken
        if all(len(w) <= width // 2 for w in words):
            assert [t for r in rows for t in r.split()] == words

    check()
    # a clickable fragment keeps its handler on every row it wraps to
    clicked: list[int] = []
    handler = render.on_click(lambda: clicked.append(1))
    out = render.wrap_fragments([("x", "one two three four five six", handler)], 10)
    assert all(f[2] is handler for f in out if f[1] != "\n")


def _board() -> Board:
    cells = tuple(Cell(f"{c}{r}", shade, f"Place {c}{r}", cards)
                  for r, (shade, cards) in zip("21", (("lava", ()), ("white", (
                      Card("x", "▲Very long card name", owner=0), Card("y", "▼Under")))),
                      strict=True)
                  for c in "ab")
    return Board(("a", "b"), ("2", "1"), cells)


def test_board_cells_fit_the_room_and_write_their_shade_and_cards() -> None:
    board = _board()
    assert render.board_cells(board, 80, 20) == (16, 3)  # as wide and tall as allowed
    assert render.board_cells(board, 20, 4) == (9, 1)  # short of room: one line a cell
    from prompt_toolkit.formatted_text import fragment_list_to_text

    text = fragment_list_to_text(render.render_board(board, (1, 0), 12, 3, seat=0))
    rows = text.split("\n")
    assert rows[0].split() == ["a", "b"]
    assert "▶a1" in text and "white" in text and "lava" in text  # never colour alone
    # a label too long for its line goes on in the place's line (before: "▲Very… +1")
    assert "▲Very long" in text and "card name…" in text
    assert "Place a2" in text  # a place with no card keeps its label
    assert all(len(r) <= render.board_size(board, 12, 3)[0] for r in rows)
    two = fragment_list_to_text(render.render_board(board, (1, 0), 12, 2, seat=0))
    assert "▲Very… +1" in two  # two lines a cell: cut with an ellipsis; one more card


def test_a_label_splits_at_a_space_and_the_rest_is_cut_with_an_ellipsis() -> None:
    assert render.split_label("▼Oracle Owl 3+1R", 11) == ("▼Oracle Owl", "3+1R")
    assert render.split_label("short", 11) == ("short", "")
    assert render.split_label("▲Abcdefghijklmnop", 6) == ("▲Abcde", "fghij…")


def test_the_hand_shows_the_selected_cards_text_only_when_asked() -> None:
    from prompt_toolkit.formatted_text import fragment_list_to_text

    game = SCENE_DUEL
    state = game.step(game.step(game.new_game(Setup(6, game.default_catalogue(), b"h")),
                                "deal 1"), "deal 0")
    knowledge = game.new_knowledge(0)
    knowledge.learn(1, "two")
    hand = game.scene(state, 0, knowledge).hand()
    assert hand is not None
    selected = fragment_list_to_text(render.hand_fragments(hand, 0, None))
    unselected = fragment_list_to_text(render.hand_fragments(hand, None, None))
    assert "showdown" in selected and "showdown" not in unselected
    compact = fragment_list_to_text(render.hand_fragments(hand, None, False))
    assert compact.count("\n") == 1 and "[1] Two" in compact


def test_a_hand_card_says_the_number_its_inputs_use() -> None:
    # a newcomer read "[1] Crag Warden" and typed `place 1 ...`: the key selects, the inputs
    # name the card by its ref, so the line says both
    from versus.engine.scene import Face, Zone

    hand = Zone("Your hand", 0, (Card("12", "Warden", Face("Crag Warden", "character")),),
                hand=True)
    for with_text in (True, None, False):
        text = "".join(f[1] for f in render.hand_fragments(hand, 0, with_text))
        assert "[1] card 12: Crag Warden" in text


def test_the_completion_menu_names_the_card_an_input_takes() -> None:
    # a newcomer's Tab list read "exile 0, exile 2, exile 5" with no card names
    from versus.cli.ui.app import input_names
    from versus.engine.scene import Face, Scene, Zone

    cards = (Card("0", "Rifle", Face("Storm Rifle"), inputs=("exile 0", "play 0")),
             Card("2", "?", inputs=("exile 2",)))
    scene = Scene("t", 0, zones=(Zone("Your hand", 0, cards, hand=True),),
                  inputs=("exile 0", "play 0", "exile 2", "end"))
    names = input_names(scene)
    assert names == {"exile 0": "Storm Rifle", "play 0": "Storm Rifle"}  # a hidden card: none
