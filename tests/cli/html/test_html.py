# The HTML replay and tournament report (cli/html/), from real files: a real tournament over
# TCP on 127.0.0.1 writes its transcripts, `--report` writes the page and one replay per game,
# and headless Chromium (selenium) opens them: no script error, stepping draws the next step's
# scene, the report lists every bot. Without a browser the pages are still checked as files
# (self-contained: nothing fetched; a hostile name cannot close the data element; a Versus
# match stays under 300 KB; a tampered transcript is shown up to its last valid record).
from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from versus.cli.html import embed_json
from versus.cli.html.replay import file_frames, write_replay_file
from versus.cli.main import main

from .browser import browser, open_page, script_errors

NO_FETCH = re.compile(r"""(?:src|href)\s*=\s*["'](?:https?:)?//|@import|url\(\s*["']?https?:""")


@pytest.fixture(scope="module")
def tournament(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished two-bot tournament of 2 games with its report (module-wide: it is real)."""
    out = tmp_path_factory.mktemp("tournament")
    code = main(["tournament", "random", "greedy", "--games", "2", "--concurrency", "2",
                 "--out", str(out / "t"), "--seed", "0c0d", "--report",
                 str(out / "report.html"), "--sprt", "elo0=0,elo1=100,alpha=0.05,beta=0.05"])
    assert code == 0
    return out


@pytest.fixture(scope="module")
def driver() -> Iterator[Any]:
    yield from browser()


def page_data(path: Path) -> dict[str, Any]:
    text = path.read_text(encoding="utf-8")
    found = re.search(r'<script type="application/json" id="data">(.*?)</script>', text, re.S)
    assert found, "the page has no data element"
    return json.loads(found.group(1))


def test_the_report_links_a_replay_of_every_game(tournament: Path) -> None:
    report = tournament / "report.html"
    data = page_data(report)
    assert {row["name"] for row in data["standings"]} == {"random", "greedy"}
    assert len(data["games"]) == 2 and data["sprt"] and len(data["sprt"]["path"]) == 1
    for game in data["games"]:
        replay = report.parent / game["replay"]  # relative, beside the report
        assert not Path(game["replay"]).is_absolute() and replay.is_file()
        frames = page_data(replay)["frames"]
        assert len(frames) > 2 and page_data(replay)["verdict"]["ok"]
    assert not NO_FETCH.search(report.read_text(encoding="utf-8"))


def test_a_replay_is_self_contained_and_small(tournament: Path) -> None:
    replay = next((tournament / "report-replays").glob("*.html"))
    text = replay.read_text(encoding="utf-8")
    assert not NO_FETCH.search(text)
    assert len(text.encode()) < 300_000, f"{len(text.encode())} bytes"


def test_a_hostile_string_cannot_leave_the_data_element() -> None:
    hostile = "</script><script>alert(1)</script>"
    embedded = embed_json({"name": hostile})
    assert "</" not in embedded and json.loads(embedded) == {"name": hostile}


def test_a_tampered_transcript_is_shown_up_to_its_last_valid_record(tournament: Path,
                                                                   tmp_path: Path) -> None:
    source = next((tournament / "t" / "games").glob("*.vtr"))
    data = bytearray(source.read_bytes())
    data[len(data) * 2 // 3] ^= 0x01  # one bit in a late record
    frames, verdict, _ = file_frames(bytes(data))
    whole, _, _ = file_frames(source.read_bytes())
    assert not verdict.ok and verdict.failure and verdict.failed_after == len(frames) - 1
    assert 1 <= len(frames) < len(whole)
    out = tmp_path / "bad.html"
    broken = tmp_path / "bad.vtr"
    broken.write_bytes(bytes(data))
    write_replay_file(broken, out)
    assert page_data(out)["verdict"]["at"] == len(frames) - 1


def test_the_replay_steps_in_a_browser(tournament: Path, driver: Any) -> None:
    replay = next((tournament / "report-replays").glob("*.html"))
    frames = page_data(replay)["frames"]
    open_page(driver, replay)
    assert script_errors(driver) == []
    where = driver.find_element("id", "where")
    assert where.text == f"step 0 of {len(frames) - 1}"
    seen = {driver.find_element("id", "left").text}
    for _ in range(6):
        driver.find_element("id", "next").click()
        seen.add(driver.find_element("id", "left").text)
    assert where.text == f"step 6 of {len(frames) - 1}" and len(seen) > 1
    from selenium.webdriver.common.keys import Keys

    driver.find_element("tag name", "body").send_keys(Keys.ARROW_LEFT)
    assert where.text == f"step 5 of {len(frames) - 1}"
    driver.find_element("id", "last").click()
    assert driver.find_element("id", "result").text  # the end says who won
    assert script_errors(driver) == []


def test_the_report_shows_every_bot_in_a_browser(tournament: Path, driver: Any) -> None:
    open_page(driver, tournament / "report.html")
    assert script_errors(driver) == []
    table = driver.find_element("id", "standings").text
    assert "random" in table and "greedy" in table
    assert driver.find_element("css selector", "#sprt svg polyline")
    links = driver.find_elements("css selector", "#games a")
    assert len(links) == 2
    links[0].click()
    assert driver.find_element("id", "where").text.startswith("step 0 of")
    assert script_errors(driver) == []


def _grid_file(tmp_path: Path) -> Path:
    from tests.engine.grid.test_protocol import CAT, _match
    from versus.engine.grid import GRID
    from versus.engine.grid.cards import build_deck
    from versus.protocol.match.rules import DealMode, MatchRules

    rules = GRID.rules_from_options({"mode": "fast"})
    decks = (build_deck(CAT, "fast", "standard", b"a"), build_deck(CAT, "fast", "standard", b"b"))
    pair = _match("html/grid", MatchRules(rules, DealMode.DECKLIST, game="grid"), decks)
    path = tmp_path / "grid.vtr"
    path.write_bytes(pair.peers[0].transcript_bytes())
    return path


def _vanquishers_file(tmp_path: Path) -> Path:
    from tests.engine.vanquishers.test_protocol import match

    path = tmp_path / "vq.vtr"
    path.write_bytes(match("html/vq").peers[0].transcript_bytes())
    return path


def _solo_file(tmp_path: Path) -> Path:
    import os

    os.chmod(tmp_path, 0o700)
    org, me = str(tmp_path / "org.key"), str(tmp_path / "me.key")
    assert main(["challenge", "new", "--identity", org, "--out", str(tmp_path), "--id", "h1",
                 "--rule", "difficulty=easy"]) == 0
    run_file = tmp_path / "h1.run"
    assert main(["solo", "--challenge", str(tmp_path / "h1.challenge"), "--secret",
                 str(tmp_path / "h1.secret"), "--bot", "greedy", "--identity", me,
                 "--out", str(run_file)]) == 0
    return run_file


def _shared_pool_file(tmp_path: Path) -> Path:
    assert main(["demo", "--deal", "shared-pool", "--quiet", "--out", str(tmp_path / "demo"),
                 "--seed", "0a"]) == 0
    return next((tmp_path / "demo").glob("*/transcript.vtr"))


@pytest.mark.parametrize("make", [_grid_file, _vanquishers_file, _solo_file, _shared_pool_file],
                         ids=["grid", "vanquishers", "multiverse-solo", "versus42-shared-pool"])
def test_every_game_replays_as_a_page(make: Any, tmp_path: Path, driver: Any,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    source = make(tmp_path)
    page = tmp_path / "replay.html"
    assert main(["replay", "--html", str(page), str(source)]) == 0
    assert f"replay page: {page}" in capsys.readouterr().out
    data = page_data(page)
    assert data["verdict"]["ok"] and len(data["frames"]) > 3
    assert not NO_FETCH.search(page.read_text(encoding="utf-8"))
    open_page(driver, page)
    assert script_errors(driver) == []
    before = driver.find_element("id", "stage").text
    driver.find_element("id", "last").click()
    assert driver.find_element("id", "stage").text != before
    assert driver.find_element("id", "result").text  # the end: who won, or the solo score
    assert script_errors(driver) == []
