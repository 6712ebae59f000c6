"""A slow bot is told it was slow (issue 29): a reply that comes after the limit, within the short
window the referee then waits on, is the timeout "answered N ms late (limit L ms)" with a hint to
answer faster; a silent bot keeps "no reply within" and the flushing hint."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REFEREE = [sys.executable, "-m", "referee"]
BOT = """import json, sys, time
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "hello":
        print(json.dumps({"type": "ready", "name": "slow"}), flush=True)
    elif m["type"] == "act":
        time.sleep(SLEEP)
        print(json.dumps({"type": "action", "id": m["id"], "index": 0}), flush=True)
"""


def _first_fault(tmp_path: Path, sleep: float) -> dict:
    bot = tmp_path / "bot.py"
    bot.write_text(BOT.replace("SLEEP", repr(sleep)))
    proc = subprocess.run([*REFEREE, "play", "maumau", "-p", f"{sys.executable} {bot}", "-p", "random",
                           "--move-ms", "2000", "--seed", "1", "--out", str(tmp_path / "m.jsonl"), "--json", "-"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)["fault_log"][0]


def test_a_late_reply_says_how_late(tmp_path: Path):
    # the deadline is 2,000 ms plus 50 of grace; the bot answers at about 2,100, well inside the
    # 500 ms window that follows
    fault = _first_fault(tmp_path, 2.1)
    assert fault["kind"] == "timeout"
    assert fault["detail"].startswith("answered ") and fault["detail"].endswith("ms late (limit 2000 ms)")
    assert "after the limit" in fault["hint"] and "flush" not in fault["hint"]


def test_a_silent_bot_keeps_the_flushing_hint(tmp_path: Path):
    fault = _first_fault(tmp_path, 60)
    assert fault["detail"] == "no reply within 2000 ms" and "flush" in fault["hint"]


TOURNAMENT = """name = "late"
concurrency = 1
[output]
viewers = false
[[entrants]]
name = "slow"
command = "{python} {bot}"
limits = {{ move_ms = 300 }}
[[entrants]]
strategy = "random"
[[games]]
game = "maumau"
players = 2
seeds = 2
"""


def test_the_standings_say_a_slow_bot_was_late(tmp_path: Path):
    # the bot answers each act 420 ms after it, 120 ms past its 300 ms limit: every match
    # disqualifies it at its first act, and the fault table says those were late replies
    bot = tmp_path / "bot.py"
    bot.write_text(BOT.replace("SLEEP", "0.42"))
    t = tmp_path / "t.toml"
    t.write_text(TOURNAMENT.format(python=sys.executable, bot=bot))
    proc = subprocess.run([*REFEREE, "tournament", str(t), "--out", str(tmp_path / "out")], capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    rows = json.loads((tmp_path / "out" / "standings.json").read_text())["faults"]
    (row,) = [r for r in rows if r["entrant"] == "slow"]
    assert row["kind"] == "timeout" and row["late"]["count"] >= 1 and row["late"]["max_ms"] > 0
    assert "came late, by up to" in row["example"]
    assert "came late, by up to" in (tmp_path / "out" / "standings.md").read_text()


def test_validate_says_a_slow_bot_was_late(tmp_path: Path):
    bot = tmp_path / "bot.py"
    bot.write_text(BOT.replace("SLEEP", "0.42"))
    proc = subprocess.run([*REFEREE, "validate", "maumau", "--move-ms", "300", "--sandbox", "none",
                           "--max-failed", "1", "--out", str(tmp_path / "v"), "--", sys.executable, str(bot)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "ms late (limit 300 ms)" in proc.stdout and "after the limit" in proc.stdout
