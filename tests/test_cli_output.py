"""What the CLI shows authors and organisers (issue 18): a line per finished match, the fault
table, faults that say what to fix, --version, COLUMNS, a closed stdout."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from referee import PROTOCOL_VERSION, __version__

ROOT = Path(__file__).resolve().parent.parent
ILLEGAL = f"{sys.executable} {ROOT / 'tests' / 'bots' / 'illegal.py'}"


def referee(*args: str, env: dict[str, str] | None = None, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "referee", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=300, env={**os.environ, **(env or {})}, **kw)


def tournament_file(tmp_path: Path) -> Path:
    path = tmp_path / "t.toml"
    path.write_text(f'name = "t"\nseeds = 2\n[[entrants]]\nstrategy = "random"\n[[entrants]]\nname = "bot"\n'
                    f'command = "{ILLEGAL}"\n[[entrants]]\nstrategy = "first"\n[[games]]\ngame = "maumau"\n'
                    'players = 2\n')
    return path


def test_a_tournament_prints_a_line_per_finished_match_and_a_fault_table(tmp_path):
    proc = referee("tournament", str(tournament_file(tmp_path)), "--out", str(tmp_path / "o"))
    assert proc.returncode == 0, proc.stderr
    lines = [line for line in proc.stdout.splitlines() if line.startswith("[")]
    assert len(lines) == 6 and lines[-1].startswith("[6/6] maumau-")
    assert sum("faults: bot illegal" in line for line in lines) == 4
    assert "Faults" in proc.stdout and "first fault" in proc.stdout
    data = json.loads((tmp_path / "o" / "standings.json").read_text())
    (row,) = data["faults"]
    assert (row["entrant"], row["kind"], row["count"]) == ("bot", "illegal", 4) and "copy it from legal" in row["example"]
    assert all((tmp_path / "o" / log).is_file() for log in row["logs"])
    assert "## Faults" in (tmp_path / "o" / "standings.md").read_text()


def test_play_shows_a_fault_with_its_act_legal_actions_hint_and_log(tmp_path):
    proc = referee("play", "maumau", "-p", ILLEGAL, "-p", "random", "--seed", "3", "--out", str(tmp_path / "m.jsonl"))
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "fault seat 0 deal 1, act 1: illegal" in out or "fault seat 0 deal 1, act 2: illegal" in out
    assert "  legal: [{" in out and "  fix: send one of this act's legal actions" in out


def test_version():
    proc = referee("--version")
    assert proc.returncode == 0 and proc.stdout.strip() == f"referee {__version__} (protocol {PROTOCOL_VERSION})"


def test_output_off_a_terminal_respects_columns(tmp_path):
    narrow = referee("games", env={"COLUMNS": "60"}).stdout
    wide = referee("games", env={"COLUMNS": "200"}).stdout
    assert max(map(len, narrow.splitlines())) <= 60 < max(map(len, wide.splitlines()))


def test_a_closed_stdout_ends_a_tournament_with_one_line_and_the_resume_hint(tmp_path):
    path = tournament_file(tmp_path)
    proc = subprocess.Popen([sys.executable, "-m", "referee", "tournament", str(path), "--out", str(tmp_path / "o")],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    proc.stdout.readline()
    proc.stdout.close()  # like `| head -1`
    err = proc.stderr.read()
    assert proc.wait(timeout=120) == 1
    assert "Traceback" not in err and "standard output was closed" in err and "--resume" in err


def test_play_json_to_stdout_is_the_result_record_and_its_paths_alone(tmp_path):
    # issue 18: `play --json -` for scripts: stdout is one JSON document (the report and warnings
    # go to stderr), its fields those of the replay's header and result records
    out = tmp_path / "m.jsonl"
    proc = referee("play", "maumau", "-p", ILLEGAL, "-p", "random", "--seed", "3", "--set", "sevens=false",
                   "--out", str(out), "--json", "-")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)  # nothing else on stdout
    assert "warning: command bots run without a sandbox" in proc.stderr and "Result" in proc.stderr
    records = [json.loads(line) for line in out.read_text().splitlines()]
    header, result = records[0], records[-1]
    assert data["replay"] == str(out)
    for name in ("game", "config", "seed", "match", "limits"):
        assert data[name] == header[name], name
    assert data["config"]["sevens"] is False
    for name in ("scores", "ranks", "faults", "disqualified"):
        assert data[name] == result[name], name
    assert [(s["seat"], s["name"], s["kind"], s["spec"]) for s in data["seats"]] == \
        [(p["seat"], p["name"], p["kind"], p["spec"]) for p in header["players"]]
    # the illegal bot writes nothing to stderr: it has no log, and nothing names one (issue 18)
    assert data["seats"][0]["log"] is None and data["seats"][1]["log"] is None and not list(tmp_path.glob("*.log"))
    assert data["disqualified"] == [0] and len(data["fault_log"]) == len(result["fault_log"]) >= 1
    for mine, recorded in zip(data["fault_log"], result["fault_log"]):
        assert {k: mine[k] for k in recorded if k != "legal"} == {k: v for k, v in recorded.items() if k != "legal"}
        assert mine["kind"] == "illegal" and mine["act"] >= 1 and mine["legal"] and mine["hint"]
        # JSON fields are JSON (issue 29): the legal actions a list, as the replay's text summarises them
        assert isinstance(mine["legal"], list) and mine["legal_count"] >= len(mine["legal"])
        assert recorded["legal"].startswith("[" + json.dumps(mine["legal"][0], separators=(",", ":")))
        assert mine["log_path"] is None and "log" not in mine
    assert data["deal_key"]["pinned"] is True  # the suite pins REFEREE_DEAL_KEY (conftest.py)


def test_play_json_to_a_file_keeps_the_report_on_stdout(tmp_path, monkeypatch):
    monkeypatch.delenv("REFEREE_DEAL_KEY", raising=False)  # a fresh key: --seed alone does not repeat the deal
    target = tmp_path / "r.json"
    proc = referee("play", "maumau", "-p", "random", "-p", "first", "--seed", "1", "--out", str(tmp_path / "m.jsonl"),
                   "--json", str(target))
    assert proc.returncode == 0, proc.stderr
    assert "Result" in proc.stdout and f"result: {target}" in proc.stdout
    data = json.loads(target.read_text())
    assert data["fault_log"] == [] and data["deal_key"]["pinned"] is False
    proc = referee("play", "maumau", "-p", "random", "-p", "first", "--json", str(tmp_path / "no" / "r.json"))
    assert proc.returncode == 2 and "cannot write --json file" in proc.stderr and "Result" not in proc.stdout


def test_play_names_a_command_seat_after_its_bots_ready_name_and_falls_back_to_its_command(tmp_path):
    """Hello names seats by their command (no bot has said ready yet); what people read after
    (the result table, --json, the replay header and the terminal replay) goes by the bot's own
    `ready` name, made unique by seat, or by the command when the bot announced none."""
    bot = f"{sys.executable} {ROOT / 'bots' / 'python' / 'random_bot.py'}"
    mute = f"{sys.executable} {ROOT / 'tests' / 'bots' / 'mute.py'}"
    proc = referee("play", "maumau", "-p", bot, "-p", bot, "-p", mute, "-p", "random", "--seed", "1",
                   "--start-ms", "1500", "--move-ms", "10000", "--out", str(tmp_path / "m.jsonl"), "--json", "-",
                   "--log-protocol", str(tmp_path / "p.log"))
    assert proc.returncode == 0, proc.stderr
    names = ["random_bot#0", "random_bot#1", "mute.py", "random"]
    data = json.loads(proc.stdout)
    assert [s["name"] for s in data["seats"]] == names
    assert [s.get("bot") for s in data["seats"]] == [{"name": "random_bot", "version": "1.0"}] * 2 + [None, None]
    header = json.loads((tmp_path / "m.jsonl").read_text().splitlines()[0])
    assert [p["name"] for p in header["players"]] == names
    hello = json.loads((tmp_path / "p.log").read_text().splitlines()[0].split(" > ", 1)[1])
    assert hello["names"] == ["random_bot.py#0", "random_bot.py#1", "mute.py", "random"]
    for name in ("random_bot#0", "random_bot#1"):
        assert name in proc.stderr  # the result table
    shown = referee("replay", str(tmp_path / "m.jsonl"), env={"COLUMNS": "200"})
    assert "[1] random_bot#1" in shown.stdout and "[2] mute.py" in shown.stdout


CRASHER = """import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "hello":
        print(json.dumps({"type": "ready", "name": "crasher"}), flush=True)
    elif m["type"] == "act":
        raise LookupError("no card named " + repr(m["legal"][0]))
"""
MUTE = """import sys
sys.stdin.readline()
print("hello yourself", flush=True)
sys.stdin.read()
"""


def play_against_random(tmp_path, source: str) -> subprocess.CompletedProcess:
    """`referee play` of the bot `source` against a random strategy (a wide terminal)."""
    bot = tmp_path / "bot.py"
    bot.write_text(source)
    proc = referee("play", "maumau", "-p", f"{sys.executable} {bot}", "-p", "random", "--seed", "1",
                   "--out", str(tmp_path / "m.jsonl"), env={"COLUMNS": "200"})
    assert proc.returncode == 0, proc.stderr
    return proc


def test_play_shows_a_crashed_bots_last_words(tmp_path):
    # issue 29: play printed only the stderr log's path; the LookupError must be on screen
    proc = play_against_random(tmp_path, CRASHER)
    assert "crash" in proc.stdout and "LookupError: no card named" in proc.stdout


def test_a_fault_at_the_handshake_is_at_start(tmp_path):
    # issue 29: a fault before any deal was reported as "deal 0"
    proc = play_against_random(tmp_path, MUTE)
    fault = next(line for line in proc.stdout.splitlines() if "fault" in line and "seat 0" in line)
    assert "at start" in fault and "deal 0" not in fault
