"""Costs explained (issue 29): a game charges a seat for its conduct with `referee.game.penalty`
(an event `penalty` with a `ruling`: Mau Mau's missing announcement, MM-7); the runner counts
them per seat and reason, `play` shows them, `validate` warns of one paid in several matches and
its verdict says so. A 7's draw (an event `penalty` without a ruling) is no conduct penalty."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

from referee.config import resolve_config
from referee.players import Strategy, StrategyPlayer
from referee.plugins import load_registry
from referee.runner import Limits, Seat, run_match
from referee.validate import battery, run_validation
from referee_strategies.basic import RandomLegal

REFEREE = [sys.executable, "-m", "referee"]
NOSAY = """import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "hello":
        print(json.dumps({"type": "ready", "name": "nosay"}), flush=True)
    elif m["type"] == "act":
        a = dict(m["legal"][0]); a.pop("say", None)  # a sloppy author: announcements left out
        print(json.dumps({"type": "action", "id": m["id"], "action": a}), flush=True)
"""
REGISTRY = load_registry()
GAME = REGISTRY.game("maumau")


class NoSay(Strategy):
    """The first legal action, its announcement left out."""

    def choose(self, obs, legal):
        action = dict(legal[0])
        action.pop("say", None)
        return action


def _match(strategies, seed: int):
    config = resolve_config(GAME, {}, 2)
    seats = [Seat(f"s{i}", "strategy", "x") for i in range(2)]
    players = [StrategyPlayer(s(GAME.name, i, config, random.Random(i))) for i, s in enumerate(strategies)]
    return run_match(GAME, config, seed, seats, players, Limits())


def test_the_runner_counts_conduct_penalties_only():
    fair = [_match([RandomLegal, RandomLegal], seed) for seed in range(6)]
    assert all(r.penalties == [] for r in fair)  # 7s were drawn for, announcements made: nothing
    sloppy = [_match([NoSay, RandomLegal], seed) for seed in range(6)]
    seen = [p for r in sloppy for p in r.penalties]
    assert seen and all((p["seat"], p["why"], p["ruling"]) == (0, "announcement", "MM-7") for p in seen)
    assert all(p["times"] >= 1 for p in seen)


def test_play_shows_the_penalties(tmp_path: Path):
    bot = tmp_path / "nosay.py"
    bot.write_text(NOSAY)
    cmd = [*REFEREE, "play", "maumau", "-p", f"{sys.executable} {bot}", "-p", "random", "--seed", "3",
           "--out", str(tmp_path / "m.jsonl")]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "penalised seat 0" in proc.stdout and "announcement (MM-7) x" in proc.stdout
    data = json.loads(subprocess.run([*cmd, "--json", "-"], capture_output=True, text=True, timeout=120).stdout)
    assert data["penalties"] and data["penalties"][0]["ruling"] == "MM-7"


def test_validate_warns_of_a_penalty_paid_again_and_again(tmp_path: Path):
    bot = tmp_path / "nosay.py"
    bot.write_text(NOSAY)
    cases = [c for c in battery(GAME, REGISTRY, 1) if c.players == 2][:12]
    report = run_validation(GAME, REGISTRY, [sys.executable, str(bot)], Limits(), cases=cases)
    assert report["passed"]  # no fault: a penalty is no fault
    (row,) = report["penalties"]
    assert (row["why"], row["ruling"]) == ("announcement", "MM-7") and row["matches"] >= 3
    assert '"say"' in row["advice"]
    assert report["warnings"] and "MM-7" in report["warnings"][0]


def test_a_tournament_counts_each_entrants_penalties(tmp_path: Path):
    bot = tmp_path / "nosay.py"
    bot.write_text(NOSAY)
    (tmp_path / "t.toml").write_text(f'concurrency = 1\nseeds = 3\n[output]\nviewers = false\n'
                                     f'[[entrants]]\nname = "nosay"\ncommand = "{sys.executable} {bot}"\n'
                                     '[[entrants]]\nstrategy = "random"\n[[games]]\ngame = "maumau"\nplayers = 2\n')
    proc = subprocess.run([*REFEREE, "tournament", str(tmp_path / "t.toml"), "--out", str(tmp_path / "out")],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    records = [json.loads(line) for line in (tmp_path / "out" / "journal.jsonl").read_text().splitlines()[1:]]
    penalised = [r for r in records if r.get("penalties")]
    assert penalised and all(p["ruling"] == "MM-7" for r in penalised for p in r["penalties"])
    data = json.loads((tmp_path / "out" / "standings.json").read_text())
    (row,) = data["penalties"]
    assert (row["entrant"], row["why"], row["ruling"], row["matches"]) == ("nosay", "announcement", "MM-7",
                                                                          len(penalised))
    assert row["times"] == sum(p["times"] for r in penalised for p in r["penalties"])
    assert "Penalties" in (tmp_path / "out" / "standings.md").read_text()
    assert "penalised: nosay: announcement (MM-7)" in proc.stdout
