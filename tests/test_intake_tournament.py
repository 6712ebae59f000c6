"""A contest's finals from its intake (issue 28): `[[entrants]] intake = "DIR"` seats every
submission the intake accepted (its latest accepted version), each from its own folder."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

REFEREE = [sys.executable, "-m", "referee"]
ROOT = Path(__file__).resolve().parent.parent


def _intake(folder: Path, names: list[str]) -> None:
    """An intake's accepted.json as `referee intake` writes it, for submissions copied here."""
    accepted = {}
    for name in names:
        home = folder / "intake" / "builds" / name
        home.mkdir(parents=True)
        shutil.copy(ROOT / "bots" / "python" / "random_bot.py", home / "bot.py")
        accepted[name] = {"author": "a", "version": "1", "run": ["python3", "bot.py"],
                          "command": [sys.executable, str(home / "bot.py")], "dir": str(home), "game": "maumau",
                          "submission": f"001-{name}"}
    (folder / "intake" / "accepted.json").write_text(json.dumps(accepted))


def test_finals_take_their_entrants_from_the_intake(tmp_path: Path):
    _intake(tmp_path, ["alpha", "beta"])
    (tmp_path / "t.toml").write_text('name = "finals"\nconcurrency = 1\n[output]\nviewers = false\n'
                                     '[[entrants]]\nintake = "intake"\nlimits = { move_ms = 3000 }\n'
                                     '[[entrants]]\nstrategy = "random"\n'
                                     '[[games]]\ngame = "maumau"\nplayers = 2\n')
    proc = subprocess.run([*REFEREE, "tournament", str(tmp_path / "t.toml"), "--out", str(tmp_path / "out")],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    head = json.loads((tmp_path / "out" / "journal.jsonl").read_text().splitlines()[0])
    assert sorted(head["setup"]["entrants"]) == ["alpha", "beta", "random"]
    assert head["setup"]["entrants"]["alpha"]["move_ms"] == 3000
    seats = {s for line in (tmp_path / "out" / "journal.jsonl").read_text().splitlines()[1:]
             for s in json.loads(line).get("seats", [])}
    assert seats == {"alpha", "beta", "random"}


def test_an_intake_that_accepted_nothing_is_one_line(tmp_path: Path):
    (tmp_path / "intake").mkdir()
    (tmp_path / "t.toml").write_text('[[entrants]]\nintake = "intake"\n[[games]]\ngame = "maumau"\nplayers = 2\n')
    proc = subprocess.run([*REFEREE, "tournament", str(tmp_path / "t.toml"), "--out", str(tmp_path / "out")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "entrants[0].intake" in proc.stderr and "Traceback" not in proc.stderr
