"""Hostile bots (tests/bots/): nothing a bot does may hang, crash or fool the referee, harm the
machine, or spoil the other seats' match.

Each hostile bot sits in seat 1 of a real 3-seat Mau Mau match between the `random` strategy
(seat 0) and the example bot (seat 2), plainly and inside the bubblewrap sandbox. For each: the
match ends in bounded time, the right fault is recorded, the other seats play to the end, and no
process of any bot is left. Limits are small so that the file stays fast.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import socket
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from referee.bots import sandbox as sandbox_mod
from referee.config import resolve_config
from referee.bots.limits import ResourceLimits, subprocess_options, wrapper
from referee.players import Hello, StrategyPlayer
from referee.plugins import load_registry
from referee.replay.records import read_replay
from referee.runner import Limits, MatchResult, Seat, run_match
from referee.bots.family import BOT_ID_VAR
from referee.bots.player import SubprocessPlayer
from referee_strategies.basic import RandomLegal
from botpython import BOT_PYTHON

ROOT = Path(__file__).resolve().parent.parent
BOTS = Path(__file__).resolve().parent / "bots"
RANDOM_BOT = [BOT_PYTHON, str(ROOT / "bots" / "python" / "random_bot.py")]
MOVE_MS = 250
BOUND_S = 30  # "bounded time": generous, the machine is shared
HOSTILE = 1  # the hostile bot's seat

needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap (bwrap) is not installed")
MODES = ["none", pytest.param("bwrap", marks=needs_bwrap)]
REGISTRY = load_registry()
MAUMAU = REGISTRY.games["maumau"]


def bot(name: str, *args: str) -> list[str]:
    return [BOT_PYTHON, str(BOTS / f"{name}.py"), *args]


@dataclass
class Run:
    result: MatchResult
    players: list[Any]
    elapsed: float
    out: Path

    @property
    def bot(self) -> SubprocessPlayer:
        return self.players[HOSTILE]

    def log(self, seat: int = HOSTILE) -> str:
        return (self.out / f"m.seat{seat}.log").read_text(encoding="utf-8", errors="replace")

    def faults(self, seat: int = HOSTILE) -> list[str]:
        return [f.kind for f in self.result.faults if f.seat == seat]


def play(tmp_path: Path, argv: list[str], sandbox: str = "none", move_ms: int | None = None,
         env: dict[str, str] | None = None, **limits: Any) -> Run:
    """A 3-seat Mau Mau match: random strategy, the bot `argv`, the example bot."""
    out = tmp_path / "out"
    lim = Limits(move_ms=MOVE_MS, start_ms=3000, sandbox=sandbox, **limits)
    config = resolve_config(MAUMAU, {}, 3)
    seats = [Seat("random", "strategy", "random"), Seat("hostile", "command", " ".join(argv), move_ms),
             Seat("random_bot", "command", " ".join(RANDOM_BOT), 5000)]  # never late, even on a busy machine
    opts = subprocess_options(lim)
    players = [
        StrategyPlayer(RandomLegal("maumau", 0, config, random.Random(0))),
        SubprocessPlayer(argv, log_path=out / "m.seat1.log", end_grace_ms=500, env=env, **opts),
        SubprocessPlayer(RANDOM_BOT, log_path=out / "m.seat2.log", end_grace_ms=500, **opts),
    ]
    started = time.perf_counter()
    result = run_match(MAUMAU, config, 11, seats, players, lim, replay=out / "m.jsonl")
    return Run(result, players, time.perf_counter() - started, out)


# -- finding processes, independently of the referee's own code --------------------------------


def _proc(pid: str) -> tuple[str, int, bytes, bytes] | None:
    """(state, pgid, environ, cmdline) of a process, None if it is gone or unreadable."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
        environ = Path(f"/proc/{pid}/environ").read_bytes()
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return None
    fields = stat[stat.rindex(b")") + 2 :].split()
    return fields[0].decode(), int(fields[2]), environ, cmdline


def live(match) -> list[int]:
    """Live (not zombie) processes for which match(pgid, environ, cmdline) holds."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid():
            info = _proc(entry)
            if info is not None and info[0] not in "ZX" and match(*info[1:]):
                found.append(int(entry))
    return found


def of_bot(p: SubprocessPlayer):
    marker = f"{BOT_ID_VAR}={p.bot_id}\0".encode()
    return lambda pgid, environ, cmdline: pgid == p.pid or marker in environ


def assert_gone(match, what: str = "bot") -> None:
    deadline = time.monotonic() + 5.0  # SIGKILL is sent; dying takes a moment on a busy machine
    while (left := live(match)):
        assert time.monotonic() < deadline, f"{what} processes still running: {left}"
        time.sleep(0.02)


def assert_contained(run: Run, kind: str | None, detail: str = "") -> None:
    """Bounded time; exactly the expected fault for the hostile seat (and disqualified), none
    for the others; the match played to its end; no process of any bot left."""
    res = run.result.result
    assert run.elapsed < BOUND_S
    if kind is None:
        assert run.result.faults == []
    else:
        assert run.faults() and run.faults()[0] == kind, run.result.faults
        assert detail in run.result.faults[0].detail
        assert all(f.seat == HOSTILE for f in run.result.faults)
        assert res["disqualified"] == [HOSTILE]
        assert res["ranks"][HOSTILE] == 3
    records = list(read_replay(run.out / "m.jsonl"))
    assert records[-1]["type"] == "result"
    assert any(r["type"] == "deal_end" for r in records)
    moves = [r for r in records if r["type"] == "move"]
    assert {0, 2} <= {m["seat"] for m in moves}
    assert all("fault" not in m for m in moves if m["seat"] != HOSTILE)
    for p in run.players[1:]:
        assert_gone(of_bot(p))


# -- the battery ---------------------------------------------------------------------------------


@pytest.mark.parametrize("sandbox", MODES)
@pytest.mark.parametrize("name, kind, detail", [
    ("spinner", "timeout", "no reply within"),        # an endless loop
    ("hibernator", "timeout", "no reply within"),     # sleeps forever, ignores SIGTERM
    ("garbage", "invalid", "not JSON"),
    ("deepjson", "invalid", "nested too deeply"),     # a parser bomb must not crash the referee
    ("closer", "crash", "closed its stdout"),
    ("quitter", "crash", "exited with code 3"),       # leaves mid-match
    ("stale", "timeout", "no reply within"),          # only ever answers the previous id
])
def test_hostile_bot_is_contained(tmp_path, sandbox, name, kind, detail):
    # the timeout bots are given the short limit they use up; the others time to spare, so that
    # a loaded machine never turns their crash or invalid line into a timeout
    run = play(tmp_path, bot(name), sandbox=sandbox, move_ms=MOVE_MS if kind == "timeout" else 10_000)
    assert run.bot.sandboxed == (sandbox == "bwrap")
    assert_contained(run, kind, detail)
    if name == "stale":
        assert run.bot.stats["stale"] > 0


def _vm(field: str) -> int:
    """A /proc/self/status memory figure in kB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise AssertionError(field)


@pytest.mark.parametrize("sandbox", MODES)
def test_a_100_mb_line_keeps_the_referee_memory_bounded(tmp_path, sandbox):
    Path("/proc/self/clear_refs").write_text("5")  # reset the peak (VmHWM) to the current RSS
    before = _vm("VmRSS")
    # Two faults allowed and time to spare: the referee reads all 100 MB (skipping them) to get
    # the bot's next, proper reply.
    run = play(tmp_path, bot("bigline"), sandbox=sandbox, move_ms=10_000, max_faults=2)
    growth_mb = (_vm("VmHWM") - before) / 1024
    assert growth_mb < 50, f"the referee grew by {growth_mb:.0f} MB"
    assert run.elapsed < BOUND_S
    assert run.faults() == ["invalid"]
    assert "line too long" in run.result.faults[0].detail
    assert run.result.result["disqualified"] == []
    moves = [r for r in read_replay(run.out / "m.jsonl") if r["type"] == "move" and r["seat"] == HOSTILE]
    assert len(moves) > 2 and all("fault" not in m for m in moves[1:])  # it played on, properly
    for p in run.players[1:]:
        assert_gone(of_bot(p))


@pytest.mark.parametrize("sandbox", MODES)
def test_stderr_flood_is_capped_and_costs_the_match_nothing(tmp_path, sandbox):
    Path("/proc/self/clear_refs").write_text("5")
    before = _vm("VmRSS")
    run = play(tmp_path, bot("stderrflood"), sandbox=sandbox)
    assert (_vm("VmHWM") - before) / 1024 < 50
    assert_contained(run, None)
    log = (run.out / "m.seat1.log").read_bytes()
    assert len(log) <= 1_000_000 + 100 and b"[stderr truncated]" in log
    assert [k for k, _ in run.bot.conduct] == ["stderr-flood"]


@pytest.mark.parametrize("sandbox", MODES)
def test_memory_hog_is_stopped_by_its_address_space_limit(tmp_path, sandbox):
    run = play(tmp_path, bot("hog"), sandbox=sandbox, move_ms=20_000, memory_mb=200)
    assert_contained(run, "crash")
    assert "MemoryError" in run.result.faults[0].stderr_tail or "signal" in run.result.faults[0].detail


@pytest.mark.parametrize("sandbox", MODES)
def test_cpu_burner_is_stopped_by_its_cpu_limit(tmp_path, sandbox):
    # A move limit far beyond the CPU limit: the kernel stops the loop, not the deadline.
    run = play(tmp_path, bot("spinner"), sandbox=sandbox, move_ms=20_000, cpu_s=1)
    assert_contained(run, "crash", "killed by signal SIGXCPU")


@pytest.mark.parametrize("sandbox", MODES)
def test_endless_file_is_stopped_by_its_file_size_limit(tmp_path, sandbox):
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {**os.environ, "TMPDIR": str(scratch)}  # plain mode: where the file goes
    run = play(tmp_path, bot("bigfile"), sandbox=sandbox, move_ms=20_000, fsize_mb=1, env=env)
    assert_contained(run, "crash", "exited with code 1")
    assert "File too large" in run.result.faults[0].stderr_tail
    assert all(f.stat().st_size <= 1 << 20 for f in scratch.iterdir())


def strays(run: Run, sandbox: str, count: str = "") -> None:
    """Plainly, processes left after end are reported; in the sandbox the kernel kills them all
    the moment the bot exits (its PID namespace dies), so none is left to report."""
    if sandbox == "bwrap":
        assert run.bot.conduct == []
    else:
        assert [k for k, _ in run.bot.conduct] == ["stray-process"]
        assert f"{count} still running".strip() in run.bot.conduct[0][1]
        assert "[referee] " + run.bot.conduct[0][1] in run.log()


@pytest.mark.parametrize("sandbox", MODES)
def test_children_that_outlive_the_bot_are_killed(tmp_path, sandbox):
    run = play(tmp_path, bot("escaper"), sandbox=sandbox)
    assert_contained(run, None)
    strays(run, sandbox, "2 processes")
    if sandbox == "none":  # pids as this machine sees them (inside the sandbox they are its own)
        pids = [int(line.split()[1]) for line in run.log().splitlines() if line.startswith(("setsid-", "orphan"))]
        assert len(pids) == 2
        for pid in pids:
            info = _proc(str(pid))
            assert info is None or info[0] in "ZX" or f"{BOT_ID_VAR}={run.bot.bot_id}".encode() not in info[2]


@pytest.mark.parametrize("sandbox", MODES)
def test_a_forking_chain_of_new_sessions_is_killed_whole(tmp_path, sandbox):
    run = play(tmp_path, bot("breeder"), sandbox=sandbox)
    assert_contained(run, None)
    strays(run, sandbox)


@pytest.mark.parametrize("sandbox", MODES)
def test_bot_ignoring_end_and_its_children_are_killed_after_the_grace(tmp_path, sandbox):
    run = play(tmp_path / "lingerer", bot("lingerer"), sandbox=sandbox)
    assert_contained(run, None)
    assert [k for k, _ in run.bot.conduct] == ["stray-process"]  # itself, sandboxed or not
    run = play(tmp_path / "forker", bot("forker"), sandbox=sandbox)
    assert_contained(run, None)
    strays(run, sandbox, "1 process")


@needs_bwrap
def test_sandbox_kills_an_orphan_that_dropped_its_environment(tmp_path):
    tag = f"ghost-{os.getpid()}-{time.monotonic_ns()}"
    run = play(tmp_path, bot("ghost", tag), sandbox="bwrap")
    assert_contained(run, None)
    assert_gone(lambda pgid, environ, cmdline: tag.encode() in cmdline, "ghost")


# -- the sandbox: no network, read-only filesystem, hidden match files, clean environment ------


def _escape(tmp_path: Path, sandbox: str) -> tuple[Run, socket.socket, Path]:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    listener.setblocking(False)
    outside = tmp_path / "outside.txt"
    peek = tmp_path / "out"  # where the replay and the seats' logs are written
    run = play(tmp_path, bot("escape", str(listener.getsockname()[1]), str(outside), str(peek)), sandbox=sandbox)
    return run, listener, outside


@needs_bwrap
def test_sandbox_blocks_network_writes_outside_scratch_and_peeking_at_the_replay(tmp_path):
    run, listener, outside = _escape(tmp_path, "bwrap")
    try:
        with pytest.raises(BlockingIOError):
            listener.accept()  # nobody came
    finally:
        listener.close()
    assert not outside.exists()
    log = run.log()
    for line in ("network: blocked", "outside: blocked", "peek: blocked", "scratch: ok"):
        assert line in log
    assert_contained(run, "crash", "exited with code 1")  # it gave up: nothing worked
    assert run.bot.scratch is None  # its sandbox (a tmpfs scratch) gone with the bot


def test_without_the_sandbox_the_same_bot_gets_out(tmp_path):
    """The control experiment: the plain limits are no sandbox (docs/security.md)."""
    run, listener, outside = _escape(tmp_path, "none")
    try:
        conn, _ = listener.accept()
        conn.close()
    finally:
        listener.close()
    assert outside.read_text() == "escaped\n"
    assert "m.jsonl" in run.log()  # it could list the replay being written
    assert_contained(run, None)


@pytest.mark.parametrize("sandbox", MODES)
def test_resource_limits_and_environment_as_the_bot_sees_them(tmp_path, sandbox, monkeypatch):
    monkeypatch.setenv("PROBE_SECRET", "s3cret")
    run = play(tmp_path, bot("probe"), sandbox=sandbox, cpu_s=7, memory_mb=300, fsize_mb=3, nofile=50)
    assert_contained(run, None)
    log = run.log()
    assert "limit CPU 7 8" in log
    assert f"limit AS {300 << 20} {300 << 20}" in log
    assert f"limit FSIZE {3 << 20} {3 << 20}" in log
    assert "limit NOFILE 50 50" in log
    assert "limit CORE 0 0" in log
    if sandbox == "bwrap":
        # the scratch directory is the sandbox's own /tmp
        assert "env HOME=/tmp TMPDIR=/tmp PROBE_SECRET=None" in log
    else:
        assert "PROBE_SECRET=s3cret" in log


def test_limits_without_prlimit_use_the_python_wrapper(tmp_path, monkeypatch):
    import referee.bots.limits as limits_mod

    real_which = shutil.which
    monkeypatch.setattr(limits_mod.shutil, "which", lambda name, *a, **k: None if name == "prlimit"
                        else real_which(name, *a, **k))
    assert wrapper(ResourceLimits())[0] == sys.executable
    run = play(tmp_path, bot("probe"), cpu_s=9, memory_mb=400, nofile=60)
    assert_contained(run, None)
    assert "limit CPU 9 10" in run.log() and "limit NOFILE 60 60" in run.log()
    assert f"limit AS {400 << 20} {400 << 20}" in run.log()


def test_without_bwrap_a_bot_asked_to_run_sandboxed_never_runs_unsandboxed(tmp_path, monkeypatch):
    # It used to warn and run the bot with the plain limits: failing open.
    monkeypatch.setattr(sandbox_mod, "_probe", (None, "bubblewrap (bwrap) is not installed"))
    run = play(tmp_path, bot("probe"), sandbox="bwrap", cpu_s=7)
    assert not run.bot.sandboxed and run.bot.pid is None  # never started
    assert [f.kind for f in run.result.faults if f.seat == HOSTILE] == ["crash"]
    detail = next(f.detail for f in run.result.faults if f.seat == HOSTILE)
    assert "bubblewrap (bwrap) is not installed" in detail and "apt-get install bubblewrap" in detail
    assert "limit CPU" not in run.log()


def test_unknown_sandbox_is_refused():
    with pytest.raises(ValueError, match="sandbox must be one of"):
        SubprocessPlayer(bot("probe"), sandbox="docker")


# -- deadlines: grace and the total budget ------------------------------------------------------


def _scripted(acts: list[list[Any]]) -> list[str]:
    return bot("scripted", json.dumps({"acts": acts}))


def _hello() -> Hello:
    return Hello("pick", 0, 2, ["a", "b"], {}, "m", {"move_ms": 200, "start_ms": 3000, "max_line_bytes": 65536})


@pytest.mark.parametrize("grace_ms, ok", [(600, True), (0, False)])
def test_a_reply_within_the_grace_is_no_timeout(grace_ms, ok):
    late = [{"sleep": 0.3}, '{"type":"action","id":{id},"index":1}']
    p = SubprocessPlayer(_scripted([late]), start_ms=3000, grace_ms=grace_ms)
    try:
        assert p.start(_hello()) is None
        reply = p.act(1, {}, [{"a": 1}, {"a": 2}], 200)  # told 200 ms, answers after ~300
        if ok:
            assert reply.fault is None and reply.index == 1
        else:
            assert reply.fault is not None and reply.fault.kind == "timeout"
            assert reply.fault.detail == "no reply within 200 ms"
    finally:
        p.close()
    assert_gone(of_bot(p))


def test_total_time_budget_per_match(tmp_path):
    slow = _scripted([[{"sleep": 0.1}, '{"type":"action","id":{id},"index":0}']] * 200)
    run = play(tmp_path, slow, total_ms=450)
    assert_contained(run, "timeout")
    moves = [r for r in read_replay(run.out / "m.jsonl") if r["type"] == "move" and r["seat"] == HOSTILE]
    answered = [m for m in moves if "fault" not in m and m["ms"] > 0]
    assert 1 <= len(answered) <= 5  # about 100 ms each out of 450 (more on a busy machine)
    assert sum(m["ms"] for m in answered) <= 450 + 100


def test_total_budget_is_told_in_hello():
    assert Limits(total_ms=5000).wire()["total_ms"] == 5000
    assert "total_ms" not in Limits().wire()


def test_a_used_up_budget_faults_without_asking(tmp_path):
    # 1 ms for the whole match: the first act is told time_ms 1, then nothing is left. The budget
    # holds for every seat, the in-process strategy's included.
    run = play(tmp_path, bot("probe"), total_ms=1, max_faults=3)
    assert set(run.faults()) == {"timeout"}
    details = [f.detail for f in run.result.faults if f.seat == HOSTILE]
    assert "total time budget of 1 ms used up" in details[-1]
    assert HOSTILE in run.result.result["disqualified"]
    assert run.elapsed < BOUND_S
    for p in run.players[1:]:
        assert_gone(of_bot(p))


# -- hostile actions: no game's resolve may raise -----------------------------------------------


WEIRD = [None, 0, -1, 2**80, 1.5, True, "", "7S", [], [None], {}, {"play": None}, {"play": []}, {"play": {}},
         {"play": 7}, {"play": ["7S", "7S"]}, {"play": [[]]}, {"play": "7S", "say": []}, {"play": "JH", "suit": {}},
         {"draw": 1}, {"draw": "yes"}, {"pass": []}, {"give": []}, {"give": {}}, {"call": []}, {"discard": {}},
         {"play": "CASINO", "name": []}, {"suit": []}, {"play": "\ud800"}, {"play": ["5H"] * 500}, {"x": 1}]


@pytest.mark.parametrize("game", sorted(REGISTRY.games))
def test_hostile_action_shapes_never_raise_in_resolve(game):
    g = REGISTRY.games[game]
    for variant in g.variants():
        config = resolve_config(g, variant, g.min_players)
        from referee.testing import seeded_state

        state = seeded_state(g, config, g.min_players, random.Random(3))
        rng = random.Random(4)
        for _ in range(150):
            if state.to_act() is None:
                break
            legal = state.legal_actions()
            mutated = [{k: [v] for k, v in a.items()} for a in legal[:3]] + [{**a, "extra": {}} for a in legal[:3]]
            for action in WEIRD + mutated:
                resolved = state.resolve(action)  # never raises
                assert resolved is None or isinstance(resolved, dict)
            state.apply(legal[rng.randrange(len(legal))])
            state.drain()


# -- tournaments: the [limits] table carries the hostile-bot limits ------------------------------


def _tournament(tmp_path: Path, limits: str) -> Path:
    path = tmp_path / "t.toml"
    path.write_text(f"""
name = "t"
[limits]
move_ms = 10000
{limits}
[[entrants]]
name = "probe"
command = "{BOT_PYTHON} {BOTS / 'probe.py'}"
[[entrants]]
strategy = "random"
[[games]]
game = "maumau"
players = 2
""")
    return path


@pytest.mark.parametrize("sandbox", MODES)
def test_tournament_limits_reach_the_bots(tmp_path, sandbox):
    from referee.tournament import run as tour
    from referee.tournament.config import load_tournament

    path = _tournament(tmp_path, f'sandbox = "{sandbox}"\ncpu_s = 11\nmemory_mb = 500\ntotal_ms = 60000\n'
                                 'grace_ms = 20\nfsize_mb = 5\nnofile = 40')
    config = load_tournament(path, REGISTRY, out=tmp_path / "out", concurrency=1)
    assert config.bot_limits == {"sandbox": sandbox, "grace_ms": 20, "total_ms": 60000, "cpu_s": 11,
                                 "memory_mb": 500, "fsize_mb": 5, "nofile": 40}
    records = tour.run(config)
    assert [r["faults"] for r in records] == [[0, 0]]
    log = next((tmp_path / "out" / "replays").glob("*.seat0.log")).read_text()
    assert "limit CPU 11 12" in log and f"limit AS {500 << 20}" in log and "limit NOFILE 40 40" in log
    assert ("env HOME=/tmp TMPDIR=/tmp" in log) == (sandbox == "bwrap")  # its scratch dir, as /tmp


@pytest.mark.parametrize("line, concurrency, expected", [
    ("", 1, 200), ("", 2, 0), ("spin_us = 0", 1, 0), ("spin_us = 50", 2, 50)])
def test_tournament_polls_for_replies_only_with_a_core_to_spare(tmp_path, monkeypatch, line, concurrency, expected):
    from referee.tournament import run as tour
    from referee.tournament.config import load_tournament

    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1})
    config = load_tournament(_tournament(tmp_path, line), REGISTRY, out=tmp_path / "out", concurrency=concurrency)
    assert tour.match_limits(config).spin_us == expected


@pytest.mark.parametrize("line, message", [
    ('sandbox = "docker"', 'limits.sandbox: expected "none" or "bwrap"'),
    ("cpu_s = -1", "limits.cpu_s: expected 0 or more"),
    ('memory_mb = "lots"', "limits.memory_mb: expected an integer"),
    ("walls = 3", "limits.walls: expected move_ms, start_ms, max_faults, sandbox"),
])
def test_tournament_limits_are_checked(tmp_path, line, message):
    from referee.errors import ConfigError
    from referee.tournament.config import load_tournament

    with pytest.raises(ConfigError, match=message):
        load_tournament(_tournament(tmp_path, line), REGISTRY)


def test_a_scratch_directory_a_bot_locked_is_still_removed(tmp_path):
    # An unprivileged referee cannot list or empty a directory a bot made 000: removing the
    # scratch directory first gives the owner rwx on every directory, never through a symlink.
    import os
    import stat

    root = tmp_path / "scratch"
    (root / "a").mkdir(parents=True)
    (root / "a" / "f").write_text("x")
    (root / "b" / "c").mkdir(parents=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / "link").symlink_to(outside, target_is_directory=True)
    for locked in (root / "b" / "c", root / "a", root):
        locked.chmod(0)
    outside.chmod(0o500)
    sandbox_mod._make_removable(root)
    for d in (root, root / "a", root / "b", root / "b" / "c"):
        assert stat.S_IMODE(d.stat().st_mode) == 0o700, d
    assert stat.S_IMODE(outside.stat().st_mode) == 0o500  # the link was not followed
    sandbox_mod.remove_scratch(root)
    assert not os.path.lexists(root) and outside.is_dir()
    outside.chmod(0o700)
