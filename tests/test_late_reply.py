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
