"""`referee validate GAME -- CMD ...`: the example bot passes, every hostile bot fails with its
fault named, the JSON report holds the same, usage errors exit 2."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from referee.cli import app
from referee.plugins import load_registry
from referee.runner import Limits
from referee.validate import battery, references, run_validation, table_sizes

ROOT = Path(__file__).resolve().parent.parent
BOTS = Path(__file__).resolve().parent / "bots"
RANDOM_BOT = str(ROOT / "bots" / "python" / "random_bot.py")
REGISTRY = load_registry()
needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap (bwrap) is not installed")


def referee(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "referee", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)


def test_the_example_bot_passes_and_the_report_is_printed(tmp_path):
    out = tmp_path / "report.json"
    proc = referee("validate", "maumau", "--json", str(out), "--", sys.executable, RANDOM_BOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    text = proc.stdout
    for heading in ("Protocol conformance", "handshake", "ids", "framing", "Faults: none", "Move time: p50",
                    "p95", "Results against the references", "maumau-greedy", "PASSED"):
        assert heading in text
    report = json.loads(out.read_text())
    game = REGISTRY.games["maumau"]
    planned = len(battery(game, REGISTRY, 1))
    assert report["passed"] is True
    assert report["matches"] == {"planned": planned, "played": planned, "with_faults": 0, "stopped_early": False}
    assert report["faults"] == {"total": 0, "by_kind": {}}
    assert report["protocol"]["handshake"] == {"ok": True, "ready": planned, "failed": 0, "names": ["random_bot"]}
    assert report["protocol"]["ids"]["ok"] and report["protocol"]["framing"]["ok"]
    times = report["move_time_ms"]
    assert times["limit"] == 1000 and 0 < times["p50"] <= times["p95"] <= times["max"]
    assert times["count"] == report["protocol"]["framing"]["lines"] - planned  # a reply per decision, plus ready
    results = report["results"]
    assert set(results["by_reference"]) == {"random", "first", "maumau-greedy"}
    assert results["overall"]["matches"] == planned
    assert set(results["by_players"]) == {"2", "4"}


def test_the_battery_covers_every_variant_table_size_seat_and_reference():
    game = REGISTRY.games["maumau"]
    cases = battery(game, REGISTRY, seeds=2, base_seed=5)
    assert table_sizes(game) == [2, 4]
    assert references(game, REGISTRY) == ["random", "first", "maumau-greedy"]
    assert {json.dumps(c.variant, sort_keys=True) for c in cases} == {json.dumps(v, sort_keys=True)
                                                                     for v in game.variants()}
    assert {(c.players, c.seat) for c in cases} == {(2, 0), (2, 1), (4, 0), (4, 1), (4, 2), (4, 3)}
    assert {c.seed for c in cases} == {5, 6}
    counts = {r: sum(1 for c in cases if c.reference == r) for r in references(game, REGISTRY)}
    assert max(counts.values()) - min(counts.values()) <= 1  # the references take turns
    for name in ("presidente", "mayor"):
        g = REGISTRY.games[name]
        cases = battery(g, REGISTRY, seeds=1)
        assert {c.seat for c in cases} == {0, 1, 2, 3} and len(cases) == 4 * len(g.variants())
        assert f"{name}-greedy" in {c.reference for c in cases}


@pytest.mark.parametrize("game", ["presidente", "mayor"])
def test_other_games_validate_too(game):
    report = run_validation(REGISTRY.games[game], REGISTRY, [sys.executable, RANDOM_BOT], Limits(move_ms=2000))
    assert report["passed"], report["faults"]
    assert report["matches"]["played"] == report["matches"]["planned"] == 4 * len(REGISTRY.games[game].variants())


HOSTILE = [
    # bot, extra args, the fault kinds validate may name (the first listed is the usual one)
    ("spinner", [], ["timeout"]),
    ("hibernator", [], ["timeout"]),
    ("mute", [], ["timeout"]),
    ("bigline", [], ["invalid"]),
    ("garbage", [], ["invalid"]),
    ("deepjson", [], ["invalid"]),
    ("stale", [], ["timeout"]),
    ("illegal", [], ["illegal"]),
    ("closer", [], ["crash"]),
    ("quitter", [], ["crash"]),
    ("hog", ["--memory-mb", "200", "--move-ms", "20000"], ["crash"]),  # the limit, never the clock, ends it
    ("stderrflood", [], ["stderr-flood"]),
    ("escaper", [], ["stray-process"]),
    ("forker", [], ["stray-process"]),
    ("lingerer", [], ["stray-process"]),
]


@pytest.mark.parametrize("name, options, kinds", HOSTILE)
def test_each_hostile_bot_fails_with_its_fault_named(tmp_path, name, options, kinds):
    out = tmp_path / "report.json"
    # plain mode (the sandbox, validate's default, is covered in test_hostile.py for each bot)
    result = CliRunner().invoke(app, ["validate", "maumau", "--move-ms", "300", "--start-ms", "800",
                                      "--max-failed", "1", "--json", str(out), "--sandbox", "none", *options,
                                      "--", sys.executable, str(BOTS / f"{name}.py")])
    assert result.exit_code == 1, result.output
    report = json.loads(out.read_text())
    assert report["passed"] is False
    assert report["matches"]["stopped_early"] is True and report["matches"]["played"] == 1
    named = list(report["faults"]["by_kind"])
    assert named and set(named) <= set(kinds), named
    assert f"FAILED: {named[0]}" in result.output
    example = report["faults"]["by_kind"][named[0]]["examples"][0]
    assert example["match"].startswith("default players=2 seat=0") and example["detail"]
    if name == "mute":
        assert report["protocol"]["handshake"]["ok"] is False
    if name in ("garbage", "bigline", "deepjson"):
        assert report["protocol"]["framing"]["ok"] is False
    if name == "stale":
        assert report["protocol"]["ids"]["ok"] is False and report["protocol"]["ids"]["stale_replies"] > 0


@needs_bwrap
def test_the_escaping_bot_fails_under_the_sandbox(tmp_path):
    outside = tmp_path / "outside.txt"
    result = CliRunner().invoke(app, ["validate", "maumau", "--sandbox", "bwrap", "--max-failed", "1", "--json", "-",
                                      "--", sys.executable, str(BOTS / "escape.py"), "9", str(outside),
                                      str(tmp_path / "nothing-here")])
    assert result.exit_code == 1, result.output
    report = json.loads(result.stdout[result.stdout.index("{"):])
    assert report["sandbox"] == {"asked": "bwrap", "used": True}
    assert list(report["faults"]["by_kind"]) == ["crash"]
    assert "outside: blocked" in report["faults"]["by_kind"]["crash"]["examples"][0]["stderr_tail"]
    assert not outside.exists()


def test_json_to_stdout_is_only_json():
    result = CliRunner().invoke(app, ["validate", "presidente", "--json", "-", "--max-failed", "1",
                                      "--", sys.executable, str(BOTS / "garbage.py")])
    assert result.exit_code == 1
    report = json.loads(result.stdout[result.stdout.index("{"):])
    assert report["faults"]["by_kind"]["invalid"]["count"] == 1
    assert "Protocol conformance" not in result.stdout


@pytest.mark.parametrize("args, message", [
    (["validate", "nogame", "--", sys.executable, RANDOM_BOT], "unknown game"),
    (["validate", "maumau"], "Missing argument"),
    (["validate", "maumau", "--", "/no/such/bot"], "does not exist"),
    (["validate", "maumau", "--sandbox", "docker", "--", sys.executable, RANDOM_BOT], "--sandbox must be one of"),
    (["validate", "maumau", "--seeds", "0", "--", sys.executable, RANDOM_BOT], "seeds"),
])
def test_usage_errors_exit_2(args, message):
    proc = referee(*args)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert message in proc.stderr
