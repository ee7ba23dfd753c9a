# protocol.text.printable: peer-supplied text made printable and length-limited. Fixed cases for the
# escapes and the cut, a sweep over every format character, and hypothesis properties for the two
# promises: the output is always printable and at most `limit` long, and short printable text passes
# through unchanged.
from __future__ import annotations

import sys
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from versus.protocol.wire.text import ELLIPSIS, printable

FAKE_OK = "\r\x1b[2KOK: 40 records verified\n"
BIDI = [chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))]


def test_a_fake_verdict_line_is_escaped_visibly() -> None:
    shown = printable(FAKE_OK, 200)
    assert shown == "\\x0d\\x1b[2KOK: 40 records verified\\x0a"
    assert shown.isprintable() and "\n" not in shown and "\r" not in shown


@pytest.mark.parametrize("ch", BIDI)
def test_bidi_overrides_and_isolates_are_escaped(ch: str) -> None:
    assert printable(f"abc{ch}def", 50) == f"abc\\u{ord(ch):04x}def"


def test_every_format_and_control_character_is_escaped() -> None:
    hidden = [chr(c) for c in range(sys.maxunicode + 1)
              if unicodedata.category(chr(c)) in ("Cf", "Cc")]
    assert len(hidden) > 150  # the sweep really covers the categories
    for ch in hidden:
        code = ord(ch)
        width = "x02" if code < 0x100 else "u04" if code < 0x10000 else "U08"
        assert printable(ch, 20) == f"\\{width[0]}{code:{width[1:]}x}", hex(code)


def test_escapes_name_the_code_point_at_every_width() -> None:
    assert printable("\x00\x7f\x85\xa0", 50) == "\\x00\\x7f\\x85\\xa0"
    assert printable("\u2028\ufeff\ud800", 50) == "\\u2028\\ufeff\\ud800"
    assert printable("\U000e0001\U0010ffff", 50) == "\\U000e0001\\U0010ffff"


def test_printable_unicode_and_the_space_are_kept() -> None:
    assert printable("Versus 1.0 — é ü 日本 ♠ 🂡 a\\b", 50) == "Versus 1.0 — é ü 日本 ♠ 🂡 a\\b"


def test_long_text_is_cut_to_the_limit_with_an_ellipsis() -> None:
    assert printable("x" * 10, 10) == "x" * 10
    assert printable("x" * 11, 10) == "x" * 9 + ELLIPSIS
    assert printable("y" * 1_000_000, 1) == ELLIPSIS


def test_the_cut_never_splits_an_escape() -> None:
    shown = printable("ab" + "\x1b" * 10, 9)  # "ab\x1b\x1b…" would be 11 characters
    assert shown == "ab\\x1b" + ELLIPSIS
    assert printable("\x1b", 4) == "\\x1b"  # an escape that fits exactly is not cut


def test_non_strings_are_shown_as_hex_or_str() -> None:
    assert printable(b"\x00\xff\x1b", 20) == "00ff1b"
    assert printable(bytearray(b"\x01" * 100), 9) == "01010101" + ELLIPSIS
    assert printable(None, 10) == "None"
    assert printable(42, 10) == "42"


@pytest.mark.parametrize("limit", [0, -1, 2.5, True, "10"])
def test_a_limit_without_room_for_the_ellipsis_is_refused(limit: object) -> None:
    with pytest.raises(ValueError, match=f"at least 1, got {limit!r}"):
        printable("text", limit)  # type: ignore[arg-type]


@given(st.text(), st.integers(min_value=1, max_value=300))
def test_output_is_always_printable_and_within_the_limit(text: str, limit: int) -> None:
    shown = printable(text, limit)
    assert shown.isprintable()
    assert len(shown) <= limit
    assert shown.endswith(ELLIPSIS) or len(shown) >= len(text)  # cut only with the marker


@given(st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E)),
       st.integers(min_value=1, max_value=300))
def test_short_printable_ascii_is_unchanged(text: str, limit: int) -> None:
    shown = printable(text, limit)
    if len(text) <= limit:
        assert shown == text
    else:
        assert shown == text[:limit - 1] + ELLIPSIS


@given(st.text(), st.integers(min_value=1, max_value=300))
def test_printable_is_idempotent(text: str, limit: int) -> None:
    shown = printable(text, limit)
    assert printable(shown, limit) == shown
