# Rewrites references to SPEC.md sections from the old numbering (R-numbered rules, 3.A-3.E,
# §T-* transport sections, 7.G, Part G/V/M with G1.., G.A.., V1.., M1.., M.1.., S1..) to the
# one numbering SPEC.md now uses (Parts 1..11, sections N.M, rules N.M.K), and checks that
# every section a file cites exists.
#
# Usage: python docs/spec_refs.py FILE...          rewrite in place (prints the files changed)
#        python docs/spec_refs.py --strings FILE... also in Python strings (messages, tests)
#        python docs/spec_refs.py --check FILE...  list references to sections SPEC.md lacks
#        python docs/spec_refs.py --contents       regenerate SPEC.md's linked contents list
#
# Why a script: code comments, tests and the README cite SPEC sections, and branches written
# before the renumbering keep citing the old names; the lead re-runs this after each merge.
# It is idempotent: every old form starts with a letter (R7.2, G.D, §T-LAN, V13, M.5 S8), every
# new form is digits only (§1.7.2, §9.4, §6.5, §10.3, §11.7.8), so a second run changes
# nothing. Bare rule numbers of one game (G11, V8.6, M14, S9) are rewritten only in a file that
# talks about that game, so an unrelated "V4" or "S1" elsewhere is left alone.
from __future__ import annotations

import argparse
import io
import re
import sys
import tokenize
from collections.abc import Callable
from pathlib import Path

SPEC = Path(__file__).resolve().parents[1] / "SPEC.md"

# --- the old -> new tables ----------------------------------------------------------------------

PART3 = {"A": "3.1", "B": "3.2", "C": "3.3", "D": "3.4", "E": "3.5"}
TRANSPORT = {"FRAME": "6.1", "HANDSHAKE": "6.2", "RECORD": "6.3", "TOFU": "6.4", "LAN": "6.5",
             "SESSION": "6.6", "CLOCK": "6.7", "RESUME": "6.8", "STORE": "6.9", "NAT": "6.10",
             "ERRORS": "6.11"}
PARTS = {"G": "9", "V": "10", "M": "11"}
GRID_SECTIONS = {"A": "9.1", "B": "9.2", "C": "9.3", "D": "9.4", "E": "9.5", "F": "9.6",
                 "G": "9.7"}
# Vanquishers: rules V4-V11 under 10.1, options/cards/decks V1-V3 under 10.2
VANQ = {1: "10.2.1", 2: "10.2.2", 3: "10.2.3", 4: "10.1.1", 5: "10.1.2", 6: "10.1.3",
        7: "10.1.4", 8: "10.1.5", 9: "10.1.6", 10: "10.1.7", 11: "10.1.8", 12: "10.4",
        13: "10.3", 14: "10.7"}
MULTI_SECTIONS = {1: "11.1", 2: "11.1", 3: "11.1", 4: "11.3", 5: "11.7", 6: "11.8"}
BOT_SECTION = "7.11"  # the old 7.G


def _vanq(major: int, minor: str | None) -> str | None:
    base = VANQ.get(major)
    return None if base is None else base + (f".{minor}" if minor else "")


# --- rewriting ----------------------------------------------------------------------------------

Rule = tuple[re.Pattern[str], Callable[[re.Match[str]], str]]


def _sec(new: str | None, m: re.Match[str]) -> str:
    """A new section reference, or the old text when the number is out of range."""
    return m.group(0) if new is None else "§" + new


def _r(n: str, m: str | None) -> str | None:
    return f"1.{n}" + (f".{m}" if m else "") if 1 <= int(n) <= 11 else None


def _g(n: str, m: str | None) -> str | None:
    return f"9.1.{n}" + (f".{m}" if m else "") if 1 <= int(n) <= 16 else None


def _v(n: str, m: str | None) -> str | None:
    return _vanq(int(n), m)


def _m(n: str, m: str | None) -> str | None:
    return f"11.1.{n}" + (f".{m}" if m else "") if 1 <= int(n) <= 23 else None


def _s(n: str, m: str | None) -> str | None:
    """Solo items S1..S12; `m` is a letter suffix here (S3a, the worked example)."""
    if not 1 <= int(n) <= 12:
        return None
    return f"11.7.{n}" + (".1" if m == "a" else "")


def _family(letter: str, new: Callable[[str, str | None], str | None],
            sub: str = r"\.(\d+)") -> list[Rule]:
    """Rules for one family of bare numbers (R7.2, V8.6, G11, M14, S3a): ranges first."""
    one = rf"{letter}(\d{{1,2}})(?:{sub})?"
    before = r"(?<![\w.§/-])"

    def span(m: re.Match[str]) -> str:
        a, b = new(m.group(1), m.group(2)), new(m.group(4), m.group(5))
        return m.group(0) if a is None or b is None else f"§{a}–{b}"

    def single(m: re.Match[str]) -> str:
        return _sec(new(m.group(1), m.group(2)), m)

    return [(re.compile(before + one + r"(\s?(?:-|–|\.\.)\s?)" + one + r"\b"), span),
            (re.compile(before + one + r"\b(?![-/]\w|\.\w)"), single)]


_COMMON: list[Rule] = [
    # "R7.2/R7.3", "G5/G6": two references of one family
    (re.compile(r"(?<![\w.§/-])([RGVMS])(\d{1,2}(?:\.\d+)?)/\1(\d{1,2}(?:\.\d+)?)\b"),
     lambda m: f"{m.group(1)}{m.group(2)}, {m.group(1)}{m.group(3)}"),
    (re.compile(r"\bPart 6 §T-"), lambda m: "§T-"),
    (re.compile(r"§T-([A-Z]+)"), lambda m: _sec(TRANSPORT.get(m.group(1)), m)),
    (re.compile(r"(?<![\w.§])3\.([A-E])(?![\w])"), lambda m: _sec(PART3[m.group(1)], m)),
    (re.compile(r"(?<![\w.§])7\.G((?:\.\d+)?)"), lambda m: "§" + BOT_SECTION + m.group(1)),
    (re.compile(r"\bPart ([GVM])\b"), lambda m: "Part " + PARTS[m.group(1)]),
    (re.compile(r"(?<![\w.§/-])G\.([A-G])\b"), lambda m: _sec(GRID_SECTIONS[m.group(1)], m)),
    (re.compile(r"(?<![\w.§/-])M\.([1-6])\b(?! ?S\d)"),
     lambda m: _sec(MULTI_SECTIONS[int(m.group(1))], m)),
    *_family("R", _r),
]
_GRID = _family("G", _g)
_VANQ = _family("V", _v)
_SOLO: list[Rule] = [
    # "M.5 S8-S9", "M.5 S8", "M S9", "M-S4": the solo section then the item(s)
    (re.compile(r"(?<![\w.§/-])(?:M\.5 ?|M |M-)S(\d{1,2})\s?(?:-|–|\.\.)\s?S(\d{1,2})\b"),
     lambda m: f"§11.7.{m.group(1)}–11.7.{m.group(2)}"),
    (re.compile(r"(?<![\w.§/-])(?:M\.5 ?|M |M-)S(\d{1,2})([a-z]?)\b"),
     lambda m: _sec(_s(m.group(1), m.group(2)), m)),
    *_family("S", _s, sub="([a-z])"),
    *_family("M", _m),
]


def _rules_for(text: str) -> list[Rule]:
    """The common rules, plus each game's bare rule numbers where the file talks about it."""
    rules = list(_COMMON)
    low = text.lower()
    if "grid" in low:
        rules += _GRID
    if "vanquishers" in low:
        rules += _VANQ
    if "multiverse" in low or "solo" in low:
        rules += _SOLO
    return rules


def rewrite_section(text: str) -> str:
    """`text` rewritten with the rules its own content calls for."""
    for pattern, repl in _rules_for(text):
        text = pattern.sub(repl, text)
    return text.replace("§§", "§")


def rewrite(text: str, python: bool = False, strings: bool = False) -> str:
    """`text` with every old SPEC reference renamed; unchanged if it holds none. In Python
    source only comments and docstrings change unless `strings`: a rule number inside another
    string literal is program output (an error message, a test's expected text), renamed only
    when asked, with the tests that expect it in the same run."""
    rules = _rules_for(text)

    def apply(part: str) -> str:
        for pattern, repl in rules:
            part = pattern.sub(repl, part)
        # "§§" arises where the old form already had its own sign
        return part.replace("§§", "§")

    if python and strings:
        return apply(text)
    if not python:
        # Markdown: each section (from one heading to the next) is its own context, so the
        # solo runs' S1..S12 are not read into a transport section's "S1-S0" arithmetic
        sections = re.split(r"(?m)^(?=#{1,4} )", text)
        return "".join(rewrite_section(part) for part in sections)
    out, last = [], 0
    for start, end in _prose_spans(text):
        out += [text[last:start], apply(text[start:end])]
        last = end
    return "".join(out) + text[last:]


def _prose_spans(source: str) -> list[tuple[int, int]]:
    """(start, end) offsets of the comments and docstrings of Python `source`."""
    lines = source.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(pos: tuple[int, int]) -> int:
        return starts[pos[0] - 1] + pos[1]

    spans, previous = [], tokenize.NEWLINE
    skip = (tokenize.NL, tokenize.COMMENT, tokenize.ENCODING)
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == tokenize.COMMENT:
                spans.append((offset(tok.start), offset(tok.end)))
            elif tok.type == tokenize.STRING and previous in (tokenize.NEWLINE, tokenize.INDENT,
                                                              tokenize.DEDENT):
                spans.append((offset(tok.start), offset(tok.end)))  # a statement of one string
            if tok.type not in skip:
                previous = tok.type
    except (tokenize.TokenError, SyntaxError) as exc:
        raise SystemExit(f"cannot tokenize: {exc}") from exc
    return spans


# --- checking -----------------------------------------------------------------------------------

# where SPEC defines a number: a heading, a list item, a table row's first cell, a bold or
# plain paragraph start, or a sentence start inside a paragraph ("... turn. 10.1.3.6 End ...")
_DEFINED = re.compile(r"(?m)(?:^#{2,4} |^- \*\*|^\*\*|^- |^\| |^|(?<=[.:)] )|(?<=\.\*\* ))"
                      r"(\d+(?:\.\d+)+)\.? (?=[A-Z*`(\"'a-z|])")
_PART = re.compile(r"(?m)^# Part (\d+)\.")
_CITED = re.compile(r"§(\d+(?:\.\d+)*)|\bSPEC(?:\.md)? (\d+\.\d+(?:\.\d+)*)|\bPart (\d+)\b")
_OLD = re.compile(r"§T-[A-Z]+|\bPart [GVM]\b|(?<![\w.§/-])(?:3\.[A-E]|7\.G|G\.[A-G]|M\.[1-6])\b"
                  r"|\bSPEC (?:R|V|G|M|S)\d+")


def defined_sections(spec: str) -> set[str]:
    names = set(_DEFINED.findall(spec)) | set(_PART.findall(spec))
    # a rule 9.1.11 implies its section 9.1 and Part 9 exist
    for name in list(names):
        parts = name.split(".")
        names.update(".".join(parts[:i]) for i in range(1, len(parts)))
    return names


def check(path: Path, text: str, defined: set[str]) -> list[str]:
    problems = []
    for lineno, line in enumerate(text.splitlines(), 1):
        for m in _CITED.finditer(line):
            if re.search(r"RFC \d+ $", line[:m.start()]):
                continue  # an RFC's own section
            name = next(g for g in m.groups() if g)
            if name.rstrip(".") not in defined:
                problems.append(f"{path}:{lineno}: SPEC has no section {name}: {line.strip()}")
        for m in _OLD.finditer(line):
            problems.append(f"{path}:{lineno}: old SPEC numbering {m.group(0)!r}: {line.strip()}")
    return problems


# --- the contents list -----------------------------------------------------------------------


def anchor(title: str, seen: dict[str, int]) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens, a
    repeated one numbered."""
    slug = "".join(c for c in title.strip().lower() if c.isalnum() or c in " -_").replace(" ", "-")
    count = seen.get(slug, 0)
    seen[slug] = count + 1
    return slug if count == 0 else f"{slug}-{count}"


def contents(spec: str) -> str:
    """The linked contents list of `spec`: every Part and every numbered-level section."""
    seen: dict[str, int] = {}
    lines, in_code = [], False
    for line in spec.splitlines():
        if line.startswith("```"):
            in_code = not in_code
        match = None if in_code else re.match(r"^(#{1,6}) (.*)$", line)
        if match is None:
            continue
        level, title = len(match.group(1)), match.group(2)
        link = anchor(title, seen)
        if level == 1 and title.startswith("Part "):
            lines.append(f"- [{title}](#{link})")
        elif level == 2 and title != "Contents":
            indent = "" if title == "Packaging (Decided)" else "  "
            lines.append(f"{indent}- [{title}](#{link})")
    return "\n".join(lines)


_CONTENTS = re.compile(r"(## Contents\n\n)(.*?)(\n\n## )", re.S)


def with_contents(spec: str) -> str:
    """`spec` with its contents list regenerated from its headings."""
    return _CONTENTS.sub(lambda m: m.group(1) + contents(spec) + m.group(3), spec, count=1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true",
                        help="list references to sections SPEC.md lacks; rewrite nothing")
    parser.add_argument("--contents", action="store_true",
                        help="regenerate SPEC.md's linked contents list from its headings")
    parser.add_argument("--strings", action="store_true",
                        help="in Python files, rename in every string too (program output)")
    parser.add_argument("files", nargs="*", type=Path)
    args = parser.parse_args(argv)
    if args.contents:
        text = SPEC.read_text(encoding="utf-8")
        SPEC.write_text(with_contents(text), encoding="utf-8")
        return 0
    # this file names the old forms on purpose: never rewrite or report it
    args.files = [f for f in args.files if f.resolve() != Path(__file__).resolve()]
    if args.check:
        defined = defined_sections(SPEC.read_text(encoding="utf-8"))
        problems = [p for f in args.files for p in check(f, f.read_text(encoding="utf-8"), defined)]
        print("\n".join(problems) if problems else "every SPEC reference resolves")
        return 1 if problems else 0
    for f in args.files:
        old = f.read_text(encoding="utf-8")
        new = rewrite(old, python=f.suffix == ".py", strings=args.strings)
        if new != old:
            f.write_text(new, encoding="utf-8")
            print(f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
