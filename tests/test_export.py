"""`referee export` (issue 29): a tournament's counted matches as CSV (a row per match and seat)
and PGN (each match as its pairwise games, the seat ahead winning), which rating tools read."""

from __future__ import annotations

import csv
import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

REFEREE = [sys.executable, "-m", "referee"]
TOURNAMENT = """name = "export-test"
seed = 3
concurrency = 1
[output]
viewers = false
[[entrants]]
strategy = "first"
[[entrants]]
strategy = "random"
[[entrants]]
strategy = "presidente-greedy"
[[games]]
game = "presidente"
players = 4
seeds = 1
[[entrants]]
name = "random-2"
strategy = "random"
"""


@pytest.fixture(scope="module")
def journal(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("export")
    (folder / "t.toml").write_text(TOURNAMENT)
    proc = subprocess.run([*REFEREE, "tournament", str(folder / "t.toml"), "--out", str(folder / "out")],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return folder / "out" / "journal.jsonl"


def _matches(journal: Path) -> list[dict]:
    return [r for r in map(json.loads, journal.read_text().splitlines()) if r["type"] == "match"]


def test_csv_is_a_row_per_match_and_seat(journal: Path):
    proc = subprocess.run([*REFEREE, "export", str(journal)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    rows = list(csv.DictReader(io.StringIO(proc.stdout)))
    matches = _matches(journal)
    assert len(rows) == sum(len(m["seats"]) for m in matches) > 0
    by_match = {m["index"]: m for m in matches}
    for row in rows:
        m = by_match[int(row["index"])]
        seat = int(row["seat"])
        assert row["entrant"] == m["seats"][seat] and int(row["rank"]) == m["ranks"][seat]


def test_pgn_is_each_match_as_its_pairwise_games(journal: Path, tmp_path: Path):
    out = tmp_path / "t.pgn"
    proc = subprocess.run([*REFEREE, "export", str(journal.parent), "--format", "pgn", "--out", str(out)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    text = out.read_text()
    games = text.strip().split("\n\n[Event")
    matches = _matches(journal)
    assert len(games) == sum(len(m["seats"]) * (len(m["seats"]) - 1) // 2 for m in matches)
    first = matches[0]
    tags = dict(re.findall(r'\[(\w+) "([^"]*)"\]', games[0]))
    white, black = first["seats"][0], first["seats"][1]
    expected = "1-0" if first["ranks"][0] < first["ranks"][1] else "0-1" if first["ranks"][0] > first["ranks"][1] \
        else "1/2-1/2"
    assert (tags["White"], tags["Black"], tags["Result"], tags["Event"]) == (white, black, expected, "export-test")
    assert games[0].rstrip().endswith(expected)


def test_a_bad_format_or_journal_is_one_line(tmp_path: Path):
    for args in (["export", str(tmp_path), "--format", "xml"], ["export", str(tmp_path / "none.jsonl")]):
        proc = subprocess.run([*REFEREE, *args], capture_output=True, text=True, timeout=60)
        assert proc.returncode == 2 and proc.stderr.startswith("error:") and "Traceback" not in proc.stderr


def test_standings_as_json(journal: Path, tmp_path: Path):
    """`referee standings --json -` (issue 29): standings.json's content, alone on stdout."""
    proc = subprocess.run([*REFEREE, "standings", str(journal), "--out", str(tmp_path), "--json", "-"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data == json.loads((tmp_path / "standings.json").read_text())
    assert {r["entrant"] for r in data["games"]["presidente"]} == {"first", "random", "presidente-greedy", "random-2"}
