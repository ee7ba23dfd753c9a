# docs/spec_refs.py: old SPEC references become the new numbering, a second run changes nothing,
# program output (string literals other than docstrings) is left alone, and every reference
# SPEC.md makes to itself resolves.
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("spec_refs", ROOT / "docs" / "spec_refs.py")
assert _spec is not None and _spec.loader is not None
spec_refs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(spec_refs)

CONTEXT = "grid vanquishers multiverse solo: "


@pytest.mark.parametrize(("old", "new"), [
    ("SPEC R10.3", "SPEC §1.10.3"),
    ("(R7.2/R7.3)", "(§1.7.2, §1.7.3)"),
    ("R4.2-R4.4", "§1.4.2–1.4.4"),
    ("SPEC 3.C \"Start positions\"", "SPEC §3.3 \"Start positions\""),
    ("SPEC Part 6 §T-LAN", "SPEC §6.5"),
    ("§T-NAT", "§6.10"),
    ("SPEC 7.G.9", "SPEC §7.11.9"),
    ("SPEC Part G, G1-G16", "SPEC Part 9, §9.1.1–9.1.16"),
    ("G.D", "§9.4"),
    ("SPEC V12", "SPEC §10.4"),
    ("V8.6", "§10.1.5.6"),
    ("V3.2", "§10.2.3.2"),
    ("SPEC M.5 S8-S9", "SPEC §11.7.8–11.7.9"),
    ("SPEC M S9", "SPEC §11.7.9"),
    ("S3a", "§11.7.3.1"),
    ("(SPEC M.4, M5, S3)", "(SPEC §11.3, §11.1.5, §11.7.3)"),
])
def test_old_references_get_the_new_numbers(old: str, new: str) -> None:
    assert spec_refs.rewrite(CONTEXT + old) == CONTEXT + new
    assert spec_refs.rewrite(CONTEXT + new) == CONTEXT + new  # idempotent


def test_bare_game_numbers_change_only_where_the_game_is_named() -> None:
    text = "an IPv4 /24, a V4 engine, S1 < S0"
    assert spec_refs.rewrite(text) == text


def test_python_string_literals_other_than_docstrings_are_left_alone() -> None:
    source = ('"""Rule R4.3."""\nMESSAGE = "illegal (R4.3)"  # R4.3\n'
              'def f():\n    """R7.2."""\n    return "R7.2"\n')
    assert spec_refs.rewrite(source, python=True) == (
        '"""Rule §1.4.3."""\nMESSAGE = "illegal (R4.3)"  # §1.4.3\n'
        'def f():\n    """§1.7.2."""\n    return "R7.2"\n')


def test_every_reference_spec_makes_to_itself_resolves() -> None:
    text = (ROOT / "SPEC.md").read_text(encoding="utf-8")
    assert spec_refs.check(Path("SPEC.md"), text, spec_refs.defined_sections(text)) == []
    assert spec_refs.rewrite(text) == text


def test_the_contents_list_links_every_part_and_section() -> None:
    text = (ROOT / "SPEC.md").read_text(encoding="utf-8")
    assert spec_refs.with_contents(text) == text, "run: python docs/spec_refs.py --contents"
