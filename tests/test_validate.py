"""`referee validate GAME -- CMD ...`: the example bot passes, every hostile bot fails with its
fault named, the JSON report holds the same, usage errors exit 2."""

from __future__ import annotations

import json
import os
import re
import shlex
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
from botpython import BOT_PYTHON

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
    proc = referee("validate", "maumau", "--json", str(out), "--", BOT_PYTHON, RANDOM_BOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    text = proc.stdout
    for heading in ("Protocol conformance", "handshake", "ids", "framing", "Faults: none", "Move time: p50",
                    "p95", "Results against the references", "maumau-greedy", "PASSED"):
        assert heading in text
    report = json.loads(out.read_text())
    game = REGISTRY.games["maumau"]
    planned = len(battery(game, REGISTRY, 1))
    assert report["passed"] is True
    assert report["failures"] == [] and report["kept"] == {"dir": None, "error": None}
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
    assert set(results["by_players"]) == {"2", "6", "10"}  # the smallest table, the largest and one midway


def test_the_battery_covers_every_variant_table_size_seat_and_reference():
    game = REGISTRY.games["maumau"]
    cases = battery(game, REGISTRY, seeds=2, base_seed=5)
    assert table_sizes(game) == [2, 6, 10]
    assert references(game, REGISTRY) == ["random", "first", "maumau-greedy"]
    assert {json.dumps(c.variant, sort_keys=True) for c in cases} == {json.dumps(v, sort_keys=True)
                                                                     for v in game.variants()}
    assert {(c.players, c.seat) for c in cases} == {(n, seat) for n in (2, 6, 10) for seat in range(n)}
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
    report = run_validation(REGISTRY.games[game], REGISTRY, [BOT_PYTHON, RANDOM_BOT], Limits(move_ms=2000))
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
    # plain mode (the sandbox, validate's default, is covered in test_hostile.py for each bot);
    # the short limits only for the bots that use them up (on a loaded machine another bot's
    # crash or bad line must not come too late and be named a timeout: the last --move-ms counts)
    if "timeout" not in kinds:
        options = ["--move-ms", "10000", "--start-ms", "10000", *options]
    result = CliRunner().invoke(app, ["validate", "maumau", "--move-ms", "300", "--start-ms", "800",
                                      "--max-failed", "1", "--json", str(out), "--sandbox", "none", *options,
                                      "--out", str(tmp_path / "kept"), "--", BOT_PYTHON, str(BOTS / f"{name}.py")])
    assert result.exit_code == 1, result.output
    report = json.loads(out.read_text())
    assert report["passed"] is False
    assert report["matches"]["stopped_early"] is True and report["matches"]["played"] == 1
    named = list(report["faults"]["by_kind"])
    assert named and set(named) <= set(kinds), named
    assert f"FAILED: {named[0]}" in result.output
    example = report["faults"]["by_kind"][named[0]]["examples"][0]
    assert example["match"].startswith("default players=2 seat=0") and example["detail"]
    (failure,) = report["failures"]  # the failing match is kept, with the command that plays it again
    assert example["replay"] == failure["replay"] == str(tmp_path / "kept" / "001-2p-seat0-random-seed1.jsonl")
    assert Path(failure["replay"]).is_file() and failure["reproduce"] in result.output
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
                                      "--out", str(tmp_path / "kept"), "--", BOT_PYTHON, str(BOTS / "escape.py"),
                                      "9", str(outside), str(tmp_path / "nothing-here")])
    assert result.exit_code == 1, result.output
    report = json.loads(result.stdout[result.stdout.index("{"):])
    assert report["sandbox"] == {"asked": "bwrap", "used": True}
    assert list(report["faults"]["by_kind"]) == ["crash"]
    assert "outside: blocked" in report["faults"]["by_kind"]["crash"]["examples"][0]["stderr_tail"]
    assert not outside.exists()


def test_json_to_stdout_is_only_json(tmp_path):
    result = CliRunner().invoke(app, ["validate", "presidente", "--json", "-", "--max-failed", "1",
                                      "--out", str(tmp_path / "kept"), "--", BOT_PYTHON, str(BOTS / "garbage.py")])
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


LATE_CRASHER = [BOT_PYTHON, str(BOTS / "late_crasher.py")]  # crashes in seat 1 at its 6th act


def _moves(path: Path) -> list[tuple]:
    return [(r["deal"], r["seat"], r["action"], r.get("fault", {}).get("kind"))
            for r in map(json.loads, path.read_text().splitlines()) if r["type"] == "move"]


def test_a_failing_match_is_kept_and_its_printed_command_plays_it_again(tmp_path, monkeypatch):
    # issue 18: a failing battery match keeps its replay and the bot's log, and validate prints the
    # `referee play` command that plays it again; validate made its own deal key, so the command
    # carries it (and the bot never saw it)
    monkeypatch.delenv("REFEREE_DEAL_KEY", raising=False)
    kept, report_file = tmp_path / "kept", tmp_path / "report.json"
    proc = referee("validate", "maumau", "--sandbox", "none", "--max-failed", "1", "--out", str(kept),
                   "--json", str(report_file), "--", *LATE_CRASHER)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    report = json.loads(report_file.read_text())
    (failure,) = report["failures"]
    assert failure["match"] == "default players=2 seat=1 vs=first seed=1" and failure["number"] == 2
    assert [f["kind"] for f in failure["faults"]] == ["crash"] and failure["faults"][0]["act"]
    assert report["kept"]["dir"] == str(kept) and report["deal_key"]["pinned"] is False
    # the passing first match kept nothing; the failing one its replay and the bot's log
    assert sorted(p.name for p in kept.iterdir()) == ["002-2p-seat1-first-seed1.jsonl",
                                                       "002-2p-seat1-first-seed1.seat1.log"]
    assert failure["replay"] == str(kept / "002-2p-seat1-first-seed1.jsonl")
    assert failure["log"] == str(kept / "002-2p-seat1-first-seed1.seat1.log")
    log = Path(failure["log"]).read_text()
    assert "planted bug" in log and "deal key in my environment: no" in log
    kept_records = [json.loads(line) for line in Path(failure["replay"]).read_text().splitlines()]
    assert kept_records[-1]["fault_log"][0]["log"] == Path(failure["log"]).name  # the replay names its log
    # the stderr tail below the table: a line each, indented, escaped (markup and control characters)
    out = proc.stdout
    assert "    | RuntimeError: planted bug: seat 1, 6th act" in out
    # the fault, and what to do about it (in deal 1 or later: the deal key is a fresh one each run,
    # and a short first deal may end before seat 1's 6th act)
    assert re.search(r"^  crash \(deal \d+, act \d+", out, re.M) and "    fix: " in out
    assert re.search(r"^    \| act \d+: \[/\]thinking \\x1b\[31m\d+ options$", out, re.M) and "\x1b" not in out
    assert f"replay: {failure['replay']}" in out and f"stderr log: {failure['log']}" in out
    # the printed command, as a user copies it, plays the same match move for move
    (line,) = [ln.strip() for ln in out.splitlines() if ln.strip().startswith("REFEREE_DEAL_KEY=")]
    assert line == failure["reproduce"]
    words = shlex.split(line)
    name, _, secret = words[0].partition("=")
    assert name == "REFEREE_DEAL_KEY" and len(secret) >= 32 and words[1:4] == ["referee", "play", "maumau"]
    assert words[words.index("--sandbox") + 1] == "none" and words[words.index("--seed") + 1] == "1"
    again = tmp_path / "again.jsonl"
    env = {**os.environ, "REFEREE_DEAL_KEY": secret}
    replayed = subprocess.run([sys.executable, "-m", "referee", *words[2:], "--out", str(again)], cwd=failure["cwd"],
                              env=env, capture_output=True, text=True, timeout=300)
    assert replayed.returncode == 0, replayed.stderr
    again_records = [json.loads(line) for line in again.read_text().splitlines()]
    assert _moves(again) == _moves(Path(failure["replay"])) and len(_moves(again)) > 6
    for name in ("game", "config", "seed", "match", "players", "limits"):
        assert again_records[0][name] == kept_records[0][name], name
    for name in ("scores", "ranks", "faults", "disqualified"):
        assert again_records[-1][name] == kept_records[-1][name], name


def test_the_default_directory_is_fresh_under_matches_and_a_pinned_key_is_never_printed(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["validate", "maumau", "--sandbox", "none", "--max-failed", "1", "--json", "-",
                                      "--", *LATE_CRASHER])
    assert result.exit_code == 1, result.output
    report = json.loads(result.stdout[result.stdout.index("{"):])
    (kept,) = (tmp_path / "matches").iterdir()
    assert kept.name.startswith("validate-maumau-") and report["kept"]["dir"] == str(Path("matches") / kept.name)
    (failure,) = report["failures"]
    assert (tmp_path / failure["replay"]).is_file()
    # the suite pins REFEREE_DEAL_KEY (conftest.py): the command relies on it and never shows it
    assert failure["env"] == {} and failure["reproduce"].startswith("referee play maumau -p first -p ")
    assert os.environ["REFEREE_DEAL_KEY"] not in result.output
    assert "deal key in my environment: no" in (tmp_path / failure["log"]).read_text()  # pinned, yet not passed on


def test_a_passing_bot_keeps_nothing(tmp_path):
    kept = tmp_path / "kept"
    proc = referee("validate", "presidente", "--sandbox", "none", "--out", str(kept), "--", BOT_PYTHON, RANDOM_BOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert not kept.exists() and "Failing matches" not in proc.stdout


def test_out_must_be_a_new_or_empty_directory(tmp_path):
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("")
    (tmp_path / "file").write_text("")
    for where, message in [("full", "is not empty"), ("file", "is not a directory")]:
        proc = referee("validate", "maumau", "--out", str(tmp_path / where), "--", BOT_PYTHON, RANDOM_BOT)
        assert proc.returncode == 2 and message in proc.stderr, proc.stderr
        assert "matches played" not in proc.stdout
    assert sorted(p.name for p in (tmp_path / "full").iterdir()) == ["x"]
