"""Suite-wide plumbing for the check that the test suite leaves no process behind.

At start the session puts REFEREE_TEST_SESSION=<unique id> in its environment: every process the
suite starts inherits it (bots, CLI subprocesses, tournament workers; the referee passes
REFEREE_* variables into the bot sandbox too). tests/test_no_leftover_processes.py runs last and
looks for live processes carrying this session's id.

The suite pins the deal key (REFEREE_DEAL_KEY, referee/sealing.py) so that runs in different
processes and output directories deal alike, as an organiser pins it for exact reruns; the tests
of fresh and per-tournament keys unset it.
"""

from __future__ import annotations

import os
import uuid

SESSION_VAR = "REFEREE_TEST_SESSION"
LAST = "test_no_leftover_processes.py"


TEST_DEAL_KEY = "the referee test suite's deal key (no secret)"


def pytest_configure(config):
    os.environ[SESSION_VAR] = f"{os.getpid()}-{uuid.uuid4().hex[:12]}"
    os.environ["REFEREE_DEAL_KEY"] = TEST_DEAL_KEY


def pytest_collection_modifyitems(session, config, items):
    """The leftover check runs after every other test."""
    last = [item for item in items if item.nodeid.split("::")[0].endswith(LAST)]
    if last:
        items[:] = [item for item in items if item not in last] + last
