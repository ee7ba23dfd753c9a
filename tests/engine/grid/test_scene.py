# The grid game's scene (engine/grid/scene.py), narration (narrate.py) and rules text, held to
# the scene contract (engine/scene.py): over seeded random games played with the referee loop,
# every scene's inputs are the deciding seat's legal inputs, no card hidden from a seat shows,
# every input a card or cell offers is legal and the text fits 80 columns; battles, traps and
# wasted cards are explained; the public narration never says "you".
from __future__ import annotations

import re
from typing import Any

import pytest

from versus.engine.api import DecisionKind, Finished, Pending, Setup, rules_text, scene_of
from versus.engine.grid import GRID
from versus.engine.grid.state import GridState
from versus.engine.referee_loop import HashBelow, LocalPlay, local_deal
from versus.engine.scene import Scene, scene_lines

from .scene import Scene as Position
from .scene import play

YOU = re.compile(r"\b(you|your|yours)\b", re.IGNORECASE)


def _game(options: dict[str, str], seed: bytes) -> LocalPlay:
    rules = GRID.rules_from_options(options)
    cat = GRID.default_catalogue()
    identity, orders = local_deal(GRID, rules, cat, seed)
    return LocalPlay.start(GRID, Setup(rules, cat, seed), identity, orders,
                           HashBelow(seed + b"/chance").below)


def _hidden(s: GridState, seat: int | None, know: Any) -> set[int]:
    """The handles whose identity `seat` (None: the public) may not know."""
    return {h for h in range(len(s.zone)) if s.ident[h] < 0
            and not (seat is not None and s.holder[h] == seat and h in know.cards)}


def _check(s: GridState, seat: int | None, know: Any, names: dict[int, str]) -> Scene:
    scene = scene_of(GRID, s, seat, know)
    hidden = _hidden(s, seat, know)
    d = GRID.decision(s)
    legal = [GRID.format_input(a) for a in GRID.legal_actions(s)]
    deciding = (isinstance(d, Pending) and d.player == seat
                and d.kind in (DecisionKind.TURN, DecisionKind.CHOICE))
    assert scene.inputs == (tuple(legal) if deciding else ())
    assert bool(scene.prompt) == deciding
    for card in scene.cards():
        assert set(card.inputs) <= set(scene.inputs)
        if card.face is not None:  # a face shown: public, or the seat's own known card
            h = int(card.ref)
            assert h not in hidden, (seat, h)
            assert card.face.name == names[h]
    if scene.board is not None:
        assert {c.ref for c in scene.board.cells} == {
            f"{c}{r}" for c in "abcdef"[:s.size] for r in range(1, s.size + 1)}
        for cell in scene.board.cells:
            assert set(cell.inputs) <= set(scene.inputs)
            assert all(len(card.label) <= 12 for card in cell.cards)
    words = "\n".join(scene_lines(scene, 80) + [why for _, why in scene.notes])
    for h in hidden:
        assert f"{names[h]} (card {h})" not in words
    assert all(len(line) <= 80 for line in scene_lines(scene, 80))
    # the marks and the key to the labels: the two status lines a 24-row terminal shows whole
    assert scene.status[1].startswith("Key: ") and all(len(x) <= 80 for x in scene.status[:2])
    if seat is None:
        assert not YOU.search(words), words
    return scene


def _names(play: LocalPlay) -> dict[int, str]:
    """The true name of every handle of a local game."""
    cat = play.state.catalogue
    return {h: cat.card(cid).name for h, cid in dict(play.identity).items()}


@pytest.mark.parametrize(("options", "seed"), [
    ({}, b"scene-1"),
    ({"deck": "shared", "tie": "sudden-death"}, b"scene-2"),
    ({"mode": "vs", "mix": "no-traps"}, b"scene-3"),
])
def test_random_games_scene_contract_and_narration(options: dict[str, str],
                                                   seed: bytes) -> None:
    game = _game(options, seed)
    chance = HashBelow(seed + b"/players")
    names = _names(game)
    battles = 0
    while True:  # every decision, the automatic ones (deals, reveals, chance) too
        s = game.state
        for seat in (0, 1, None):
            _check(s, seat, None if seat is None else game.knowledge[seat], names)
        d = GRID.decision(s)
        if isinstance(d, Finished):
            break
        if d.kind in (DecisionKind.TURN, DecisionKind.CHOICE):
            acts = GRID.legal_actions(s)
            inp = acts[chance.below(len(acts))]
        else:
            inp = game.automatic(d)
        game.apply(inp)
        # told to the public: no "you", nothing hidden named
        public = GRID.narrate(s, inp, game.state, None, None)
        assert public and not [line for line in public if YOU.search(line)], public
        text = " ".join(public)
        assert not [h for h in _hidden(game.state, None, None)
                    if f"{names[h]} (card {h})" in text]
        battles += sum(line.startswith("Battle: ") for line in public)
    assert battles
    final = {seat: scene_of(GRID, game.state, seat, None if seat is None
                            else game.knowledge[seat]) for seat in (0, 1, None)}
    winner = GRID.decision(game.state).winner  # type: ignore[union-attr]
    for seat, sc in final.items():
        assert sc.result and sc.inputs == () and sc.prompt == ""
        if winner is None:
            assert sc.result.startswith("A draw: ")
        elif seat is None:
            assert sc.result.startswith(f"Player {winner + 1} wins: ")
        else:
            assert sc.result.startswith("You win: " if winner == seat else "You lose: ")
        assert len(sc.result.split(": ", 1)[1]) > 20  # the reason


def _narrated(s: GridState, pos: Position, text: str, viewer: int | None) -> tuple[
        GridState, list[str]]:
    """Play `text` and every deal/reveal after it, narrating each step to `viewer`."""
    lines: list[str] = []
    inp = GRID.parse_input(text)
    while True:
        after = GRID.step(s, inp)
        lines += GRID.narrate(s, inp, after, viewer, None)
        s, d = after, GRID.decision(after)
        if isinstance(d, Finished) or d.kind not in (DecisionKind.DEAL, DecisionKind.REVEAL):
            return s, lines
        if d.kind is DecisionKind.REVEAL:
            inp = GRID.reveal_input(d.handle, pos.identity(d.handle))
        else:
            lo = 0 if s.rules.shared else d.deck * s.rules.deck_size  # type: ignore[operator]
            inp = GRID.deal_input(next(h for h in range(lo, len(s.zone)) if s.zone[h] == 0))


def test_a_battle_is_told_with_the_worths_compared_and_the_rule() -> None:
    pos = Position()
    pos.grid(0, "b1", "water5", up=False)
    h = pos.hand(0, "fire9")
    enemy = pos.grid(1, "b3", "earth7")
    _, lines = _narrated(pos.state(), pos, f"place {h} b2 up", None)
    battle = next(line for line in lines if line.startswith("Battle: "))
    assert "Fire 9 (card" in battle and "top side worth 9" in battle
    assert f"Earth 7 (card {enemy})" in battle and "worth 7" in battle
    assert "9 beats 7" in battle and "loses" in battle
    # equal worths: the element cycle decides, and the narration says so
    pos = Position()
    pos.grid(0, "b1", "water5", up=False)
    h = pos.hand(0, "water7")
    pos.grid(1, "b3", "fire7")
    _, lines = _narrated(pos.state(), pos, f"place {h} b2 up", 0)
    battle = next(line for line in lines if line.startswith("Battle: "))
    assert "equal worths, and Water beats Fire" in battle and "Fire 7" in battle


def test_a_trap_and_a_wasted_card_are_explained() -> None:
    pos = Position()
    pos.grid(0, "b1", "water5", up=False)
    h = pos.hand(0, "supply")
    pos.grid(1, "b3", "fire9", up=False)
    _, lines = _narrated(pos.state(), pos, f"place {h} b2 up", 0)
    text = "\n".join(lines)
    assert "Supply (card" in text and "placed face up" in text and "wasted" in text
    assert "Fire 9" in text and "turned face up" in text
    pos = Position()
    pos.grid(0, "b1", "water5", up=False)
    h = pos.hand(0, "fire9")
    pos.grid(1, "b3", "caltrops", up=False)
    _, lines = _narrated(pos.state(), pos, f"place {h} b2 up", None)
    assert any(line.startswith("Trap Caltrops (card") and "worth 2 less" in line
               for line in lines), lines


def test_notes_name_the_wasteful_inputs_and_only_them() -> None:
    pos = Position()
    pos.grid(0, "b1", "water5", up=False)
    pos.grid(1, "b3", "fire9", up=False)
    char, trap, bolt = pos.hand(0, "earth8"), pos.hand(0, "pitfall"), pos.hand(0, "bolt")
    spyglass = pos.hand(0, "spyglass")
    s = pos.state()
    know = GRID.new_knowledge(0)
    for h, cid in pos.ids.items():
        if s.holder[h] == 0:
            know.learn(h, cid)
    sc = GRID.scene(s, 0, know)
    notes = dict(sc.notes)
    assert f"place {trap} b2 up" in notes and "wastes Pitfall" in notes[f"place {trap} b2 up"]
    assert "turns the face-down opponent card" in notes[f"place {trap} b2 up"]
    assert f"use {char}" in notes and "not an item" in notes[f"use {char}"]
    assert f"use {trap}" in notes
    assert not [line for line in notes if line.startswith(f"place {char} ")]
    assert f"use {spyglass}" not in notes  # b3 is a face-down opponent card to scout
    assert f"use {bolt}" not in notes  # b3 may be destroyed
    # no opponent card on the grid: the destroy and scout items would do nothing
    pos = Position()
    pos.grid(0, "b1", "water5", up=False)
    pos.grid(1, "c4", "fire9", up=False)
    bolt, warcry = pos.hand(0, "bolt"), pos.hand(0, "warcry")
    s = pos.state()
    know = GRID.new_knowledge(0)
    know.learn(bolt, "bolt")
    know.learn(warcry, "warcry")
    notes = dict(GRID.scene(s, 0, know).notes)
    assert f"use {bolt}" not in notes  # c4 is an opponent card it may destroy
    assert "no face-up character" in notes[f"use {warcry}"]
    # a second modifier that zeroes K sides changes nothing; a double with no card to place
    pos = Position()
    pos.grid(0, "b1", "water5", up=False)
    pos.modifier(1, "regicide")
    regicide, march = pos.hand(0, "regicide"), pos.hand(0, "march")
    know = GRID.new_knowledge(0)
    know.learn(regicide, "regicide")
    know.learn(march, "march")
    notes = dict(GRID.scene(pos.state(), 0, know).notes)
    assert "already in play" in notes[f"use {regicide}"] and f"use {march}" not in notes


def test_the_board_shows_controller_values_and_handles_turned_for_seat_1() -> None:
    pos = Position()
    mine = pos.grid(0, "b1", "arrow", up=False)  # Water, top K, 1 elsewhere
    theirs = pos.grid(1, "b3", "arrow")
    pos.hand(0, "fire9")
    s = pos.state()
    know = GRID.new_knowledge(0)
    know.learn(mine, "arrow")
    sc0 = GRID.scene(s, 0, know)
    assert sc0.board is not None and sc0.board.rows[0] == "4" and sc0.board.columns[0] == "a"
    b1 = sc0.board.cell("b1")
    assert b1 is not None and b1.shade == "home" and b1.cards[0].label == f"▲{mine} ~WKAAA"
    b3 = sc0.board.cell("b3")
    assert b3 is not None and b3.cards[0].label == f"▼{theirs} WAAKA"  # its top faces down
    sc1 = GRID.scene(s, 1, GRID.new_knowledge(1))
    assert sc1.board is not None and sc1.board.rows[0] == "1" and sc1.board.columns[0] == "d"
    assert sc1.board.cell("b1").cards[0].label == f"▼{mine} ?"  # type: ignore[union-attr]
    assert sc1.board.cell("b3").cards[0].label == f"▲{theirs} WKAAA"  # type: ignore[union-attr]
    public = GRID.scene(s, None, None)
    assert public.board.cell("b3").cards[0].label == f"2:{theirs} WAAKA"  # type: ignore
    assert public.board.cell("b1").shade == "base-1"  # type: ignore[union-attr]
    # before: "▼7 WAAKA" was said nowhere a player at 80x24 looks; now the first character on
    # the board, in reading order, is spelled out on the second status line
    assert sc0.status[0].endswith("You are player 1 (▲), the opponent ▼.")
    assert sc0.status[1] == (f"Key: ▼{theirs} WAAKA = the opponent's card {theirs}, Water, "
                             "sides ↑A →A ↓K ←A (A=1 K=13)")
    assert sc1.status[1] == (f"Key: ▲{theirs} WKAAA = your card {theirs}, a Water character, "
                             "sides ↑K →A ↓A ←A (A=1 K=13)")  # b1 is hidden from seat 1
    assert public.status[1].startswith(f"Key: 2:{theirs} WAAKA = player 2's card {theirs}, ")
    mine_first = GRID.scene(s, 0, know)
    assert mine_first.status[1].startswith(f"Key: ▼{theirs} ")
    only_mine = Position()
    h = only_mine.grid(0, "b1", "arrow", up=False)
    only_mine.hand(0, "fire9")
    know = GRID.new_knowledge(0)
    know.learn(h, "arrow")
    assert GRID.scene(only_mine.state(), 0, know).status[1] == (
        f"Key: ▲{h} ~WKAAA = your card {h}, Water, sides ↑K →A ↓A ←A (A=1 K=13); ~ face down")


def test_without_a_character_on_the_board_the_key_lists_the_parts_of_a_label() -> None:
    game = _game({}, b"key")
    assert scene_of(GRID, game.state, 0, game.knowledge[0]).status[1] == (
        "Key: ▲ yours ▼ theirs, card number, element W/F/E, sides ↑→↓← (T=10); ? hidden")
    assert scene_of(GRID, game.state, None, None).status[1] == (
        "Key: 1:/2: the player, then the card number, element W/F/E, sides ↑→↓←; ? hidden")


def test_the_key_to_the_board_is_on_a_terminal_of_80x24() -> None:
    from tests.cli.screen import client_for, run, ui_session

    async def main() -> None:
        client = client_for("grid", seed=b"screen")
        async with ui_session(client, 80, 24) as h:
            while not any(c.cards and c.cards[0].label[-1] not in "?mpe"  # a character
                          for c in client.scene().board.cells):
                await h.my_decision()
                legal = client.inputs()
                line = next((x for x in legal if x.startswith("place") and x.endswith(" up")),
                            legal[0])
                before = client.decision_key()
                await h.keys(line + "\r")
                if h.ui.noted == line:
                    await h.keys("\r")
                await h.until(lambda b=before: client.decision_key() != b, "the move")
            await h.my_decision()
            screen = await h.screen()
            key = client.scene().status[1]
            assert key.startswith("Key: ") and ", sides ↑" in key
            assert any(row.startswith(key[:60]) for row in screen), "\n".join(screen)
            await h.finish()

    run(main(), timeout=60)


def test_rules_text_is_short_wrapped_and_shows_every_input() -> None:
    for options in ({}, {"mode": "vs", "deck": "shared", "tie": "sudden-death"}):
        text = rules_text(GRID, GRID.rules_from_options(options))
        lines = text.splitlines()
        assert 25 <= len(lines) <= 60 and max(map(len, lines)) <= 78
        for example in ("place 3 b1 down", "use 4", ": end", "free 2", ": pass", "pick 25"):
            assert example in text
        assert "So ▼24 W3J86 is the opponent's card 24, a Water character with 3 up," in \
            " ".join(text.split())


def test_a_home_base_win_is_said_with_the_card_and_why() -> None:
    pos = Position()
    pos.grid(0, "b3", "water5")
    h = pos.hand(0, "fire9")
    pos.grid(1, "d4", "fire1", up=False)
    s = play(pos.state(), pos, f"place {h} b4 up")
    assert isinstance(GRID.decision(s), Finished)
    assert GRID.scene(s, 0, None).result == (
        f"You win: your Fire 9 (card {h}) reached the opponent's home base on b4 and "
        "survived its battles.")
    assert GRID.scene(s, None, None).result.startswith(  # type: ignore[union-attr]
        f"Player 1 wins: player 1's Fire 9 (card {h}) reached player 2's home base")


def test_sudden_death_is_told_and_its_result_says_why() -> None:
    pos = Position(tie="sudden-death")
    pos.grid(0, "a1", "water5", up=False)
    pos.grid(1, "d4", "fire1", up=False)
    top9 = pos.grid(1, "c4", "fire9")
    h = pos.hand(0, "earth8")
    pos.empty_decks()
    s = pos.state()
    inp = GRID.parse_input(f"place {h} b1 down")
    out = GRID.step(s, inp)
    assert "Both players are out of cards: player 1 controls 2 cards on the grid, player 2 2" \
        in GRID.narrate(s, inp, out, None, None)
    duel = next(a for a in GRID.legal_actions(out) if a.other == top9 and a.handle != top9)
    end = GRID.step(out, duel)
    told = GRID.narrate(out, duel, end, 1, None)
    assert told[0].startswith("Sudden death: ") and f"Fire 9 (card {top9}, top 9) is" not in \
        told[0] and f"Fire 9 (card {top9}, top 9) for you" in told[0]
    assert told[-1].startswith("You win: equal cards on the grid (2 each) went to sudden "
                               "death")
    assert GRID.scene(end, None, None).result.startswith(  # type: ignore[union-attr]
        "Player 2 wins: equal cards on the grid (2 each)")
