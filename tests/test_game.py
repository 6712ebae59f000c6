"""The game contract's checks (referee/game.py): a required audience, the deal_end and outcome
fields the core reads, JSON equality in the default `resolve`; and the runner, verify and the
CLI turning a plugin's mistake into one PluginError naming the plugin and the field."""

from __future__ import annotations

import copy
import math
import pickle
import random
import subprocess
import sys
from pathlib import Path

import pytest

from referee.errors import PluginError
from referee.checks import deal_end_error, outcome_error, record_error
from referee.game import EVERYONE, Event, Everyone, Outcome, audience, json_equal
from referee.players import StrategyPlayer
from referee.runner import Limits, Seat, run_match
from referee.testing import ConformanceMonitor, random_playout
from referee.replay.verify import load_replay, verify_replay
from referee_strategies.basic import RandomLegal
from test_testing import HighCard, HighCardState

ROOT = Path(__file__).resolve().parent.parent


def test_everyone_holds_every_seat_is_falsy_and_one_object():
    assert 0 in EVERYONE and 99 in EVERYONE
    assert not EVERYONE and repr(EVERYONE) == "EVERYONE"
    assert Everyone() is EVERYONE and copy.deepcopy(EVERYONE) is EVERYONE
    assert pickle.loads(pickle.dumps(EVERYONE)) is EVERYONE
    with pytest.raises(TypeError):
        iter(EVERYONE)


def test_an_event_has_no_default_audience():
    with pytest.raises(TypeError):
        Event("played", {"seat": 0})  # type: ignore[call-arg]
    assert Event("played", {"seat": 0}, EVERYONE).message() == {"kind": "played", "seat": 0}


def test_audience_is_every_seat_or_a_tuple_of_seats():
    assert audience(EVERYONE, 3) == range(3) and audience((2, 0), 3) == (2, 0)
    with pytest.raises(TypeError, match="there is no default audience: use referee.game.EVERYONE"):
        audience(None, 3)
    with pytest.raises(TypeError, match="not a tuple of seats"):
        audience([0], 3)
    with pytest.raises(ValueError, match="names 3, not a seat of 3"):
        audience((0, 3), 3)
    with pytest.raises(ValueError):
        audience((True,), 3)


@pytest.mark.parametrize("record, error", [
    ({"type": "deal_end", "deal": 1, "scores": [1, -2.5]}, None),
    ({"type": "deal_end", "scores": [1, 2]}, "'deal' must be the deal's number"),
    ({"type": "deal_end", "deal": 1}, "'scores' must be a list of 2 numbers, one per seat, not None"),
    ({"type": "deal_end", "deal": 1, "scores": [1]}, "'scores' must be a list of 2 numbers"),
    ({"type": "deal_end", "deal": 1, "scores": [1, "2"]}, "'scores' must be a list of 2 numbers"),
    ({"type": "deal_end", "deal": 1, "scores": [1, True]}, "'scores' must be a list of 2 numbers"),
    ({"type": "deal_end", "deal": 1, "scores": [1, math.nan]}, "'scores' must be a list of 2 numbers"),
    ({"type": "deal", "deal": 1}, None),
    ({"type": "move"}, "a Record of type 'move'"),
    ({"deal": 1}, "a Record of type None"),
    (["deal"], "a Record holding ['deal'], not a dict"),
])
def test_the_records_the_core_reads_are_checked(record, error):
    found = record_error(record, 2)
    assert found == error if error is None else error in found
    if isinstance(record, dict) and record.get("type") == "deal_end":
        assert deal_end_error(record, 2) == found


@pytest.mark.parametrize("outcome, error", [
    (Outcome([3, 1.5], [3, 1.5]), None),
    (Outcome([3], [3.0, 1.0]), "Outcome.scores must be a list of 2 numbers"),
    (Outcome(["3", 1], [3.0, 1.0]), "Outcome.scores must be a list of 2 numbers"),
    (Outcome([3, 1], (3.0, 1.0)), "Outcome.measure must be a list of 2 numbers"),
    (Outcome([3, 1], [3.0, None]), "Outcome.measure must be a list of 2 numbers"),
    ({"scores": [3, 1]}, "not a referee.game.Outcome"),
])
def test_the_outcome_is_checked(outcome, error):
    found = outcome_error(outcome, 2)
    assert found == error if error is None else error in found


class DrawState(HighCardState):
    def legal_actions(self):
        return [{"draw": True}, {"take": 2}]


def test_the_default_resolve_is_json_equality():
    state = DrawState(2, random.Random(1))
    assert state.resolve({"draw": True}) == {"draw": True} and state.resolve({"take": 2.0}) == {"take": 2}
    assert state.resolve({"draw": 1}) is None and state.resolve({"take": True}) is None
    assert state.resolve({"draw": True, "extra": 1}) is None
    assert json_equal({"draw": True}, {"draw": True}) and not json_equal({"draw": 1}, {"draw": True})
    assert json_equal([2.0, {"n": 1}], (2, {"n": 1.0}))


def _play(game, monitor=None, replay=None):
    seats = [Seat(f"random#{i}", "strategy", "random") for i in range(2)]
    players = [StrategyPlayer(RandomLegal(game.name, i, {}, random.Random(i))) for i in range(2)]
    return run_match(game, {}, 1, seats, players, Limits(), replay=replay, monitor=monitor)


@pytest.mark.parametrize("flaw, field", [("short_scores", "'scores'"), ("short_measure", "Outcome.measure")])
def test_the_runner_names_the_plugin_and_the_field(flaw, field):
    with pytest.raises(PluginError, match=rf"^game 'highcard' \(test_testing\): .*{field}"):
        _play(HighCard(flaw))


def test_the_runner_refuses_an_event_without_an_audience_when_it_sends_events():
    _play(HighCard("no_audience"))  # nobody listens: the event is never sent (the kit checks it anyway)
    with pytest.raises(PluginError, match="event 'played': the audience None"):
        _play(HighCard("no_audience"), monitor=ConformanceMonitor(2))


def test_verify_names_the_plugin_when_its_rules_break_the_contract(tmp_path):
    path = tmp_path / "m.jsonl"
    random_playout(HighCard(), seed=1, players=2, replay=path)
    assert verify_replay(load_replay(path), HighCard()).ok
    for flaw, field in [("short_scores", "'scores'"), ("short_measure", "Outcome.measure"),
                        ("no_audience", "the audience None")]:
        with pytest.raises(PluginError, match=rf"game 'highcard' \(test_testing\): .*{field}"):
            verify_replay(load_replay(path), HighCard(flaw))


def _plugin_dir(tmp_path: Path, flaw: str | None) -> Path:
    directory = tmp_path / (flaw or "sound")
    directory.mkdir()
    (directory / "highcard.py").write_text(
        "import sys\n"
        f"sys.path.insert(0, {str(ROOT / 'tests')!r})\n"
        "from referee.hookspecs import hookimpl\n"
        "from test_testing import HighCard\n\n"
        "@hookimpl\n"
        f"def register_games(register):\n    register(HighCard({flaw!r}))\n")
    return directory


def _referee(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "referee", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)


def test_the_cli_says_plugin_error_in_one_line_and_exits_1(tmp_path):
    replay = tmp_path / "m.jsonl"
    sound, broken = _plugin_dir(tmp_path, None), _plugin_dir(tmp_path, "short_scores")
    proc = _referee("--plugins-dir", str(broken), "play", "highcard", "-p", "random", "-p", "random",
                    "--seed", "1", "--out", str(tmp_path / "broken.jsonl"))
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.strip().splitlines()[-1].startswith("plugin error: game 'highcard'")
    assert "'scores' must be a list of 2 numbers" in proc.stderr
    proc = _referee("--plugins-dir", str(sound), "play", "highcard", "-p", "random", "-p", "random",
                    "--seed", "1", "--out", str(replay))
    assert proc.returncode == 0, proc.stderr
    proc = _referee("--plugins-dir", str(broken), "verify", str(replay))
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert f"{replay}: plugin error: game 'highcard'" in proc.stderr and "'scores'" in proc.stderr
