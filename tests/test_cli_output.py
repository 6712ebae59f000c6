"""What the CLI shows authors and organisers (issue 18): a line per finished match, the fault
table, faults that say what to fix, --version, COLUMNS, a closed stdout."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from referee import PROTOCOL_VERSION, __version__

ROOT = Path(__file__).resolve().parent.parent
ILLEGAL = f"{sys.executable} {ROOT / 'tests' / 'bots' / 'illegal.py'}"


def referee(*args: str, env: dict[str, str] | None = None, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "referee", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=300, env={**os.environ, **(env or {})}, **kw)


def tournament_file(tmp_path: Path) -> Path:
    path = tmp_path / "t.toml"
    path.write_text(f'name = "t"\nseeds = 2\n[[entrants]]\nstrategy = "random"\n[[entrants]]\nname = "bot"\n'
                    f'command = "{ILLEGAL}"\n[[entrants]]\nstrategy = "first"\n[[games]]\ngame = "maumau"\n'
                    'players = 2\n')
    return path


def test_a_tournament_prints_a_line_per_finished_match_and_a_fault_table(tmp_path):
    proc = referee("tournament", str(tournament_file(tmp_path)), "--out", str(tmp_path / "o"))
    assert proc.returncode == 0, proc.stderr
    lines = [line for line in proc.stdout.splitlines() if line.startswith("[")]
    assert len(lines) == 6 and lines[-1].startswith("[6/6] maumau.")
    assert sum("faults: bot illegal" in line for line in lines) == 4
    assert "Faults" in proc.stdout and "first fault" in proc.stdout
    data = json.loads((tmp_path / "o" / "standings.json").read_text())
    (row,) = data["faults"]
    assert (row["entrant"], row["kind"], row["count"]) == ("bot", "illegal", 4) and "copy it from legal" in row["example"]
    assert all((tmp_path / "o" / log).is_file() for log in row["logs"])
    assert "## Faults" in (tmp_path / "o" / "standings.md").read_text()


def test_play_shows_a_fault_with_its_act_legal_actions_hint_and_log(tmp_path):
    proc = referee("play", "maumau", "-p", ILLEGAL, "-p", "random", "--seed", "3", "--out", str(tmp_path / "m.jsonl"))
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "fault seat 0 deal 1, act 1: illegal" in out or "fault seat 0 deal 1, act 2: illegal" in out
    assert "  legal: [{" in out and "  fix: send one of this act's legal actions" in out


def test_version():
    proc = referee("--version")
    assert proc.returncode == 0 and proc.stdout.strip() == f"referee {__version__} (protocol {PROTOCOL_VERSION})"


def test_output_off_a_terminal_respects_columns(tmp_path):
    narrow = referee("games", env={"COLUMNS": "60"}).stdout
    wide = referee("games", env={"COLUMNS": "200"}).stdout
    assert max(map(len, narrow.splitlines())) <= 60 < max(map(len, wide.splitlines()))


def test_a_closed_stdout_ends_a_tournament_with_one_line_and_the_resume_hint(tmp_path):
    path = tournament_file(tmp_path)
    proc = subprocess.Popen([sys.executable, "-m", "referee", "tournament", str(path), "--out", str(tmp_path / "o")],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    proc.stdout.readline()
    proc.stdout.close()  # like `| head -1`
    err = proc.stderr.read()
    assert proc.wait(timeout=120) == 1
    assert "Traceback" not in err and "standard output was closed" in err and "--resume" in err
