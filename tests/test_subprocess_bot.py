"""SubprocessPlayer against real bot programs: the example bot and misbehaving ones (tests/bots/).

The matches use a tiny deterministic game defined here (two seats pick numbers), so these tests
do not depend on the card games. Every test also checks that no bot process is left behind.
"""

from __future__ import annotations

import json
import os
import random
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from referee.game import EVERYONE, Event, Game, GameState, Option, Outcome, Record
from referee.players import Fault, Hello, Reply
from referee.replay.records import read_replay
from referee.runner import Limits, Seat, run_match
from referee.bots.player import SubprocessPlayer

ROOT = Path(__file__).resolve().parent.parent
BOTS = Path(__file__).resolve().parent / "bots"
RANDOM_BOT = ROOT / "bots" / "python" / "random_bot.py"
MOVE_MS = 300
TURNS = 20


# -- a tiny game -------------------------------------------------------------------------------


class PickState(GameState):
    """Seats take turns picking 1, 2 or 3; the highest sum wins. `pad` bloats the start event."""

    def __init__(self, config: dict[str, Any], players: int, rng: random.Random) -> None:
        self.n = players
        self.turns = config["turns"]
        self.turn = 0
        self.scores = [0] * players
        self.deal = 1
        self.queue: list[Any] = [
            Record({"type": "deal", "deal": 1, "dealer": 0, "hands": [[] for _ in range(players)]}),
            Event("start", {"pad": "x" * config["pad"]}, EVERYONE),
        ]

    def to_act(self) -> int | None:
        return self.turn % self.n if self.turn < self.turns else None

    def legal_actions(self) -> list[dict[str, Any]]:
        return [{"pick": 1}, {"pick": 2}, {"pick": 3}]

    def apply(self, action: dict[str, Any]) -> None:
        seat = self.turn % self.n
        self.scores[seat] += action["pick"]
        self.queue.append(Event("picked", {"seat": seat, "pick": action["pick"]}, EVERYONE))
        self.turn += 1
        if self.turn == self.turns:
            self.queue.append(Record({"type": "deal_end", "deal": 1, "scores": list(self.scores)}))

    def observe(self, seat: int) -> dict[str, Any]:
        return {"seat": seat, "turn": self.turn, "scores": list(self.scores)}

    def drain(self) -> list[Any]:
        out, self.queue = self.queue, []
        return out

    def outcome(self) -> Outcome:
        return Outcome(list(self.scores), [float(s) for s in self.scores])

    def zones(self) -> dict[str, list[str]]:
        return {}

    def hidden_from(self, seat: int) -> set[str]:
        return set()


class PickGame(Game):
    name = "pick"
    title = "Pick"
    min_players = 2
    max_players = 2
    options = (
        Option("turns", int, TURNS, "decisions in the match", min=1),
        Option("pad", int, 0, "bytes of padding in the start event", min=0),
    )

    def new_state(self, config: dict[str, Any], players: int) -> GameState:
        return PickState(config, players, random.Random(0))


# -- helpers -----------------------------------------------------------------------------------


def bot(name: str, *args: str) -> list[str]:
    """The argv of a test bot (or of the example bot for "random_bot")."""
    path = RANDOM_BOT if name == "random_bot" else BOTS / f"{name}.py"
    return [sys.executable, str(path), *args]


def scripted(ready: Any = "default", acts: list[list[Any]] | None = None) -> list[str]:
    """The argv of tests/bots/scripted.py running the given script."""
    script: dict[str, Any] = {"acts": acts or []}
    if ready != "default":
        script["ready"] = ready
    return bot("scripted", json.dumps(script))


def hello(seat: int = 0, limits: dict[str, int] | None = None) -> Hello:
    return Hello("pick", seat, 2, ["a", "b"], {"turns": TURNS, "pad": 0}, "pick-1-test",
                 limits or {"move_ms": MOVE_MS, "start_ms": 3000, "max_line_bytes": 65536})


def group_alive(pgid: int) -> bool:
    """Whether any live (non-zombie) process is in the process group.

    Orphans of a killed group are reparented to PID 1, which in some containers never reaps
    them: such zombies are dead, so only live members count.
    """
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
            return True
    return False


def assert_gone(player: SubprocessPlayer) -> None:
    """The bot's whole process group is dead and its main process reaped (no zombie of ours)."""
    pid = player.pid
    assert pid is not None
    deadline = time.monotonic() + 2.0  # SIGKILL is sent; a grandchild may take a moment to die
    while group_alive(pid):
        assert time.monotonic() < deadline, f"bot process group {pid} still has live processes"
        time.sleep(0.01)
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)


def player(argv: list[str], **kwargs: Any) -> SubprocessPlayer:
    kwargs.setdefault("start_ms", 3000)
    kwargs.setdefault("end_grace_ms", 500)
    return SubprocessPlayer(argv, **kwargs)


def play(tmp_path: Path, argvs: list[list[str]], config: dict[str, Any] | None = None,
         limits: Limits | None = None, **kwargs: Any):
    """One pick match between bot programs; returns the result, the replay records and players."""
    limits = limits or Limits(move_ms=MOVE_MS, start_ms=3000)
    start_ms = kwargs.pop("start_ms", [limits.start_ms] * len(argvs))  # per seat
    players = [player(argv, log_path=tmp_path / f"seat{i}.log", start_ms=start_ms[i],
                      max_line_bytes=limits.max_line_bytes, **kwargs) for i, argv in enumerate(argvs)]
    seats = [Seat(Path(argv[1]).stem, "command", " ".join(argv)) for argv in argvs]
    config = {"turns": TURNS, "pad": 0, **(config or {})}
    result = run_match(PickGame(), config, 7, seats, players, limits, replay=tmp_path / "match.jsonl")
    return result, list(read_replay(tmp_path / "match.jsonl")), players


# -- whole matches -----------------------------------------------------------------------------


def test_random_bots_play_a_clean_match(tmp_path):
    result, records, players = play(tmp_path, [bot("random_bot"), bot("random_bot")])
    assert result.faults == []
    assert result.result["faults"] == [0, 0]
    assert result.result["disqualified"] == []
    moves = [r for r in records if r["type"] == "move"]
    assert len(moves) == TURNS
    assert all("fault" not in m for m in moves)
    assert {m["action"]["pick"] for m in moves} > {1}  # random picks, not the first-legal fallback
    for p in players:
        assert p.name == "random_bot" and p.version == "1.0"
        assert p.kind == "command"
        assert_gone(p)


def test_random_bot_is_reproducible(tmp_path):
    first, _, _ = play(tmp_path / "a", [bot("random_bot"), bot("random_bot")])
    second, _, _ = play(tmp_path / "b", [bot("random_bot"), bot("random_bot")])
    assert first.result["scores"] == second.result["scores"]
    moves_a = [r for r in read_replay(tmp_path / "a" / "match.jsonl") if r["type"] == "move"]
    moves_b = [r for r in read_replay(tmp_path / "b" / "match.jsonl") if r["type"] == "move"]
    assert [m["action"] for m in moves_a] == [m["action"] for m in moves_b]


MISBEHAVING = [
    # bot, fault kind, whether the fault replaced a move (start faults do not)
    ("sleeper", "timeout", True),
    ("quitter", "crash", True),
    ("garbage", "invalid", True),
    ("illegal", "illegal", True),
    ("longline", "invalid", True),
    ("mute", "timeout", False),
]


@pytest.mark.parametrize("name,kind,in_move", MISBEHAVING)
@pytest.mark.parametrize("seat", [0, 1])
def test_misbehaving_bot_is_disqualified_and_the_match_goes_on(tmp_path, name, kind, in_move, seat):
    argvs = [bot("random_bot"), bot("random_bot")]
    argvs[seat] = bot(name)
    # only the mute bot's start is short (it uses it up): the other seat's interpreter, started
    # beside it on a loaded machine, gets time to spare
    start_ms = [400 if name == "mute" and s == seat else 10000 for s in range(2)]
    started = time.perf_counter()
    result, records, players = play(tmp_path, argvs, limits=Limits(move_ms=MOVE_MS, start_ms=3000), start_ms=start_ms)
    assert time.perf_counter() - started < 30  # no wait beyond the limits (the match goes on)

    assert [(f.seat, f.kind) for f in result.faults] == [(seat, kind)]
    assert result.result["faults"][seat] == 1 and result.result["faults"][1 - seat] == 0
    assert result.result["disqualified"] == [seat]
    assert result.result["ranks"][seat] == 2  # last, whatever it scored (C-5)
    moves = [r for r in records if r["type"] == "move"]
    assert len(moves) == TURNS  # the match completed for the other seat
    assert all("fault" not in m for m in moves if m["seat"] != seat)
    faulted = [m for m in moves if "fault" in m]
    if in_move:
        assert len(faulted) == 1 and faulted[0]["seat"] == seat
        assert faulted[0]["fault"]["kind"] == kind
        assert faulted[0]["action"] == {"pick": 1}  # the first-legal fallback
    else:
        assert faulted == []
    # from the fault on, the fallback plays the seat (first legal action)
    first = next((i for i, m in enumerate(moves) if "fault" in m), -1)
    assert all(m["action"] == {"pick": 1} for i, m in enumerate(moves) if m["seat"] == seat and i > first)
    for p in players:
        assert_gone(p)


def test_faults_below_max_faults_do_not_disqualify(tmp_path):
    limits = Limits(move_ms=MOVE_MS, start_ms=3000, max_faults=2)
    result, records, players = play(tmp_path, [bot("random_bot"), bot("garbage")], limits=limits)
    assert [(f.seat, f.kind) for f in result.faults] == [(1, "invalid")]
    assert result.result["disqualified"] == []
    moves = [r for r in records if r["type"] == "move" and r["seat"] == 1]
    assert [("fault" in m) for m in moves] == [False, True] + [False] * (len(moves) - 2)
    for p in players:
        assert_gone(p)


def test_timeouts_count_up_to_max_faults(tmp_path):
    limits = Limits(move_ms=MOVE_MS, start_ms=3000, max_faults=2)
    result, _, players = play(tmp_path, [bot("sleeper"), bot("random_bot")], limits=limits)
    assert [(f.seat, f.kind) for f in result.faults] == [(0, "timeout"), (0, "timeout")]
    assert result.result["disqualified"] == [0]
    for p in players:
        assert_gone(p)


def test_crash_fault_carries_exit_code_and_stderr(tmp_path):
    result, _, players = play(tmp_path, [bot("quitter"), bot("random_bot")])
    (entry,) = result.faults
    assert entry.kind == "crash"
    assert "exited with code 3" in entry.detail
    assert "I have had enough" in entry.stderr_tail
    assert "I have had enough" in (tmp_path / "seat0.log").read_text()


def test_deaf_bot_times_out_instead_of_blocking_the_referee(tmp_path):
    # 300 KB of events before its first act: far more than a pipe holds, and it never reads.
    started = time.perf_counter()
    result, records, players = play(tmp_path, [bot("random_bot"), bot("deaf")], config={"pad": 300_000})
    assert time.perf_counter() - started < 5
    assert [(f.seat, f.kind) for f in result.faults] == [(1, "timeout")]
    assert result.result["disqualified"] == [1]
    for p in players:
        assert_gone(p)


def test_child_processes_of_a_bot_are_killed(tmp_path):
    result, _, players = play(tmp_path, [bot("forker"), bot("random_bot")])
    assert result.faults == []
    child = int((tmp_path / "seat0.log").read_text().split()[1])
    assert_gone(players[0])
    try:
        state = Path(f"/proc/{child}/stat").read_text()
        assert state[state.rindex(")") + 2] in "ZX"  # dead, waiting for PID 1 to reap it
    except FileNotFoundError:
        pass


def test_bot_ignoring_end_is_killed_after_the_grace_period(tmp_path):
    started = time.perf_counter()
    result, _, players = play(tmp_path, [bot("lingerer"), bot("random_bot")], end_grace_ms=300)
    elapsed = time.perf_counter() - started
    assert result.faults == []
    assert 0.3 <= elapsed < 5
    assert_gone(players[0])


def test_stderr_log_is_capped_and_the_bot_never_blocks_on_it(tmp_path):
    result, _, players = play(tmp_path, [bot("chatty"), bot("random_bot")], stderr_cap=10_000)
    assert result.faults == []
    log = (tmp_path / "seat0.log").read_bytes()
    assert log.endswith(b"\n[stderr truncated]\n")
    assert len(log) <= 10_000 + len(b"\n[stderr truncated]\n")
    assert log.startswith(b"chatter chatter")


# -- the adapter, call by call -----------------------------------------------------------------


LEGAL = [{"pick": 1}, {"pick": 2}, {"pick": 3}]


def act(p: SubprocessPlayer, id: int, time_ms: int = 1000) -> Reply:
    return p.act(id, {"seat": 0}, LEGAL, time_ms)


def test_missing_executable_is_a_crash_fault_not_an_exception(tmp_path):
    p = player([str(tmp_path / "no-such-bot")], log_path=tmp_path / "bot.log")
    fault = p.start(hello())
    assert isinstance(fault, Fault) and fault.kind == "crash"
    assert "no-such-bot" in fault.detail
    reply = act(p, 1)
    assert reply.fault == fault
    p.event({"kind": "x"})
    p.end({})
    p.close()
    p.close()
    assert p.pid is None


@pytest.mark.parametrize("code,detail", [
    ("import sys; sys.exit(2)", "exited with code 2"),
    ("import os, signal; os.kill(os.getpid(), signal.SIGSEGV)", "killed by signal SIGSEGV"),
    ("import os, sys; sys.stderr.write('bye'); sys.stderr.flush(); os.close(1); import time; time.sleep(60)",
     "closed its stdout (still running)"),
])
def test_bot_ending_before_ready_is_a_crash(code, detail):
    p = player([sys.executable, "-c", code])
    try:
        fault = p.start(hello())
        assert fault is not None and fault.kind == "crash"
        assert fault.detail == detail
        if "bye" in code:
            assert fault.stderr_tail == "bye"
    finally:
        p.close()
    assert_gone(p)


def test_timeout_shows_an_unterminated_line():
    p = player(scripted(acts=[[{"raw": '{"type":"action","id":1,"index":0}'}]]))  # no newline
    try:
        assert p.start(hello()) is None
        reply = act(p, 1, time_ms=200)
        assert reply.fault is not None and reply.fault.kind == "timeout"
        assert reply.fault.raw == '{"type":"action","id":1,"index":0}'
    finally:
        p.close()


def test_ready_announces_name_version_author():
    p = player(scripted(ready='{"type":"ready","name":"mybot","version":"2.1","author":"Ana","extra":1}'))
    try:
        assert p.start(hello()) is None
        assert (p.name, p.version, p.author) == ("mybot", "2.1", "Ana")
        assert os.getpgid(p.pid) == p.pid  # its own process group
        assert os.getsid(p.pid) == p.pid  # and its own session
    finally:
        p.close()
    assert_gone(p)


@pytest.mark.parametrize("line", ['{"type":"action","id":0,"index":0}', '{"type":"ready"}', "[1]", "ready"])
def test_bad_ready_is_invalid(line):
    p = player(scripted(ready=line))
    try:
        fault = p.start(hello())
        assert fault is not None and fault.kind == "invalid"
        assert fault.raw == line
    finally:
        p.close()
    assert_gone(p)


def test_no_ready_is_a_timeout_within_start_ms():
    p = player(bot("mute"), start_ms=300)
    started = time.perf_counter()
    try:
        fault = p.start(hello())
        assert fault is not None and fault.kind == "timeout"
        assert time.perf_counter() - started < 1.5
    finally:
        p.close()
    assert_gone(p)


def test_index_and_action_replies():
    p = player(scripted(acts=[
        ['{"type":"action","id":{id},"index":2}'],
        ['{"type":"action","id":{id},"action":{"pick":3},"comment":"unknown fields are ignored"}'],
    ]))
    try:
        assert p.start(hello()) is None
        first = act(p, 1)
        assert (first.fault, first.index, first.action) == (None, 2, None)
        assert 0 < first.ms < 1000
        second = act(p, 2)
        assert (second.fault, second.index, second.action) == (None, None, {"pick": 3})
    finally:
        p.close()


@pytest.mark.parametrize("line,detail", [
    ("not json", "not JSON"),
    ('{"type":"action","id":{id},"index":NaN}', "not JSON"),
    ("[1, 2]", "not a JSON object"),
    ('"action"', "not a JSON object"),
    ('{"type":"move","id":{id},"index":0}', "expected an action reply"),
    ('{"id":{id},"index":0}', "expected an action reply"),
    ('{"type":"action","id":{id}}', "exactly one of action and index"),
    ('{"type":"action","id":{id},"index":0,"action":{"pick":1}}', "exactly one of action and index"),
    ('{"type":"action","id":{id},"index":true}', "index is not an integer"),
    ('{"type":"action","id":{id},"index":1.0}', "index is not an integer"),
    ('{"type":"action","id":"{id}","index":0}', "id is not an integer"),
    ('{"type":"action","id":99,"index":0}', "not asked yet"),
    ('{"type":"action","id":{id},"action":"7S"}', "action is not a JSON object"),
])
def test_malformed_replies_are_invalid(line, detail):
    p = player(scripted(acts=[[line]]))
    try:
        assert p.start(hello()) is None
        reply = act(p, 5)
        assert reply.fault is not None and reply.fault.kind == "invalid", reply
        assert detail in reply.fault.detail
        assert reply.fault.raw == line.replace("{id}", "5")
        # not sticky: the bot may answer the next act
        assert act(p, 6).index == 0
    finally:
        p.close()


@pytest.mark.parametrize("line", ['{"type":"%s","id":{id},"index":0}' % ("x" * 60000),
                                  '{"type":"action","id":%s,"index":0}' % ("9" * 4000)])
def test_a_bots_text_quoted_in_a_fault_detail_is_capped(line):
    # PROTOCOL.md: a fault keeps the offending text capped; the detail must not carry it whole
    # (it goes into the replay, the result, the end message to every bot and the terminal).
    p = player(scripted(acts=[[line]]))
    try:
        assert p.start(hello()) is None
        reply = act(p, 5)
        assert reply.fault is not None and reply.fault.kind == "invalid"
        assert len(reply.fault.detail) < 120 and reply.fault.detail.endswith(("...", "..., which was not asked yet"))
    finally:
        p.close()


def test_non_utf8_line_is_invalid():
    p = player(scripted(acts=[[{"hex": "7b2274797065223aff7d0a"}]]))  # {"type":\xff}
    try:
        assert p.start(hello()) is None
        reply = act(p, 1)
        assert reply.fault is not None and reply.fault.kind == "invalid"
        assert reply.fault.detail == "line is not UTF-8"
        assert reply.fault.raw == '{"type":\ufffd}'
    finally:
        p.close()


def test_reply_to_an_old_id_is_discarded():
    # First a stale (and malformed) reply to the previous id, then the real one: no fault.
    stale, real = '{"type":"action","id":{old},"index":"junk"}', '{"type":"action","id":{id},"index":1}'
    p = player(scripted(acts=[[stale, real]]))
    try:
        assert p.start(hello()) is None
        reply = act(p, 10)
        assert reply.fault is None and reply.index == 1
    finally:
        p.close()


def test_a_reply_written_before_its_act_is_invalid_even_when_read_early():
    # The bot answers act 5 and, in the same write, act 6, which it was not asked yet: that
    # line is read with the first one, yet it cannot answer act 6 (PROTOCOL.md: invalid), nor
    # may it take act 6's time for free. A second reply to act 5 is stale, never an answer.
    p = player(scripted(acts=[['{"type":"action","id":5,"index":0}\n{"type":"action","id":6,"index":1}'],
                              ['{"type":"action","id":7,"index":2}\n{"type":"action","id":7,"index":1}']]))
    try:
        assert p.start(hello()) is None
        assert act(p, 5).index == 0
        early = act(p, 6)
        assert early.fault is not None and early.fault.kind == "invalid"
        assert early.fault.detail == "reply to id 6, which was not asked yet"
        assert act(p, 7).index == 2
        assert act(p, 8).index == 0 and p.stats["stale"] == 1  # the second reply to 7: stale
    finally:
        p.close()


def test_a_bot_that_exits_while_a_child_holds_its_stdout_crashed():
    # PROTOCOL.md: crash = "exited or closed stdout". Its stdout stays open in the child, so no
    # EOF comes; at the deadline the fault is still the crash, with its exit code.
    code = ("import json, os, sys, time\n"
            "for line in sys.stdin:\n"
            "    m = json.loads(line)\n"
            "    if m['type'] == 'hello':\n"
            "        print(json.dumps({'type': 'ready', 'name': 'x'}), flush=True)\n"
            "    elif m['type'] == 'act':\n"
            "        if os.fork() == 0:\n"
            "            time.sleep(30)\n"
            "            os._exit(0)\n"
            "        os._exit(3)\n")
    p = player([sys.executable, "-c", code])
    try:
        assert p.start(hello()) is None
        reply = act(p, 1, time_ms=200)
        assert reply.fault is not None and reply.fault.kind == "crash", reply.fault
        assert reply.fault.detail == "exited with code 3"
    finally:
        p.close()
    assert_gone(p)


def test_late_reply_times_out_then_is_discarded_at_the_next_act():
    p = player(scripted(acts=[[{"sleep": 0.4}, '{"type":"action","id":{id},"index":2}'],
                              ['{"type":"action","id":{id},"index":1}']]))
    try:
        assert p.start(hello()) is None
        late = act(p, 1, time_ms=150)
        assert late.fault is not None and late.fault.kind == "timeout"
        assert 150 <= late.ms < 1000
        time.sleep(0.4)  # the late reply to id 1 is now waiting in the pipe
        reply = act(p, 2)
        assert reply.fault is None and reply.index == 1
    finally:
        p.close()


def test_blank_lines_are_tolerated():
    p = player(scripted(acts=[["", "  ", '{"type":"action","id":{id},"index":1}']]))
    try:
        assert p.start(hello()) is None
        assert act(p, 1).index == 1
    finally:
        p.close()


def test_line_cap():
    cap = 1000
    base = '{"type":"action","id":{id},"index":0,"pad":"%s"}'
    exact = base % ("x" * (cap - len(base % "") - 1 + 4))  # exactly `cap` bytes once {id} is "1"
    assert len(exact.replace("{id}", "1")) == cap
    p = player(scripted(acts=[[exact], [base % ("x" * 5000)], [], [{"raw": "y" * 3000}, {"sleep": 1}]]),
               max_line_bytes=cap)
    try:
        assert p.start(hello()) is None
        assert act(p, 1).index == 0  # a line of exactly max_line_bytes is fine
        long = act(p, 2)
        assert long.fault is not None and long.fault.kind == "invalid"
        assert "line too long" in long.fault.detail
        assert long.fault.raw.startswith('{"type":"action","id":2') and len(long.fault.raw) == 200
        assert act(p, 3).index == 0  # the rest of the long line was skipped, not parsed
        # an overlong line without its newline is reported at once, not at the deadline
        unterminated = act(p, 4, time_ms=900)
        assert unterminated.fault is not None and "line too long" in unterminated.fault.detail
        assert unterminated.ms < 800
    finally:
        p.close()


def test_crash_is_sticky_and_immediate():
    p = player(bot("quitter"))
    try:
        assert p.start(hello()) is None
        assert act(p, 1).index == 0
        assert act(p, 2).index == 0
        crash = act(p, 3)
        assert crash.fault is not None and crash.fault.kind == "crash"
        assert "exited with code 3" in crash.fault.detail
        started = time.perf_counter()
        again = act(p, 4)
        assert again.fault == crash.fault and time.perf_counter() - started < 0.01
    finally:
        p.close()
        p.close()
    assert_gone(p)


def test_events_never_block_and_a_deaf_bot_times_out():
    p = player(bot("deaf"))
    try:
        assert p.start(hello()) is None
        started = time.perf_counter()
        for i in range(400):
            p.event({"kind": "played", "seat": 1, "pad": "e" * 5000, "n": i})  # 2 MB in all
        assert time.perf_counter() - started < 0.5
        reply = act(p, 1, time_ms=300)
        assert reply.fault is not None and reply.fault.kind == "timeout"
        assert time.perf_counter() - started < 2
        p.end({"scores": [0, 0]})  # must not hang either
    finally:
        p.close()
    assert_gone(p)


def test_buffered_events_are_capped():
    p = player(bot("deaf"), max_pending_bytes=200_000)
    try:
        assert p.start(hello()) is None
        for i in range(100):
            p.event({"kind": "played", "pad": "e" * 5000})
        started = time.perf_counter()
        reply = act(p, 1, time_ms=1000)
        assert reply.fault is not None and reply.fault.kind == "timeout"
        assert "stopped reading its stdin" in reply.fault.detail
        assert time.perf_counter() - started < 0.2  # known already: no waiting
    finally:
        p.close()
    assert_gone(p)


def test_messages_arrive_in_order_with_events_before_their_act(tmp_path):
    p = player(bot("echo"), log_path=tmp_path / "echo.log")  # it copies what it receives to stderr
    try:
        assert p.start(hello(seat=1)) is None
        p.event({"kind": "deal", "hand": ["7S", "ÄÖ"]})
        p.event({"kind": "played", "seat": 0, "card": "8H"})
        assert act(p, 1).index == 0
        p.event({"kind": "scores", "scores": [1, 2]})
        p.end({"scores": [1, 2]})
    finally:
        p.close()
    lines = [json.loads(line) for line in (tmp_path / "echo.log").read_text(encoding="utf-8").splitlines()]
    assert [m["type"] for m in lines] == ["hello", "event", "event", "act", "event", "end"]
    assert lines[0] == hello(seat=1).message()
    assert lines[1]["event"] == {"kind": "deal", "hand": ["7S", "ÄÖ"]}
    assert lines[3] == {"type": "act", "id": 1, "obs": {"seat": 0}, "legal": LEGAL, "time_ms": 1000}
    assert lines[5] == {"type": "end", "result": {"scores": [1, 2]}}
    assert_gone(p)


def test_close_is_safe_in_any_state(tmp_path):
    SubprocessPlayer(bot("random_bot")).close()  # never started
    p = player(bot("random_bot"))
    assert p.start(hello()) is None
    p.end({})
    p.close()
    p.close()
    assert_gone(p)
    assert act(p, 1).fault is not None  # after close: a fault, not an exception


# -- waiting for a reply: the replay after an interruption, polling -----------------------------


def test_records_played_before_an_interruption_are_in_the_replay(tmp_path):
    class Interrupting(SubprocessPlayer):
        def act(self, id, obs, legal, time_ms, meanwhile=None):
            if id == 3:  # seat 0's third act, the match's fifth decision (the seats alternate)
                raise KeyboardInterrupt  # Ctrl-C before the act went out: its records still buffered
            return super().act(id, obs, legal, time_ms, meanwhile)

    players = [Interrupting(bot("random_bot"), log_path=tmp_path / f"seat{i}.log", start_ms=3000) for i in range(2)]
    seats = [Seat("random_bot", "command", "random_bot")] * 2
    with pytest.raises(KeyboardInterrupt):
        run_match(PickGame(), {"turns": TURNS, "pad": 0}, 7, seats, players, Limits(move_ms=MOVE_MS),
                  replay=tmp_path / "match.jsonl")
    records = list(read_replay(tmp_path / "match.jsonl"))
    assert [r["type"] for r in records] == ["header", "deal"] + ["move"] * 4
    for p in players:
        assert_gone(p)


def test_a_quick_reply_is_read_while_polling_without_sleeping(tmp_path, monkeypatch):
    p = player(bot("random_bot"), log_path=tmp_path / "bot.log", spin_us=2_000_000)
    try:
        assert p.start(hello()) is None
        waits = []
        select = p._chan._sel.select
        monkeypatch.setattr(p._chan._sel, "select", lambda timeout=None: waits.append(timeout) or select(timeout))
        replies = [act(p, k) for k in range(1, 11)]
        assert all(r.fault is None and r.index in (0, 1, 2) for r in replies)
        assert waits == []  # every reply came within the 2 s of polling
        p.end({})
    finally:
        p.close()
    assert_gone(p)


def test_polling_stops_at_the_deadline(tmp_path):
    p = player(bot("sleeper"), log_path=tmp_path / "bot.log", spin_us=30_000_000, grace_ms=50)
    try:
        assert p.start(hello()) is None
        assert act(p, 1).fault is None
        started = time.perf_counter()
        reply = act(p, 2, time_ms=200)  # the sleeper's second act never comes
        assert reply.fault is not None and reply.fault.kind == "timeout"
        assert 0.2 <= time.perf_counter() - started < 2
    finally:
        p.close()
    assert_gone(p)


@pytest.mark.parametrize("cores,at_once,expected", [(2, 1, 200), (1, 1, 0), (2, 2, 0), (8, 4, 200), (8, 5, 0)])
def test_the_referee_polls_only_with_a_core_to_spare_per_match(monkeypatch, cores, at_once, expected):
    from referee.bots import limits as limits_mod

    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(cores)))
    assert limits_mod.spin_us(at_once) == expected
    assert limits_mod.subprocess_options(Limits())["spin_us"] == (200 if cores >= 2 else 0)
    assert limits_mod.subprocess_options(Limits(spin_us=7))["spin_us"] == 7


def test_header_names_seats_after_ready_only_where_the_seat_asks_and_records_every_announcement():
    """A seat that goes by its bot's name (play's) gets it, unique by seat; a tournament's entrant
    keeps its name; every announcement is recorded as `bot`; no ready, no change."""
    from referee.runner import _name_seats

    class Said:
        def __init__(self, bot):
            self.bot = bot

        def announced(self):
            return self.bot

    smart = {"name": "smart_bot", "version": "2"}
    entries = [{"seat": i, "name": n} for i, n in enumerate(["a.py#0", "a.py#1", "entrant", "b.py", "random"])]
    seats = [Seat(e["name"], "command", "x", ready_name=i != 2) for i, e in enumerate(entries)]
    seats[4] = Seat("random", "strategy", "random")
    _name_seats(entries, seats, [Said(smart), Said(smart), Said(smart), Said(None), Said(None)])
    assert [e["name"] for e in entries] == ["smart_bot#0", "smart_bot#1", "entrant", "b.py", "random"]
    assert [e.get("bot") for e in entries] == [smart, smart, smart, None, None]
    entries = [{"seat": 0, "name": "random"}, {"seat": 1, "name": "x.py"}]
    _name_seats(entries, [Seat("random", "strategy", "random"), Seat("x.py", "command", "x", ready_name=True)],
                [Said(None), Said({"name": "random"})])
    assert [e["name"] for e in entries] == ["random", "random#1"]  # a name another seat has already


# -- stderr logs only when written (issue 18) ---------------------------------------------------


def test_a_bot_silent_on_stderr_leaves_no_log_and_a_chatty_one_leaves_its_own(tmp_path):
    (tmp_path / "seat1.log").touch()  # made beforehand (as for the sandbox) and left empty: removed
    result, _, players = play(tmp_path, [bot("echo"), bot("random_bot")])
    assert result.result["faults"] == [0, 0]
    assert '"type": "hello"' in (tmp_path / "seat0.log").read_text()  # echo copies its input to stderr
    assert not (tmp_path / "seat1.log").exists()
    assert players[1].stderr_log() is None and players[0].stderr_log() == tmp_path / "seat0.log"


def test_a_bot_that_cannot_start_leaves_the_referees_note_and_its_fault_names_the_log(tmp_path):
    result, _, _ = play(tmp_path, [[str(tmp_path / "no-such-bot"), "x"], bot("random_bot")])
    (fault,) = result.faults
    assert fault.kind == "crash" and fault.log == "seat0.log"
    assert (tmp_path / "seat0.log").read_text().startswith("[referee] cannot start")
    assert not (tmp_path / "seat1.log").exists()


def test_a_fault_names_no_log_while_the_bot_wrote_nothing(tmp_path):
    result, _, _ = play(tmp_path, [scripted(acts=[['{"type":"action","id":{id},"index":9}']]), bot("random_bot")])
    (fault,) = result.faults
    assert fault.kind == "illegal" and fault.log is None
    assert not (tmp_path / "seat0.log").exists()


def test_every_seats_process_is_started_before_the_first_hello(tmp_path):
    """Issue 19: the bots' start-up times overlap (each hello still waits for its own ready)."""
    players = [player(bot("random_bot"), log_path=tmp_path / f"seat{i}.log") for i in range(2)]
    running_at_hello = []

    class Watch:
        def sent(self, seat, message, state):
            if message["type"] == "hello":
                running_at_hello.append([p.pid is not None for p in players])

        def stepped(self, state):
            pass

    seats = [Seat("random_bot", "command", "random_bot")] * 2
    result = run_match(PickGame(), {"turns": TURNS, "pad": 0}, 7, seats, players, Limits(move_ms=10000),
                       monitor=Watch())
    assert result.result["faults"] == [0, 0]
    assert running_at_hello == [[True, True], [True, True]]
    for p in players:
        assert_gone(p)
