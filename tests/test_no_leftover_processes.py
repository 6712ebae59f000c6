"""After the whole test suite, no process it started is still running.

Runs last (tests/conftest.py orders it so): every live process carrying this session's
REFEREE_TEST_SESSION id in its environment, other than this pytest process and Python's own
multiprocessing helpers (which end with it), is a leftover. Processes of other test sessions
running at the same time carry other ids and are not looked at; zombies (dead, waiting to be
reaped by an init that may never do it) do not count.
"""

from __future__ import annotations

import os
import signal
import time

from conftest import SESSION_VAR
from procs import with_env

# Started by multiprocessing for this pytest process and ended with it: not a leftover.
HELPERS = (b"multiprocessing.forkserver", b"multiprocessing.resource_tracker")


def leftovers() -> dict[int, str]:
    """{pid: command line} of live processes started by this session, other than us."""
    return {pid: cmd for pid, cmd in with_env(SESSION_VAR, os.environ[SESSION_VAR]).items()
            if pid != os.getpid() and not any(h.decode() in cmd for h in HELPERS)}


def test_no_process_started_by_the_suite_is_still_running():
    deadline = time.monotonic() + 10.0  # a killed process may take a moment to die
    while (left := leftovers()) and time.monotonic() < deadline:
        time.sleep(0.1)
    for pid in left:  # clean up, then report
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    assert not left, "processes left running by the test suite:\n" + "\n".join(
        f"  {pid}: {cmd}" for pid, cmd in sorted(left.items()))
