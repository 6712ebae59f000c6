"""Reusing bot processes (issue 19): a bot that declares `"reuse": true` in its ready plays
several matches of a tournament worker in one process ("Reusing a bot process",
docs/protocol.md), each match opening with its own hello, and fairness holds: no process plays
a deal twice or two seats at once, a fault or a conduct note or `reuse_matches` matches end it,
each match logs into its own file, the sandbox holds, and the results are those of a fresh
process per match.

The test bot (`REUSER`, written into each test's directory) logs to stderr its pid, the match id
and its count of matches at each hello, and the first act id of each match, so the logs tell
which process played which match.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import pytest

from referee import sealing
from referee.bots import sandbox
from referee.errors import ConfigError
from referee.match import make_players
from referee.plugins import load_registry
from referee.runner import Limits, Seat, run_match
from referee.tournament import standings
from referee.tournament.standings import read_journal
from referee.tournament import run as tour
from referee.bots.player import SubprocessPlayer
from referee.bots.pool import BotPool
from referee.tournament.run import JOURNAL
from referee.tournament.config import REUSE_MATCHES, load_tournament

from procs import running
from botpython import BOT_PYTHON, open_folder

ROOT = Path(__file__).resolve().parent.parent
BOTS = ROOT / "bots"
REGISTRY = load_registry()
MAUMAU = REGISTRY.games["maumau"]

REUSER = r'''
import json, os, random, subprocess, sys, time
modes = sys.argv[1:]
me = f"{os.getpid()}.{os.urandom(4).hex()}"  # pids repeat across sandboxes (each its own namespace)
matches = 0
match = None
flooded = forked = False


def say(text):
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    m = json.loads(line)
    kind = m["type"]
    if kind == "hello":
        matches += 1
        match, first = m["match"], True
        rng = random.Random(f"{match}/{m['seat']}")
        say(f"hello pid={me} match={match} n={matches}")
        if "peek" in modes:
            for name in ("journal.jsonl", "replays"):
                say(f"peek {name} {os.path.exists(os.path.join(os.environ['OUTPUTS'], name))}")
            say(f"scratch {sorted(f for f in os.listdir(os.environ['TMPDIR']) if f[:1] == 'm')}")
            open(os.path.join(os.environ["TMPDIR"], f"m{matches}"), "w").close()
        if f"hang@{matches}" in modes:
            time.sleep(30)  # never answers this hello
        ready = {"type": "ready", "name": "reuser"}
        if "noreuse" not in modes:
            ready["reuse"] = True
        send(ready)
    elif kind == "act":
        if first:
            say(f"act id={m['id']} match={match}")
            first = False
        index = rng.randrange(len(m["legal"]))
        if f"illegal@{matches}" in modes:
            index = len(m["legal"])
        if f"crash@{matches}" in modes:
            sys.exit(3)
        if f"flood@{matches}" in modes and not flooded:
            flooded = True
            sys.stderr.write("x" * 1_100_000 + "\n")
        if f"fork@{matches}" in modes and not forked:
            forked = True
            subprocess.Popen(["sleep", "30"])
        send({"type": "action", "id": m["id"], "index": index})
    elif kind == "end":
        say(f"end match={match}")
        if "exit-at-end" in modes:
            break
        if "chatter" in modes:
            sys.stdout.write("\n{}\n")
            sys.stdout.flush()
say(f"eof pid={me} n={matches}")
'''

HELLO = re.compile(r"hello pid=((\d+)\.\w+) match=(\S+) n=(\d+)")  # process (pid.token), pid, match, n


def hellos(log: Path, timeout: float = 10.0) -> list[tuple[str, ...]]:
    """The hello lines of a seat's log, once there is one: a kept process's stderr is drained by
    a thread of its own, which may write its last lines into the log a moment after the match."""
    deadline = time.monotonic() + timeout
    while True:
        found = HELLO.findall(log.read_text(errors="replace")) if log.exists() else []
        if found or time.monotonic() > deadline:
            return found
        time.sleep(0.02)


@pytest.fixture
def reuser() -> Path:
    folder = open_folder("reuser-")  # readable by the bot's own uid when run as root
    path = folder / "reuser_bot.py"
    path.write_text(REUSER)
    yield path
    shutil.rmtree(folder)


def tournament(tmp_path: Path, bot: Path, *modes: str, seeds: int = 4, duplicate: bool = False,
               limits: str = "", entrants: str = "", players: int = 2, target: int = 10) -> Path:
    """A Mau Mau tournament: the test bot (entrant "bot", with `modes`) against `random`."""
    path = tmp_path / "t.toml"
    path.write_text(f"""
name = "reuse"
seed = 11
seeds = {seeds}
duplicate = {str(duplicate).lower()}
seating = "rotation"
concurrency = 1
[output]
viewers = false
[limits]
{limits}
[[entrants]]
name = "bot"
command = "{BOT_PYTHON} {bot} {' '.join(modes)}"
{entrants}
[[entrants]]
strategy = "random"
[[games]]
game = "maumau"
players = {players}
config = {{ target = {target} }}
""")
    return path


def play(path: Path, out: Path, **kwargs) -> list[dict]:
    config = load_tournament(path, REGISTRY, out=out, **kwargs)
    return tour.run(config)


def seated(out: Path) -> dict[tuple[str, int], tuple[str, int]]:
    """{(match key, seat): (process, its count of matches)} from the seats' logs."""
    found = {}
    for log in (out / "replays").rglob("*.seat*.log"):
        key, seat = log.name[: -len(".log")].rsplit(".seat", 1)
        hellos = HELLO.findall(log.read_text(errors="replace"))
        if hellos:
            process, _, _, n = hellos[-1]
            found[key, int(seat)] = (process, int(n))
    return found


def by_pid(records: list[dict], out: Path) -> dict[str, list[dict]]:
    """Per process, the journal records of the matches it played, in the order played."""
    seats = seated(out)
    plays: dict[str, list[tuple[int, dict]]] = {}
    for r in records:
        for seat in range(len(r["seats"])):
            if (r["key"], seat) in seats:
                pid, n = seats[r["key"], seat]
                plays.setdefault(pid, []).append((n, r))
    return {pid: [r for _, r in sorted(p, key=lambda x: x[0])] for pid, p in plays.items()}


def no_bot_left(bot: Path) -> None:
    deadline = time.monotonic() + 10
    while running(bot.name) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = running(bot.name)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert not left, "a bot process outlived its tournament"


# -- the protocol -------------------------------------------------------------------------------


def test_a_bot_that_declares_reuse_gets_the_next_hello_and_ids_start_again(tmp_path, reuser):
    """Two matches through a pool: one process, two hellos, act ids counted from 1 in each (each
    seat counts its own acts), each match's stderr in its own log
    (its `end` line there, or at the head of the next match's: the referee does not wait for a
    kept bot after `end`, docs/protocol.md, "Logs")."""
    pool = BotPool(2, 100)
    seats = [Seat("bot", "command", f"{BOT_PYTHON} {reuser}"), Seat("random", "strategy", "random")]
    try:
        for seed in (1, 2):
            players = make_players(MAUMAU, {"target": 10}, seed, seats, REGISTRY, Limits(), tmp_path, f"m{seed}")
            players = pool.seat(players, [("bot",), None], ("maumau", seed))
            run_match(MAUMAU, {"target": 10}, seed, seats, players, Limits(), replay=tmp_path / f"m{seed}.jsonl")
        assert pool.started == 1 and pool.reused == 1 and pool.idle() == 1
        (kept,) = [p for idle in pool._idle.values() for p in idle]
        pid = kept.pid
    finally:
        pool.close()  # EOF ends it, as before: every line it wrote is in a log once it has
    assert not kept.running()
    matches, logs = [], []
    for seed in (1, 2):
        log = (tmp_path / f"m{seed}.seat0.log").read_text()
        (hello,) = HELLO.findall(log)
        assert int(hello[1]) == pid and int(hello[3]) == seed  # the same process, its n-th match
        assert f"act id=1 match={hello[2]}" in log  # ids restart with the match
        matches.append(hello[2])
        logs.append(log.splitlines())
    assert logs[1].pop().startswith(f"eof pid={hello[0]} ")  # what it wrote at EOF: the last log
    for k, lines in enumerate(logs):  # only its own match, but for the last one's late end line
        late = 1 if k and lines and lines[0] == f"end match={matches[k - 1]}" else 0
        assert all(f"match={matches[k]}" in line for line in lines[late:]), (k, lines)
    assert [line for lines in logs for line in lines if line.startswith("end ")] == \
        [f"end match={m}" for m in matches], "every end line, each once, in order"


def test_a_bot_that_does_not_declare_reuse_is_started_for_every_match(tmp_path, reuser):
    out = tmp_path / "o"
    records = play(tournament(tmp_path, reuser, "noreuse"), out)
    plays = by_pid(records, out)
    assert len(plays) == len(records) == 4 and all(len(p) == 1 for p in plays.values())
    for log in (out / "replays").glob("*.seat*.log"):
        text = log.read_text()
        if "hello" in text:
            assert "eof pid=" in text  # stdin closed after end, as ever
    no_bot_left(reuser)


def test_the_ready_field_reuse_must_be_true(tmp_path):
    """Only `"reuse": true` declares it; any other value is ignored (no fault)."""
    bot = tmp_path / "b.py"
    bot.write_text('import json, os, sys\nfor line in sys.stdin:\n    m = json.loads(line)\n'
                   '    if m["type"] == "hello":\n        sys.stderr.write(f"hello pid={os.getpid()}.x match=m n=1\\n")\n'
                   '        print(json.dumps({"type": "ready", "name": "b", "reuse": "yes"}), flush=True)\n'
                   '    elif m["type"] == "act":\n'
                   '        print(json.dumps({"type": "action", "id": m["id"], "index": 0}), flush=True)\n')
    out = tmp_path / "o"
    records = play(tournament(tmp_path, bot, seeds=3), out)
    assert all(r["faults"] == [0, 0] for r in records)
    assert len(by_pid(records, out)) == 3  # a process started for each


# -- fairness -----------------------------------------------------------------------------------


def test_no_process_plays_the_same_deal_twice(tmp_path, reuser):
    """Duplicate seatings share a seed: each goes to another process; the next seed reuses them."""
    out = tmp_path / "o"
    records = play(tournament(tmp_path, reuser, seeds=4, duplicate=True), out)
    assert len(records) == 8 and all(r["faults"] == [0, 0] for r in records)
    plays = by_pid(records, out)
    for pid, played in plays.items():
        deals = Counter((r["game"], r["seed"]) for r in played)
        assert max(deals.values()) == 1, f"process {pid} played a deal twice: {deals}"
    assert len(plays) == 2  # the pool keeps a process per seating: 2 processes, 4 matches each
    assert sorted(len(p) for p in plays.values()) == [4, 4]
    no_bot_left(reuser)


def test_in_the_play_order_kept_processes_play_most_seats(tmp_path):
    """Two example bots that declare reuse, 2-seat Mau Mau under 2 seatings and 6 seeds, played
    in the order a run starts them through one pool, as a worker plays them: each entrant needs
    only a process per seating (it plays that seating's every seed), the least a process that
    never plays a deal twice allows; every other seat is played by a kept process."""
    bots = "".join(f'[[entrants]]\nname = "{name}"\ncommand = "{BOT_PYTHON} {BOTS / "python" / name}.py"\n'
                   for name in ("random_bot", "smart_bot"))
    path = tmp_path / "t.toml"
    path.write_text(f'seed = 7\nseeds = 6\nduplicate = true\nconcurrency = 1\n{bots}'
                    '[[games]]\ngame = "maumau"\nplayers = 2\nconfig = { target = 10 }\n')
    out = tmp_path / "o"
    config = load_tournament(path, REGISTRY, out=out)
    pool = BotPool(*tour.reuse_pool(config))
    plays: dict[SubprocessPlayer, list[tuple]] = {}  # per process (its player), the deals it played
    seat = pool.seat

    def seating(players, keys, deal):
        seated = seat(players, keys, deal)
        for player in seated:
            plays.setdefault(player, []).append(deal)
        return seated

    pool.seat = seating
    with tour.claim(out):
        todo = tour.prepare(config, False).todo
    limits, key = tour.match_limits(config), sealing.for_directory(out)
    try:
        records = [tour.play(spec, config.entrants, limits, str(out), key=key, pool=pool) for spec in todo]
    finally:
        pool.close()
    assert len(records) == 12 and all(r["faults"] == [0, 0] for r in records)
    assert (pool.started, pool.reused) == (4, 20)
    assert sorted(map(len, plays.values())) == [6] * 4
    assert all(len(set(deals)) == len(deals) for deals in plays.values()), "a process played a deal twice"


def test_a_process_that_has_played_every_deal_of_its_entrant_is_ended_not_kept(tmp_path, reuser):
    """Told the deals of the run (`reuse_pool`), the pool ends a process once it has played them
    all, as it ends the oldest idle one: it could play nothing more."""
    seats = [Seat("bot", "command", f"{BOT_PYTHON} {reuser}"), Seat("random", "strategy", "random")]
    pool = BotPool(2, 100, deals={"bot": {("maumau", 1), ("maumau", 2)}})
    for seed in (1, 2):
        players = make_players(MAUMAU, {"target": 10}, seed, seats, REGISTRY, Limits(), tmp_path, f"m{seed}")
        players = pool.seat(players, [("bot", "its process"), None], ("maumau", seed))
        run_match(MAUMAU, {"target": 10}, seed, seats, players, Limits())
        assert pool.idle() == (1 if seed == 1 else 0)
    bot = players[0]
    pool.close()
    assert (pool.started, pool.reused) == (1, 1) and not bot.running()
    assert "eof pid=" in (tmp_path / "m2.seat0.log").read_text()  # told EOF after its last match


def test_a_process_never_sits_at_two_seats_at_once(tmp_path, reuser):
    """Two seats of the same command: two processes, even with only one kept; and a kept
    process stays its entrant's."""
    pool = BotPool(4, 100)
    command = f"{BOT_PYTHON} {reuser}"
    one = [Seat("bot", "command", command), Seat("random", "strategy", "random")]
    two = [Seat("bot#0", "command", command), Seat("bot#1", "command", command)]
    pids = []
    for seed, seats in ((1, one), (2, two), (3, two)):
        players = make_players(MAUMAU, {"target": 10}, seed, seats, REGISTRY, Limits(), tmp_path, f"m{seed}")
        players = pool.seat(players, [("same",) if s.kind == "command" else None for s in seats], ("maumau", seed))
        run_match(MAUMAU, {"target": 10}, seed, seats, players, Limits())
        pids.append([hellos(tmp_path / f"m{seed}.seat{i}.log")[0][0]
                     for i, s in enumerate(seats) if s.kind == "command"])
    assert pids[0][0] in pids[1] and len(set(pids[1])) == 2 and set(pids[2]) == set(pids[1])
    pool.close()

    out = tmp_path / "o"  # two entrants with the same command line: never one process for both
    path = tournament(tmp_path, reuser, seeds=3, players=3,
                      entrants=f'[[entrants]]\nname = "twin"\ncommand = "{BOT_PYTHON} {reuser}"\n')
    records = play(path, out)
    seats = seated(out)
    entrant_of: dict[str, set[str]] = {}
    for r in records:
        pids = [seats[r["key"], s][0] for s in range(3) if (r["key"], s) in seats]
        assert len(pids) == len(set(pids)) == 2
        for s, name in enumerate(r["seats"]):
            if (r["key"], s) in seats:
                entrant_of.setdefault(seats[r["key"], s][0], set()).add(name)
    assert all(len(names) == 1 for names in entrant_of.values())
    assert len(entrant_of) == 2  # and each entrant kept its one process
    no_bot_left(reuser)


@pytest.mark.parametrize("mode, kind", [("illegal@2", "illegal"), ("crash@2", "crash")])
def test_a_fault_ends_the_process(tmp_path, reuser, mode, kind):
    """The bot faults in the second match of each process: that process plays no more, the next
    match starts a fresh one (which plays on until its own second match)."""
    out = tmp_path / "o"
    records = play(tournament(tmp_path, reuser, mode, seeds=6), out)
    assert [r["faults"][r["seats"].index("bot")] for r in records] == [0, 1] * 3
    assert all(r["fault_log"][0]["kind"] == kind for r in records if r["fault_log"])
    plays = by_pid(records, out)
    assert len(plays) == 3 and all([sum(r["faults"]) for r in p] == [0, 1] for p in plays.values())
    no_bot_left(reuser)


@pytest.mark.parametrize("mode, note", [
    ("fork@1", "still running"),  # a child beside it at the match's end: not kept
    ("flood@1", "[stderr truncated]"),  # stderr past the log's cap: not kept
    ("chatter", None),  # wrote to stdout after end: a fresh process for the next match
])
def test_conduct_ends_the_process_and_no_match_pays_for_it(tmp_path, reuser, mode, note):
    out = tmp_path / "o"
    records = play(tournament(tmp_path, reuser, mode, seeds=3), out)
    assert all(r["faults"] == [0, 0] for r in records)
    plays = by_pid(records, out)
    assert len(plays) == 3 and all(len(p) == 1 for p in plays.values())
    if note is not None:
        logs = [p.read_text(errors="replace") for p in (out / "replays").glob("*.seat*.log")]
        assert sum(note in text for text in logs) == 3
    no_bot_left(reuser)


def test_the_seats_of_a_match_are_checked_in_one_pass_over_proc(tmp_path, reuser, monkeypatch):
    """Whether each kept seat runs alone is found for every seat of the match in one pass over
    /proc (a pass costs milliseconds on a busy machine), and a child beside a seat given back
    after the first is still found: that process is not kept, the others are."""
    from referee.bots import pool as pool_module

    passes = []
    real = pool_module.Snapshot
    monkeypatch.setattr(pool_module, "Snapshot", lambda since: passes.append(since) or real(since))
    pool = BotPool(4, 100)
    clean, forker = f"{BOT_PYTHON} {reuser}", f"{BOT_PYTHON} {reuser} fork@1"
    seats = [Seat("a", "command", clean), Seat("b", "command", clean), Seat("c", "command", forker)]
    keys = [("a",), ("b",), ("c",)]
    pids = []
    for seed in (1, 2):
        players = make_players(MAUMAU, {"target": 10}, seed, seats, REGISTRY, Limits(), tmp_path, f"m{seed}")
        players = pool.seat(players, keys, ("maumau", seed))
        run_match(MAUMAU, {"target": 10}, seed, seats, players, Limits())
        pids.append([hellos(tmp_path / f"m{seed}.seat{i}.log")[-1][0] for i in range(3)])
    assert len(passes) == 2, "one pass a match, not one a seat"
    assert pids[1][:2] == pids[0][:2], "the seats running alone were kept"
    assert pids[1][2] != pids[0][2], "the seat with a child beside it was not"
    assert "still running" in (tmp_path / "m1.seat2.log").read_text(errors="replace")
    pool.close()
    no_bot_left(reuser)


@pytest.mark.parametrize("reuse, most", [(3, 3), (1, 1), (0, 1)])
def test_reuse_matches_caps_the_matches_of_a_process(tmp_path, reuser, reuse, most):
    out = tmp_path / "o"
    records = play(tournament(tmp_path, reuser, seeds=7, limits=f"reuse_matches = {reuse}"), out)
    plays = by_pid(records, out)
    assert sum(len(p) for p in plays.values()) == 7
    assert max(len(p) for p in plays.values()) == most
    if most == 3:
        assert sorted(len(p) for p in plays.values()) == [1, 3, 3]
    no_bot_left(reuser)


def test_a_bot_that_ends_after_end_though_it_declared_reuse_plays_on_without_fault(tmp_path, reuser):
    """It exits at end: its next match starts a fresh process, as without reuse, and no match
    sees a fault (even when it is found gone only at the next hello)."""
    out = tmp_path / "o"
    records = play(tournament(tmp_path, reuser, "exit-at-end", seeds=4), out)
    assert all(r["faults"] == [0, 0] for r in records)
    assert len(by_pid(records, out)) == 4
    no_bot_left(reuser)


def test_a_kept_process_that_fails_its_next_hello_is_replaced_without_a_fault(tmp_path, reuser):
    """It does not answer its second hello within start_ms: a fresh process plays that match
    (as without reuse), and the log says so."""
    out = tmp_path / "o"
    records = play(tournament(tmp_path, reuser, "hang@2", seeds=3, limits="start_ms = 300"), out)
    assert all(r["faults"] == [0, 0] for r in records)
    second = records[1]
    log = (out / "replays" / f"{second['key']}.seat{second['seats'].index('bot')}.log").read_text()
    first_hello, fresh_hello = HELLO.findall(log)
    assert first_hello[3] == "2" and fresh_hello[3] == "1" and first_hello[0] != fresh_hello[0]
    assert ("[referee] the process kept from an earlier match failed its next hello (timeout: no ready within "
            "300 ms of hello): a fresh one was started") in log
    assert len(by_pid(records, out)) == 3  # the fresh one hangs at its own second hello, in match 3
    no_bot_left(reuser)


def test_each_match_logs_into_its_own_file(tmp_path, reuser):
    """One process plays every match; each log holds what it wrote during that match (its hello
    and first act lines), and its `end` line there or, written after the referee moved on to the
    next match, at the head of the next match's log (docs/protocol.md, "Logs": the referee does
    not wait for a kept bot after `end`); nothing is lost, nothing lands in a later match's log;
    what it writes after its last match (at EOF) goes to the last one."""
    out = tmp_path / "o"
    records = play(tournament(tmp_path, reuser, seeds=4), out)
    (played,) = by_pid(records, out).values()
    assert [r["index"] for r in played] == [0, 1, 2, 3]
    ordered = sorted(records, key=lambda r: r["index"])
    matches, logs = [], []
    for r in ordered:
        seat = r["seats"].index("bot")
        logs.append((out / "replays" / f"{r['key']}.seat{seat}.log").read_text().splitlines())
        matches.append(json.loads((out / "replays" / f"{r['key']}.jsonl").read_text().splitlines()[0])["match"])
    assert logs[3].pop() == "eof pid=%s n=4" % seated(out)[ordered[3]["key"], ordered[3]["seats"].index("bot")][0]
    for k, (match, lines) in enumerate(zip(matches, logs)):
        late = [line for line in lines if k and line == f"end match={matches[k - 1]}"]
        assert lines[:len(late)] == late, (k, lines)  # a late end line only at the head
        own = lines[len(late):]
        assert [line.split()[0] for line in own][:2] == ["hello", "act"], (k, lines)
        assert all(line.endswith(f"match={match}") or f"match={match} " in line for line in own), (k, lines)
    ends = [line for lines in logs for line in lines if line.startswith("end ")]
    assert ends == [f"end match={m}" for m in matches], "every end line, each once, in order"


def test_standings_are_the_same_with_and_without_reuse(tmp_path):
    """The example bots, which set themselves up at each hello: the same journal but for the
    timing fields, the same standings."""
    cc = shutil.which("cc")
    c_bot = tmp_path / "cbot"
    entrants = [("random-bot", f"{BOT_PYTHON} {BOTS / 'python' / 'random_bot.py'}"),
                ("smart-bot", f"{BOT_PYTHON} {BOTS / 'python' / 'smart_bot.py'}")]
    if shutil.which("node"):
        entrants.append(("js-bot", f"{shutil.which('node')} {BOTS / 'javascript' / 'bot.js'}"))
    if cc is not None:
        subprocess.run([cc, "-O2", "-std=c99", "-o", str(c_bot), str(BOTS / "c" / "bot.c"), str(BOTS / "c" / "json.c")],
                       check=True, timeout=120)
        entrants.append(("c-bot", str(c_bot)))
    text = "".join(f'[[entrants]]\nname = "{name}"\ncommand = "{command}"\n' for name, command in entrants)
    if len(entrants) < 4:
        text += '[[entrants]]\nstrategy = "random"\n'
    players = min(4, len(entrants) + 1)
    journals = {}
    for reuse in (100, 0):  # one table, 2 seeds x its rotations
        path = tmp_path / f"t{reuse}.toml"
        path.write_text(f'name = "same"\nseed = 4\nseeds = 2\nduplicate = true\nseating = "rotation"\n'
                        f'concurrency = 1\n[limits]\nreuse_matches = {reuse}\n{text}'
                        f'[[games]]\ngame = "maumau"\nplayers = {players}\nconfig = {{ target = 30 }}\n')
        out = tmp_path / f"o{reuse}"
        play(path, out)
        # (and the signatures: each run signs with its own key, over its replays' timings)
        timing = {"seconds", "pid", "started", "ended", "file", "signature", "sign_key", "replay_sha256", "resources"}
        journals[reuse] = [{k: v for k, v in json.loads(line).items() if k not in timing}
                           for line in (out / "journal.jsonl").read_text().splitlines()]
        journals[reuse, "standings"] = standings.as_dict(standings.compute(read_journal(out / JOURNAL)[1]))
    assert journals[100] == journals[0] and len(journals[0]) > 1
    assert journals[100, "standings"] == journals[0, "standings"]


# -- the sandbox --------------------------------------------------------------------------------


needs_bwrap = pytest.mark.skipif(not sandbox.available(), reason="bubblewrap cannot build a sandbox here")


@needs_bwrap
def test_a_reused_sandboxed_bot_sees_no_outputs_and_keeps_only_its_own_scratch(tmp_path, reuser):
    """In its later matches too the journal and the replays are out of sight; its scratch
    directory carries over between its matches (documented), and goes with the process."""
    out = tmp_path / "o"
    bots = open_folder("reuse-bots-")  # readable by the bot's own uid when run as root
    bot = bots / reuser.name
    shutil.copy(reuser, bot)
    path = tournament(tmp_path, bot, "peek", seeds=3, limits='sandbox = "bwrap"',
                      entrants=f'env = {{ OUTPUTS = "{out.resolve()}" }}')
    try:
        records = play(path, out)
    finally:
        shutil.rmtree(bots)
    assert all(r["faults"] == [0, 0] for r in records)
    assert len(by_pid(records, out)) == 1
    logs = [(out / "replays" / f"{r['key']}.seat{r['seats'].index('bot')}.log").read_text() for r in records]
    for n, text in enumerate(logs, 1):
        assert "peek journal.jsonl False" in text and "peek replays False" in text, text
        assert f"scratch {[f'm{k}' for k in range(1, n)]}" in text
    assert not any(Path(tempfile.gettempdir()).glob("referee-scratch-*/bot-*/m1"))  # gone with the run


@needs_bwrap
def test_the_scratch_directory_of_a_kept_process_is_removed_when_it_ends(tmp_path, reuser):
    pool = BotPool(2, 100)
    seats = [Seat("bot", "command", f"{BOT_PYTHON} {reuser}"), Seat("random", "strategy", "random")]
    limits = Limits(sandbox="bwrap")
    players = make_players(MAUMAU, {"target": 10}, 1, seats, REGISTRY, limits, tmp_path / "logs", "m1")
    players = pool.seat(players, [("bot",), None], ("maumau", 1))
    bot = players[0]
    assert isinstance(bot, SubprocessPlayer)
    run_match(MAUMAU, {"target": 10}, 1, seats, players, limits)
    assert bot.kept and bot.sandboxed and bot.scratch is not None  # its sandbox (and scratch) held
    pool.close()
    assert not bot.running() and bot.scratch is None  # the sandbox gone, its tmpfs scratch with it


# -- the tournament file, kill and resume -------------------------------------------------------


def test_reuse_matches_in_the_tournament_file(tmp_path, reuser):
    assert load_tournament(tournament(tmp_path, reuser), REGISTRY).reuse_matches == REUSE_MATCHES == 100
    config = load_tournament(tournament(tmp_path, reuser, limits="reuse_matches = 0"), REGISTRY)
    assert config.reuse_matches == 0 and tour.reuse_pool(config) is None
    config = load_tournament(tournament(tmp_path, reuser, duplicate=True, limits="reuse_matches = 5"), REGISTRY)
    size, most, deals = tour.reuse_pool(config)
    assert (size, most) == (tour.KEPT, 5)  # no SPRT: a seating's seeds in a run, KEPT idle per command
    assert deals == {"bot": frozenset(("maumau", m.seed) for m in config.matches())}  # 4 deals, fewer than 5
    config = load_tournament(tournament(tmp_path, reuser, limits="reuse_matches = 4"), REGISTRY)
    assert tour.reuse_pool(config)[2] == {}  # as many deals as matches a process plays: not told
    for value, expected in (("-1", "0 or more"), ('"many"', "an integer")):
        with pytest.raises(ConfigError, match=rf"limits\.reuse_matches: expected {expected}"):
            load_tournament(tournament(tmp_path, reuser, limits=f"reuse_matches = {value}"), REGISTRY)


def test_a_killed_tournament_with_kept_bots_resumes_to_the_same_standings(tmp_path, reuser):
    path = tournament(tmp_path, reuser, seeds=30, duplicate=True)
    total = len(load_tournament(path, REGISTRY).matches())
    killed = tmp_path / "killed"
    proc = subprocess.Popen([sys.executable, "-m", "referee", "tournament", str(path), "--out", str(killed)],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    journal = killed / "journal.jsonl"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if journal.exists() and journal.read_text().count('"type":"match"') >= 8:
            break
        time.sleep(0.005)
    os.kill(proc.pid, signal.SIGKILL)  # the driver only: its worker ends with it, killing kept bots
    proc.wait()
    no_bot_left(reuser)
    _, before = read_journal(journal)
    assert 8 <= len(before) < total, "the kill must land mid-tournament"
    resumed = subprocess.run([sys.executable, "-m", "referee", "tournament", str(path), "--out", str(killed),
                              "--resume"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    fresh = tmp_path / "fresh"
    play(path, fresh)
    _, after = read_journal(journal)
    assert sorted(r["index"] for r in after) == list(range(total))
    assert standings.as_dict(standings.compute(after)) == standings.as_dict(
        standings.compute(read_journal(fresh / JOURNAL)[1]))
    no_bot_left(reuser)


def test_the_pool_keeps_a_whole_duplicate_set_only_for_an_sprt_entry(tmp_path):
    """An SPRT entry plays the seatings of a deal back to back (each needs its own process, and
    the next set can reuse them all); any other entry a seating's seeds at a time: KEPT do."""
    def size(sprt: str) -> int:
        path = tmp_path / "t.toml"
        path.write_text(f'''
seed = 1
duplicate = true
seeds = 10
[[entrants]]
name = "bot"
command = "python3 {BOTS / 'python' / 'random_bot.py'}"
[[entrants]]
name = "a"
strategy = "random"
[[entrants]]
name = "b"
strategy = "first"
[[entrants]]
name = "c"
strategy = "random"
[[games]]
game = "presidente"
schedule = "gauntlet"
focus = "bot"
{sprt}
''')
        return tour.reuse_pool(load_tournament(path, REGISTRY))[0]

    assert size("") == tour.KEPT
    assert size("sprt = { elo0 = 0, elo1 = 10, alpha = 0.05, beta = 0.05 }") == tour.POOL_MAX  # 24 seatings, capped
