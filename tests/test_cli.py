"""The CLI as a user meets it: real subprocesses, exit codes, one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from botpython import BOT_PYTHON

ROOT = Path(__file__).resolve().parent.parent
BOT = f"{BOT_PYTHON} bots/python/random_bot.py"


def referee(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "referee", *args], cwd=cwd, capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize("command", [[], ["games"], ["strategies"], ["plugins"], ["rules", "maumau"],
                                     ["play", "--help"]])
def test_listing_commands_work(command):
    proc = referee(*command, "--help") if not command else referee(*command)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip()


def test_dash_h_is_help_and_repeated_options_say_what_one_value_is():
    proc = referee("play", "-h")
    assert proc.returncode == 0 and "-p, --player SPEC" in proc.stdout and "--set KEY=VALUE" in proc.stdout
    assert referee("-h").returncode == 0


def test_games_lists_every_builtin_game():
    out = referee("games").stdout
    for name in ("maumau", "presidente", "mayor"):
        assert name in out


def test_rules_lists_every_option_with_its_default():
    out = referee("rules", "maumau").stdout
    for key in ("hand_size", "deck", "ace", "seven_chain", "sevens", "voluntary_draw", "announcements", "target"):
        assert key in out


@pytest.mark.parametrize(
    "args, message",
    [
        (["play", "nogame", "-p", "random", "-p", "random"], "unknown game 'nogame'"),
        (["play", "maumau", "-p", "random", "-p", "random", "--set", "colour=red"], "no option 'colour'"),
        (["play", "maumau", "-p", "random", "-p", "random", "--set", "target=lots"], "whole number"),
        (["play", "maumau", "-p", "random", "-p", "random", "--set", "deck=tarot"], "must be one of"),
        (["play", "maumau", "-p", "random", "-p", "/no/such/bot"], "does not exist"),
        (["play", "maumau", "-p", "random", "-p", "python3 no/such/bot.py"], "no/such/bot.py does not exist"),
        (["play", "maumau", "-p", "random", "-p", "no-such-program-xyz --fast"], "neither a registered strategy"),
        (["play", "maumau", "-p", "random"], "2 to 10 players, got 1"),
        (["play", "presidente"] + ["-p", "random"] * 5, "4 players, got 5"),
        (["play", "mayor"] + ["-p", "random"] * 3, "4 players, got 3"),
        (["play", "presidente"] + ["-p", "maumau-greedy"] * 4, "plays only maumau"),
        (["play", "maumau", "-p", "human", "-p", "random", "--json", "-"], "which a human seat plays on"),
        (["rules", "nogame"], "unknown game"),
        (["standings", "tests"], "'tests' is a directory (give its journal.jsonl)"),
        (["--plugins-dir", "README.md", "games"], "plugins directory 'README.md' is not a directory"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args, message, tmp_path):
    proc = referee(*args, "--out", str(tmp_path / "x.jsonl")) if args[0] == "play" else referee(*args)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert message in lines[0]
    assert "Traceback" not in proc.stderr


def test_play_writes_a_replay_and_prints_the_table(tmp_path):
    out = tmp_path / "m.jsonl"
    proc = referee("play", "maumau", "-p", "random", "-p", BOT, "-p", "maumau-greedy",
                   "--seed", "7", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "Result" in proc.stdout and "maumau-greedy" in proc.stdout
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert records[0]["type"] == "header" and records[-1]["type"] == "result"
    assert records[-1]["faults"] == [0, 0, 0]
    assert not list(tmp_path.glob("*.log"))  # the bot wrote nothing to stderr: no log (issue 18)


def test_a_bots_text_is_printed_as_it_is_never_read_as_markup(tmp_path):
    # rich reads "[/]" as a closing tag: printed as markup, a bot's name, reply or fault text
    # would stop `play` and `validate` with a traceback.
    import shlex

    script = json.dumps({"ready": '{"type":"ready","name":"[/]x[bold]"}',
                         "acts": [['{"type":"[/]"}'], ["[/] not json"]]})
    argv = [BOT_PYTHON, "tests/bots/scripted.py", script]
    proc = referee("play", "maumau", "-p", shlex.join(argv), "-p", "random", "--seed", "3", "--max-faults", "5",
                   "--out", str(tmp_path / "m.jsonl"))
    assert proc.returncode == 0, proc.stderr
    assert "got type '[/]'" in proc.stdout and "[/] not json" in proc.stdout
    proc = referee("validate", "maumau", "--seeds", "1", "--out", str(tmp_path / "kept"), "--", *argv)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert "[/]x[bold]" in proc.stdout and "'[/]'" in proc.stdout


@pytest.mark.parametrize("where, message", [("file/m.jsonl", "is not a directory"),
                                            ("/dev/full", "No space left on device")])
def test_play_to_an_unwritable_replay_is_one_line_and_exit_2(tmp_path, where, message):
    (tmp_path / "file").write_text("")
    out = where if where.startswith("/") else str(tmp_path / where)
    proc = referee("play", "maumau", "-p", "random", "-p", BOT, "--out", out)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert message in proc.stderr.strip().splitlines()[-1]


def test_play_keeps_each_replays_bot_logs_apart(tmp_path):
    # <replay stem>.seat<N>.log: the whole stem, so two dated replays don't share one log (the echo
    # bot copies its input to stderr: a log is made only for a bot that writes there)
    echo = f"{BOT_PYTHON} tests/bots/echo.py"
    for day in ("01", "02"):
        assert referee("play", "maumau", "-p", "random", "-p", echo, "--seed", "1",
                       "--out", str(tmp_path / f"m.2024-01-{day}.jsonl.gz")).returncode == 0
    assert sorted(p.name for p in tmp_path.glob("*.log")) == ["m.2024-01-01.seat1.log", "m.2024-01-02.seat1.log"]


def test_ctrl_c_during_play_says_what_the_replay_holds(tmp_path):
    import os
    import signal
    import time

    out = tmp_path / "long.jsonl"
    proc = subprocess.Popen([sys.executable, "-m", "referee", "play", "mayor", "-p", BOT, "-p", "random", "-p", "random",
                             "-p", "random", "--set", "deals=1000", "--out", str(out)], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and (not out.exists() or out.read_text().count('"type":"move"') < 20):
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "Traceback" not in err, err
    first, last = err.strip().splitlines()
    assert first.startswith("warning: command bots run without a sandbox")
    assert last == f"interrupted: {out} holds the moves played so far, without a result"
    assert out.read_text().count('"type":"move"') >= 20


def test_validate_refuses_a_json_path_it_cannot_write_before_playing(tmp_path):
    proc = referee("validate", "maumau", "--json", str(tmp_path), "--", *BOT.split())
    assert proc.returncode == 2 and proc.stderr.strip().endswith("it is a directory"), proc.stderr
    assert "matches played" not in proc.stdout


@pytest.mark.parametrize("args", [["play", "maumau", "-p", "random", "-p", "random", "--move-ms", "2147483647"],
                                  ["validate", "maumau", "--memory-mb", str(10**20), "--", *BOT.split()],
                                  ["validate", "maumau", "--cpu-s", str(10**9), "--", *BOT.split()]])
def test_limits_past_their_caps_are_usage_errors_not_the_bots_fault(args):
    # past the caps a timeout overflows the poll, and prlimit refuses the limit (blamed on the bot)
    proc = referee(*args)
    assert proc.returncode == 2 and "less than or equal to" in proc.stderr and "Traceback" not in proc.stderr


def _strip_ms(path):
    recs = [json.loads(line) for line in path.read_text().splitlines()]
    for r in recs:
        r.pop("ms", None)
        r.pop("resources", None)  # the result's times, CPU and memory (issue 29), as the moves' ms
    return recs


def test_play_twice_with_the_deal_key_pinned_gives_identical_replays_apart_from_ms(tmp_path, monkeypatch):
    monkeypatch.setenv("REFEREE_DEAL_KEY", "an organiser's own key, pinned")
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    for out in (a, b):
        proc = referee("play", "maumau", "-p", "random", "-p", BOT, "-p", "maumau-greedy",
                       "--seed", "7", "--out", str(out))
        assert proc.returncode == 0, proc.stderr
    assert _strip_ms(a) == _strip_ms(b)


def test_the_same_seed_under_fresh_deal_keys_deals_differently(tmp_path, monkeypatch):
    # issue 15 #1: the seed alone (public, or guessable) no longer gives the deal away
    monkeypatch.delenv("REFEREE_DEAL_KEY", raising=False)
    deals, ids = [], []
    for k in range(2):
        out = tmp_path / f"{k}.jsonl"
        proc = referee("play", "maumau", "-p", "random", "-p", "random", "--seed", "7", "--out", str(out))
        assert proc.returncode == 0, proc.stderr
        recs = _strip_ms(out)
        deals.append(next(r["hands"] for r in recs if r["type"] == "deal"))
        ids.append(recs[0]["match"])
    assert deals[0] != deals[1] and ids[0] != ids[1]
    assert all(len(mid.split("-")) == 2 for mid in ids)  # "<game>-<hex>": no seed in it


def test_log_protocol_writes_every_line_exchanged(tmp_path):
    log = tmp_path / "proto.txt"
    proc = referee("play", "maumau", "-p", "random", "-p", BOT, "--seed", "3",
                   "--out", str(tmp_path / "m.jsonl"), "--log-protocol", str(log))
    assert proc.returncode == 0, proc.stderr
    lines = log.read_text().splitlines()
    sent = [json.loads(line[4:]) for line in lines if line.startswith("1 > ")]
    received = [json.loads(line[4:]) for line in lines if line.startswith("1 < ")]
    assert len(sent) + len(received) == len(lines)
    assert sent[0]["type"] == "hello" and sent[-1]["type"] == "end"
    assert received[0]["type"] == "ready"
    acts = [m["id"] for m in sent if m["type"] == "act"]
    assert [m["id"] for m in received[1:]] == acts


def test_plugins_can_add_commands(tmp_path):
    (tmp_path / "greet.py").write_text(
        "import typer\n"
        "from referee.hookspecs import hookimpl\n"
        "@hookimpl\n"
        "def register_commands(cli):\n"
        "    @cli.command()\n"
        "    def greet(name: str):\n"
        "        '''Say hello.'''\n"
        "        typer.echo(f'hello {name}')\n"
    )
    proc = referee("--plugins-dir", str(tmp_path), "greet", "bots")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "hello bots"


def test_an_empty_plugins_dir_or_one_after_the_command_loads_nothing(tmp_path):
    # Path("") is "."; and a bot's own arguments (after --) are not referee options. Either way
    # the files of the current directory (maybe the bots being judged) must not run in-process.
    marker = tmp_path / "ran"
    (tmp_path / "innocent_bot.py").write_text(f"open({str(marker)!r}, 'w').write('x')\n")
    for args in (["--plugins-dir", "", "games"], ["--plugins-dir=", "games"]):
        proc = referee(*args, cwd=tmp_path)
        assert proc.returncode == 2 and "--plugins-dir is empty" in proc.stderr, proc.stderr
    proc = referee("validate", "maumau", "--seeds", "1", "--", BOT_PYTHON, str(ROOT / "bots/python/random_bot.py"),
                   "--plugins-dir", ".", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert not marker.exists()
    assert referee("--plugins-dir", ".", "games", cwd=tmp_path).returncode == 0 and marker.exists()  # asked for


@pytest.mark.parametrize("game, players, expect", [
    ("presidente", ["presidente-greedy", "random", "random", BOT], ["place 1", "Deals"]),
    ("mayor", ["mayor-greedy", "random", "random", BOT], ["candidate", "Deals"]),
])
def test_play_prints_each_deal(tmp_path, game, players, expect):
    args = ["play", game, "--seed", "3", "--out", str(tmp_path / "m.jsonl")]
    for p in players:
        args += ["-p", p]
    proc = referee(*args)
    assert proc.returncode == 0, proc.stderr
    for text in expect:
        assert text in proc.stdout
