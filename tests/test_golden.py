"""Replays written before today's changes still verify and still render (tests/golden/README.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from referee.plugins import load_registry
from referee.replay.records import read_replay

GOLDEN = sorted((Path(__file__).resolve().parent / "golden").glob("*.jsonl"))
REGISTRY = load_registry()


def test_there_is_a_golden_replay_of_every_game_and_of_a_random_fallback():
    games = {json.loads(p.read_text().splitlines()[0])["game"] for p in GOLDEN}
    assert games == {"maumau", "presidente", "mayor"}
    assert sum("faults-random-fallback" in p.name for p in GOLDEN) == 3


@pytest.mark.parametrize("path", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_a_replay_of_before_still_verifies(path):
    from referee.replay.verify import verify_file

    verdict = verify_file(path, REGISTRY)
    assert verdict.ok, verdict.discrepancy
    assert verdict.moves == sum(1 for r in read_replay(path) if r["type"] == "move")


@pytest.mark.parametrize("path", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_a_replay_of_before_still_renders(path, tmp_path):
    from typer.testing import CliRunner

    from referee.cli import app

    runner = CliRunner()
    shown = runner.invoke(app, ["replay", str(path)])
    assert shown.exit_code == 0, shown.output
    html = runner.invoke(app, ["replay", str(path), "--html", str(tmp_path / "m.html")])
    assert html.exit_code == 0, html.output
    assert (tmp_path / "m.html").stat().st_size > 1000
