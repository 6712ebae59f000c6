"""The fault policy (referee/fault_policy.py, PROTOCOL.md "Faults", C-5): one implementation for
the runner that applies it and `verify` that replays it."""

from __future__ import annotations

import ast
from pathlib import Path

from referee.fault_policy import FaultPolicy

ROOT = Path(__file__).resolve().parent.parent


def test_a_crash_disqualifies_at_once_other_faults_at_max_faults():
    policy = FaultPolicy(3, max_faults=2, fallback="first")
    assert policy.fault(0, "crash") is True and policy.disqualified == {0}
    assert policy.fault(1, "timeout") is False and policy.disqualified == {0}
    assert policy.fault(1, "illegal") is True and policy.disqualified == {0, 1}
    assert policy.fault(1, "illegal") is False, "disqualified once"
    assert policy.count == [1, 3, 0]


def test_without_max_faults_only_a_crash_disqualifies():
    policy = FaultPolicy.of_header(2, {"limits": {"fallback": "first"}})
    for _ in range(50):
        policy.fault(0, "timeout")
    assert policy.disqualified == set()
    assert policy.fault(1, "crash") and policy.disqualified == {1}


def test_the_fallback_is_the_first_action_or_a_draw_from_its_own_seed():
    legal = list(range(10))
    assert FaultPolicy(2, 1, "first").fallback(legal) == 0
    a, b, c = (FaultPolicy(2, 1, "random", seed) for seed in (7, 7, 8))
    draws = [a.fallback(legal) for _ in range(20)]
    assert draws == [b.fallback(legal) for _ in range(20)]
    assert draws != [c.fallback(legal) for _ in range(20)]
    assert FaultPolicy(2, 1, "coin").fallback(legal) is None, "an unknown policy (a replay's header) expects nothing"


def test_a_header_names_the_seed_older_replays_took_the_match_seed():
    sealed = FaultPolicy.of_header(2, {"seed": 1, "limits": {"fallback": "random", "fallback_seed": 99}})
    old = FaultPolicy.of_header(2, {"seed": 99, "limits": {"fallback": "random"}})
    legal = list(range(30))
    assert [sealed.fallback(legal) for _ in range(10)] == [old.fallback(legal) for _ in range(10)]


def test_runner_and_verify_share_the_policy_and_neither_writes_its_own():
    for module in ("referee/runner.py", "referee/replay/verify.py"):
        tree = ast.parse((ROOT / module).read_text())
        imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module == "referee.fault_policy"
                    for a in n.names}
        assert "FaultPolicy" in imported, module
        # no second copy: neither seeds a fallback PRNG itself
        assert "fallback/" not in (ROOT / module).read_text(), module
