"""Tournaments: schedules, duplicate seating, crash-safe journal and resume, concurrency, errors."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from referee.errors import ConfigError
from referee.plugins import load_registry
from referee.tournament.standings import read_journal
from referee.tournament import run as tour
from referee.tournament.config import load_tournament

from procs import running, with_env

ROOT = Path(__file__).resolve().parent.parent
REGISTRY = load_registry()


def referee(*args, cwd=ROOT, timeout=300):
    return subprocess.run([sys.executable, "-m", "referee", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=timeout)


def write(tmp_path: Path, text: str, name="t.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


MANY = """
name = "many"
seed = 5
duplicate = true
seeds = {seeds}
concurrency = {concurrency}
[output]
viewers = false  # these tests read the journal and standings: no viewer page to build
{entrants}
[[games]]
game = "maumau"
players = 3
config = {{ target = {target} }}
"""


def many(tmp_path, seeds=2, concurrency=1, target=100, n=5, name="t.toml"):
    entrants = "\n".join(
        f'[[entrants]]\nname = "e{i}"\nstrategy = "{["random", "first", "maumau-greedy"][i % 3]}"\n'
        for i in range(n)
    )
    return write(tmp_path, MANY.format(seeds=seeds, concurrency=concurrency, entrants=entrants, target=target),
                 name)


def test_round_robin_with_duplicate_seats_everyone_everywhere_equally(tmp_path):
    config = load_tournament(many(tmp_path, seeds=3), REGISTRY)
    matches = config.matches()
    # C(5,3) tables x 3 seeds x 3! seatings (the balanced design of 3 seats: every order)
    assert len(matches) == 10 * 3 * 6
    seats = Counter((name, seat) for m in matches for seat, name in enumerate(m.seats))
    for name in ("e0", "e1", "e2", "e3", "e4"):
        assert len({seats[(name, s)] for s in range(3)}) == 1, seats
    by_table_seed = Counter((frozenset(m.seats), m.seed) for m in matches)
    assert set(by_table_seed.values()) == {6}
    orders = {}
    for m in matches:
        orders.setdefault((frozenset(m.seats), m.seed), set()).add(m.seats)
    assert all(len(r) == 6 for r in orders.values())


def test_gauntlet_puts_the_focus_at_every_table(tmp_path):
    path = write(tmp_path, """
seed = 1
[[entrants]]
strategy = "random"
[[entrants]]
strategy = "first"
[[entrants]]
name = "r2"
strategy = "random"
[[entrants]]
strategy = "maumau-greedy"
[[games]]
game = "maumau"
players = 2
schedule = "gauntlet"
focus = "maumau-greedy"
""")
    matches = load_tournament(path, REGISTRY).matches()
    assert len(matches) == 3
    assert all("maumau-greedy" in m.seats for m in matches)


def test_schedule_fingerprint_is_the_digest_of_the_whole_schedule_as_json(tmp_path):
    # Hashed a match at a time, it must still equal the digest of the schedule as one JSON blob,
    # as journals written before recorded it: those journals still resume.
    import hashlib
    from dataclasses import asdict

    from referee.tournament.run import fingerprint

    matches = load_tournament(many(tmp_path, seeds=3), REGISTRY).matches()
    blob = json.dumps([asdict(m) for m in matches], sort_keys=True).encode()
    assert fingerprint(matches) == hashlib.sha256(blob).hexdigest()[:16]
    assert fingerprint(matches[:-1]) != fingerprint(matches)
    assert fingerprint([]) == hashlib.sha256(b"[]").hexdigest()[:16]


PLAY_ORDER = """
seed = 3
[[entrants]]
strategy = "random"
[[entrants]]
strategy = "first"
[[entrants]]
strategy = "maumau-greedy"
[[games]]
game = "maumau"
players = 3
seeds = 3
duplicate = true
[[games]]
game = "maumau"
players = 2
schedule = "gauntlet"
focus = "random"
seeds = 10
duplicate = true
sprt = { elo0 = 0, elo1 = 50, alpha = 0.05, beta = 0.05 }
"""


def test_matches_are_started_a_seating_at_a_time_entries_interleaved(tmp_path):
    """The play order (issue 19, for reused bot processes): every match of `matches()` once, the
    same specs (indices, keys); an entry without an SPRT runs each seating's seeds back to back,
    an SPRT entry keeps schedule order (its duplicate sets whole); the entries are interleaved."""
    config = load_tournament(write(tmp_path, PLAY_ORDER), REGISTRY)
    matches = config.matches()
    order = config.play_order(matches)
    assert sorted(order, key=lambda m: m.index) == matches
    plain, tested = config.spans()
    first = [m for m in order if m.index in plain]
    assert len(first) == 1 * 3 * 6  # one table, 3 seeds, 6 seatings
    for k in range(0, len(first), 3):
        run = first[k:k + 3]
        assert len({m.seats for m in run}) == 1 and len({m.seed for m in run}) == 3
    assert [m.index for m in order if m.index in tested] == list(tested)
    head = order[:len(order) // 4]
    assert any(m.index in plain for m in head) and any(m.index in tested for m in head)


def test_a_journal_written_in_schedule_order_resumes_by_index(tmp_path):
    """A journal whose matches were played in schedule order (as before the play order) resumes:
    the indices and the fingerprint are the schedule's, so the rest is played, each match once,
    to the standings of an uninterrupted run."""
    from referee.tournament import standings

    path = many(tmp_path, seeds=2, n=4, target=30)
    whole = tmp_path / "whole"
    records = tour.run(load_tournament(path, REGISTRY, out=whole))
    part = tmp_path / "part"
    part.mkdir()
    for kept in whole.glob("deal.key"):  # none where REFEREE_DEAL_KEY is set (as in the tests)
        (part / kept.name).write_bytes(kept.read_bytes())
    (part / "sign.key").write_bytes((whole / "sign.key").read_bytes())  # the key that signed the journal
    lines = (whole / "journal.jsonl").read_text().splitlines()
    prefix = [line for line in lines[1:] if json.loads(line)["index"] < len(records) // 3]
    (part / "journal.jsonl").write_text("\n".join([lines[0], *prefix]) + "\n")
    resumed = tour.run(load_tournament(path, REGISTRY, out=part), resume=True)
    assert [r["index"] for r in resumed] == list(range(len(records)))
    assert (part / "journal.jsonl").read_text().count('"type":"match"') == len(records), "each match once"
    assert standings.as_dict(standings.compute(resumed)) == standings.as_dict(standings.compute(records))


def test_killed_tournament_resumes_to_identical_standings(tmp_path):
    path = many(tmp_path, seeds=2, concurrency=1, target=150)  # 120 matches (6 seatings a seed)
    total = len(load_tournament(path, REGISTRY).matches())
    killed = tmp_path / "killed"
    proc = subprocess.Popen([sys.executable, "-m", "referee", "tournament", str(path), "--out", str(killed)],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    journal = killed / "journal.jsonl"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if journal.exists() and journal.read_text().count('"type":"match"') >= 10:
            break
        time.sleep(0.005)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    _, before = read_journal(journal)
    assert 10 <= len(before) < total, "the kill must land mid-tournament"

    resumed = referee("tournament", str(path), "--out", str(killed), "--resume")
    assert resumed.returncode == 0, resumed.stderr
    fresh = referee("tournament", str(path), "--out", str(tmp_path / "fresh"))
    assert fresh.returncode == 0, fresh.stderr

    _, after = read_journal(journal)
    assert sorted(r["index"] for r in after) == list(range(total)), "every match exactly once"
    # [output] viewers = false: the index, no viewer page
    assert (killed / "index.html").is_file() and not list((killed / "replays").glob("*.html"))
    timed = ("resources",)  # the entrants' move times, CPU and memory (issue 29): no two runs alike
    assert {k: v for k, v in json.loads((killed / "standings.json").read_text()).items() if k not in timed} == {
        k: v for k, v in json.loads((tmp_path / "fresh" / "standings.json").read_text()).items() if k not in timed}


def test_existing_journal_needs_resume(tmp_path):
    path = many(tmp_path, seeds=1, n=3)
    assert referee("tournament", str(path), "--out", str(tmp_path / "o")).returncode == 0
    again = referee("tournament", str(path), "--out", str(tmp_path / "o"))
    assert again.returncode == 2 and "--resume" in again.stderr


def test_the_cli_reads_the_journal_once_a_run(tmp_path, monkeypatch):
    """`referee tournament` prepares the run once (the journal read once), and hands it to run()."""
    from typer.testing import CliRunner

    from referee import cli

    path = many(tmp_path, seeds=1, n=3)
    out = tmp_path / "o"
    calls = []
    prepare = tour.prepare
    monkeypatch.setattr(tour, "prepare", lambda config, resume, **kw: calls.append(resume) or prepare(config, resume, **kw))
    first = CliRunner().invoke(cli.app, ["tournament", str(path), "--out", str(out), "--concurrency", "1"])
    assert first.exit_code == 0, first.output
    lines = (out / "journal.jsonl").read_text().splitlines()
    (out / "journal.jsonl").write_text("\n".join(lines[:3]) + "\n")  # the head and two matches
    again = CliRunner().invoke(cli.app, ["tournament", str(path), "--out", str(out), "--resume"])
    assert again.exit_code == 0, again.output
    assert calls == [False, True]
    assert "(2 already in the journal)" in again.output
    with pytest.raises(ValueError, match="claim"):  # a prepared run is only taken under its claim
        tour.run(load_tournament(path, REGISTRY, out=out), prepared=prepare(load_tournament(path, REGISTRY, out=out), True))


def test_resume_streams_the_journal_keeping_indices_not_records(tmp_path, monkeypatch):
    """Issue 19: prepare() reads the journal in one streamed pass and keeps the journaled indices
    (a match journaled twice once), handing each record on (`each`), never a list of them."""
    from referee.tournament import standings

    path = many(tmp_path, seeds=1, n=3)
    out = tmp_path / "o"
    assert referee("tournament", str(path), "--out", str(out)).returncode == 0
    journal = out / "journal.jsonl"
    lines = journal.read_text().splitlines()
    first = json.loads(lines[1])
    twice = {**first, "ranks": list(reversed(first["ranks"]))}
    journal.write_text("\n".join(lines[:4] + [json.dumps(twice)]) + "\n" + lines[4][:25])  # torn last line
    kept = [json.loads(line)["index"] for line in lines[1:4]]

    def whole(*args, **kwargs):
        raise AssertionError("prepare() read the whole journal into a list")

    monkeypatch.setattr(standings, "read_journal", whole)
    config = load_tournament(path, REGISTRY, out=out)
    seen = []
    with tour.claim(out):
        prepared = tour.prepare(config, True, each=lambda record: seen.append((record["index"], record["ranks"])))
    assert prepared.done == set(kept)
    assert seen == [(json.loads(line)["index"], json.loads(line)["ranks"]) for line in lines[1:4]], \
        "each record once, the first of its index"
    assert sorted(m.index for m in prepared.todo) == sorted(set(range(len(lines) - 1)) - set(kept))
    assert journal.read_text().endswith(json.dumps(twice) + "\n"), "the torn last line cut off"


def test_a_torn_last_line_is_cut_in_place_however_long(tmp_path):
    """_repair reads the journal backwards from its end, past blocks without a newline."""
    journal = tmp_path / "journal.jsonl"
    whole = b'{"type":"tournament"}\n' + b'{"type":"match"}\n' * 3
    journal.write_bytes(whole + b"x" * 200_000)  # longer than the blocks _repair reads
    tour._repair(journal)
    assert journal.read_bytes() == whole
    tour._repair(journal)
    assert journal.read_bytes() == whole, "a whole journal is left alone"
    journal.write_bytes(b"y" * 70_000)
    tour._repair(journal)
    assert journal.read_bytes() == b"", "no newline at all: nothing was ever a whole line"


def test_concurrency_two_runs_matches_at_once_in_two_processes(tmp_path):
    path = many(tmp_path, seeds=2, concurrency=2, target=300)
    proc = referee("tournament", str(path), "--out", str(tmp_path / "o"))
    assert proc.returncode == 0, proc.stderr
    _, records = read_journal(tmp_path / "o" / "journal.jsonl")
    pids = {r["pid"] for r in records}
    assert len(pids) == 2 and os.getpid() not in pids
    overlapping = any(a["pid"] != b["pid"] and a["started"] < b["ended"] and b["started"] < a["ended"]
                      for a in records for b in records)
    assert overlapping


def test_standings_command_recomputes_from_the_journal(tmp_path):
    path = many(tmp_path, seeds=1, n=3)
    assert referee("tournament", str(path), "--out", str(tmp_path / "o")).returncode == 0
    first = (tmp_path / "o" / "standings.json").read_text()
    out = referee("standings", str(tmp_path / "o" / "journal.jsonl"), "--out", str(tmp_path / "again"))
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "again" / "standings.json").read_text() == first
    for ext in ("csv", "md", "toml"):
        assert (tmp_path / "again" / f"standings.{ext}").stat().st_size > 0


def test_outside_a_terminal_progress_is_printed_as_plain_lines(tmp_path):
    # a log or CI shows no live display until the end: plain lines say how far the run is
    path = many(tmp_path, seeds=2, n=4)
    total = len(load_tournament(path, REGISTRY).matches())
    proc = referee("tournament", str(path), "--out", str(tmp_path / "o"))
    assert proc.returncode == 0, proc.stderr
    counts = [int(line.split()[0]) for line in proc.stdout.splitlines() if " matches played, " in line]
    assert len(counts) >= 5 and counts == sorted(counts) and counts[-1] == total


def test_standings_of_a_broken_journal_name_the_line_and_exit_2(tmp_path):
    path = many(tmp_path, seeds=1, n=3)
    assert referee("tournament", str(path), "--out", str(tmp_path / "o")).returncode == 0
    lines = (tmp_path / "o" / "journal.jsonl").read_text().splitlines()
    match = json.loads(lines[1])
    cases = {
        "binary": (b"\xff\xfe\x00garbage\n", "not UTF-8"),
        "not an object": (("\n".join([lines[0], "[1, 2]"] + lines[1:]) + "\n").encode(), "line 2: not a journal record"),
        "no index": (("\n".join(lines + [json.dumps({k: v for k, v in match.items() if k != "index"})]) + "\n").encode(),
                     f"line {len(lines) + 1}: a match record without an integer index"),
        "garbage mid-file": (("\n".join([lines[0], "{torn", *lines[1:]]) + "\n").encode(), "line 2: not JSON"),
    }
    for name, (data, message) in cases.items():
        journal = tmp_path / f"{name}.jsonl"
        journal.write_bytes(data)
        proc = referee("standings", str(journal), "--out", str(tmp_path / "s"))
        assert proc.returncode == 2 and "Traceback" not in proc.stderr, (name, proc.stderr)
        assert message in proc.stderr, (name, proc.stderr)
    torn = tmp_path / "torn.jsonl"  # a line cut by a crash at the very end is no error
    torn.write_text("\n".join(lines) + "\n" + lines[-1][:20])
    assert referee("standings", str(torn), "--out", str(tmp_path / "t")).returncode == 0


def test_entrant_and_tournament_names_are_shown_as_written(tmp_path):
    # rich would read "[/]" as markup (and crash); "bot [v2]" would lose its "[v2]"
    text = ('name = "T [/]"\nseed = 1\nseeds = 1\n[[entrants]]\nname = "bot [v2]"\nstrategy = "random"\n'
            '[[entrants]]\nname = "[/]"\nstrategy = "first"\n[[games]]\ngame = "maumau"\nplayers = 2\n'
            'config = { target = 30 }\n')
    proc = referee("tournament", str(write(tmp_path, text)), "--out", str(tmp_path / "o"))
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    assert "bot [v2]" in proc.stdout and "T [/]" in proc.stdout
    proc = referee("standings", str(tmp_path / "o" / "journal.jsonl"), "--out", str(tmp_path / "again"))
    assert proc.returncode == 0 and "bot [v2]" in proc.stdout, proc.stderr


BASE = """
[[entrants]]
strategy = "random"
[[entrants]]
strategy = "first"
"""


@pytest.mark.parametrize(
    "text, key",
    [
        (BASE + '[[games]]\ngame = "chess"\nplayers = 2\n', "games[0].game"),
        (BASE + '[[entrants]]\nname = "bot"\n[[games]]\ngame = "maumau"\nplayers = 2\n', "entrants[2]"),
        (BASE + '[[entrants]]\nname = "bot"\ncommand = "python3 no/such/bot.py"\n'
                '[[games]]\ngame = "maumau"\nplayers = 2\n', "entrants[2].command"),
        (BASE + '[[entrants]]\nname = "bot"\ncommand = "no-such-program-xyz"\n'
                '[[games]]\ngame = "maumau"\nplayers = 2\n', "entrants[2].command"),
        ('seed = "one"\n' + BASE + '[[games]]\ngame = "maumau"\nplayers = 2\n', "seed"),
        (BASE + '[[games]]\ngame = "maumau"\nplayers = "two"\n', "games[0].players"),
        (BASE + '[[games]]\ngame = "maumau"\nplayers = 3\n', "games[0].players"),
        (BASE + '[[games]]\ngame = "presidente"\n', "games[0].players"),
        (BASE + '[[games]]\ngame = "maumau"\nplayers = 2\nconfig = { target = "x" }\n', "games[0].config"),
        (BASE + '[[games]]\ngame = "maumau"\nplayers = 2\nschedule = "swiss"\n', "games[0].schedule"),
        (BASE + '[limits]\nmove_ms = -5\n[[games]]\ngame = "maumau"\nplayers = 2\n', "limits.move_ms"),
        (BASE + '[limits]\nspin_us = -1\n[[games]]\ngame = "maumau"\nplayers = 2\n', "limits.spin_us"),
        (BASE, "games"),
        ("this is = not toml [", "not valid TOML"),
    ],
)
def test_broken_files_give_one_line_naming_the_key(tmp_path, text, key):
    path = write(tmp_path, text)
    with pytest.raises(ConfigError, match=key.replace("[", r"\[").replace("]", r"\]").replace(".", r"\.")):
        load_tournament(path, REGISTRY)
    proc = referee("tournament", str(path), "--out", str(tmp_path / "o"))
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and key in lines[0] and str(path) in lines[0], proc.stderr


def test_missing_tournament_file_is_a_usage_error(tmp_path):
    proc = referee("tournament", str(tmp_path / "nope.toml"))
    assert proc.returncode == 2 and "does not exist" in proc.stderr


def test_ctrl_c_stops_cleanly_and_resume_finishes(tmp_path):
    bot = tmp_path / "ctrl_c_marker_bot.py"
    bot.write_text((ROOT / "bots" / "python" / "random_bot.py").read_text())
    path = write(tmp_path, f"""
seed = 3
duplicate = true
seeds = 6
concurrency = 2
[[entrants]]
strategy = "random"
[[entrants]]
strategy = "first"
[[entrants]]
name = "bot"
command = "{sys.executable} {bot}"
[[games]]
game = "maumau"
players = 3
config = {{ target = 300 }}
""")
    total = len(load_tournament(path, REGISTRY).matches())
    out = tmp_path / "o"
    proc = subprocess.Popen([sys.executable, "-m", "referee", "tournament", str(path), "--out", str(out)],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    journal = out / "journal.jsonl"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if journal.exists() and journal.read_text().count('"type":"match"') >= 3:
            break
        time.sleep(0.005)
    os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C does: the whole foreground group
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "--resume" in err or "interrupted" in err
    time.sleep(0.5)
    assert running(bot.name) == {}, "a bot survived Ctrl-C"
    lines = journal.read_text().splitlines()
    assert all(json.loads(line) for line in lines), "the journal stays valid"
    _, before = read_journal(journal)
    assert len(before) < total
    resumed = referee("tournament", str(path), "--out", str(out), "--resume")
    assert resumed.returncode == 0, resumed.stderr
    _, after = read_journal(journal)
    assert sorted(r["index"] for r in after) == list(range(total))


STUBBORN_BOT = """
import json, signal, sys, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
signal.signal(signal.SIGPIPE, signal.SIG_IGN)
try:
    for line in sys.stdin:
        m = json.loads(line)
        reply = None
        if m["type"] == "hello":
            reply = {"type": "ready", "name": "stubborn"}
        elif m["type"] == "act":
            reply = {"type": "action", "id": m["id"], "index": 0}
        if reply is not None:
            sys.stdout.write(json.dumps(reply) + "\\n")
            sys.stdout.flush()
except OSError:
    pass
time.sleep(60)  # outlives its referee unless something kills it
"""


def bot_against_random(tmp_path: Path, name: str, code: str) -> tuple[Path, Path]:
    """A bot script `name`.py (its name marks its processes) and a 20-seed Mau Mau tournament
    of it against `random`, 2 matches at once: (the bot's path, the tournament file)."""
    bot = tmp_path / f"{name}.py"
    bot.write_text(code)
    path = write(tmp_path, f"""
seed = 4
seeds = 20
concurrency = 2
[[entrants]]
strategy = "random"
[[entrants]]
name = "{name}"
command = "{sys.executable} {bot}"
[[games]]
game = "maumau"
players = 2
""")
    return bot, path


def test_killed_tournament_leaves_no_bot_behind(tmp_path):
    """SIGKILL of the driver and its workers: the bots (ignoring EOF, EPIPE and SIGTERM) die too."""
    bot, path = bot_against_random(tmp_path, "sigkill_marker_stubborn", STUBBORN_BOT)
    out = tmp_path / "o"
    proc = subprocess.Popen([sys.executable, "-m", "referee", "tournament", str(path), "--out", str(out)],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not running(bot.name):
        time.sleep(0.005)
    assert running(bot.name), "the bot never started"
    os.killpg(proc.pid, signal.SIGKILL)  # driver and workers, no cleanup anywhere
    proc.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and running(bot.name):
        time.sleep(0.05)
    leftover = list(running(bot.name))
    for pid in leftover:
        os.kill(pid, signal.SIGKILL)
    assert leftover == [], "a bot outlived its killed worker"


SLOW_BOT = """
import json, sys, time
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "hello":
        print(json.dumps({"type": "ready", "name": "slow"}), flush=True)
    elif m["type"] == "act":
        time.sleep(0.03)
        print(json.dumps({"type": "action", "id": m["id"], "index": 0}), flush=True)
"""

RUN_VAR = "REFEREE_TEST_RUN"


def started_by(run: str) -> dict[int, str]:
    """{pid: command line} of live processes whose environment holds RUN_VAR=run."""
    return with_env(RUN_VAR, run)


def test_workers_end_with_a_killed_driver(tmp_path):
    """SIGKILL of the driver alone: its workers (and multiprocessing's helpers) end too, each
    killing its bots, instead of playing on and writing replays a --resume run writes too."""
    bot, path = bot_against_random(tmp_path, "orphan_marker_slow", SLOW_BOT)
    run = f"{os.getpid()}-{time.monotonic_ns()}"
    proc = subprocess.Popen([sys.executable, "-m", "referee", "tournament", str(path), "--out", str(tmp_path / "o")],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True, env={**os.environ, RUN_VAR: run})
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and len(running(bot.name)) < 2:
        time.sleep(0.005)
    assert len(running(bot.name)) == 2, "the bots never started"
    assert len(started_by(run)) >= 6  # driver, forkserver, resource tracker, 2 workers, bots
    os.kill(proc.pid, signal.SIGKILL)  # the driver only
    proc.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and started_by(run):
        time.sleep(0.05)
    left = started_by(run)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert left == {}, "processes outlived their killed driver"


def test_a_killed_driver_leaves_no_named_semaphore_and_no_warning(tmp_path):
    """SIGKILL of the driver: no "leaked semaphore objects" warning from multiprocessing's
    resource tracker (issue 29), as no process of the run holds a named POSIX semaphore (the
    pool's locks are pipes: referee/tournament/pipesync.py), so none can be left in /dev/shm."""
    bot, path = bot_against_random(tmp_path, "semaphore_marker_slow", SLOW_BOT)
    run = f"{os.getpid()}-{time.monotonic_ns()}"
    err = tmp_path / "stderr"
    with open(err, "wb") as stderr:
        proc = subprocess.Popen([sys.executable, "-m", "referee", "tournament", str(path), "--out",
                                 str(tmp_path / "o")], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=stderr,
                                start_new_session=True, env={**os.environ, RUN_VAR: run})
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and len(running(bot.name)) < 2:
        time.sleep(0.005)
    assert len(running(bot.name)) == 2, "the bots never started"
    named = {}
    for pid in started_by(run):
        try:
            # glibc maps a semaphore it made as sem.XXXXXX (deleted), a link it made under the name
            named[pid] = [line for line in Path(f"/proc/{pid}/maps").read_text().splitlines() if "/dev/shm/sem." in line]
        except OSError:
            pass  # ended meanwhile
    os.kill(proc.pid, signal.SIGKILL)  # the driver only: the tracker, if any, outlives it
    proc.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and started_by(run):  # the tracker writes its warning, then ends
        time.sleep(0.05)
    for pid in started_by(run):
        os.kill(pid, signal.SIGKILL)
    assert proc.pid in named and not any(named.values()), named
    text = err.read_text()
    assert "leaked semaphore" not in text and "resource_tracker" not in text, text


def test_pipe_semaphores_count_and_time_out():
    from referee.tournament.pipesync import PipeSemaphore

    sem = PipeSemaphore(2)
    assert sem._semlock._get_value() == 2 and sem.acquire() and sem.acquire(False)
    assert sem._semlock._is_zero() and not sem.acquire(False)
    start = time.monotonic()
    assert not sem.acquire(True, 0.05) and time.monotonic() - start >= 0.05
    sem.release()
    with sem:
        assert sem._semlock._get_value() == 0
    assert sem._semlock._get_value() == 1


def test_an_output_directory_in_use_is_refused(tmp_path):
    """A second run on an output directory another run holds stops at once: one line, exit 2."""
    from referee.tournament.run import claim

    path = many(tmp_path, seeds=1, n=3)
    out = tmp_path / "o"
    with claim(out):  # the first run, in this process
        second = referee("tournament", str(path), "--out", str(out))
    assert second.returncode == 2, second.stderr
    lines = second.stderr.strip().splitlines()
    assert len(lines) == 1 and "in use by another run" in lines[0] and f"pid {os.getpid()}" in lines[0], lines
    assert not (out / "journal.jsonl").exists()
    assert referee("tournament", str(path), "--out", str(out)).returncode == 0, "released when the run ends"


def test_a_match_journaled_twice_counts_once(tmp_path):
    path = many(tmp_path, seeds=1, n=3)
    out = tmp_path / "o"
    assert referee("tournament", str(path), "--out", str(out)).returncode == 0
    journal = out / "journal.jsonl"
    _, records = read_journal(journal)
    twice = {**records[0], "ranks": list(reversed(records[0]["ranks"])), "scores": [0] * len(records[0]["seats"])}
    with open(journal, "a") as f:
        f.write(json.dumps(twice) + "\n")
    assert read_journal(journal)[1] == records, "the first record of an index wins"
    again = referee("standings", str(journal), "--out", str(tmp_path / "again"))
    assert again.returncode == 0, again.stderr
    assert (tmp_path / "again" / "standings.json").read_text() == (out / "standings.json").read_text()


def killer_tournament(tmp_path, once=None):
    """Random and first, and a bot that SIGKILLs its worker on its 2nd act (only once in all,
    with `once`: the file it creates as it does)."""
    env = f'env = {{ WORKER_KILLER_ONCE = "{once}" }}' if once else ""
    return write(tmp_path, f"""
seed = 1
seeds = 3
concurrency = 2
[[entrants]]
strategy = "random"
[[entrants]]
strategy = "first"
[[entrants]]
name = "killer"
command = "{sys.executable} {ROOT / 'tests' / 'bots' / 'worker_killer.py'}"
{env}
[[games]]
game = "maumau"
players = 2
""")


def test_a_worker_killed_by_a_bot_is_replaced_and_its_matches_played_again(tmp_path):
    once = tmp_path / "killed-once"
    path = killer_tournament(tmp_path, once)
    proc = referee("tournament", str(path), "--out", str(tmp_path / "o"))
    assert proc.returncode == 0, proc.stderr
    assert once.exists(), "the bot killed its worker"
    assert "Traceback" not in proc.stderr
    warned = [line for line in proc.stdout.splitlines() if line.startswith("warning: a worker process was killed")]
    assert len(warned) == 1 and "played again" in warned[0], proc.stdout
    total = len(load_tournament(path, REGISTRY).matches())
    lines = [json.loads(line) for line in (tmp_path / "o" / "journal.jsonl").read_text().splitlines()]
    assert sorted(r["index"] for r in lines if r["type"] == "match") == list(range(total)), "every match once"


# A worker as a pool runs it: its match (a stand-in that never ends), then, the match stopped by
# SIGTERM, the wait for the next task (which, from Python 3.12, never comes to a broken pool).
TERMINATED_WORKER = """
import sys, time
from referee.tournament import play as worker, workers
workers._worker_init(None)
def play(*args, **kwargs):
    print("playing", flush=True)
    time.sleep(300)
worker.play = play
try:
    worker.play_local(None, {}, None, "", None)
except BaseException as exc:
    print("stopped:", type(exc).__name__, flush=True)
time.sleep(300)
"""


@pytest.mark.parametrize("signals", [1, 2])
def test_a_worker_ends_once_sigterm_has_stopped_its_match(signals):
    """SIGTERM (once, or twice as a broken pool sends it from Python 3.12) stops a worker's
    match and ends the worker: it never goes back to wait for a task, which a broken pool on
    Python 3.12 and later waited for forever (the pool sends no sentinel there)."""
    proc = subprocess.Popen([sys.executable, "-c", TERMINATED_WORKER], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline() == "playing\n"
        for _ in range(signals):
            proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) == 1, "the worker ended"
        assert proc.stdout.read() == "", "the match stopped without going back to the task loop"
    finally:
        proc.kill()
        proc.wait()


def test_a_match_that_kills_its_worker_twice_ends_the_run_with_one_line(tmp_path):
    path = killer_tournament(tmp_path)
    out = tmp_path / "o"
    run = f"{os.getpid()}-{time.monotonic_ns()}"
    proc = subprocess.run([sys.executable, "-m", "referee", "tournament", str(path), "--out", str(out)], cwd=ROOT,
                          capture_output=True, text=True, timeout=300, env={**os.environ, RUN_VAR: run})
    assert proc.returncode == 1
    warning, *lines = proc.stderr.strip().splitlines()
    assert warning.startswith("warning: command bots run without a sandbox"), proc.stderr
    assert len(lines) == 1, proc.stderr
    assert "killed outright" in lines[0] and "--sandbox bwrap" in lines[0] and "--resume" in lines[0]
    keys = {m.key: m for m in load_tournament(path, REGISTRY).matches()}
    named = [key for key in keys if f" {key} " in lines[0] or f" {key}," in lines[0]]
    assert named and all("killer" in keys[key].seats for key in named), lines[0]
    assert all(json.loads(line) for line in (out / "journal.jsonl").read_text().splitlines())
    deadline = time.monotonic() + 10  # multiprocessing's helpers end just after the driver
    while time.monotonic() < deadline and started_by(run):
        time.sleep(0.05)
    assert started_by(run) == {}, "no worker or bot is left"


# -- lean output for big runs (issue 19) -------------------------------------------------------------


def test_output_keeps_only_the_replays_of_matches_with_a_fault_compressed(tmp_path):
    from referee.replay.records import read_replay
    from referee.tournament.config import load_tournament

    path = tmp_path / "t.toml"
    path.write_text(f'name = "t"\nseeds = 3\n[output]\nreplays = "faults"\ncompress = true\n'
                    f'[[entrants]]\nstrategy = "random"\n[[entrants]]\nname = "bot"\n'
                    f'command = "{sys.executable} {ROOT / "tests" / "bots" / "illegal.py"}"\n'
                    f'[[entrants]]\nstrategy = "first"\n[[games]]\ngame = "maumau"\nplayers = 2\n')
    config = load_tournament(path, REGISTRY, out=tmp_path / "out")
    records = tour.run(config)
    with_fault = [r for r in records if any(r["faults"])]
    assert len(records) == 9 and len(with_fault) == 6
    assert all(r["replay"] is None for r in records if not any(r["faults"]))
    kept = sorted(p.name for p in (tmp_path / "out" / "replays").iterdir() if ".jsonl" in p.name)
    assert kept == sorted(f"{r['key']}.jsonl.gz" for r in with_fault)  # no partial file left either
    for r in with_fault:
        assert list(read_replay(tmp_path / "out" / r["replay"]))[-1]["type"] == "result"
    assert config.output.viewers  # by default a viewer page per kept replay
    path.write_text(path.read_text().replace("compress = true\n", "compress = true\nviewers = false\n"))
    assert not load_tournament(path, REGISTRY).output.viewers
    path.write_text(path.read_text().replace("viewers = false", 'viewers = "no"'))
    with pytest.raises(ConfigError, match="output.viewers"):
        load_tournament(path, REGISTRY)


def test_replays_of_a_long_schedule_spread_over_folders_of_1000():
    from referee.tournament.config import Output

    assert Output().replay(12, "k") == "replays/k.jsonl"
    assert Output(compress=True, shard=True).replay(12345, "k") == "replays/0012/k.jsonl.gz"


def test_remote_files_land_only_under_replays(tmp_path):
    tour._write_files(tmp_path, {"replays/a.jsonl": b"1", "replays/0001/b.jsonl": b"2", "journal.jsonl": b"x",
                                 "replays/../journal.jsonl": b"x", "replays/0001/../../c": b"x"})
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file()) == [
        "replays/0001/b.jsonl", "replays/a.jsonl"]
