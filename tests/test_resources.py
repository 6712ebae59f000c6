"""Per-seat resources (issue 29): each seat's decision times as percentiles, a bot's CPU seconds
and peak memory, in the result record (never in the `end` told to bots), `play --json`, the
journal and the standings (per entrant, in any order), and replays with or without them verify."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from referee.bots import sandbox
from referee.bots.pool import BotPool
from referee.match import make_players
from referee.players import Player, StrategyPlayer
from referee.plugins import load_registry
from referee.replay.records import read_replay
from referee.replay.verify import verify_file
from referee.resources import hist_counts, hist_percentile, histogram, percentile, seat_record
from referee.runner import Limits, Seat, run_match
from referee.tournament import standings
from referee_strategies.basic import RandomLegal

from botpython import BOT_PYTHON

ROOT = Path(__file__).resolve().parent.parent
HUNGRY = ROOT / "tests" / "bots" / "hungry.py"
REGISTRY = load_registry()
MAUMAU = REGISTRY.games["maumau"]
CONFIG = {"target": 10}
needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap (bwrap) is not installed")


def strategy_seats(n: int) -> tuple[list[Seat], list[Player]]:
    seats = [Seat(f"random#{i}", "strategy", "random") for i in range(n)]
    return seats, [StrategyPlayer(RandomLegal("maumau", i, CONFIG, random.Random(i))) for i in range(n)]


# -- percentiles ----------------------------------------------------------------------------------


def test_percentiles_of_a_known_list_are_nearest_rank():
    values = [float(v) for v in range(1, 11)]  # 1..10
    assert percentile(values, 0.5) == 5.0 and percentile(values, 0.9) == 9.0 and percentile(values, 1.0) == 10.0
    assert percentile([7.0], 0.5) == percentile([7.0], 0.9) == 7.0
    assert percentile([], 0.5) is None
    # a timed decision only: a fault that took no time is none, nor a NaN or an infinity
    record = seat_record([3.04, 0.0, 1.0, 2.0, 4.0, float("nan"), float("inf"), 10.06], None)
    assert record == {"decisions": 5, "ms_p50": 3.0, "ms_p90": 10.1, "ms_max": 10.1, "cpu_s": None,
                      "peak_mb": None, "measured": "in-process"}
    assert seat_record([], None)["ms_p50"] is None


def test_the_histogram_gives_percentiles_within_its_bin():
    rng = random.Random(5)
    ms = [rng.lognormvariate(0, 2) for _ in range(2000)]
    counts = hist_counts(histogram(ms))
    assert sum(counts.values()) == len(ms)
    for q in (0.5, 0.9):
        exact = percentile(sorted(ms), q)
        assert abs(hist_percentile(counts, q) / exact - 1) < 0.05, q
    assert hist_counts([]) == {} and hist_counts(["x", 1]) == {} and hist_percentile({}, 0.5) is None


class Timed(Player):
    """Plays the first legal action, saying it took each of `times` in turn."""

    def __init__(self, times: list[float]) -> None:
        self.times, self.k = times, 0

    def start(self, hello):
        return None

    def act(self, id, obs, legal, time_ms):
        from referee.players import Reply

        self.k += 1
        return Reply(index=0, ms=self.times[(self.k - 1) % len(self.times)])

    def event(self, event):
        pass

    def end(self, result):
        pass


def test_the_runner_reports_each_seats_times_as_the_percentiles_of_its_own_decisions(tmp_path):
    seats, players = strategy_seats(2)
    players[1] = Timed([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0])
    result = run_match(MAUMAU, CONFIG, 3, seats, players, replay=tmp_path / "m.jsonl")
    mine = result.resources[1]
    asked = len(result.times[1])
    assert mine["decisions"] == asked > 10
    times = sorted(float(1 + k % 10) for k in range(asked))
    assert (mine["ms_p50"], mine["ms_p90"], mine["ms_max"]) == (percentile(times, .5), percentile(times, .9), 10.0)
    assert mine["measured"] == "in-process" and mine["cpu_s"] is None and mine["peak_mb"] is None
    assert list(read_replay(tmp_path / "m.jsonl"))[-1]["resources"] == result.resources


def test_strategy_seats_give_times_only_in_process(tmp_path):
    seats, players = strategy_seats(3)
    result = run_match(MAUMAU, CONFIG, 1, seats, players)
    assert len(result.resources) == 3
    for r in result.resources:
        assert r["measured"] == "in-process" and r["cpu_s"] is None and r["peak_mb"] is None
        assert r["decisions"] > 0 and 0 <= r["ms_p50"] <= r["ms_p90"] <= r["ms_max"]
    assert sum(r["decisions"] for r in result.resources) == result.decisions


# -- the `end` told to bots -------------------------------------------------------------------------


class Listener:
    """A monitor that keeps every message sent."""

    def __init__(self) -> None:
        self.messages: list[dict] = []

    def sent(self, seat, message, state):
        self.messages.append(message)

    def stepped(self, state):
        pass


def test_the_end_message_holds_no_resources(tmp_path):
    seats, players = strategy_seats(2)
    seats[1] = Seat("echo", "command", f"{BOT_PYTHON} {ROOT / 'tests' / 'bots' / 'echo.py'}")
    players = make_players(MAUMAU, CONFIG, 2, seats, REGISTRY, Limits(), tmp_path, "m")
    monitor = Listener()
    result = run_match(MAUMAU, CONFIG, 2, seats, players, replay=tmp_path / "m.jsonl", monitor=monitor)
    assert result.result["resources"] == result.resources
    ends = [m for m in monitor.messages if m["type"] == "end"]
    assert len(ends) == 2 and all("resources" not in m["result"] for m in ends)
    # what the bot itself read (its stderr log holds every line it received)
    got = [json.loads(line) for line in (tmp_path / "m.seat1.log").read_text().splitlines()]
    (end,) = [m for m in got if m["type"] == "end"]
    assert "resources" not in end["result"] and end["result"]["scores"] == result.result["scores"]


# -- a bot's CPU and memory -------------------------------------------------------------------------


def hungry_match(tmp_path: Path, box: str) -> list[dict]:
    seats = [Seat(mode, "command", f"{BOT_PYTHON} {HUNGRY} {mode}") for mode in ("idle", "burn", "hog")]
    limits = Limits(sandbox=box, memory_mb=2048, move_ms=10000)  # never late on a busy machine
    players = make_players(MAUMAU, CONFIG, 4, seats, REGISTRY, limits, tmp_path, "m")
    return run_match(MAUMAU, CONFIG, 4, seats, players, limits).resources


@pytest.mark.parametrize("box", ["none", pytest.param("bwrap", marks=needs_bwrap)])
def test_a_bot_that_burns_cpu_or_takes_memory_shows_it(tmp_path, box):
    """Wide margins: 0.3 s of busy loop, 100 MB touched; in the sandbox too, where the bot is a
    grandchild of the process started (bwrap's)."""
    if box == "bwrap" and not sandbox.available():
        pytest.skip("bwrap cannot build a sandbox here")
    idle, burn, hog = hungry_match(tmp_path, box)
    # in the sandbox as root the bot has a memory cgroup of its own (referee.bots.sandbox): its peak is the cgroup's
    grouped = box == "bwrap" and "memory" in sandbox.cgroup_parents()
    for r in (idle, burn, hog):
        assert r["measured"] == ("cgroup" if grouped else "process") and r["decisions"] > 0
        assert r["cpu_s"] is not None and r["peak_mb"] is not None
    assert burn["cpu_s"] >= idle["cpu_s"] + 0.2
    assert burn["ms_max"] >= 250  # the first act's time, as the referee waited for it
    assert hog["peak_mb"] >= idle["peak_mb"] + 70
    assert idle["peak_mb"] > 1  # a Python, not bwrap's own few hundred kB


def test_a_bot_disqualified_unsandboxed_gives_the_rusage_of_its_reaping(tmp_path):
    """A crash disqualifies the bot and its process is reaped at once: its CPU and peak come from
    wait4's rusage, the 0.3 s it burned included."""
    seats = [Seat("burn", "command", f"{BOT_PYTHON} {HUNGRY} burn crash"), Seat("random", "strategy", "random")]
    limits = Limits(move_ms=10000)
    players = make_players(MAUMAU, CONFIG, 6, seats, REGISTRY, limits, tmp_path, "m")
    result = run_match(MAUMAU, CONFIG, 6, seats, players, limits)
    assert result.result["disqualified"] == [0] and result.faults[0].kind == "crash"
    burn = result.resources[0]
    assert burn["measured"] == "process" and burn["cpu_s"] >= 0.25 and burn["peak_mb"] > 1
    assert burn["decisions"] == 2  # its second act timed until its end was seen; then never asked again


def test_a_kept_process_gives_this_matchs_cpu_marked_approximate(tmp_path):
    """A bot process kept by a pool for its next match: its CPU over that match only, marked
    approximate, its peak the process's so far. The bot burns 0.3 s of CPU and takes 100 MB in
    its first match only."""
    pool = BotPool(2, 100)
    limits = Limits(memory_mb=2048, move_ms=10000)  # a busy machine must not make its first act late
    seats = [Seat("burn", "command", f"{BOT_PYTHON} {HUNGRY} burn reuse"),
             Seat("hog", "command", f"{BOT_PYTHON} {HUNGRY} hog reuse")]
    found = []
    try:
        for seed in (1, 2):
            players = make_players(MAUMAU, CONFIG, seed, seats, REGISTRY, limits, tmp_path, f"m{seed}")
            players = pool.seat(players, [("burn",), ("hog",)], ("maumau", seed))
            result = run_match(MAUMAU, CONFIG, seed, seats, players, limits)
            assert not result.faults
            found.append(result.resources)
        assert pool.reused == 2
    finally:
        pool.close()
    (burn1, hog1), (burn2, hog2) = found
    assert [r["measured"] for r in (burn1, hog1, burn2, hog2)] == ["process"] * 2 + ["approximate"] * 2
    assert burn1["cpu_s"] >= 0.25 and burn2["cpu_s"] is not None and burn2["cpu_s"] <= burn1["cpu_s"] - 0.2
    assert hog1["peak_mb"] >= 90 and hog2["peak_mb"] >= 90  # the peak since the process started


# -- verify --------------------------------------------------------------------------------------


def test_verify_accepts_a_replay_with_resources_signed_and_one_without(tmp_path):
    from referee.signing import Verifier, generate

    signer = generate()
    seats, players = strategy_seats(2)
    path = tmp_path / "m.jsonl"
    run_match(MAUMAU, CONFIG, 5, seats, players, replay=path, signer=signer)
    assert "resources" in list(read_replay(path))[-1]
    verdict = verify_file(path, REGISTRY, Verifier(signer.public))
    assert verdict.discrepancy is None and verdict.signed_by
    old = tmp_path / "old.jsonl"  # as an older referee wrote it: no resources, unsigned
    recs = list(read_replay(path))
    recs[-1] = {k: v for k, v in recs[-1].items() if k not in ("resources", "signature")}
    old.write_text("".join(json.dumps(r) + "\n" for r in recs))
    assert verify_file(old, REGISTRY).discrepancy is None
    tampered = tmp_path / "tampered.jsonl"  # the resources are signed with the rest
    lines = path.read_text().splitlines(keepends=True)
    lines[-1] = lines[-1].replace('"measured":"in-process"', '"measured":"process"', 1)
    assert lines[-1] != path.read_text().splitlines(keepends=True)[-1]
    tampered.write_text("".join(lines))
    assert verify_file(tampered, REGISTRY, Verifier(signer.public)).discrepancy is not None


# -- standings -----------------------------------------------------------------------------------


def record(index: int, seats: list[str], resources: list[dict | None]) -> dict:
    rec = {"type": "match", "index": index, "key": f"m{index}", "game": "maumau", "seed": index, "seats": seats,
           "scores": [0] * len(seats), "ranks": list(range(1, len(seats) + 1)), "faults": [0] * len(seats),
           "disqualified": []}
    if any(r is not None for r in resources):
        rec["resources"] = resources
    return rec


def usage(times: list[float], cpu: float | None, peak: float | None, measured: str = "process") -> dict:
    from referee.resources import Usage

    return {**seat_record(times, Usage(cpu, peak, measured)), "ms_hist": histogram(times)}


def test_standings_pool_each_entrants_resources_in_any_order():
    recs = [
        record(0, ["a", "b"], [usage([1.0, 2.0, 3.0], 0.5, 20.0), usage([10.0], None, None, "in-process")]),
        record(1, ["b", "a"], [usage([20.0, 30.0], None, None, "in-process"), usage([4.0, 100.0], 1.25, 50.0)]),
        record(2, ["a", "b"], [usage([5.0], 0.25, 10.0, "approximate"), None]),
        record(3, ["b", "a"], [None, None]),  # an older record: no resources
    ]
    rows = standings.resource_rows(recs)
    again = standings.resource_rows([recs[3], recs[1], recs[2], recs[0]])
    assert rows == again
    a, b = rows
    assert a["entrant"] == "a" and a["matches"] == 3 and a["decisions"] == 6
    assert a["ms_max"] == 100.0 and a["cpu_s"] == 2.0 and a["cpu_s_max"] == 1.25 and a["peak_mb"] == 50.0
    assert abs(a["ms_p50"] / 3.0 - 1) < 0.05 and abs(a["ms_p90"] / 100.0 - 1) < 0.05
    assert a["measured"] == ["approximate", "process"]
    assert b["entrant"] == "b" and b["matches"] == 2 and b["decisions"] == 3 and b["cpu_s"] is None
    assert b["peak_mb"] is None and b["measured"] == ["in-process"] and b["ms_max"] == 30.0
    assert standings.resource_rows([recs[3]]) == []


def test_a_journal_with_resources_gets_a_resources_table_and_one_without_none(tmp_path):
    import tomllib

    from referee.tournament.outputs import standings_files

    head = {"type": "tournament", "name": "t"}
    with_them = [record(0, ["a", "b"], [usage([1.0, 2.0], 0.5, 20.0), usage([3.0], None, None, "in-process")]),
                 record(1, ["b", "a"], [usage([4.0], None, None, "in-process"), usage([5.0], 0.25, 30.0)])]
    for name, recs in (("new", with_them), ("old", [record(0, ["a", "b"], [None, None])])):
        journal = tmp_path / name / "journal.jsonl"
        journal.parent.mkdir()
        journal.write_text("".join(json.dumps(r) + "\n" for r in [head, *recs]))
        standings_files(journal, journal.parent, "t", REGISTRY)
    data = json.loads((tmp_path / "new" / "standings.json").read_text())
    assert data["resources"] == standings.resource_rows(with_them)
    toml = tomllib.loads((tmp_path / "new" / "standings.toml").read_text())
    assert toml["resources"][0]["cpu_s"] == 0.75 and "cpu_s" not in toml["resources"][1]  # TOML has no null
    md = (tmp_path / "new" / "standings.md").read_text()
    assert "## Resources" in md and "| a | 2 | 3 |" in md
    assert "resources" not in json.loads((tmp_path / "old" / "standings.json").read_text())
    assert "## Resources" not in (tmp_path / "old" / "standings.md").read_text()
    # the index written from the journal alone (referee replay --index) tallies them as the files do
    from referee.tournament.index import write_index

    text = write_index(tmp_path / "new", REGISTRY, viewers=False).read_text()
    assert 'id="resources"' in text and "in-process" in text
    assert 'id="resources"' not in write_index(tmp_path / "old", REGISTRY, viewers=False).read_text()


REFEREE = [sys.executable, "-m", "referee"]


def test_play_prints_and_json_carries_the_resources(tmp_path):
    bot = f"{BOT_PYTHON} {HUNGRY} burn"
    proc = subprocess.run([*REFEREE, "play", "maumau", "-p", "random", "-p", bot, "--seed", "3", "--move-ms", "10000",
                           "--set", "target=10", "--out", str(tmp_path / "m.jsonl"), "--json", "-"],
                          capture_output=True, text=True, timeout=120, env={**os.environ, "COLUMNS": "200"})
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    strategy, burner = data["resources"]
    assert strategy["measured"] == "in-process" and burner["measured"] == "process" and burner["cpu_s"] >= 0.25
    assert "Resources" in proc.stderr and "in-process" in proc.stderr  # the report, on stderr with --json -


def test_validate_reports_the_bots_cpu_and_memory(tmp_path):
    from io import StringIO

    from rich.console import Console

    from referee.cli.validate import print_report
    from referee.validate import battery, run_validation

    cases = [c for c in battery(MAUMAU, REGISTRY, 1) if c.players == 2][:2]
    report = run_validation(MAUMAU, REGISTRY, [BOT_PYTHON, str(HUNGRY), "hog"], Limits(move_ms=10000, memory_mb=2048),
                            cases=cases)
    r = report["resources"]
    assert r["matches"] == 2 and r["measured"] == ["process"] and r["peak_mb"] >= 90 and r["cpu_s"] >= r["cpu_s_max"]
    out = StringIO()
    print_report(Console(file=out, width=200), report)
    assert "Resources: CPU" in out.getvalue() and "peak memory" in out.getvalue()


def test_a_tournament_journals_each_seats_resources_and_its_times_histogram(tmp_path):
    (tmp_path / "t.toml").write_text('concurrency = 1\nseeds = 2\n[output]\nviewers = false\n'
                                     '[[entrants]]\nstrategy = "random"\n[[entrants]]\nstrategy = "first"\n'
                                     '[[games]]\ngame = "maumau"\nplayers = 2\nconfig = { target = 10 }\n')
    proc = subprocess.run([*REFEREE, "tournament", str(tmp_path / "t.toml"), "--out", str(tmp_path / "out")],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    records = [json.loads(line) for line in (tmp_path / "out" / "journal.jsonl").read_text().splitlines()[1:]]
    records = [r for r in records if r["type"] == "match"]
    assert records
    for rec in records:
        assert len(rec["resources"]) == 2
        for r in rec["resources"]:
            assert sum(hist_counts(r["ms_hist"]).values()) == r["decisions"] > 0
    data = json.loads((tmp_path / "out" / "standings.json").read_text())
    assert [row["entrant"] for row in data["resources"]] == ["first", "random"]
    assert all(row["matches"] == len(records) and row["measured"] == ["in-process"] for row in data["resources"])
    assert "Resources" in proc.stdout


def test_the_python_api_result_carries_the_resources(tmp_path):
    import referee

    result = referee.play("maumau", ["random", "first"], seed=2, config={"target": 10}, out=tmp_path / "m.jsonl")
    assert len(result.resources) == 2 and all(r["measured"] == "in-process" for r in result.resources)
    assert list(result.resources) == list(read_replay(tmp_path / "m.jsonl"))[-1]["resources"]
