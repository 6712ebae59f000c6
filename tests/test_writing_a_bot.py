"""docs/writing-a-bot.md can be followed alone: the whole bot it opens with plays every game
without a fault (issue 18)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "writing-a-bot.md"


def doc_bot(tmp_path: Path) -> Path:
    """The bot of the doc, saved as the doc says."""
    text = DOC.read_text(encoding="utf-8")
    code = re.search(r"<!-- bot: mybot\.py -->\n```python\n(.*?)```", text, re.S).group(1)
    path = tmp_path / "mybot.py"
    path.write_text(code)
    return path


def test_the_doc_bot_is_short_and_complete(tmp_path):
    code = doc_bot(tmp_path).read_text()
    assert len(code.splitlines()) <= 15 and "flush=True" in code


@pytest.mark.parametrize("game, players", [("maumau", 2), ("presidente", 4), ("mayor", 4)])
def test_the_doc_bot_plays_every_game_without_a_fault(tmp_path, game, players):
    bot = doc_bot(tmp_path)
    out = tmp_path / "m.jsonl"
    seats = ["-p", f"python3 {bot.name}"] + ["-p", "random"] * (players - 1)
    proc = subprocess.run([sys.executable, "-m", "referee", "play", game, *seats, "--seed", "1", "--out", str(out)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(out.read_text().splitlines()[-1])
    assert result["type"] == "result" and result["faults"] == [0] * players
