# The one terminal UI, driven as a person would: keys into prompt-toolkit's pipe input, the
# screen read back from a pyte terminal (tests/cli/screen.py), a real game behind it (every
# shipped game against a local random bot, the solo game as a real practice run), trio running
# as a guest of the UI's asyncio loop.
from __future__ import annotations

import asyncio

import pytest
import trio

from tests.cli.scene_game import LONG_TEXT, SCENE_DUEL
from tests.cli.screen import (
    CTRL_C,
    DOWN,
    ENTER,
    ESC,
    F1,
    F2,
    F3,
    GAMES,
    PGDN,
    RIGHT,
    UP,
    Harness,
    client_for,
    cut_words,
    find,
    on_screen,
    run,
    text_words,
    ui_session,
)
from versus.cli.client import Connection, ConnectionStatus, EndReason, LocalMatchClient
from versus.cli.net_client import NetMatchClient
from versus.cli.ui.app import Mode, common_prefix, matching_inputs
from versus.engine.referee_loop import HashBelow

SIZES = ((80, 24), (120, 40))
RESIGNED = {"vanquishers"}  # the whole-game test resigns it after 40 typed moves


def _words(text: str, n: int = 3) -> str:
    return " ".join(text.split()[:n])


async def _select_a_hand_card(h: Harness) -> None:
    hand = h.client.scene().hand()
    if hand is not None and hand.cards:
        await h.keys("1")
        await h.keys(ESC)  # the completion menu (if the card offers several inputs) closes
        await h.keys(ESC)  # and the offered line is cleared


@pytest.mark.parametrize(("cols", "rows"), SIZES)
@pytest.mark.parametrize("game", [*GAMES, SCENE_DUEL], ids=lambda g: getattr(g, "id", g))
def test_the_screen_shows_board_hand_log_and_prompt(game: object, cols: int, rows: int
                                                    ) -> None:
    """At 80x24 and 120x40: the board (its column labels), the hand with the selected card's
    text, the log's newest line, the prompt and the input line are on screen, and no row ends
    in the middle of a word of what was drawn."""
    async def main() -> None:
        client = client_for(game, seed=b"screen")
        async with ui_session(client, cols, rows) as h:
            await h.my_decision()
            await _select_a_hand_card(h)
            screen = await h.screen()
            scene = client.scene()
            text = "\n".join(screen)
            if scene.board is not None:
                header = screen[1]
                assert all(label in header for label in scene.board.columns), text
            hand = scene.hand()
            words = text_words(*client.log_lines()[-20:], *scene.status, scene.prompt)
            if hand is not None:
                assert on_screen(screen, hand.name[:20]), text
                if hand.cards:
                    card = hand.cards[0]
                    face = card.face.text if card.face is not None else ""
                    words |= text_words(face)
                    if face:
                        assert on_screen(screen, _words(face, 2)), text
            last = client.log_lines()[-1]
            assert on_screen(screen, _words(last)), text
            if scene.prompt:
                assert on_screen(screen, _words(scene.prompt, 2)), text
            assert screen[-1].startswith("> ")
            assert cut_words(screen, words) == [], text
            await h.finish()

    run(main())


@pytest.mark.parametrize("game", [*GAMES, SCENE_DUEL], ids=lambda g: getattr(g, "id", g))
def test_a_whole_game_through_the_keyboard(game: object) -> None:
    """A game typed line by line (a seeded pick among the legal inputs, Enter, and Enter again
    when the UI warns about a wasteful input). A long game is resigned after MOVES moves
    (Ctrl-C, r, y); it ends on the game-over screen, which says the result and why."""
    moves = 40  # (RESIGNED: the games resigned after them: a long game)

    async def main() -> None:
        client = client_for(game, seed=b"whole")
        pick = HashBelow(b"keyboard", 8)
        async with ui_session(client, 80, 24) as h:
            for _ in range(moves):
                await h.my_decision()
                if client.result is not None:
                    break
                legal = client.inputs()
                line = legal[pick.below(len(legal))]
                before = client.decision_key()
                await h.keys(line)
                await h.keys(ENTER)
                if h.ui.noted == line:  # the warning, then Enter again plays it
                    assert h.ui.message[1].endswith("Enter again to play it")
                    await h.keys(ENTER)
                await h.until(lambda b=before: client.decision_key() != b
                              or client.result is not None, f"'{line}' to be played")
            # versus42, grid, the solo run and the scene duel end within MOVES moves (seeded)
            assert (client.result is None) == (game in RESIGNED)
            if client.result is None:
                await h.keys(CTRL_C)
                if client.can_resign:
                    await h.keys("r")
                    await h.keys("y")
                    await h.until(lambda: client.result is not None, "the resignation")
                    assert client.result.reason is EndReason.RESIGNATION
                else:  # a solo run is left (nothing to resign to)
                    await h.keys("l")
                    await asyncio.wait_for(h.task, 5)
                    return
            await h.until(lambda: h.ui.mode is Mode.GAME_OVER, "the game-over screen")
            screen = await h.screen()
            find(screen, "Game over:")
            result = client.scene().result
            if client.result.reason is EndReason.GAME and result:
                assert on_screen(screen, _words(result, 2)), "\n".join(screen)
            # the last battle can still be read from the end screen: F3, then back to it
            await h.keys(F3)
            assert h.ui.mode is Mode.LOG
            find(await h.screen(), "Esc or q closes")
            await h.keys("q")
            assert h.ui.mode is Mode.GAME_OVER
            find(await h.screen(), "F3 the whole log")
            assert await h.finish() is client.result

    run(main(), timeout=60)


def test_a_whole_solo_run_ends_with_its_score() -> None:
    async def main() -> None:
        client = client_for("multiverse", seed=b"solo-score")
        async with ui_session(client, 80, 24) as h:
            while client.result is None:
                await h.my_decision()
                if client.result is not None:
                    break
                before = client.decision_key()
                await h.keys(client.inputs()[-1] + ENTER)
                if h.ui.noted:
                    await h.keys(ENTER)
                await h.until(lambda b=before: client.decision_key() != b
                              or client.result is not None, "the input to be played")
            await h.until(lambda: h.ui.mode is Mode.GAME_OVER, "the game-over screen")
            screen = await h.screen()
            assert "score" in find_line(screen, "Game over:")
            assert client.record is not None  # the signed run, for the run file
            await h.finish()

    run(main(), timeout=60)


def find_line(rows: list[str], text: str) -> str:
    return rows[find(rows, text)[1]]


# --- selecting, notes, rules, card text (the scene duel: a full scene of its own) ----------


def test_selecting_a_cell_offers_its_inputs_and_a_note_is_asked_once() -> None:
    async def main() -> None:
        client = LocalMatchClient(SCENE_DUEL, seed=b"select")
        async with ui_session(client) as h:
            await h.my_decision()
            await h.keys(RIGHT)  # the cursor starts on a1 (our side, the bottom row)
            screen = await h.screen()
            find(screen, "▶b1")
            await h.keys(ENTER)  # select b1: its inputs, bet and pass, in the menu
            assert set(h.ui.offered) == {"bet", "pass"}
            screen = await h.screen()
            find(screen, "⚠ passing gives up the pot")  # the note, as the menu's meta
            await h.keys(ESC)
            await h.keys(ESC)
            await h.keys("pass" + ENTER)
            assert h.ui.message == ("class:warn", "passing gives up the pot for no effect — "
                                                  "Enter again to play it")
            assert client.decision_key() == b"2"  # not played
            await h.keys(ENTER)
            await h.until(lambda: client.result is not None, "the pass to be played")
            await h.finish()

    run(main())


def test_a_hand_card_is_selected_by_key_arrow_and_click_and_shows_its_text() -> None:
    async def main() -> None:
        client = LocalMatchClient(SCENE_DUEL, seed=b"hand")
        async with ui_session(client, 120, 40) as h:
            await h.my_decision()
            await h.keys(DOWN)  # below the board's last row: into the hand
            assert h.ui.in_hand and h.ui.selected_card().ref.startswith("h")
            await h.keys(RIGHT)  # past the hand: the chip (a zone card that takes an input)
            assert h.ui.selected_card().ref == "chip"
            screen = await h.screen()
            find(screen, "▶Chip")
            find(screen, "A chip to bet with")
            await h.keys(ENTER)
            assert h.ui.input_buffer.text == "bet"  # its one input, written out
            await h.keys(ESC)
            await h.keys(UP)
            assert not h.ui.in_hand
            screen = await h.screen()
            x, y = find(screen, "[1]")
            await h.click(x, y)
            assert h.ui.in_hand and set(h.ui.offered) == {"bet", "pass"}
            screen = await h.screen()
            find(screen, _words(LONG_TEXT, 6))
            await h.keys(ESC)
            await h.keys(ESC)
            x, y = find(screen, "c2")
            await h.click(x, y)  # a click on a cell: the cursor there, selected
            assert h.ui.cursor == (0, 2) and not h.ui.in_hand
            await h.finish()

    run(main())


def test_f1_shows_the_rules_scrolling_and_f2_or_card_ref_a_cards_text() -> None:
    async def main() -> None:
        client = LocalMatchClient(SCENE_DUEL, seed=b"help")
        async with ui_session(client) as h:
            await h.my_decision()
            await h.keys(F1)
            screen = await h.screen()
            find(screen, "Rule 1: the toy duel")
            assert not on_screen(screen, "Rule 30:")
            await h.keys(PGDN + PGDN + PGDN)
            screen = await h.screen()
            assert on_screen(screen, "Rule 30:") or on_screen(screen, "Keys")
            await h.keys(ESC)
            assert h.ui.mode is Mode.PLAY
            await h.keys("1")
            await h.keys(ESC)
            await h.keys(ESC)
            await h.keys(F2)
            assert h.ui.mode is Mode.CARD
            screen = await h.screen()
            find(screen, "Rank 2") if "Two" in "\n".join(screen) else None
            find(screen, _words(LONG_TEXT, 5))
            await h.keys("q")
            await h.keys("card d1" + ENTER)
            screen = await h.screen()
            find(screen, "d1: Old card")
            await h.keys(ESC)
            await h.keys("card zz" + ENTER)
            assert h.ui.mode is Mode.PLAY and "no visible card" in h.ui.message[1]
            await h.finish()

    run(main())


def test_the_end_screen_says_who_won_and_why() -> None:
    async def main() -> None:
        client = LocalMatchClient(SCENE_DUEL, seed=b"end")
        async with ui_session(client) as h:
            await h.my_decision()
            await h.keys("bet" + ENTER)
            await h.until(lambda: client.result is not None, "the end")
            await h.until(lambda: h.ui.mode is Mode.GAME_OVER, "the game-over screen")
            screen = await h.screen()
            headline = find_line(screen, "Game over:")
            assert any(w in headline for w in ("You win", "The opponent wins", "A draw"))
            assert on_screen(screen, "decided it") or on_screen(screen, "A draw:")
            assert await h.finish() is client.result

    run(main())


def test_illegal_input_gets_a_one_line_reason() -> None:
    async def main() -> None:
        client = LocalMatchClient(SCENE_DUEL, seed=b"illegal")
        async with ui_session(client) as h:
            await h.my_decision()
            await h.keys("call" + ENTER)
            await h.until(lambda: h.ui.message[0] == "class:error", "the refusal")
            assert h.ui.message[1].startswith("call: ")
            await h.keys(ESC)
            await h.keys("dance" + ENTER)
            await h.until(lambda: "dance" in h.ui.message[1], "the refusal")
            assert h.ui.message[0] == "class:error" and "\n" not in h.ui.message[1]
            assert client.decision_key() == b"2"
            await h.finish()

    run(main())


def test_completion_offers_exactly_the_legal_inputs() -> None:
    legal = ["place 3 b2 up", "place 3 b2 down", "use 2", "end"]
    assert matching_inputs(legal, "pl") == legal[:2]
    assert matching_inputs(legal, "b2 down") == ["place 3 b2 down"]
    assert matching_inputs(legal, "") == legal
    assert common_prefix(["place 3 b2 up", "place 3 b2 down"]) == "place 3 b2 "
    assert common_prefix(["use 12", "use 13"]) == "use "
    assert common_prefix(["use 2", "use 21"]) == "use 2"  # an input itself


def test_a_line_typed_for_a_decision_that_is_over_is_not_played() -> None:
    async def main() -> None:
        client = LocalMatchClient(SCENE_DUEL, seed=b"stale")
        async with ui_session(client, grace=None) as h:
            await h.my_decision()
            stale = h.ui.decisions[0]  # what was on screen before the deal
            await h.keys("be")
            h.ui.bound = stale  # typed while the earlier moment was on screen
            await h.keys("t" + ENTER)
            assert h.ui.message[0] == "class:warn" and "moved on" in h.ui.message[1]
            assert client.decision_key() == b"2" and h.ui.input_buffer.text == "bet"
            await h.keys(ENTER)  # now bound to what is on screen: played
            await h.until(lambda: client.decision_key() != b"2", "the bet")
            await h.finish()

    run(main())


def test_lost_connection_shows_the_resume_countdown() -> None:
    import time

    async def main() -> None:
        client = LocalMatchClient(SCENE_DUEL, seed=b"reconnect")
        async with ui_session(client) as h:
            await h.my_decision()
            client.set_connection(ConnectionStatus(Connection.RECONNECTING, "link lost",
                                                   time.monotonic() + 30))
            screen = await h.screen()
            find(screen, "connection lost: resuming")
            await h.finish()

    run(main())


def test_a_small_terminal_says_so_and_typing_still_works() -> None:
    async def main() -> None:
        client = LocalMatchClient(SCENE_DUEL, seed=b"small")
        async with ui_session(client, 60, 16) as h:
            await h.my_decision()
            screen = await h.screen()
            find(screen, "Terminal too small (60x16)")
            await h.keys("bet" + ENTER)
            await h.until(lambda: client.decision_key() != b"2", "the bet")
            await h.finish()

    run(main())


def test_ctrl_c_while_waiting_for_the_match_offers_only_leaving() -> None:
    """Before the match exists (a host waiting for a joiner) resigning cannot work: the Ctrl-C
    menu does not offer it, and `r` does nothing (before: it offered resign, which silently
    did nothing)."""
    async def main() -> None:
        async def connector(client: NetMatchClient) -> None:
            client.note("waiting for a joiner")
            await trio.sleep_forever()

        client = NetMatchClient(connector, seat=0, game=SCENE_DUEL, waiting="starting")
        async with ui_session(client) as h:
            await h.until(lambda: client.connection().reason == "waiting for a joiner",
                          "the host to wait")
            await h.keys(CTRL_C)
            screen = await h.screen()
            find(screen, "Leave?")
            assert not on_screen(screen, "resign")
            await h.keys("r")
            assert h.ui.mode is Mode.QUIT_MENU  # nothing to confirm: r is not offered
            await h.keys("l")
            await asyncio.wait_for(h.task, 5)
        assert client.result is None
        assert client.connection().state is Connection.CLOSED

    run(main())


def test_ctrl_c_in_a_match_resigns_after_confirmation() -> None:
    async def main() -> None:
        client = LocalMatchClient(SCENE_DUEL, seed=b"resign")
        async with ui_session(client) as h:
            await h.my_decision()
            await h.keys(CTRL_C)
            screen = await h.screen()
            find(screen, "r  resign")
            await h.keys("r")
            assert h.ui.mode is Mode.CONFIRM_RESIGN
            await h.keys("y")
            await h.until(lambda: client.result is not None, "the resignation")
            assert client.result.reason is EndReason.RESIGNATION
            assert client.result.winner == 1
            await h.until(lambda: h.ui.mode is Mode.GAME_OVER, "the game-over screen")
            await h.finish()

    run(main())


def test_the_log_scrolls() -> None:
    async def main() -> None:
        client = LocalMatchClient(SCENE_DUEL, seed=b"scroll")
        for n in range(60):
            client._log.append(f"log line number {n}")
        async with ui_session(client) as h:
            await h.my_decision()
            screen = await h.screen()
            find(screen, "log line number 59")
            await h.keys("\x1b[5~")  # PgUp
            screen = await h.screen()
            assert not on_screen(screen, "log line number 59")
            find(screen, "scrolled up 5 lines")
            await h.keys(PGDN)
            screen = await h.screen()
            find(screen, "log line number 59")
            await h.finish()

    run(main())


def test_trio_is_shut_down_with_the_ui() -> None:
    async def main() -> None:
        client = LocalMatchClient(SCENE_DUEL, seed=b"shutdown")
        async with ui_session(client) as h:
            await h.my_decision()
            result = await h.finish()
        assert result is None and client.connection().state is Connection.CLOSED
        assert h.ui.guest is not None and h.ui.guest.done

    run(main())


def test_a_solo_run_left_midway_writes_nothing_and_offers_no_resign() -> None:
    async def main() -> None:
        client = client_for("multiverse", seed=b"solo-leave")
        async with ui_session(client) as h:
            await h.my_decision()
            await h.keys(CTRL_C)
            screen = await h.screen()
            find(screen, "leave (the run ends unfinished: nothing is written)")
            assert not on_screen(screen, "resign")
            await h.keys("l")
            assert await asyncio.wait_for(h.task, 5) is None
        assert client.record is None and client.error is None
        assert client.connection().reason == "you left the run"

    run(main())


def test_f3_shows_the_whole_log_at_its_newest_line() -> None:
    # a newcomer at 80x24 saw two or three log lines: a battle told while the opponent moved
    # scrolled away before it could be read; F3 shows every line, opened at the newest
    async def main() -> None:
        client = LocalMatchClient(SCENE_DUEL, seed=b"log")
        async with ui_session(client) as h:
            await h.my_decision()
            await h.keys(F3)
            assert h.ui.mode is Mode.LOG
            screen = await h.screen()
            find(screen, "Log (oldest first)") if len(client.log_lines()) < 10 else None
            newest = client.log_lines()[-1]
            find(screen, _words(newest, 3))
            await h.keys(F3)
            assert h.ui.mode is Mode.PLAY
            await h.finish()

    run(main())
