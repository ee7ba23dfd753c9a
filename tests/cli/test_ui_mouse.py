# Mouse in the terminal UI: xterm click sequences into the real app; a click chooses what the
# keyboard would (an area as the cursor and Space, a hand card as its key, a completion).
from __future__ import annotations

from tests.cli.test_ui import ESC, find, run, sized_output, ui_session
from versus.cli.client import LocalMatchClient


def test_clicks_pick_an_area_a_hand_card_and_a_completion() -> None:
    async def main() -> None:
        client = LocalMatchClient(seed=b"ui-mouse")
        output, _ = sized_output(130, 42)
        async with ui_session(client, output) as h:
            await h.my_decision()
            rows = await h.screen()
            x, y = find(rows, " b1 ")
            await h.click(x + 4, y + 1)  # inside the b1 cell, on its second line
            assert h.ui.cursor_area == "b1"
            assert h.ui.input_buffer.text.startswith("b1") or "b1" in h.ui.input_buffer.text
            await h.keys(ESC)
            await h.keys(ESC)
            assert h.ui.input_buffer.text == ""

            hand = client.view().hand
            x, y = find(rows, "[2] ")
            await h.click(x + 5, y)
            assert h.ui.input_buffer.text.startswith(f"summon {hand[1][0]} ")
            await h.keys(ESC)
            await h.keys(ESC)

            await h.keys("summon ", settle=0.2)
            await h.until(lambda: h.ui.input_buffer.complete_state is not None, "the menu")
            rows = await h.screen()
            options = [c.text for c in h.ui.input_buffer.complete_state.completions]
            pick = options[1]
            x, y = find(rows, pick)
            await h.click(x + 1, y)
            assert h.ui.input_buffer.text == pick
            assert h.ui.input_buffer.complete_state is None
            await h.finish()

    run(main())


def test_a_click_in_a_dialog_does_not_reach_the_field() -> None:
    async def main() -> None:
        client = LocalMatchClient(seed=b"ui-mouse-modal")
        output, _ = sized_output(130, 42)
        async with ui_session(client, output) as h:
            await h.my_decision()
            rows = await h.screen()
            x, y = find(rows, " c2 ")
            await h.keys("\x1bOP")  # F1: the help covers the field
            await h.click(x + 4, y + 1)
            assert h.ui.cursor_area == "a1" and h.ui.input_buffer.text == ""
            await h.keys(ESC)
            await h.finish()

    run(main())
