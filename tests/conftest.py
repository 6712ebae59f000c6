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

import pytest

SESSION_VAR = "REFEREE_TEST_SESSION"
LAST = "test_no_leftover_processes.py"


TEST_DEAL_KEY = "the referee test suite's deal key (no secret)"


def pytest_configure(config):
    # The suite runs on two pytest-xdist workers (pyproject's addopts): they inherit the
    # controller's id, set here before they start, so the whole run has one.
    if not (os.environ.get("PYTEST_XDIST_WORKER") and os.environ.get(SESSION_VAR)):
        os.environ[SESSION_VAR] = f"{os.getpid()}-{uuid.uuid4().hex[:12]}"
    os.environ["REFEREE_DEAL_KEY"] = TEST_DEAL_KEY


def distributed(config) -> bool:
    """Whether this is the controller of an xdist run (its workers run the tests)."""
    return config.pluginmanager.hasplugin("dsession")


@pytest.hookimpl(trylast=True)  # after xdist's own, which ends the workers
def pytest_sessionfinish(session, exitstatus):
    """With xdist, the leftover check runs here, in the controller, once every worker is done
    (in a worker, tests/test_no_leftover_processes.py would run while the other still plays)."""
    if not distributed(session.config):
        return
    from test_no_leftover_processes import report, wait_for_leftovers

    left = wait_for_leftovers()
    if left:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        text = report(left)
        if reporter is not None:
            reporter.write_line("")
            reporter.write_line(text, red=True)
        else:
            print(text)
        session.exitstatus = 1


def pytest_collection_modifyitems(session, config, items):
    """The leftover check runs after every other test."""
    last = [item for item in items if item.nodeid.split("::")[0].endswith(LAST)]
    if last:
        items[:] = [item for item in items if item not in last] + last


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    """A headless Chromium's page (tests/chromium.py), one per test module; skips without one."""
    from chromium import browser_session

    yield from browser_session(tmp_path_factory)
