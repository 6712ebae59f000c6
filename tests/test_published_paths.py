"""Nothing of the organiser's machine in what a tournament publishes (issue 29): the journal names
its tournament file by name and the entrants' folders relative to it, the index page its output
folder by name; a refused --resume says what changed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REFEREE = [sys.executable, "-m", "referee"]
FILE = """name = "paths"
concurrency = 1
[output]
viewers = false
[[entrants]]
name = "bot"
command = "{python} bot.py"
cwd = "bots/mine"
[[entrants]]
strategy = "random"
[[games]]
game = "maumau"
players = 2
seeds = {seeds}
"""


def test_published_files_hold_no_absolute_path(tmp_path: Path):
    bots = tmp_path / "bots" / "mine"
    bots.mkdir(parents=True)
    (bots / "bot.py").write_text((Path(__file__).resolve().parent.parent / "bots/python/random_bot.py").read_text())
    t = tmp_path / "t.toml"
    t.write_text(FILE.format(python=sys.executable, seeds=1))
    proc = subprocess.run([*REFEREE, "tournament", str(t), "--out", str(tmp_path / "out")], capture_output=True,
                          text=True, timeout=300, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    folder = str(tmp_path)
    for name in ("journal.jsonl", "index.html", "standings.json", "standings.md", "standings.csv"):
        text = (tmp_path / "out" / name).read_text()
        # the interpreter's path is the organiser's command line, as written in the file: allowed
        assert folder not in text.replace(sys.executable, "PYTHON"), name
    # a changed schedule is refused, saying what changed
    t.write_text(FILE.format(python=sys.executable, seeds=2))
    proc = subprocess.run([*REFEREE, "tournament", str(t), "--out", str(tmp_path / "out"), "--resume"],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert proc.returncode == 2 and "games[0].seeds changed (1 then, 2 now)" in proc.stderr, proc.stderr
