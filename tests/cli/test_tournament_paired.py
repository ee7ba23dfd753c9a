# `versus tournament` with paired deals, deal suites, the SPRT, interim standings, per-bot
# options and game records, end to end: real workers, real matches over TCP on
# 127.0.0.1. The two games of a pair must be the same deal (same match id: identities, master
# secrets and handshake from the deal seed) with the seats swapped.
from __future__ import annotations

import json
from pathlib import Path

import pytest

from versus.cli import tournament_records, tournament_schedule
from versus.cli.main import main
from versus.protocol.match.verify import verify_transcript


def results(out: Path) -> dict:
    return json.loads((out / "results.json").read_text())


def test_paired_deals_over_tcp(tmp_path, capsys):
    out = tmp_path / "t"
    assert main(["tournament", "random", "random", "--game", "versus42", "--games", "4",
                 "--concurrency", "2", "--srand", "5", "--records", "--rating-interval", "2",
                 "--out", str(out)]) == 0
    data = results(out)
    assert data["settings"]["paired"] and data["settings"]["srand"] == 5
    games = {g["game"]: g for g in data["games"]}
    for first, second, pair in (("p0-p1-001", "p0-p1-002", 1), ("p0-p1-003", "p0-p1-004", 2)):
        a, b = games[first], games[second]
        assert a["pair"] == b["pair"] == a["deal"] == pair
        assert a["seats"] == list(reversed(b["seats"]))
        assert a["match_id"] == b["match_id"]  # the same deal
        for g in (a, b):
            assert verify_transcript((out / g["transcript"]).read_bytes()).ok
            text = (out / g["record"]).read_text()
            result = {0: "1-0", 1: "0-1", None: "1/2-1/2"}[g["winner_seat"]]
            assert f'[Result "{result}"]' in text and f'[Deal "5-{pair}"]' in text
            assert f'[Seat0 "{g["seats"][0]}"]' in text and text.endswith(result + "\n")
            assert "\n1. S" in text
    assert games["p0-p1-001"]["match_id"] != games["p0-p1-003"]["match_id"]
    (row,) = data["pairings"]
    assert row["model"] == "pentanomial" and sum(row["counts"].values()) == 2
    printed = capsys.readouterr().out
    assert "standings after 2 of 4 games" in printed and "standings after 4 of 4" in printed
    assert "random vs random#2: 2 pairs [LL" in printed
    assert "nElo" in printed or "(all won)" in printed or "(all lost)" in printed


def test_resume_keeps_pairs_intact(tmp_path, capsys):
    out = tmp_path / "t"
    args = ["tournament", "random", "greedy", "--games", "2", "--concurrency", "1",
            "--out", str(out)]
    assert main([*args, "--max-games", "1"]) == tournament_schedule.EXIT_UNFINISHED
    manifest = json.loads((out / "tournament.json").read_text())
    assert [(g["game"], g["pair"]) for g in manifest["schedule"]] == [("p0-p1-001", 1),
                                                                       ("p0-p1-002", 1)]
    (row,) = results(out)["pairings"]  # one game of a pair: no complete pair yet
    assert row["samples"] == 0 and row["incomplete_pairs"] == 1
    assert main([*args, "--resume"]) == 0  # the random suite number comes from the manifest
    games = results(out)["games"]
    assert games[0]["match_id"] == games[1]["match_id"]
    assert "1 of 2 games done, 1 to play" in capsys.readouterr().err


def test_deal_suites_replay_the_same_deals(tmp_path):
    deals = tmp_path / "deals.txt"
    deals.write_text("# two deals\nalpha\nbeta deck_size=10  # a smaller deck\n")
    ids = []
    for run, extra in (("a", ["--deals", str(deals)]), ("b", ["--deals", str(deals)]),
                       ("c", ["--srand", "1"])):
        out = tmp_path / run
        assert main(["tournament", "random", "random", "--games", "4", "--concurrency", "2",
                     "--out", str(out), *extra]) == 0
        ids.append([g["match_id"] for g in results(out)["games"]])
    assert ids[0] == ids[1] and ids[0] != ids[2]
    assert ids[0][0] == ids[0][1] != ids[0][2] == ids[0][3]
    data = results(tmp_path / "a")
    assert data["settings"]["deals"] == [{"seed": "alpha", "rules": {}},
                                         {"seed": "beta", "rules": {"deck_size": 10}}]
    json_deals = tmp_path / "deals.json"
    json_deals.write_text(json.dumps(["alpha", {"seed": "beta", "rules": {"deck_size": 10}}]))
    out = tmp_path / "d"
    assert main(["tournament", "random", "random", "--games", "4", "--concurrency", "2",
                 "--out", str(out), "--deals", str(json_deals)]) == 0
    assert [g["match_id"] for g in results(out)["games"]] == ids[0]


def test_sprt_stops_a_strong_against_a_weak_participant_early(tmp_path, capsys):
    out = tmp_path / "t"
    assert main(["tournament", "greedy", "random", "--games", "40", "--concurrency", "2",
                 "--sprt", "elo0=0,elo1=400,alpha=0.05,beta=0.05", "--seed", "01",
                 "--out", str(out)]) == 0
    data = results(out)
    assert data["complete"] and data["sprt"]["verdict"] == "H1"
    assert data["sprt"]["llr"] >= data["sprt"]["upper"]
    assert len(data["games"]) <= 24  # 5 double wins decide; well short of 40
    printed = capsys.readouterr().out
    assert "SPRT elo0=0,elo1=400,alpha=0.05,beta=0.05,model=logistic: LLR" in printed
    assert "H1 accepted" in printed and "the tournament stopped there" in printed


def test_unpaired_named_participants_with_options(tmp_path, capsys):
    out = tmp_path / "t"
    assert main(["tournament", "random:seed=1,name=One", "random:name=Two", "--unpaired",
                 "--games", "3", "--concurrency", "2", "--srand", "2", "--out",
                 str(out)]) == 0
    data = results(out)
    assert data["names"] == ["One", "Two"]
    assert data["participants"] == ["random:seed=1,name=One", "random:name=Two"]
    assert {r["name"] for r in data["standings"]} == {"One", "Two"}
    assert [g["deal"] for g in data["games"]] == [1, 2, 3] and data["games"][0]["pair"] is None
    (row,) = data["pairings"]
    assert row["model"] == "trinomial" and sum(row["counts"].values()) == 3
    assert "One vs Two: 3 games [L" in capsys.readouterr().out


@pytest.mark.parametrize(("argv", "says"), [
    (["random", "greedy", "--games", "3"], "paired deals need an even number"),
    (["random", "greedy", "ismcts", "--sprt", "elo0=0,elo1=10,alpha=0.05,beta=0.05"],
     "--sprt compares two participants; 3 given"),
    (["random", "greedy", "--sprt", "elo0=0,elo1=10"], "missing alpha, beta"),
    (["random:speed=3", "greedy"], "unknown option 'speed'"),
    (["random:name=X", "greedy:name=X"], "participant 'X' is given twice"),
    (["random", "greedy", "--deals", "/no/such/deals"], "--deals /no/such/deals"),
    (["random", "greedy", "--srand", "-1"], "--srand"),
])
def test_errors_are_one_line(tmp_path, capsys, argv, says):
    try:
        code = main(["tournament", *argv, "--out", str(tmp_path / "t")])
    except SystemExit as exit:  # argparse's own checks
        code = exit.code
    assert code == tournament_schedule.EXIT_USAGE
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and says in err and "Traceback" not in err


@pytest.mark.parametrize(("text", "says"), [
    ("bad/label\n", "is not 1-64 characters"),
    ("alpha deck_size=99\n", "deal 1:"),
    ("alpha nonsense\n", "line 1: 'nonsense' is not NAME=VALUE"),
    ("[1]", "item 1: expected a label"),
    ("# nothing\n", "no deals"),
    # start positions that cannot start a match say why, naming the deal (SPEC §8.3)
    ('alpha\n{"format": "versus-position/1", "game": "versus42", "tiles": "GGGGG"}\n',
     "deal 2: start position: position field 'catalogue': a start position names"),
    ('[{"format": "versus-position/1", "game": "versus42"}]', "deal 1: start position:"),
    ('two words {"format": "versus-position/1"}\n', "line 1: a position line is `[LABEL]"),
    ('[{"seed": "x", "position": 3}]', "item 1: expected a label"),
])
def test_bad_deal_files_are_one_line(tmp_path, capsys, text, says):
    deals = tmp_path / "deals"
    deals.write_text(text)
    assert main(["tournament", "random", "greedy", "--deals", str(deals), "--out",
                 str(tmp_path / "t")]) == tournament_schedule.EXIT_USAGE
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and says in err


def test_paired_schedule_keeps_each_pair_together_and_old_manifests_resume(tmp_path):
    games = tournament_schedule.make_schedule(
        ["a", "b", "c"], tournament_schedule.Settings(games=4, paired=True, srand=1))
    assert [(g.id, g.seats, g.pair) for g in games[:4]] == [
        ("p0-p1-001", (0, 1), 1), ("p0-p1-002", (1, 0), 1),
        ("p0-p2-001", (0, 2), 1), ("p0-p2-002", (2, 0), 1)]
    assert len(games) == 12 and {g.deal for g in games} == {1, 2}
    # a manifest from before paired deals: unpaired, fresh deals, schedule entries without deal/pair
    folder = tournament_records.Folder(tmp_path)
    old = tournament_schedule.Settings(games=2).to_dict()
    for key in ("paired", "srand", "deals", "sprt", "records"):
        del old[key]
    schedule = [{k: v for k, v in g.to_dict().items() if k not in ("deal", "pair")}
                for g in tournament_schedule.make_schedule(
                    ["a", "b"], tournament_schedule.Settings(games=2))]
    folder.manifest.write_text(json.dumps({"format": tournament_records.MANIFEST_FORMAT,
                                           "participants": ["a", "b"], "settings": old,
                                           "schedule": schedule}))
    _, settings, read = tournament_records.read_manifest(folder)
    assert not settings.paired and settings.srand is None and [g.deal for g in read] == [0, 0]


def start_position_text(seed: bytes, game: str = "versus42") -> str:
    """A real mid-game position of a random game with a face-down field card (SPEC §3.3; the
    grid game: a face-down grid card, SPEC Part 9; Vanquishers: a hidden trap)."""
    if game == "grid":
        from tests.engine.grid.test_start_positions import start_text

        return start_text({}, seed)
    if game == "vanquishers":
        from tests.engine.vanquishers.test_start_positions import start_text as trap_text
        from versus.engine.vanquishers.rules import Rules

        return trap_text(Rules(), seed.decode())
    from tests.engine.versus42.test_start_positions import with_verso_field_cards

    return with_verso_field_cards(seed)


# (a start from the shared pool: tests/protocol/test_start_positions.py, and the demo's in
# tests/cli/test_start_option.py; the other games play one pair here, to keep the suite short)
@pytest.mark.parametrize(("game", "deal"), [("versus42", "decklist"), ("grid", "decklist"),
                                            ("vanquishers", "decklist")])
def test_start_positions_as_deals_play_from_there_and_verify(tmp_path, game, deal):
    """`--deals` lists start positions (a bare position line, a labelled one, a JSON
    item): every game starts from its position, both games of a pair from the same deal, and
    the verifier, replaying from the start the HELLOs bind, certifies each result."""
    from versus.engine.api import rules_for_position
    from versus.engine.registry import get_game
    from versus.protocol.match.verify import replay_inputs

    impl = get_game(game)
    first, second = start_position_text(b"start-1", game), start_position_text(b"start-2", game)
    deals = tmp_path / "deals.txt"
    deals.write_text(f"# two positions\n{first}\nmid {second}\n")
    out = tmp_path / "t"
    played = 4 if game == "versus42" else 2
    assert main(["tournament", "random", "greedy", "--game", game, "--games", str(played),
                 "--concurrency", "2", "--deal", deal, "--out", str(out), "--deals",
                 str(deals)]) == 0
    data = results(out)
    labels = [d["seed"] for d in data["settings"]["deals"]]
    assert labels[0].startswith("start-") and labels[1] == "mid"
    games = data["games"]
    assert games[0]["match_id"] == games[1]["match_id"]  # a pair: one deal
    assert played == 2 or games[1]["match_id"] != games[2]["match_id"]
    for g, text in zip(games, (first, first, second, second)[:played], strict=True):
        raw = (out / g["transcript"]).read_bytes()
        assert verify_transcript(raw).ok
        replay = replay_inputs(raw)
        assert replay.rules.game == game
        assert replay.rules.ruleset == rules_for_position(impl, text)
        given = impl.load_position(text)
        assert replay.rules.ruleset.start and given.turn == impl.load_position(
            replay.rules.ruleset.start).turn
    if game != "versus42":
        return
    # the same file as JSON items plays the same deals (the same match ids)
    json_deals = tmp_path / "deals.json"
    json_deals.write_text(json.dumps([json.loads(first), {"seed": "mid",
                                                          "position": json.loads(second)}]))
    again = tmp_path / "again"
    assert main(["tournament", "random", "greedy", "--game", game, "--games", "4",
                 "--concurrency", "2", "--deal", deal, "--out", str(again), "--deals",
                 str(json_deals)]) == 0
    assert [g["match_id"] for g in results(again)["games"]] == [g["match_id"] for g in games]


def test_a_start_position_deal_refuses_rules_and_another_catalogue(tmp_path, capsys):
    from versus.engine.versus42.catalogue import catalogue_version

    text = start_position_text(b"start-1")
    deals = tmp_path / "deals.txt"
    deals.write_text(text + "\n")
    assert main(["tournament", "random", "greedy", "--deals", str(deals), "--rule",
                 "max_turns=30", "--out", str(tmp_path / "a")]) == tournament_schedule.EXIT_USAGE
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "carries its own rules: drop --rule" in err
    old = json.loads(text)  # the same position said to be of catalogue version 1
    old["catalogue"] = catalogue_version(1).digest.hex()
    deals.write_text(json.dumps(old) + "\n")
    assert main(["tournament", "random", "greedy", "--deals", str(deals), "--out",
                 str(tmp_path / "b")]) == tournament_schedule.EXIT_USAGE
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "made with catalogue" in err
