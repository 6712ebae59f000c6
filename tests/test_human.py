"""`--player human`: a person plays a seat at the terminal (issue 18)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_a_person_plays_a_whole_match_by_numbers(tmp_path):
    out = tmp_path / "h.jsonl"
    typed = "x\n0\n" + "1\n" * 5000  # two wrong answers first, then always the first action
    proc = subprocess.run([sys.executable, "-m", "referee", "play", "maumau", "-p", "human", "-p", "random",
                           "--seed", "1", "--out", str(out)], input=typed, cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "You play seat 0 of 2 at maumau" in proc.stdout
    assert proc.stdout.count("type a number from 1 to") == 2
    assert "[1] " in proc.stdout and "The match is over: you ranked" in proc.stdout
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert records[0]["players"][0] == {"seat": 0, "name": "human", "kind": "human", "spec": "human"}
    result = records[-1]
    assert result["type"] == "result" and result["faults"] == [0, 0]
    # every decision of the seat was the first legal action, as typed
    from referee.replay.verify import verify_file
    from referee.plugins import load_registry

    assert verify_file(out, load_registry()).ok


def test_a_person_who_leaves_is_a_crash_fault_not_a_hang(tmp_path):
    out = tmp_path / "h.jsonl"
    proc = subprocess.run([sys.executable, "-m", "referee", "play", "maumau", "-p", "human", "-p", "random",
                           "--seed", "1", "--out", str(out)], input="1\n", cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(out.read_text().splitlines()[-1])
    assert result["disqualified"] == [0] and result["fault_log"][0]["detail"] == "the human player's input ended"


def test_a_forced_move_is_played_for_the_person_and_the_table_reads_as_the_viewer(tmp_path):
    """Issue 29: one legal action is played with a line saying so; the hand shows as cards, the
    other seat by the name its bot gave in `ready`."""
    out = tmp_path / "h.jsonl"
    bot = f"{sys.executable} {ROOT / 'bots' / 'python' / 'random_bot.py'}"
    proc = subprocess.run([sys.executable, "-m", "referee", "play", "maumau", "-p", "human", "-p", bot,
                           "--seed", "1", "--out", str(out)], input="1\n" * 5000, cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "your only move, played for you:" in proc.stdout
    assert "Your turn (seat 0):" in proc.stdout
    ready_name = json.loads(out.read_text().splitlines()[0])["players"][1]["name"]
    assert ready_name != bot and f"{ready_name}: " in proc.stdout  # its moves under its ready name
    assert '"hand"' not in proc.stdout and "[\"" not in proc.stdout  # cards as cards, not JSON lists
