# One self-contained HTML page: inline CSS, inline script and the page's data as JSON, nothing
# fetched (no network, no file beside it unless the caller links one). The replay and the
# tournament report (cli/html/replay.py, cli/html/report.py) build their pages here; their
# style sheets, markup and scripts are the files beside this one (package data).
#
# Why the data travels as JSON in a <script type="application/json"> element: the page's
# script reads it with JSON.parse, so no value is ever pasted into HTML or JavaScript source.
# Names, card texts and reasons come from transcripts and tournament files (untrusted): the
# only way out of that element is the sequence "</", which `embed_json` escapes ("<\/" is the
# same string to JSON), and the script writes every value with textContent, never innerHTML.
from __future__ import annotations

import html
import json
from functools import cache
from importlib import resources
from typing import Any

#: what every page shares: a readable default, dark-mode aware, and the owner colours
BASE_CSS = """
:root { --fg:#1b1b1b; --bg:#fafafa; --dim:#6b6b6b; --line:#c8c8c8; --mine:#0a7a32;
        --theirs:#b3261e; --accent:#005f87; --panel:#ffffff; }
@media (prefers-color-scheme: dark) {
  :root { --fg:#e8e8e8; --bg:#161616; --dim:#9a9a9a; --line:#444; --mine:#34c46a;
          --theirs:#ff6b61; --accent:#5fafff; --panel:#202020; } }
* { box-sizing: border-box; }
body { font: 15px/1.4 system-ui, sans-serif; color: var(--fg); background: var(--bg);
       margin: 0 auto; max-width: 1100px; padding: 12px; }
h1 { font-size: 1.3em; margin: 0 0 6px; } h2 { font-size: 1.05em; margin: 12px 0 4px; }
.dim { color: var(--dim); } .ok { color: var(--mine); } .bad { color: var(--theirs); }
.panel { background: var(--panel); border: 1px solid var(--line); border-radius: 6px;
         padding: 8px 10px; margin: 8px 0; }
table { border-collapse: collapse; }
td, th { border: 1px solid var(--line); padding: 3px 6px; vertical-align: top; }
th { text-align: left; }
button { font: inherit; padding: 3px 10px; }
"""


@cache
def asset(name: str) -> str:
    """The text of one of the page files beside this module (e.g. "replay.js")."""
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


def embed_json(data: Any) -> str:
    """`data` as JSON safe inside a <script> element (no "</" can close it)."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")


def page(title: str, body: str, data: Any, script: str, css: str = "") -> str:
    """A whole page: `body` (trusted markup of ours), `data` as JSON in #data, `script`."""
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        f"<title>{html.escape(title)}</title><style>{BASE_CSS}{css}</style></head>"
        f"<body>{body}<script type=\"application/json\" id=\"data\">{embed_json(data)}"
        f"</script><script>{script}</script></body></html>\n")


__all__ = ["BASE_CSS", "asset", "embed_json", "page"]
