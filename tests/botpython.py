"""The Python the tests run their bots with (`BOT_PYTHON`).

As root, a sandboxed bot runs as a uid of its own (referee/bots/sandbox.py), which must be able
to read its interpreter: the test venv's Python may live where only root reaches (pyenv under
/root). The bots need only the standard library, so they run with a Python every user can read:
this one where it is so, else the system's.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path


def readable_by_all(path: str) -> bool:
    """Whether any user may run `path` (symlinks resolved): every folder on its way open to others."""
    real = Path(os.path.realpath(path))
    return all(os.stat(p).st_mode & 0o001 for p in real.parents) and bool(os.stat(real).st_mode & 0o004)


BOT_PYTHON = (sys.executable if os.geteuid() != 0 or readable_by_all(sys.executable)
              else shutil.which("python3", path="/usr/local/bin:/usr/bin:/bin") or sys.executable)


def open_folder(prefix: str) -> Path:
    """A fresh folder every user may read, inside the checkout (tests/artifacts), for bots a test
    writes or builds: pytest's own temporary folders are closed to other users. The caller
    removes it."""
    import tempfile

    artifacts = Path(__file__).resolve().parent / "artifacts"
    artifacts.mkdir(exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix=prefix, dir=artifacts))
    folder.chmod(0o755)
    return folder


def run_sandboxed(argv: list[str], cwd: Path, timeout: float = 60, **wrap: object):
    """`argv` run once in the sandbox as a bot is (its `Box`, bwrap's descriptors), the
    sandbox's extra arguments in `wrap` (`shared`...): the finished process, output as text."""
    import subprocess

    from referee.bots import sandbox

    box = sandbox.Box()
    try:
        command = sandbox.wrap(argv, cwd, box, **wrap)
        try:
            return subprocess.run(command, pass_fds=box.fds, env=sandbox.bot_env(None), capture_output=True,
                                  text=True, timeout=timeout)
        finally:
            box.started()
    finally:
        box.close()
