"""The debug channel (issue 18): a bot's `debug` text beside an action is kept, capped, in that
move's replay record, shown beside the move by the terminal replay (the whole match and the
seat's own view, never another seat's), and ignored by verify."""

from __future__ import annotations

import io
import json
import os
import random
import sys
from pathlib import Path

import pytest
from rich.console import Console

from referee.protocol import DEBUG_CAP, DEBUG_DROPPED, DEBUG_MATCH_CAP
from referee.bots.mock import MockPlayer
from referee.bots.player import SubprocessPlayer
from referee.players import Hello, StrategyPlayer
from referee.plugins import load_registry
from referee.replay.terminal import build_story, render
from referee.replay.verify import load_replay, verify_replay
from referee.runner import Limits, Seat, run_match
from referee_strategies.basic import RandomLegal

BOTS = Path(__file__).resolve().parent / "bots"
HELLO = Hello("pick", 0, 2, ["mock", "other"], {}, "pick-0001",
              {"move_ms": 1000, "start_ms": 5000, "max_line_bytes": 65536})
LEGAL = [{"pick": 1}, {"pick": 2}]


def _debugging(texts):
    """A MockPlayer, ready, whose reply to its k-th act carries texts[k-1] as `debug`."""
    answers = ['{"type":"ready","name":"mock"}\n'] + [
        json.dumps({"type": "action", "id": k, "index": 0, "debug": t}) + "\n" for k, t in enumerate(texts, 1)]
    p = MockPlayer(answers)
    assert p.start(HELLO) is None
    return p


def test_debug_text_is_cut_per_action_and_dropped_past_the_match_budget_with_one_note():
    per_match = DEBUG_MATCH_CAP // DEBUG_CAP
    p = _debugging(["y" * (DEBUG_CAP + 500)] * (per_match + 3))
    got = [p.act(k, {}, LEGAL, 1000) for k in range(1, per_match + 4)]
    assert all(r.fault is None and r.index == 0 for r in got)
    assert [r.debug for r in got[:per_match]] == ["y" * DEBUG_CAP] * per_match
    assert [r.debug for r in got[per_match:]] == [DEBUG_DROPPED, None, None]


@pytest.mark.parametrize("debug", [{"not": "text"}, 7, None, ["a"], ""])
def test_a_debug_that_is_no_text_is_ignored_without_a_fault(debug):
    reply = _debugging([debug]).act(1, {}, LEGAL, 1000)
    assert reply.fault is None and reply.index == 0 and reply.debug is None


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """A Mau Mau match: seat 0 tests/bots/debugger.py, seat 1 random; its replay's path."""
    registry = load_registry()
    game = registry.game("maumau")
    config = {"target": 30}
    replay = tmp_path_factory.mktemp("debug") / "m.jsonl"
    players = [SubprocessPlayer([sys.executable, str(BOTS / "debugger.py")], log_path=replay.with_suffix(".seat0.log")),
               StrategyPlayer(RandomLegal("maumau", 1, config, random.Random(1)))]
    seats = [Seat("debugger", "command", "debugger"), Seat("random", "strategy", "random")]
    result = run_match(game, config, 3, seats, players, Limits(move_ms=10000, start_ms=10000), replay=replay)
    assert result.result["faults"] == [0, 0]
    return replay, game


def moves(path):
    return [r for r in map(json.loads, path.read_text().splitlines()) if r["type"] == "move"]


def test_the_replay_keeps_each_moves_debug_text_capped_and_no_other(played):
    replay, _ = played
    own = [m for m in moves(replay) if m["seat"] == 0]
    assert own[0]["debug"] == "x" * DEBUG_CAP
    assert "debug" not in own[1]  # an object: ignored
    assert [m["debug"] for m in own[2:]] and all(m["debug"].startswith("reason ") for m in own[2:])
    assert not any("debug" in m for m in moves(replay) if m["seat"] == 1)
    assert "fault" not in own[1]


def test_verify_passes_and_ignores_a_changed_debug_text(played, tmp_path):
    replay, game = played
    assert verify_replay(load_replay(replay), game).ok
    lines = replay.read_text().splitlines()
    tampered = [json.dumps({**r, "debug": "forged"}) if r["type"] == "move" and "debug" in r else line
                for line, r in zip(lines, map(json.loads, lines))]
    assert tampered != lines
    (tmp_path / "t.jsonl").write_text("\n".join(tampered) + "\n")
    assert verify_replay(load_replay(tmp_path / "t.jsonl"), game).ok


def _shown(replay, game, seat=None, debug=True) -> str:
    out = io.StringIO()
    render(Console(file=out, width=200, color_system=None), build_story(load_replay(replay), game, seat, debug))
    return out.getvalue()


def test_the_terminal_replay_shows_debug_beside_the_move_in_the_whole_view_and_the_seats_own(played):
    replay, game = played
    whole, own, other = _shown(replay, game), _shown(replay, game, 0), _shown(replay, game, 1)
    said = next(m["debug"] for m in moves(replay) if m["seat"] == 0 and m.get("debug", "").startswith("reason"))
    for view in (whole, own):
        line = next(line for line in view.splitlines() if f"// {said}" in line)
        assert "[0] debugger" in line  # on the move's own line
    assert "// reason" not in other and "// x" not in other
    assert "// reason" not in _shown(replay, game, debug=False)


def test_the_replay_command_leaves_debug_out_with_no_debug(played):
    import subprocess

    replay, _ = played

    def shown(*flags: str) -> str:
        proc = subprocess.run([sys.executable, "-m", "referee", "replay", str(replay), *flags], capture_output=True,
                              text=True, timeout=120, env={**os.environ, "COLUMNS": "200"})
        assert proc.returncode == 0, proc.stderr
        return proc.stdout

    assert "// reason" in shown() and "// reason" not in shown("--no-debug")
