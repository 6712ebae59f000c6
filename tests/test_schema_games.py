"""`referee schema --game NAME` for any installed game, plugins included (issue 27): a game
declares the JSON Schema of its messages with `Game.schema()` (any of its parts: the generic one
stands for the rest); a game that declares none gets the generic schema with a note, not a
refusal."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from jsonschema import Draft202012Validator

ROOT = Path(__file__).resolve().parent.parent

PLUGIN = '''
from referee.game import Game
from referee.hookspecs import hookimpl


class Plain(Game):
    name = "plain"
    title = "Plain"
    min_players = 2
    max_players = 2

    def new_state(self, config, players):
        raise NotImplementedError


class Partial(Plain):
    name = "partial"
    title = "Partial"

    def schema(self):
        return {"partial_action": {"type": "object", "required": ["play"], "additionalProperties": False,
                                   "properties": {"play": {"enum": ["A", "B"]}}}}


@hookimpl
def register_games(register):
    register(Plain())
    register(Partial())
'''


def referee(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    (tmp_path / "two_games.py").write_text(PLUGIN)
    return subprocess.run([sys.executable, "-m", "referee", "--plugins-dir", str(tmp_path), "schema", *args],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)


def test_a_plugin_game_that_declares_no_schema_gets_the_generic_one_with_a_note(tmp_path):
    proc = referee(tmp_path, "--game", "plain", "--direction", "to_referee")
    assert proc.returncode == 0, proc.stderr
    printed = json.loads(proc.stdout)
    assert printed["$ref"] == "#/$defs/to_referee" and "declares no schema of its own" in printed["$comment"]
    assert proc.stderr.startswith("note: game 'plain' declares no schema of its own") and \
        len(proc.stderr.strip().splitlines()) == 1
    assert Draft202012Validator(printed).is_valid({"type": "action", "id": 1, "action": {"anything": 3}})
    assert not any(name.startswith("plain_") for name in printed["$defs"])


def test_a_plugin_game_that_declares_its_actions_has_them_checked(tmp_path):
    proc = referee(tmp_path, "--game", "partial", "--direction", "to_referee")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    printed = json.loads(proc.stdout)
    assert printed["$ref"] == "#/$defs/partial_to_referee" and "$comment" not in printed
    validator = Draft202012Validator(printed)
    assert validator.is_valid({"type": "action", "id": 1, "action": {"play": "A"}})
    assert not validator.is_valid({"type": "action", "id": 1, "action": {"play": "C"}})
    assert validator.is_valid({"type": "action", "id": 1, "index": 0})
    # the parts it left out are the generic ones: any observation the envelope allows
    obs = printed["$defs"]["partial_obs"]
    assert set(obs) == {"description"} and "Not declared by partial" in obs["description"]


def test_the_builtin_games_declare_their_schema_through_game_schema():
    from referee.plugins import load_registry

    games = load_registry().games
    for name in ("maumau", "presidente", "mayor"):
        declared = games[name].schema()
        assert {f"{name}_{part}" for part in ("config", "action", "obs", "event")} <= set(declared), name
