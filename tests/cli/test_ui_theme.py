# Colours of the terminal UI: the --theme option, the three themes, NO_COLOR (no colour at all),
# and colour never being the only signal. The real app is rendered into a pyte terminal whose
# escape sequences are read back (tests/cli/screen.py).
from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.cli.scene_game import SCENE_DUEL
from tests.cli.screen import RIGHT, find, run, ui_session
from versus.cli.client import LocalMatchClient
from versus.cli.parsers import build_parser
from versus.cli.ui import render, theme

# SGR parameters that set a colour: 30-37/90-97 (fg), 40-47/100-107 (bg), 38;... and 48;...
COLOUR_SGR = re.compile(r"\x1b\[([0-9;]*)m")


def colour_codes(escapes: str) -> list[str]:
    found = []
    for params in COLOUR_SGR.findall(escapes):
        parts = params.split(";")
        if any(p in ("38", "48") or (p.isdigit() and (30 <= int(p) <= 37 or 40 <= int(p) <= 47
                                                      or 90 <= int(p) <= 107))
               for p in parts):
            found.append(params)
    return found


@pytest.mark.parametrize("argv", [["play"], ["host"], ["join", "127.0.0.1:1"],
                                  ["replay", "t.vtr"]])
def test_theme_option_of_the_ui_commands(argv: list[str]) -> None:
    parser = build_parser()
    assert parser.parse_args([*argv, "--theme", "light"]).theme == "light"
    assert parser.parse_args([*argv, "--theme", "contrast"]).theme == "contrast"
    assert parser.parse_args(argv).theme is None  # the UI's default (dark)
    with pytest.raises(SystemExit):
        parser.parse_args([*argv, "--theme", "neon"])
    for name in theme.THEMES:  # the option offers exactly the themes there are
        assert parser.parse_args([*argv, "--theme", name]).theme == name
    sub = next(a for a in parser._subparsers._group_actions[0].choices.values()  # type: ignore[union-attr]
               if a.prog.endswith(argv[0]))
    option = next(a for a in sub._actions if "--theme" in a.option_strings)
    assert tuple(option.choices) == theme.THEMES


def test_every_theme_styles_every_class_the_ui_uses() -> None:
    used: set[str] = set()
    for source in ("render.py", "app.py", "controls.py"):
        text = (Path(render.__file__).parent / source).read_text()
        used |= set(re.findall(r"class:([a-z][a-z.-]*)", text))
    used.discard("nobreak")  # a wrapping hint, not a style
    used = {name for name in used if not name.endswith(".")}  # shade.<word>: below
    used |= {theme.shade_class(word)[6:] for word in ("white", "Grey", "lava", "", "base-0")}
    rules = {name: theme.style_rules(name, colourless=False) for name in theme.THEMES}
    for name, table in rules.items():
        assert used <= set(table), (name, used - set(table))
        assert set(table) == set(rules["dark"]), name
    assert rules["dark"] != rules["light"] != rules["contrast"] != rules["dark"]
    mono = theme.style_rules("contrast", colourless=True)
    assert set(mono) == set(rules["dark"])
    assert not any(re.search(r"#|fg:|bg:|ansi", v) for v in mono.values())


def test_no_color_env_means_any_non_empty_value() -> None:
    assert theme.no_color({"NO_COLOR": "1"}) and theme.no_color({"NO_COLOR": "no"})
    assert not theme.no_color({"NO_COLOR": ""}) and not theme.no_color({})
    with pytest.raises(ValueError, match="unknown theme 'neon'"):
        theme.set_theme("neon")


def _render(theme_name: str | None, keys: str = "") -> tuple[str, list[str]]:
    """The escape sequences and the screen of the UI at 100x30 (after `keys`)."""
    result: list[object] = []

    async def main() -> None:
        client = LocalMatchClient(SCENE_DUEL, seed=b"ui-colours")
        async with ui_session(client, 100, 30, theme=theme_name) as h:
            await h.my_decision()
            if keys:
                await h.keys(keys, settle=0.3)
            screen = await h.screen()
            result.extend(["".join(h.term.raw), screen])
            await h.finish()

    run(main())
    return result[0], result[1]  # type: ignore[return-value]


def test_no_color_turns_every_colour_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    escapes, rows = _render("contrast", "pa")  # the completion menu opens too
    assert colour_codes(escapes) == []
    screen = "\n".join(rows)
    # what colour would have told is written: the shades' words, the cursor, a note's kind
    assert "white" in screen and "forest" in screen and "▶a1" in screen
    assert "⚠ passing gives up the pot" in screen


def test_the_themes_reach_the_screen(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    drawn = {name: colour_codes(_render(name)[0]) for name in ("dark", "light", "contrast")}
    assert all(drawn.values())
    assert set(drawn["dark"]) != set(drawn["light"]) != set(drawn["contrast"])
    theme.set_theme("light")  # what `run_ui` uses when no theme is passed
    try:
        assert set(colour_codes(_render(None)[0])) == set(drawn["light"])
    finally:
        theme.set_theme(None)


def test_owner_and_cursor_are_written_not_only_coloured() -> None:
    _escapes, rows = _render("dark", RIGHT)  # the cursor moves right: to b1
    find(rows, "▶b1")
    assert all("▶a1" not in row for row in rows)


def test_an_unknown_shade_word_gets_a_stable_palette_colour() -> None:
    assert theme.shade_class("white") == "class:shade.white"
    assert theme.shade_class("Gray-tile") == "class:shade.gray"
    assert theme.shade_class("lava") == theme.shade_class("lava")
    assert theme.shade_class("lava").startswith("class:shade.p")
    assert theme.shade_class("") == "class:shade.none"
