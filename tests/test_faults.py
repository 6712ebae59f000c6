"""Faults that explain themselves (issue 18): the doc's bot with a planted mistake gets, in its
match's fault log, the act it hit, the decision, the log's path and a hint at what to fix."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from referee.faults import hint, legal_summary
from test_writing_a_bot import doc_bot

ROOT = Path(__file__).resolve().parent.parent

# (what to change in the doc's bot, the fault kind, words of the hint)
MISTAKES = {
    "unflushed": ("print(json.dumps(message), flush=True)", "sys.stdout.write(json.dumps(message) + '\\n')",
                  "timeout", "flush stdout"),
    "wrong id": ('"id": message["id"]', '"id": 1', "timeout", "echo the id of the act"),  # its old ids: ignored
    "index from 1": ('"index": 0', '"index": len(message["legal"])', "illegal", "counts from 0"),
    "debug on stdout": ('if message["type"] == "hello":', 'print("got", message["type"], flush=True)\n    '
                        'if message["type"] == "hello":', "invalid", "print debug output to stderr"),
    "exit": ('elif message["type"] == "act":', 'elif message["type"] == "act":\n        raise SystemExit(3)',
             "crash", "its stderr"),
    "crash": ('elif message["type"] == "act":', 'elif message["type"] == "act":\n        raise RuntimeError("bug")',
              "crash", "its stderr"),
}
SAYS_ON_STDERR = {"crash"}  # its traceback: the other mistakes write nothing there, so have no log


@pytest.mark.parametrize("mistake", list(MISTAKES))
def test_a_planted_mistake_gets_a_fault_that_says_what_to_fix(tmp_path, mistake):
    old, new, kind, words = MISTAKES[mistake]
    bot = doc_bot(tmp_path)
    code = bot.read_text()
    assert old in code
    bot.write_text(code.replace(old, new, 1))
    out = tmp_path / "m.jsonl"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}  # a plain Python buffers stdout
    proc = subprocess.run([sys.executable, "-m", "referee", "play", "maumau", "-p", "python3 mybot.py", "-p",
                           "random", "--seed", "1", "--move-ms", "1000", "--out", str(out)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    (entry, *_) = json.loads(out.read_text().splitlines()[-1])["fault_log"]
    assert entry["kind"] == kind and words in entry["hint"], entry
    if mistake in SAYS_ON_STDERR:
        assert entry["log"] == "m.seat0.log" and "RuntimeError" in (tmp_path / "m.seat0.log").read_text()
    else:  # a bot silent on stderr has no log, and no fault names one
        assert "log" not in entry and not (tmp_path / "m.seat0.log").exists()
    if entry["deal"] > 0:  # at a decision (not at hello): which act, and its legal actions
        assert isinstance(entry["act"], int) and entry["legal"].startswith("[{")


def test_hints_for_the_usual_causes():
    assert "newline" in hint("timeout", "no reply within 1000 ms", raw='{"type":"action"')
    assert "flush stdout" in hint("timeout", "no reply within 1000 ms")
    assert "stale" in hint("timeout", "no reply within 1000 ms", stale=3)
    assert "stderr" in hint("invalid", "line is not JSON", raw="thinking...")
    assert hint("invalid", "line is not JSON", raw="{bad") == ""  # broken JSON: no guess
    assert "0 to len(legal)-1" in hint("illegal", "index 3 is outside the 3 legal actions")
    assert "copy it from legal" in hint("illegal", "the action is not among the legal actions")


def test_the_legal_summary_is_short():
    legal = [{"play": f"{r}S"} for r in "23456789"]
    assert legal_summary(legal[:2]) == '[{"play":"2S"}, {"play":"3S"}]'
    assert legal_summary(legal).endswith(", ... (8 in all)]") and legal_summary(legal).count("play") == 4
