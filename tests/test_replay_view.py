"""referee replay in the terminal: every deal, hand, move and key event of each game; one
seat's view shows nothing that seat was not sent; --deal; faults; errors are one line, exit 2."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from referee.config import resolve_config
from referee.describe import describer_of
from referee.errors import UsageError
from referee.plugins import load_registry
from referee.replay.terminal import build_story, omniscient, render
from referee.runner import Limits, Seat, run_match
from referee.testing import random_playout
from referee.replay.verify import load_replay, simulate

from misbehaving import Misbehaving

ROOT = Path(__file__).resolve().parent.parent
REGISTRY = load_registry()
GAMES = {"maumau": 3, "presidente": 4, "mayor": 4}
SEEDS = (1, 2, 3)


def is_card(value) -> bool:
    """Whether a string is a card code of one of the games (their describers say)."""
    return any(describer_of(REGISTRY.game(g)).is_card(value) for g in GAMES)


#: the words the story uses for each kind of event (checked whenever the game emitted one)
PHRASES = {
    "penalty": "penalty:", "skipped": "is skipped", "reshuffle": "reshuffled into a new draw pile",
    "suit": " names ", "tiebreak": "tie-break round",
    "revolution": "makes a revolution", "cleared": "table cleared", "finished": "goes out: place",
    "fell": "falls: the reigning President", "exchange": " gives ",
    "called": " calls ", "role": "the secret ally", "trick": "trick 1:", "casino": "'s CASINO",
    "crane": "'s CRANE", "casino_swap": "swaps by CASINO", "reserve": "takes the reserve:",
}
#: event kinds each game must show at least once over SEEDS (so the phrase checks mean something)
EXPECTED = {
    "maumau": {"penalty", "skipped", "drew", "round_end"},
    "presidente": {"exchange", "cleared", "finished", "round_end", "fell"},
    "mayor": {"called", "role", "reserve", "trick", "ally_revealed", "deal_end"},
}


class Collect:
    """A runner monitor keeping every string sent to each seat."""

    def __init__(self) -> None:
        self.strings: dict[int, set[str]] = {}

    def sent(self, seat, message, state):
        bucket = self.strings.setdefault(seat, set())

        def walk(v):
            if isinstance(v, str):
                bucket.add(v)
            elif isinstance(v, dict):
                for x in v.values():
                    walk(x)
            elif isinstance(v, list):
                for x in v:
                    walk(x)

        walk(message)

    def stepped(self, state):
        pass


def play(tmp_path: Path, game: str, seed: int, monitor=None, config=None) -> Path:
    path = tmp_path / f"{game}-{seed}.jsonl"
    random_playout(REGISTRY.game(game), config or {}, seed, GAMES[game], replay=path, monitor=monitor)
    return path


def text_of(path: Path, seat: int | None = None, deal: int | None = None) -> str:
    replay = load_replay(path)
    story = build_story(replay, REGISTRY.games.get(replay.game), seat)
    out = io.StringIO()
    render(Console(file=out, width=250, color_system=None), story, deal)
    return out.getvalue()


def referee(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "referee", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)


def card_tokens(text: str) -> set[str]:
    return {t for t in re.split(r"[^A-Za-z0-9]+", text) if is_card(t)}


@pytest.mark.parametrize("game", sorted(GAMES))
def test_whole_match_story_tells_every_deal_move_and_key_event(tmp_path, game):
    seen_kinds: set[str] = set()
    for seed in SEEDS:
        path = play(tmp_path, game, seed)
        replay = load_replay(path)
        text = text_of(path)
        lines = text.splitlines()
        names = replay.names()
        kinds = set()
        for step in simulate(replay, REGISTRY.game(game)):
            kinds.update(e.kind for e in omniscient(step.events))
        seen_kinds |= kinds
        for kind, phrase in PHRASES.items():
            if kind in kinds:
                assert phrase in text, (kind, seed)
        if "ally_revealed" in kinds:
            assert "ally revealed: " in text or " plays alone" in text
        # every deal, with every seat's hand as dealt
        deals = [r for r in replay.records if r["type"] == "deal"]
        for d in deals:
            start = lines.index(next(line for line in lines if re.match(rf"deal {d['deal']} ─", line)))
            block = lines[start:start + 20]
            for seat, hand in enumerate(d["hands"]):
                row = next(line for line in block if line.startswith(f"[{seat}] {names[seat]} "))
                assert sorted(row.split()[2:]) == sorted(hand) or (not hand and "sits out" in row)
        # every move, in order, with who made it and the cards it played
        moves = [r for r in replay.records if r["type"] == "move"]
        move_lines = [line for line in lines if re.match(r"^\s*\d+ \[\d+\] ", line)]
        assert len(move_lines) == len(moves)
        for rec, line in zip(moves, move_lines):
            assert f"[{rec['seat']}] {names[rec['seat']]}" in line
            played = rec["action"].get("play")
            for card in ([played] if isinstance(played, str) else played or []):
                assert f"plays {card}" in line or card in line.split("plays ", 1)[1]
            if "say" in rec["action"]:
                assert f'says "{rec["action"]["say"]}"' in line
        # the scores after each deal, and the result
        for end in (r for r in replay.records if r["type"] == "deal_end"):
            assert f"after deal {end['deal']}" in text
        assert "result" in text and f"seed {replay.header['seed']}" in text
    assert EXPECTED[game] <= seen_kinds, EXPECTED[game] - seen_kinds


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_seats_view_shows_only_what_that_seat_was_sent(tmp_path, game):
    for seed in SEEDS[:2]:
        monitor = Collect()
        path = play(tmp_path, game, seed, monitor)
        replay = load_replay(path)
        for seat in (0, GAMES[game] - 1):
            text = text_of(path, seat)
            leaked = card_tokens(text) - monitor.strings[seat]
            assert not leaked, (seat, leaked)
            assert "hands as dealt" not in text and "seed" not in text and "stock:" not in text
            assert f"as seen by [{seat}]" in text
            first = next(r for r in replay.records if r["type"] == "deal")
            assert "your hand: " + " ".join(c for c in sorted(first["hands"][seat], key=text.find)) in text
            own = [r for r in replay.records if r["type"] == "move" and r["seat"] == seat]
            own_lines = [line for line in text.splitlines() if re.match(rf"^\s*\d+ \[{seat}\] ", line)]
            assert len(own_lines) == len(own)
            assert all("hand: " in line for line in own_lines)
            other = [line for line in text.splitlines() if re.match(r"^\s*\d+ \[\d+\] ", line)
                     and not re.match(rf"^\s*\d+ \[{seat}\] ", line)]
            assert not other  # other seats' decisions appear only as the events the seat got


def test_seat_view_of_mayor_hides_the_ally_until_the_reveal(tmp_path):
    for seed in range(1, 30):
        path = play(tmp_path, "mayor", seed)
        replay = load_replay(path)
        end = next(r for r in replay.records if r["type"] == "deal_end")
        if end["ally"] is not None:
            break
    opponent = next(s for s in range(4) if s not in (end["candidate"], end["ally"]))
    deal1 = text_of(path, opponent, deal=1)
    before = deal1.split("ally revealed")[0] if "ally revealed" in deal1 else deal1.split("deal 1 ends")[0]
    assert "secret ally" not in before and "pile)" not in before
    assert "secret ally" in text_of(path, end["ally"], deal=1)


def test_deal_option_shows_one_deal(tmp_path):
    path = play(tmp_path, "presidente", 1)
    text = text_of(path, deal=2)
    assert re.search(r"^deal 2 ─", text, re.M) and not re.search(r"^deal [13] ─", text, re.M)
    assert "after deal 2" in text and "after deal 1" not in text
    last = text_of(path, deal=5)
    assert "result" in last
    with pytest.raises(UsageError, match="no deal 9"):
        text_of(path, deal=9)


def test_faults_are_highlighted(tmp_path):
    g = REGISTRY.game("maumau")
    config = resolve_config(g, {}, 3)
    path = tmp_path / "faulty.jsonl"
    run_match(g, config, 5, [Seat(f"p{i}", "strategy", "x") for i in range(3)],
              [Misbehaving("maumau", i, config, bad=3 if i == 1 else 0) for i in range(3)], Limits(), replay=path)
    text = text_of(path)
    assert "FAULT illegal: the action is not among the legal actions" in text
    assert '(sent \'{"cheat": true}\')' in text
    assert "[1] p1 is disqualified" in text and "(fallback: seat disqualified)" in text
    assert "1 disqualified" in text
    console = Console(file=io.StringIO(), width=250, force_terminal=True, color_system="truecolor")
    replay = load_replay(path)
    render(console, build_story(replay, g))
    assert "\x1b[" in console.file.getvalue()  # colours in a terminal
    seat1 = text_of(path, 1)
    assert "FAULT illegal" in seat1


def test_a_tampered_replay_is_told_from_its_records_with_a_warning(tmp_path):
    path = play(tmp_path, "maumau", 2)
    recs = [json.loads(line) for line in path.read_text().splitlines()]
    k = next(i for i, r in enumerate(recs) if r["type"] == "move" and i > 20)
    recs[k]["seat"] = (recs[k]["seat"] + 1) % 3
    bad = tmp_path / "bad.jsonl"
    bad.write_text("".join(json.dumps(r) + "\n" for r in recs))
    text = text_of(bad)
    assert "warning: the re-simulation stopped" in text and "the rest is told from the records alone" in text
    moves = [line for line in text.splitlines() if re.match(r"^\s*\d+ \[\d+\] ", line)]
    assert len(moves) == sum(r["type"] == "move" for r in recs)
    with pytest.raises(UsageError, match="cannot show seat 0's view"):
        text_of(bad, 0)


def test_replay_command_renders_gzip_and_errors_are_one_line(tmp_path):
    path = tmp_path / "m.jsonl.gz"
    random_playout(REGISTRY.game("maumau"), {}, 3, 2, replay=path)
    proc = referee("replay", str(path), "--deal", "1")
    assert proc.returncode == 0, proc.stderr
    assert "deal 1" in proc.stdout and "after deal 1" in proc.stdout
    proc = referee("replay", str(path), "--seat", "1", "--deal", "1")
    assert proc.returncode == 0 and "as seen by [1]" in proc.stdout
    (tmp_path / "x.txt").write_text("not json\n")
    for args, message in [
        ((str(tmp_path / "nope.jsonl"),), "no such file"),
        ((str(tmp_path / "x.txt"),), "not a replay"),
        ((str(tmp_path),), "is a directory"),
        ((str(path), "--seat", "2"), "--seat 2: this maumau match has seats 0 to 1"),
        ((str(path), "--seat", "-1"), "--seat -1"),
        ((str(path), "--deal", "99"), "no deal 99"),
        ((), "missing replay file"),
    ]:
        proc = referee("replay", *args)
        assert proc.returncode == 2, (args, proc.stdout, proc.stderr)
        assert proc.stderr.count("\n") == 1 and message in proc.stderr, (args, proc.stderr)


def test_config_is_written_as_toml_values(tmp_path):
    # issue 18: the terminal replay printed Python reprs (`sevens=True, deck=standard`); it writes
    # the options as a tournament file does: `sevens = true`, strings quoted
    path = play(tmp_path, "maumau", 1, config={"sevens": False, "deck": "skat32"})
    line = next(line for line in text_of(path).splitlines() if line.startswith("config: "))
    assert "sevens = false" in line and 'deck = "skat32"' in line and "hand_size = 5" in line
    assert "True" not in line and "False" not in line and "=False" not in line
    from referee.replay.terminal import config_text

    assert config_text({}) == "defaults"
    assert config_text({"a b": "x\"y", "n": [1, True]}) == '"a b" = "x\\"y", n = [1, true]'


@pytest.mark.parametrize("seat", [None, 0])
def test_the_runners_chance_records_are_not_told_the_games_own_records_are(tmp_path, seat):
    """The runner records each chance outcome (a deal's shuffle, a reshuffle) for verify; the
    story tells the deal and the reshuffle in the game's words once, not again as raw records."""
    for seed in range(1, 40):  # a match with a reshuffle
        path = play(tmp_path, "maumau", seed)
        records = [json.loads(line) for line in path.read_text().splitlines()]
        if any(r["type"] == "chance" and r.get("kind") == "reshuffle" for r in records):
            break
    else:
        pytest.fail("no Mau Mau match with a reshuffle in 40 seeds")
    assert any(r["type"] == "chance" and "outcome" in r for r in records)
    text = text_of(path, seat)
    assert "chance:" not in text
    assert "reshuffled" in text and "deal 1" in text
