"""The parent-death guard (referee.match.guard): a bot outside the sandbox dies with the process
that started it, even when that process dies between the fork and the guard's arming (the bot
then finds another parent, and gives up instead of playing on as an orphan)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from referee.bots.player import SubprocessPlayer
from referee.bots.sandbox import guard_prefix
from referee.match import guard

pytestmark = pytest.mark.skipif(not guard_prefix(), reason="no setpriv --pdeathsig here")


def test_a_guarded_bot_runs_when_its_parent_is_the_starter():
    p = SubprocessPlayer([sys.executable, "-c", "print('ok')"])
    guard([p])
    assert p.argv[: len(guard_prefix())] == guard_prefix()
    out = subprocess.run(p.argv, capture_output=True, text=True, timeout=60)
    assert (out.returncode, out.stdout) == (0, "ok\n")


def test_a_guarded_bot_orphaned_before_arming_gives_up():
    # the starter is this process; run the guarded command from a child of a child instead, as
    # an orphan adopted by another process would run it: its parent is not the starter
    p = SubprocessPlayer([sys.executable, "-c", "print('played on')"])
    guard([p])
    out = subprocess.run([sys.executable, "-c", "import subprocess, sys; sys.exit(subprocess.run(sys.argv[1:]).returncode)",
                          *p.argv], capture_output=True, text=True, timeout=60)
    assert out.returncode == 111 and "played on" not in out.stdout


def test_the_sandbox_keeps_the_plain_guard():
    p = SubprocessPlayer([sys.executable, "-c", "pass"], sandbox="bwrap")
    guard([p])
    assert p.argv == guard_prefix() + [sys.executable, "-c", "pass"] and str(os.getpid()) not in p.argv
