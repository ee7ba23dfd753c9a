# Peer-supplied text made safe to show: one function, `printable`, for every string a peer, a
# file or a transcript hands us that ends up on a terminal, in a log line or in a report.
#
# Why: an EVIDENCE message, a HELLO software name, a CLOSE reason are free-form strings signed
# or sent by the other side. Printed raw, "\r\x1b[2KOK: 40 records verified\n" erases the line
# the verifier wrote and prints a fake verdict; a bidi override (U+202E) reorders what an
# auditor reads; a megabyte of text floods the screen. So every such string is escaped and
# length-limited once, where it arrives, and only the safe form is kept and shown.
#
# How: a character is kept when `str.isprintable()` says so, which is False for every control
# character (C0, DEL, C1: escape, newline, CR, tab...), every format character (category Cf:
# the bidi embeddings, overrides and isolates U+202A-U+202E and U+2066-U+2069, zero-width
# characters, the BOM), surrogates, private-use and unassigned code points, and every separator
# but the ASCII space. Anything else becomes a Python-style escape (\xNN, \uNNNN, \UNNNNNNNN),
# which names the exact code point for an auditor where a "?" would hide it. The result is then
# cut to `limit` characters, ending in "…" when something was cut. Backslashes are kept as they
# are (printable ASCII stays unchanged), so the escaped form is for reading, not for decoding.
# Pure and deterministic; no I/O (protocol/ rules).
from __future__ import annotations

ELLIPSIS = "…"


def printable(text: object, limit: int) -> str:
    """`text` as one line of at most `limit` printable characters (`str.isprintable()` holds).

    Every character for which `str.isprintable()` is False (control characters such as ESC,
    newline and CR; format characters, category Cf, including the bidi controls U+202A-U+202E
    and U+2066-U+2069; surrogates, private-use and unassigned code points; separators other
    than the ASCII space) is replaced by its escape: `\\xNN` below U+0100, `\\uNNNN` below
    U+10000, else `\\UNNNNNNNN` (lowercase hex, as Python's repr). If the result is longer than
    `limit`, it is cut to at most `limit - 1` characters, never inside an escape, and "…" is
    appended. A string that is already printable and at most `limit` long is returned
    unchanged. A non-str `text` is shown as its hex when it is bytes-like, else as `str(text)`.
    Raises ValueError when `limit` is not an int of at least 1 (there must be room for "…").
    """
    if type(limit) is not int or limit < 1:
        raise ValueError(f"printable() needs an int limit of at least 1, got {limit!r}")
    if isinstance(text, bytes | bytearray | memoryview):
        text = bytes(text[:limit]).hex()  # 2 digits a byte: enough to know it was cut
    elif not isinstance(text, str):
        text = str(text)
    if len(text) <= limit and text.isprintable():
        return text
    pieces: list[str] = []
    used = 0
    for ch in text:  # stops at the limit: a megabyte of input costs `limit` steps
        piece = ch if ch.isprintable() else _escape(ch)
        if used + len(piece) > limit:
            while used > limit - len(ELLIPSIS):
                used -= len(pieces.pop())
            return "".join(pieces) + ELLIPSIS
        pieces.append(piece)
        used += len(piece)
    return "".join(pieces)


def _escape(ch: str) -> str:
    code = ord(ch)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"
