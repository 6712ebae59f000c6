"""`--json` on the listing commands and `verify` (issue 29: every output scriptable): the JSON is
the table's content, on stdout alone with `-`, and verify's exit status stays the same."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REFEREE = [sys.executable, "-m", "referee"]


def _json(*args: str) -> tuple[object, subprocess.CompletedProcess]:
    proc = subprocess.run([*REFEREE, *args, "--json", "-"], capture_output=True, text=True, timeout=120)
    return json.loads(proc.stdout), proc


def test_games_strategies_plugins_and_rules_as_json():
    games, proc = _json("games")
    assert proc.returncode == 0
    by_name = {g["name"]: g for g in games}
    assert by_name["maumau"]["min_players"] == 2 and by_name["maumau"]["max_players"] == 10
    assert by_name["presidente"]["options"] == ["jokers", "rounds"]
    strategies, _ = _json("strategies")
    assert {"name": "random", "games": None} .items() <= {k: v for k, v in strategies[0].items()}.items() or any(
        s["name"] == "random" and s["games"] is None for s in strategies)
    plugins, _ = _json("plugins")
    assert any(p["name"] == "maumau" and "register_games" in p["hooks"] for p in plugins)
    rules, _ = _json("rules", "presidente")
    assert rules["name"] == "presidente" and rules["options"][0]["key"] == "jokers"
    assert rules["options"][1]["min"] == 1 and rules["options"][1]["default"] == 5


def test_verify_as_json_keeps_its_exit_status(tmp_path: Path):
    replay = tmp_path / "m.jsonl"
    subprocess.run([*REFEREE, "play", "maumau", "-p", "random", "-p", "random", "--seed", "4", "--out", str(replay)],
                   capture_output=True, timeout=120, check=True)
    data, proc = _json("verify", str(replay))
    assert proc.returncode == 0 and data["ok"] and data["files"][0]["moves"] > 0
    lines = replay.read_text().splitlines()
    moves = [i for i, line in enumerate(lines) if '"type":"move"' in line]
    lines[moves[3]] = lines[moves[3]].replace('"seat":', '"seat":9,"x":', 1)
    replay.write_text("\n".join(lines) + "\n")
    data, proc = _json("verify", str(replay))
    assert proc.returncode == 1 and not data["ok"] and data["files"][0]["discrepancy"]
