"""The template third-party game (examples/crazy_eights) as its users meet it: its own tests, and
the CLI on it (games, rules, play, verify, replay, replay --html, validate, a tournament).

It is an installed plugin like any other (README's test command installs it, and .ci/run runs
that command); without it the tests that run it are skipped.
"""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from referee.bots import sandbox
from botpython import BOT_PYTHON

needs_example = pytest.mark.skipif(importlib.util.find_spec("referee_crazy_eights") is None,
                                   reason="the example game is not installed (pip install -e examples/crazy_eights)")
ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "crazy_eights"
BOT = f"{BOT_PYTHON} bots/python/random_bot.py"  # plays by index: any game


def referee(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "referee", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300)


@needs_example
def test_the_examples_own_tests_pass():
    """As its authors run them: `pytest` in the example's folder (the conformance kit included)."""
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider"], cwd=EXAMPLE,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert " passed" in proc.stdout


@needs_example
def test_it_is_listed_with_its_rules():
    games = referee("games")
    assert games.returncode == 0 and "crazy_eights" in games.stdout and "Crazy Eights" in games.stdout
    rules = referee("rules", "crazy_eights")
    assert rules.returncode == 0
    for option in ("deals", "draw_limit", "max_turns"):
        assert option in rules.stdout


@pytest.fixture(scope="module")
def replay(tmp_path_factory) -> Path:
    """A match of the random strategy against the example Python bot, its replay."""
    path = tmp_path_factory.mktemp("crazy_eights") / "match.jsonl"
    proc = referee("play", "crazy_eights", "-p", "random", "-p", BOT, "--seed", "5", "--set", "deals=2",
                   "--out", str(path))
    assert proc.returncode == 0, proc.stderr
    assert "Crazy Eights: 2 players, seed 5" in proc.stdout and "Deals" in proc.stdout
    return path


@needs_example
def test_play_writes_a_replay_of_every_deal(replay):
    records = [json.loads(line) for line in replay.read_text().splitlines()]
    assert records[0]["game"] == "crazy_eights" and records[0]["config"]["deals"] == 2
    assert [r["deal"] for r in records if r["type"] == "deal_end"] == [1, 2]
    assert records[-1]["type"] == "result" and records[-1]["faults"] == [0, 0]


@needs_example
def test_verify_passes(replay):
    proc = referee("verify", str(replay))
    assert proc.returncode == 0, proc.stderr
    assert f"{replay}: OK (crazy_eights, 2 deals" in proc.stdout


@needs_example
def test_replay_tells_the_match_and_one_seats_view(replay):
    whole = referee("replay", str(replay))
    assert whole.returncode == 0, whole.stderr
    assert "Crazy Eights" in whole.stdout and "deal 2" in whole.stdout and "None" not in whole.stdout
    seat = referee("replay", str(replay), "--seat", "1")
    assert seat.returncode == 0, seat.stderr
    assert "as seen by [1]" in seat.stdout and "your hand" in seat.stdout


@needs_example
def test_replay_html_writes_the_viewer(replay, tmp_path):
    page = tmp_path / "match.html"
    proc = referee("replay", str(replay), "--html", str(page))
    assert proc.returncode == 0, proc.stderr
    assert page.exists() and "crazy_eights" in page.read_text()


@needs_example
@pytest.mark.parametrize("mode", ["none", pytest.param("bwrap", marks=pytest.mark.skipif(
    not sandbox.available(), reason=f"no bubblewrap sandbox here: {sandbox.unavailable_reason()}"))])
def test_validate_passes_the_example_bot(mode):
    proc = referee("validate", "crazy_eights", "--sandbox", mode, "--", BOT_PYTHON, "bots/python/random_bot.py")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "PASSED: no fault in any match" in proc.stdout


@needs_example
def test_a_two_entrant_tournament_plays_verifies_and_ranks(tmp_path):
    out = tmp_path / "out"
    (tmp_path / "tournament.toml").write_text(f"""\
name = "crazy eights duel"
seed = 7
out = {json.dumps(str(out))}
concurrency = 2
seeds = 2

[[entrants]]
name = "random"
strategy = "random"

[[entrants]]
name = "python-random-bot"
command = {json.dumps(f"{sys.executable} {ROOT / 'bots' / 'python' / 'random_bot.py'}")}

[[games]]
game = "crazy_eights"
players = 2
entrants = ["random", "python-random-bot"]
""")
    proc = referee("tournament", str(tmp_path / "tournament.toml"), "--verify")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "verified 2 replays: all OK" in proc.stdout
    standings = json.loads((out / "standings.json").read_text())
    assert "crazy_eights" in json.dumps(standings)
    assert {"random", "python-random-bot"} <= set(json.dumps(standings).replace('"', " ").split())


def test_the_ci_runs_the_readmes_test_command_which_installs_the_example():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    command = re.search(r"Set up and run the tests.*?\n\n    (.+?)\n", readme, re.S).group(1)
    assert "-e examples/crazy_eights" in command and command.endswith(".venv/bin/python -m pytest")
    assert command in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()


def test_writing_a_game_is_linked_from_the_readme_and_names_real_files():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "docs/writing-a-game.md" in readme and "examples/crazy_eights" in readme
    guide = (ROOT / "docs" / "writing-a-game.md").read_text(encoding="utf-8")
    for path in set(re.findall(r"`((?:examples|referee|plugins|bots|docs)/[\w/.-]+)`", guide)):
        assert (ROOT / path).exists(), path
    for command in ("referee play", "referee verify", "referee replay", "--html", "referee validate",
                    "referee tournament", "check_game"):
        assert command in guide, command
