"""After the whole test suite, no process it started is still running.

Runs last (tests/conftest.py orders it so; with pytest-xdist the controller runs the check
once both workers are done, tests/conftest.py `pytest_sessionfinish`): every live process carrying this session's
REFEREE_TEST_SESSION id in its environment, other than this pytest process and Python's own
multiprocessing helpers (which end with it), is a leftover. Processes of other test sessions
running at the same time carry other ids and are not looked at; zombies (dead, waiting to be
reaped by an init that may never do it) do not count.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from conftest import SESSION_VAR
from procs import with_env

# Started by multiprocessing for this pytest process and ended with it: not a leftover.
HELPERS = (b"multiprocessing.forkserver", b"multiprocessing.resource_tracker")


def leftovers() -> dict[int, str]:
    """{pid: command line} of live processes started by this session, other than us."""
    return {pid: cmd for pid, cmd in with_env(SESSION_VAR, os.environ[SESSION_VAR]).items()
            if pid != os.getpid() and not any(h.decode() in cmd for h in HELPERS)}


def wait_for_leftovers(timeout: float = 10.0) -> dict[int, str]:
    """The leftovers still alive after `timeout` seconds (a killed process may take a moment to
    die), each killed once found: the report comes after the clean-up."""
    deadline = time.monotonic() + timeout
    while (left := leftovers()) and time.monotonic() < deadline:
        time.sleep(0.1)
    for pid in left:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    return left


def report(left: dict[int, str]) -> str:
    return "processes left running by the test suite:\n" + "\n".join(
        f"  {pid}: {cmd}" for pid, cmd in sorted(left.items()))


def test_no_process_started_by_the_suite_is_still_running():
    if os.environ.get("PYTEST_XDIST_WORKER"):
        pytest.skip("under xdist the controller checks once every worker is done (tests/conftest.py)")
    left = wait_for_leftovers()
    assert not left, report(left)


def test_a_leftover_is_found():
    """The check itself: a live process started by this session is a leftover (under xdist the
    other worker's processes are too, so only this one is looked for, and only it is killed)."""
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        # Popen returns once the child's exec has begun, and its new environment is readable in
        # /proc only once the exec has set it up: wait for that, as the suite's last check does
        deadline = time.monotonic() + 10
        while proc.pid not in leftovers() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert proc.pid in leftovers()
    finally:
        proc.kill()
        proc.wait()
    assert proc.pid not in leftovers()
