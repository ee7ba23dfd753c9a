# The terminal UI's screen as drawn: the real app
# on a real local match, rendered into a sized xterm, read back from prompt-toolkit's screen.
from __future__ import annotations

import asyncio
import itertools
import re

import trio

from tests.cli.test_ui import ENTER, find, run, sized_output, ui_session
from versus.cli.client import LocalMatchClient
from versus.cli.net_client import NetMatchClient
from versus.cli.ui import render
from versus.engine import HashRng
from versus.engine.versus42 import (
    ActionKind,
    Referee,
    Ruleset,
    default_catalogue,
    format_input,
    random_chooser,
    random_deal,
)
from versus.engine.versus42.views import strength_label

CAT = default_catalogue()


def _divider(rows: list[str]) -> int:
    """The column of the vertical bar between the field and the side panel."""
    columns = [x for x in range(len(rows[2])) if rows[2][x] == "│"]
    assert len(columns) == 1, rows[2]
    return columns[0]


def _broken_words(rows: list[str], words: set[str]) -> list[str]:
    """Words cut across two rows: a row filled to its edge with a letter, the next one starting
    with a letter, the two pieces making a word of `words` that the second piece is not."""
    found = []
    for upper, lower in itertools.pairwise(rows):
        if not upper or not lower or not upper[-1].isalpha() or not lower[:1].isalpha():
            continue
        tail = re.findall(r"[A-Za-z]+$", upper)[0]
        head = re.findall(r"^[A-Za-z]+", lower)[0]
        if (tail + head).lower() in words and head.lower() not in words:
            found.append(f"{tail}|{head}")
    return found


def _card_words() -> set[str]:
    text = " ".join(f"{c.name} {c.text}" for c in CAT.cards)
    return {w.lower() for w in re.findall(r"[A-Za-z]+", text)}


def test_a_long_log_line_wraps_in_its_column_and_moves_nothing() -> None:
    """#5: one long log line used to widen the left column for good, clipping the side
    panel. Columns have fixed widths; the line wraps at word boundaries inside its own."""
    long_line = " ".join(f"w{i:03d}" for i in range(90))

    async def main() -> None:
        client = LocalMatchClient(seed=b"ui-long-line")
        output, _ = sized_output(130, 42)
        async with ui_session(client, output) as h:
            await h.my_decision()
            before = await h.screen()
            bar = _divider(before)

            async def say_a_lot() -> None:
                client._log.append(long_line)  # as a long protocol line would arrive
                client.set_connection(client.connection())  # (notifies the UI)

            await h.trio(say_a_lot)
            after = await h.screen()
            assert _divider(after) == bar
            body = range(1, 36)
            assert [r[bar + 1:] for r in after[1:14]] == [r[bar + 1:] for r in before[1:14]]
            assert all(after[y][bar] in "│┼" for y in body)
            log_rows = [r[:bar] for r in after if re.search(r"w\d{3}", r[:bar])]
            tokens = [t for row in log_rows for t in row.split()]
            assert tokens == long_line.split()  # every word whole, in order
            assert len(log_rows) >= 5
            await h.finish()

    run(main())


def test_side_panels_wrap_at_word_boundaries() -> None:
    """#5: the cursor panel broke words ('When d|estroyed'); the hand's rules text could too."""
    words = _card_words()

    async def main() -> None:
        client = LocalMatchClient(seed=b"ui-wrap")
        for cols, rows_n in ((130, 42), (119, 40), (80, 40), (100, 30)):
            output, _ = sized_output(cols, rows_n)
            async with ui_session(client, output) as h:
                await h.my_decision()
                area = h.ui.cursor_area
                if not any(fc.area == area for fc in client.view().field):
                    summon = next(a for a in client.legal_actions()
                                  if a.kind == ActionKind.SUMMON and a.area == area and a.recto)
                    await h.keys(format_input(summon) + ENTER)
                    await h.until(lambda c=client, a=area: any(  # type: ignore[misc]
                        fc.area == a for fc in c.view().field), "the summon")
                rows = await h.screen()
                text = "\n".join(rows)
                fc = next(f for f in client.view().field if f.area == area)
                assert f"Cursor {fc.area}" in text
                left = _divider(rows) + 1 if cols >= 120 else 0
                panel = [r[left:].rstrip() for r in rows]
                assert _broken_words([r[left:] for r in rows], words) == [], text
                # the card's rules text is on the screen, whole
                card = client.catalogue[fc.card_id]
                flat = " ".join(" ".join(panel).split())
                assert " ".join(card.text.split(" Passive:")[0].split()) in flat, flat
                await h.finish()
                client = LocalMatchClient(seed=b"ui-wrap")

    run(main(), timeout=60)


def _cells(view: object, cursor: str | None = None) -> dict[str, list[str]]:
    """area -> its three lines of text in render_field's output."""
    lines = "".join(f[1] for f in render.render_field(view, CAT, cursor)).split("\n")  # type: ignore[arg-type]
    geom = view.geometry  # type: ignore[attr-defined]
    out: dict[str, list[str]] = {}
    for n, r in enumerate(render.rows_top_down(view)):  # type: ignore[arg-type]
        for c in range(geom.cols):
            x = 3 + c * render.CELL_W
            out[geom.names[r * geom.cols + c]] = [
                lines[1 + 3 * n + k][x:x + render.CELL_W] for k in range(3)]
    return out


def test_cells_cut_names_with_an_ellipsis_and_always_show_the_stats() -> None:
    """#6: 'Daybreak Tit' (cut without a sign) and '4+1 R ×' (the absorbed count lost)."""
    seen_long = seen_absorbed = seen_bonus = 0
    for i in range(25):
        rs = Ruleset()
        seed = b"cells-%d" % i
        ids, orders = random_deal(CAT, rs, HashRng(seed, "deal"))
        ref = Referee(rs, CAT, seed, ids, orders,
                      (random_chooser(HashRng(seed, "a")), random_chooser(HashRng(seed, "b"))))
        while ref.state.result is None:
            ref.advance()
            for viewer in (0, 1):
                view = ref.view(viewer)
                cells = _cells(view)
                areas = [fc.area for fc in view.field]
                for fc in view.field:
                    if areas.count(fc.area) > 1:
                        continue  # a battle in progress: the cell shows one of the two
                    name_line, stats_line = cells[fc.area][1].strip(), cells[fc.area][2]
                    if fc.card_id is None:
                        assert name_line == "(verso)"
                        continue
                    name = CAT[fc.card_id].name
                    if name_line != name:
                        seen_long += 1
                        assert name_line.endswith("…") and name.startswith(name_line[:-1]), \
                            (name, name_line)
                    strength = strength_label(CAT[fc.card_id].strength, fc.strength)
                    seen_bonus += "+" in strength
                    want = f"{strength} {'R' if fc.recto else 'V'}"
                    if fc.level:
                        seen_absorbed += 1
                        want += f" ×{fc.level}"
                    assert want in stats_line, (want, stats_line)
                    assert ("▲" if fc.owner == viewer else "▼") in stats_line
    assert seen_long and seen_absorbed and seen_bonus


def test_the_cursor_cell_is_marked_by_more_than_a_colour() -> None:
    rs = Ruleset()
    ids, orders = random_deal(CAT, rs, HashRng(b"c", "deal"))
    ref = Referee(rs, CAT, b"c", ids, orders, (random_chooser(HashRng(b"c", "a")),) * 2)
    view = ref.view(0)
    cells = _cells(view, cursor="c2")
    assert cells["c2"][0].startswith("▶c2")
    assert all(not lines[0].startswith("▶") for area, lines in cells.items() if area != "c2")
    for area, lines in cells.items():  # the tile is written, not only coloured
        tile = render.TILE_NAMES[render.Tile(view.tiles[view.geometry.index[area]])]
        assert lines[0].rstrip().endswith(tile)


def test_the_host_shows_a_neutral_field_until_the_match_exists() -> None:
    """The placeholder view's tiles are not the match's: no layout is drawn before the coin
    toss, only the grid and a note."""
    async def connector(client: NetMatchClient) -> None:
        client.note("listening on port 1; waiting for a player to join")
        await trio.sleep_forever()

    async def main() -> None:
        client = NetMatchClient(connector, seat=0, waiting="starting the host")
        assert not client.match_started
        output, _ = sized_output(130, 42)
        async with ui_session(client, output) as h:
            await h.until(lambda: "listening" in " ".join(client.log_lines()), "the note")
            rows = await h.screen()
            field = [r[:_divider(rows)] for r in rows[1:14]]
            assert "waiting for the match" in "\n".join(field)
            for tile in ("White", "Black", "Gray", "Blue"):
                assert tile not in "\n".join(field), tile
            assert "a4" in "\n".join(field) and "e1" in "\n".join(field)
            assert "no match yet" in rows[0]
            await h.finish()

    run(main())


def test_the_ui_says_player_not_seat() -> None:
    async def main() -> None:
        client = LocalMatchClient(seed=b"ui-words")
        output, _ = sized_output(130, 42)
        async with ui_session(client, output) as h:
            await h.my_decision()

            async def protocol_line() -> None:
                client._log.append("Match over: seat 1 wins (elimination)")
                client.set_connection(client.connection())

            await h.trio(protocol_line)
            rows = await h.screen()
            text = "\n".join(rows)
            assert "Match over: player 1 wins (elimination)" in text
            assert not re.search(r"\bseat\b", text, re.IGNORECASE)
            await h.finish()

    run(main())


def _no_clipping(rows: list[str], client: LocalMatchClient, message: str) -> None:
    text = " ".join(" ".join(rows).split())
    view = client.view()
    assert f"turn {view.turn + 1}" in rows[0] and "you: player 0" in rows[0]
    assert len(re.findall(r"\b(?:lost|eliminated) \d+\b", text)) == 2, text
    for _, cid in view.hand:
        assert CAT[cid].name in text, CAT[cid].name
    prompts = [render.decision_prompt(view, CAT, None, client.connection(), short=s)[1]
               for s in (False, True)]
    assert any(p in text for p in prompts), text
    assert " ".join(message.split()) in text  # the message line
    for row in rows:  # a cut shows: nothing is cut in the middle of a word at the edge
        assert not re.search(r"[A-Za-z]{2}$", row) or row.split()[-1] in text


def test_nothing_is_clipped_at_80x24_and_130x42() -> None:
    async def main() -> None:
        for cols, rows_n in ((80, 24), (130, 42)):
            client = LocalMatchClient(seed=b"ui-clip")
            output, _ = sized_output(cols, rows_n)
            async with ui_session(client, output) as h:
                for _ in range(3):
                    await h.my_decision()
                    _no_clipping(await h.screen(), client, h.ui.message[1])
                    await h.keys("end" + ENTER)
                    await asyncio.sleep(0.1)
                await h.finish()

    run(main(), timeout=60)


def test_help_covers_tiles_and_cell_marks_and_scrolls_at_80x24() -> None:
    help_text = " ".join(render.HELP_TEXT.split())
    for phrase in ("White a recto Light card there has +1 Strength",
                   "Black a recto Dark card there has +1 Strength",
                   "Gray a verso card there cannot be flipped by the opponent's Flip Action",
                   "Blue while a recto card (either player's) stands there, Summons are "
                   "unlimited", "▶a4", "▲ you, ▼ opp", "R recto or V verso",
                   "×k: k cards absorbed", "? when hidden", "cut with … when long",
                   "(verso): hidden from you", "printed, then +bonus"):
        assert phrase in help_text, phrase

    async def main() -> None:
        client = LocalMatchClient(seed=b"ui-help")
        output, _ = sized_output(80, 24)
        async with ui_session(client, output) as h:
            await h.my_decision()
            await h.keys("\x1bOP")  # F1
            rows = await h.screen()
            find(rows, "Versus: terminal UI help")
            assert "lines 1–" in rows[-3] and rows[-2].startswith("└")  # in its frame
            for _ in range(6):
                await h.keys("\x1b[6~")  # PgDn
            rows = await h.screen()
            find(rows, "NO_COLOR=1 turns them off")
            find(rows, "Tiles (each area writes its tile's name")
            await h.keys("q")
            assert h.ui.mode.value == "play"
            await h.finish()

    run(main())


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
