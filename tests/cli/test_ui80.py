# The terminal UI at the smallest size it supports (80x24), as a newcomer met it in tmux, and
# at 120x40 where the layout differs: the narration of a battle is read whole without a key,
# the completion menu leaves the card text readable, Enter on an open menu always does
# something, a long message keeps the prompt on screen, cut names end with "…", and Versus's
# Strength bonus says where it comes from. Each test drives the real app into a pyte screen
# (tests/cli/screen.py) over a real game or the scene duel (tests/cli/scene_game.py).
from __future__ import annotations

import re

import pytest

from tests.cli.scene_game import SCENE_DUEL
from tests.cli.screen import (
    DOWN,
    ENTER,
    ESC,
    F1,
    F3,
    GAMES,
    LEFT,
    PGDN,
    RIGHT,
    TAB,
    UP,
    Harness,
    client_for,
    find,
    on_screen,
    run,
    ui_session,
)
from versus.cli.client import LocalMatchClient
from versus.cli.ui.app import Mode
from versus.engine.referee_loop import HashBelow
from versus.engine.scene import Scene

SIZES = ((80, 24), (120, 40))

#: per game: the inputs tried first (the way to a battle) and the words its narration has;
#: Versus: a move or summon onto an opponent's card
BATTLES = {
    "versus42": (("onto-enemy", "move", "summon"), "Battle on"),
    "grid": (("place", "duel"), "Battle:"),
    "vanquishers": (("target", "play", "next"), " damage to "),
    "multiverse": (("attack",), "combat:"),
}


def flat(rows: list[str]) -> str:
    """The screen as one line of words, column by column (the columns a "│" parts: the
    wide layout's side panel, a box's frame), so a wrapped line reads whole again."""
    parts = [row.split("│") for row in rows]
    columns = (" ".join(p[k] for p in parts if len(p) > k)
               for k in range(max(len(p) for p in parts)))
    return " ".join(" ".join(columns).split())


def said(line: str) -> str:
    return " ".join(line.split())


async def play_until(h: Harness, done: object, prefer: tuple[str, ...] = (),
                     seed: bytes = b"ui80", moves: int = 60) -> list[str]:
    """Play seeded inputs (those starting with a `prefer` word first) through the keyboard
    until `done(new log lines)` holds after one; returns those lines (what came since that
    Enter: our input's narration and the opponent's replies)."""
    pick = HashBelow(seed, 8)
    client = h.client
    for _ in range(moves):
        await h.my_decision()
        assert client.result is None, "the game ended before the screen could be checked"
        legal = client.inputs()
        scene = client.scene()
        for word in prefer:
            first = [line for line in legal if line.startswith(word + " ") or line == word
                     or (word == "onto-enemy" and _onto_enemy(line, scene))]
            if first:
                legal = first
                break
        line = legal[pick.below(len(legal))]
        before, start = client.decision_key(), len(client.log_lines())
        await h.keys(line + ENTER)
        if h.ui.noted == line:
            await h.keys(ENTER)
        await h.until(lambda b=before: client.decision_key() != b or client.result is not None,
                      f"'{line}' to be played")
        await h.my_decision()
        new = client.log_lines()[start:]
        if done(new):  # type: ignore[operator]
            return new
    raise AssertionError(f"no such step within {moves} moves")


def _onto_enemy(line: str, scene: Scene) -> bool:
    """A Versus move or summon whose area holds an opponent's card (a battle)."""
    words = line.split()
    if words[0] not in ("move", "summon") or scene.board is None:
        return False
    cell = scene.board.cell(words[2])
    return cell is not None and any(c.owner not in (None, scene.seat) for c in cell.cards)


# --- 1. the narration of what just happened is on screen whole --------------------------------


@pytest.mark.parametrize(("cols", "rows"), SIZES)
@pytest.mark.parametrize("game", GAMES)
def test_the_narration_of_a_battle_is_on_screen_whole_without_a_key(game: str, cols: int,
                                                                     rows: int) -> None:
    """After the input that fought a battle (and the opponent's replies), every line of
    what was narrated since that Enter is on the main screen, whole, with no key pressed
    (before: at 80x24 the log showed its last 2-3 lines; a battle told in 4-12 lines
    scrolled away. At 120x40 the log's column had the room already: a guard there)."""
    prefer, words = BATTLES[game]

    async def main() -> None:
        client = client_for(game, seed=b"ui80")
        async with ui_session(client, cols, rows) as h:
            new = await play_until(h, lambda lines: any(words in x for x in lines), prefer)
            screen = await h.screen()
            text = flat(screen)
            missing = [line for line in new if said(line) not in text]
            assert missing == [], "\n".join(screen)
            await h.keys(LEFT)  # a key: read; the layout gives the cards their room back
            await h.finish()

    run(main(), timeout=60)


def test_unread_narration_longer_than_the_room_ends_with_how_many_more_f3_shows() -> None:
    """Too long for the screen: the unread lines from the first, and the last row of the log
    says how many more lines F3 shows (they are the newest in F3)."""
    async def main() -> None:
        client = LocalMatchClient(SCENE_DUEL, seed=b"more")
        async with ui_session(client, 80, 24) as h:
            await h.my_decision()
            await h.keys(RIGHT)
            client._log.extend(f"news line number {n}" for n in range(40))
            screen = await h.screen()
            find(screen, "news line number 0")
            shown = [y for y, row in enumerate(screen)
                     if re.fullmatch(r"news line number \d+", row.strip())]
            assert 5 < len(shown) < 40 and screen[shown[-1]].strip().endswith(
                f" {len(shown) - 1}"), "\n".join(screen)  # the first ones, in order
            _, y = find(screen, f"F3: {40 - len(shown)} more lines")
            assert y == shown[-1] + 1
            await h.keys(F3)
            screen = await h.screen()
            find(screen, "news line number 39")
            await h.keys(ESC)
            await h.keys(LEFT)  # read: the log is the usual tail again
            screen = await h.screen()
            assert not on_screen(screen, "more lines") and on_screen(screen, "number 39")
            await h.finish()

    run(main())


# --- 2. the completion menu leaves the card's text readable ------------------------------------


@pytest.mark.parametrize(("cols", "rows"), SIZES)
def test_the_completion_menu_does_not_cover_the_selected_cards_text(cols: int, rows: int
                                                                     ) -> None:
    """Selecting a Versus hand card offers its twenty summons in the menu; the card's whole
    rules text stays on screen beside or above the menu, and the message saying what Enter
    does stays below it (before: a 10-row menu covered the text at 80x24)."""
    async def main() -> None:
        client = client_for("versus42", seed=b"ui80-menu")
        async with ui_session(client, cols, rows) as h:
            await h.my_decision()
            await h.keys("1")
            offered = h.ui.offered
            assert len(offered) > 10 and h.ui.input_buffer.complete_state is not None
            await h.keys(TAB)
            screen = await h.screen()
            menu = [y for y, row in enumerate(screen) if any(line in row for line in offered)]
            assert len(menu) >= 3, "\n".join(screen)  # the menu is open
            text = client.scene().hand().cards[0].face.text
            assert said(text) in flat(screen), "\n".join(screen)
            find(screen, "inputs take")  # the message, under the menu
            await h.finish()

    run(main())


# --- 3. Enter on an open menu --------------------------------------------------------------------


def test_enter_on_an_open_menu_with_an_empty_line_takes_the_first_then_plays_it() -> None:
    """Selecting b1 offers bet and pass in the menu over an empty line: Enter puts the first
    on the line and says Enter plays it (before: it selected b1 again, silently nothing);
    Enter again plays it."""
    async def main() -> None:
        client = LocalMatchClient(SCENE_DUEL, seed=b"enter")
        async with ui_session(client) as h:
            await h.my_decision()
            await h.keys(RIGHT + ENTER)
            assert set(h.ui.offered) == {"bet", "pass"} and h.ui.input_buffer.text == ""
            await h.keys(ENTER)
            assert h.ui.input_buffer.text == "bet"
            screen = await h.screen()
            find(screen, "Enter plays bet")
            await h.keys(ENTER)
            await h.until(lambda: client.decision_key() != b"2", "the bet to be played")
            await h.finish()

    run(main())


def test_enter_on_a_highlighted_completion_plays_it() -> None:
    """Tab highlights a completion (a legal input); Enter plays it at once (before: Enter
    only closed the menu, the line unchanged: nothing seemed to happen)."""
    async def main() -> None:
        client = LocalMatchClient(SCENE_DUEL, seed=b"enter-tab")
        async with ui_session(client) as h:
            await h.my_decision()
            await h.keys("be")
            await h.keys(TAB)
            assert h.ui.input_buffer.text == "bet"
            await h.keys(ENTER)
            await h.until(lambda: client.decision_key() != b"2", "the bet to be played")
            # the message follows the submit's answer, a moment after the decision moved on
            await h.until(lambda: h.ui.message == ("class:ok", "played: bet"), "'played: bet'")
            await h.finish()

    run(main())


# --- 4. a long message ---------------------------------------------------------------------------


@pytest.mark.parametrize(("cols", "rows"), SIZES)
def test_a_long_error_takes_two_rows_at_most_and_the_prompt_stays(cols: int, rows: int
                                                                 ) -> None:
    """A refusal longer than two rows is cut at a word with "… (F3)"; its whole text is in
    the log (F3); the game's prompt and the "> " of the input line stay on screen (before:
    a long line and its long refusal scrolled the "> " away, and the refusal was cut for
    good)."""
    async def main() -> None:
        client = LocalMatchClient(SCENE_DUEL, seed=b"long-error")
        async with ui_session(client, cols, rows) as h:
            await h.my_decision()
            typed = "card " + " ".join(f"zebra{n}" for n in range(cols // 4))
            await h.keys(typed + ENTER)
            await h.until(lambda: h.ui.message[0] == "class:error", "the refusal")
            whole = h.ui.message[1]
            assert len(whole) > 2 * cols
            screen = await h.screen()
            assert screen[-1].startswith("> "), "\n".join(screen)
            message = screen[rows - 3:rows - 1]  # the two rows above the input line
            assert message[0].startswith("✖ card zebra0"), "\n".join(screen)
            assert message[1].rstrip().endswith("… (F3)"), "\n".join(screen)
            find(screen, "Bet or pass")
            await h.keys(F3)
            screen = await h.screen()
            assert said(whole) in flat(screen), "\n".join(screen)
            await h.finish()

    run(main())


# --- 5. a cut name ends with "…" -----------------------------------------------------------------


def test_a_cut_card_name_ends_with_an_ellipsis() -> None:
    """Vanquishers' zones list cards by their labels; a name longer than a label is cut with
    "…" ("Kinetic Rou…"), never bare ("Kinetic Roun", which reads as a whole name)."""
    async def main() -> None:
        client = client_for("vanquishers", seed=b"ui80")

        def long_names() -> list[str]:
            return [c.face.name for z in client.scene().zones if not z.hand for c in z.cards
                    if c.face is not None and len(c.face.name) > 12]

        async with ui_session(client, 120, 40) as h:  # (the zones' lines all on screen)
            await play_until(h, lambda lines: bool(long_names()), ("play", "exile"))
            screen = await h.screen()
            text = flat(screen)  # (a name wrapped at a row's end reads whole)
            assert any(name[:8] in text for name in long_names()), "\n".join(screen)
            for name in long_names():  # a prefix of it goes on, or ends with "…"
                for k in range(8, len(name)):
                    for m in re.finditer(re.escape(name[:k]), text):
                        after = text[m.end():m.end() + 1]
                        assert after in ("…", name[k]), f"{name!r} cut bare:\n{text}"
            assert "…" in text
            await h.finish()

    run(main(), timeout=60)


# --- 6. Versus's Strength bonus ------------------------------------------------------------------


@pytest.mark.parametrize(("cols", "rows"), SIZES)
def test_the_cursor_on_a_card_with_a_strength_bonus_says_where_it_comes_from(
        cols: int, rows: int) -> None:
    """A Versus card written "3+1" on the board: with the cursor on its cell, the focus says
    "Strength 3+1 = printed 3 +1 White tile (recto Light card)" or what else gave the bonus;
    F1's rules say what the board's "+1" means."""
    async def main() -> None:
        client = client_for("versus42", seed=b"ui80")

        def bonus_cell() -> tuple[int, int] | None:
            board = client.scene().board
            for n, cell in enumerate(board.cells):
                if cell.cards and re.search(r"\d\+\d", cell.cards[0].label):
                    return divmod(n, len(board.columns))
            return None

        async with ui_session(client, cols, rows) as h:
            await play_until(h, lambda lines: bonus_cell() is not None, ("summon",))
            row, col = bonus_cell()  # type: ignore[misc]
            r, c = h.ui.cursor
            await h.keys((UP if row < r else DOWN) * abs(row - r)
                         + (LEFT if col < c else RIGHT) * abs(col - c))
            assert h.ui.cursor == (row, col)
            screen = await h.screen()
            assert re.search(r"Strength \d\+\d = printed \d \+1 \w+", flat(screen)), \
                "\n".join(screen)
            await h.keys(F1)
            assert h.ui.mode is Mode.HELP
            for _ in range(6):
                screen = await h.screen()
                if "printed 4, bonus +1" in flat(screen):
                    break
                await h.keys(PGDN)
            assert "The board writes 4+1: printed 4, bonus +1" in flat(screen)
            await h.keys(ESC)
            await h.finish()

    run(main(), timeout=60)
