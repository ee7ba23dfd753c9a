# Colour themes of the terminal UI and the replay: dark (the default), light (for terminals with
# a light background) and contrast (high contrast: pure colours, bold text), plus NO_COLOR.
#
# How it works. A theme is a table of style rules for the class names the renderers use
# (`class:tile.white`, `class:mark.mine`, ...); `style_rules(name)` returns it and the app builds
# its prompt-toolkit Style from it. The command line's `--theme` (cli/parsers.py
# `add_ui_options`) reaches the UI either as `run_ui(client, theme=args.theme)` or through
# `set_theme(args.theme)` before `run_ui`, which reads the module-level choice here.
#
# NO_COLOR (https://no-color.org/: set to any non-empty value) wins over every theme: the
# rules then use attributes only (bold, italic, underline, reverse) and the app renders at
# 1-bit colour depth, so not even prompt-toolkit's own defaults (the completion menu) print a
# colour. That is safe because colour is never the only signal on the screen: every area
# writes its tile's name, every card its owner's mark (▲ you, ▼ opponent) and word, the cursor
# cell a ▶, messages a leading symbol (✖ refused, ⚠ notice, ✔ played).
#
# Board shades. A game names the ground of each cell with a word (engine/scene.py Cell.shade);
# `shade_class(word)` maps it to a style class: the common ground words have their own
# colours (white, black, gray, blue, red, green, ...), any other word one of a small palette
# picked by the word's letters (stable: the same word, the same colour, on every screen). The
# word itself is written in the cell, so the colour is never the only signal.
#
# This module imports nothing from prompt-toolkit, so commands may call `set_theme` early.
from __future__ import annotations

import os
from collections.abc import Mapping

THEMES = ("dark", "light", "contrast")  # also the choices of --theme (cli/parsers.py)
DEFAULT_THEME = "dark"

_chosen: str | None = None


def set_theme(name: str | None) -> None:
    """Choose the theme of the next `run_ui` (None: the default). ValueError if unknown."""
    global _chosen
    if name is not None and name not in THEMES:
        raise ValueError(f"unknown theme {name!r} (themes: {', '.join(THEMES)})")
    _chosen = name


def chosen_theme(name: str | None = None) -> str:
    """`name` if given, else what `set_theme` chose, else the default."""
    picked = name or _chosen or DEFAULT_THEME
    if picked not in THEMES:
        raise ValueError(f"unknown theme {picked!r} (themes: {', '.join(THEMES)})")
    return picked


def no_color(environ: Mapping[str, str] | None = None) -> bool:
    """True when NO_COLOR is set to a non-empty value."""
    return bool((os.environ if environ is None else environ).get("NO_COLOR"))


# Every theme defines every class; tests check it. Classes: tiles (the areas' backgrounds), the
# cursor cell, the owners' card text and marks, the header, titles, dim text, messages
# (error/warn/info/ok), the prompt line, the help and dialog boxes, the input prompt.
_DARK = {
    "tile.white": "bg:#d7d7d7 fg:#000000",
    "tile.black": "bg:#303030 fg:#ffffff",
    "tile.gray": "bg:#7a7a7a fg:#ffffff",
    "tile.blue": "bg:#2255cc fg:#ffffff",
    "tile.none": "fg:#8a8a8a",
    "cursor": "reverse",
    "mine": "bold",
    "theirs": "italic",
    "mark.mine": "fg:#00d75f bold",
    "mark.theirs": "fg:#ff5f5f bold",
    "header": "bg:#005f87 fg:#ffffff",
    "title": "bold",
    "dim": "fg:#8a8a8a",
    "error": "fg:#ff5f5f bold",
    "info": "fg:#5fafff",
    "prompt": "bg:#af8700 fg:#000000 bold",
    "warn": "fg:#ffaf00 bold",
    "ok": "fg:#00d75f",
    "log": "",
    "help": "bg:#1c1c1c fg:#ffffff",
    "dialog": "bg:#444444 fg:#ffffff",
    "input-prompt": "bold",
}

_LIGHT = {
    "tile.white": "bg:#ffffff fg:#000000",
    "tile.black": "bg:#262626 fg:#ffffff",
    "tile.gray": "bg:#a8a8a8 fg:#000000",
    "tile.blue": "bg:#5f87ff fg:#000000",
    "tile.none": "fg:#6c6c6c",
    "cursor": "reverse",
    "mine": "bold",
    "theirs": "italic",
    "mark.mine": "fg:#008700 bold",
    "mark.theirs": "fg:#d70000 bold",
    "header": "bg:#0087af fg:#ffffff",
    "title": "bold",
    "dim": "fg:#6c6c6c",
    "error": "fg:#af0000 bold",
    "info": "fg:#005faf",
    "prompt": "bg:#ffd75f fg:#000000 bold",
    "warn": "fg:#875f00 bold",
    "ok": "fg:#005f00",
    "log": "",
    "help": "bg:#eeeeee fg:#000000",
    "dialog": "bg:#d0d0d0 fg:#000000",
    "input-prompt": "bold",
}

_CONTRAST = {
    "tile.white": "bg:#ffffff fg:#000000 bold",
    "tile.black": "bg:#000000 fg:#ffffff bold",
    "tile.gray": "bg:#808080 fg:#000000 bold",
    "tile.blue": "bg:#0000ff fg:#ffffff bold",
    "tile.none": "",
    "cursor": "reverse underline",
    "mine": "bold underline",
    "theirs": "bold italic",
    "mark.mine": "fg:#00ff00 bold",
    "mark.theirs": "fg:#ff0000 bold",
    "header": "bg:#ffffff fg:#000000 bold",
    "title": "bold underline",
    "dim": "",
    "error": "bg:#ff0000 fg:#ffffff bold",
    "info": "fg:#00ffff bold",
    "prompt": "bg:#ffff00 fg:#000000 bold",
    "warn": "bg:#ffff00 fg:#000000 bold",
    "ok": "fg:#00ff00 bold",
    "log": "",
    "help": "bg:#000000 fg:#ffffff",
    "dialog": "bg:#000000 fg:#ffffff bold",
    "input-prompt": "bold",
}

# NO_COLOR: attributes only. Tiles stay plain (their names are written in every area).
_MONO = {
    "tile.white": "",
    "tile.black": "",
    "tile.gray": "",
    "tile.blue": "",
    "tile.none": "",
    "cursor": "reverse",
    "mine": "bold",
    "theirs": "italic",
    "mark.mine": "bold",
    "mark.theirs": "bold",
    "header": "reverse",
    "title": "bold",
    "dim": "",
    "error": "bold",
    "info": "",
    "prompt": "reverse bold",
    "warn": "bold",
    "ok": "",
    "log": "",
    "help": "",
    "dialog": "",
    "input-prompt": "bold",
}

#: the shade words with a colour of their own (a word's first part before "-" is looked up)
SHADES = ("white", "black", "gray", "grey", "blue", "red", "green", "yellow", "brown",
          "water", "forest", "base", "home", "wall")
PALETTE = 6  # other words: shade.p0 .. shade.p5


def shade_class(word: str) -> str:
    """The style class of a cell's shade word ("" for none); see the module comment."""
    if not word:
        return "class:shade.none"
    key = word.lower().split("-")[0].split()[0] if word.strip() else ""
    if key in SHADES:
        return f"class:shade.{key}"
    return f"class:shade.p{sum(word.encode()) % PALETTE}"


def _shades(dark: bool, bold: str = "") -> dict[str, str]:
    """Shade rules: light grounds with black text, dark ones with white."""
    light_fg, dark_fg = f"fg:#000000{bold}", f"fg:#ffffff{bold}"
    grounds = {"white": ("#d7d7d7" if dark else "#ffffff", light_fg),
               "black": ("#303030" if dark else "#262626", dark_fg),
               "gray": ("#7a7a7a" if dark else "#a8a8a8", dark_fg if dark else light_fg),
               "blue": ("#2255cc" if dark else "#5f87ff", dark_fg if dark else light_fg),
               "red": ("#af3030", dark_fg), "green": ("#2e7d32", dark_fg),
               "yellow": ("#d7af00", light_fg), "brown": ("#875f3f", dark_fg),
               "water": ("#1f6f9f", dark_fg), "forest": ("#2f5f2f", dark_fg),
               "base": ("#5f3f7f", dark_fg), "home": ("#5f3f7f", dark_fg),
               "wall": ("#4e4e4e", dark_fg),
               "p0": ("#3a5f7f", dark_fg), "p1": ("#7f5f3a", dark_fg),
               "p2": ("#3a7f5f", dark_fg), "p3": ("#6f3a7f", dark_fg),
               "p4": ("#a0a060", light_fg), "p5": ("#60a0a0", light_fg)}
    rules = {f"shade.{k}": f"bg:{bg} {fg}" for k, (bg, fg) in grounds.items()}
    rules["shade.grey"] = rules["shade.gray"]
    rules["shade.none"] = ""
    return rules


_DARK.update(_shades(True))
_LIGHT.update(_shades(False))
_CONTRAST.update(_shades(True, " bold"))
_MONO.update({f"shade.{k}": "" for k in (*SHADES, "none", *(f"p{i}" for i in range(PALETTE)))})

_RULES = {"dark": _DARK, "light": _LIGHT, "contrast": _CONTRAST}


def style_rules(name: str | None = None, *, colourless: bool | None = None) -> dict[str, str]:
    """The style rules of a theme (`chosen_theme(name)`); colourless (default: `no_color()`)
    gives the attribute-only rules whatever the theme."""
    if colourless if colourless is not None else no_color():
        return dict(_MONO)
    return dict(_RULES[chosen_theme(name)])
