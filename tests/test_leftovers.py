"""Nothing left behind in the temporary directory by a referee process killed outright.

A scratch root (a worker's matches in progress, a Dask worker's too) is locked by its
process while it lives; the next referee process that makes one removes those whose owner died.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest

from referee.bots import sandbox

#: a referee process that makes its scratch root, a match's folder and a file in it (as a
#: tournament's worker does), says the root, then waits to be killed (or, with "exit", dies by
#: os._exit: no atexit either)
OWNER = textwrap.dedent("""
    import os, sys, tempfile, time
    from pathlib import Path
    from referee.bots import sandbox
    scratch = Path(tempfile.mkdtemp(prefix="match-", dir=sandbox.scratch_root()))
    (scratch / "left.txt").write_text("x")
    os.chmod(scratch, 0o500)  # a folder a plain rmtree fails on (for a non-root user)
    print(sandbox.scratch_root(), flush=True)
    if sys.argv[1:] == ["exit"]:
        os._exit(0)
    time.sleep(60)
""")


def owner(tmp_path: Path, *args: str) -> tuple[subprocess.Popen, Path]:
    proc = subprocess.Popen([sys.executable, "-c", OWNER, *args], stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "TMPDIR": str(tmp_path)})
    root = Path(proc.stdout.readline().strip())
    assert root.parent == tmp_path and root.name.startswith(sandbox.ROOT_PREFIX) and root.is_dir()
    return proc, root


def sweep_in(tmp_path: Path, monkeypatch) -> list[Path]:
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(tempfile, "tempdir", None)  # gettempdir() reads TMPDIR again
    return sandbox.sweep()


@pytest.mark.parametrize("death", ["kill", "exit"])
def test_the_root_of_a_process_killed_outright_is_removed_by_the_next_one(tmp_path, monkeypatch, death):
    proc, root = owner(tmp_path, *(["exit"] if death == "exit" else []))
    if death == "kill":
        assert sweep_in(tmp_path, monkeypatch) == [] and root.is_dir(), "a live process's root is kept"
        proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    assert root.is_dir(), "nothing removed it: killed outright"
    assert sweep_in(tmp_path, monkeypatch) == [root]
    assert not root.exists()


def test_a_root_whose_owner_lives_is_kept_and_one_without_a_lock_file_is_left(tmp_path, monkeypatch):
    proc, root = owner(tmp_path)
    try:
        stranger = tmp_path / f"{sandbox.ROOT_PREFIX}old"  # made before roots had owners: cannot tell
        stranger.mkdir()
        deadline = time.monotonic() + 0.5
        while time.monotonic() < deadline:  # asked again and again: never taken from a live owner
            assert sweep_in(tmp_path, monkeypatch) == []
        assert root.is_dir() and stranger.is_dir()
    finally:
        proc.kill()
        proc.wait(timeout=30)
    assert sweep_in(tmp_path, monkeypatch) == [root]


def test_a_tournament_killed_outright_leaves_its_root_to_the_next_run(tmp_path):
    path = tmp_path / "t.toml"
    path.write_text(f"""
name = "killed"
seed = 1
seeds = 40
[output]
viewers = false
[[entrants]]
name = "bot"
command = "{sys.executable} {Path(__file__).resolve().parent.parent / 'bots' / 'python' / 'random_bot.py'}"
[[entrants]]
strategy = "random"
[[games]]
game = "maumau"
players = 2
""")
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    cmd = [sys.executable, "-m", "referee", "tournament", str(path), "--out", str(tmp_path / "o")]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    journal = tmp_path / "o" / "journal.jsonl"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and (not journal.is_file() or len(journal.read_text().splitlines()) < 3):
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)  # the driver, its workers and bots at once
    proc.wait(timeout=30)
    roots = list(tmp_path.glob(f"{sandbox.ROOT_PREFIX}*"))
    assert len(roots) == 1, "the killed run's root is left"
    done = subprocess.run([*cmd, "--resume"], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert list(tmp_path.glob(f"{sandbox.ROOT_PREFIX}*")) == [], "removed by the next run; its own at its end"
