"""Benchmark: the wire. A full 4-seat match of each game against 4 subprocess copies of
bots/python/random_bot.py (the real SubprocessPlayer, limits wrapper included), beside a bare
JSON-lines ping-pong with 4 copies of the same bot in the same run.

- match: microseconds per decision from the first `act` to the `end` (bot start-up excluded):
  the game, the observation and legal list encoded, the events piggy-backed on the next `act`,
  the bot parsing all of it and answering, the reply parsed and checked, the replay written.
- floor: a minimal `act` ({"obs": {}, "legal": [{}]}) written with one write(2) and its reply read
  back, seat after seat: the cost of a round trip to a Python bot process. Measured two ways:
  "blocking" (a blocking read, the plain way) and "polling" (non-blocking reads for up to the
  same spin_us as the referee's, then a blocking wait: the way the referee waits by default
  where it has a core to spare, see referee.bots.limits.spin_us).
- ratio: floor / match (1.0 = the referee and the bigger messages cost nothing; the issue's
  target is at least 0.8). "like for like" divides by the floor that waits the way the match
  did; "vs blocking" always divides by the blocking floor. Each ratio is the median of the
  rounds' own ratios (a round measures both sides back to back, so a slow spell hits both).
- via adapter: the same minimal ping-pong through the real SubprocessPlayer (what the adapter
  adds before any game state or big message is involved).
- match messages: the same bare ping-pong (same 4 bots, same way of waiting), but writing the
  very bytes the match sends each seat (its events, then its act), recorded from an untimed
  match with the same seed: what any referee would pay for this game's messages if its own work
  cost nothing. "best ratio" = floor / match messages, the ratio such a referee would reach;
  "referee adds" = match - match messages, the referee's own share of a decision.
- referee cpu: this process's CPU time per decision during the match (the game, encoding the
  messages, parsing the replies, writing the replay, and polling); the rest of a decision is
  the bots and the kernel's wake-ups.

Modes: "spread" (no affinity: the referee and the bots on any core; the referee polls, as it
does by default on a machine with 2 cores per match), "spread-nopoll" (the same with spin_us=0)
and "pinned" (this process and every bot on one core, os.sched_setaffinity, as a tournament
worker could pin itself and its bots; no polling there, as by default). Rounds alternate floors
and matches; medians of --repeat rounds.

Usage: python bench/protocol.py [--repeat 5] [--pings 2000] [--game GAME] [--mode MODE]
Prints a table and writes bench/results/protocol.json. Never asserts anything.
"""

from __future__ import annotations

import argparse
import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import ROOT, machine, machine_line, median, table, write_results  # noqa: E402

GAMES = ("maumau", "presidente", "mayor")
BOT = ROOT / "bots" / "python" / "random_bot.py"
PLAYERS = 4


MODES = ("spread", "spread-nopoll", "pinned")


def minimal_acts(count: int) -> list[tuple[int, bytes]]:
    """`count` minimal acts, seat after seat: the bare ping-pong's exchanges."""
    return [(k % PLAYERS, (json.dumps({"type": "act", "id": k, "obs": {}, "legal": [{}], "time_ms": 1000},
                                      separators=(",", ":")) + "\n").encode())
            for k in range(count)]


def pingpong(exchanges: list[tuple[int, bytes]], spin_us: int = 0, warmup: int = 200) -> float:
    """Microseconds per exchange with 4 random_bot processes: each exchange's bytes (lines ending
    in one act) written to its seat with one write(2), and the reply line read back and parsed.
    With `spin_us`, each reply is polled for that long before a blocking wait. The first
    `warmup` exchanges (cycled) are played untimed first."""
    procs = [subprocess.Popen([sys.executable, str(BOT)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
             for _ in range(PLAYERS)]
    try:
        ins = [p.stdin.fileno() for p in procs]
        outs = [p.stdout.fileno() for p in procs]
        for fd in outs:
            os.set_blocking(fd, False)
        bufs = [b""] * PLAYERS
        clock = time.perf_counter

        def read(fd: int) -> bytes:
            until = clock() + spin_us / 1e6
            while True:
                try:
                    chunk = os.read(fd, 65536)
                except BlockingIOError:
                    if clock() >= until:
                        select.select([fd], [], [])  # sleep until the bot writes
                    continue
                if not chunk:
                    raise RuntimeError("the bot closed its stdout")
                return chunk

        def roundtrip(seat: int, data: bytes) -> dict[str, Any]:
            os.write(ins[seat], data)
            buf = bufs[seat]
            while b"\n" not in buf:
                buf += read(outs[seat])
            line, _, bufs[seat] = buf.partition(b"\n")
            return json.loads(line)

        for seat in range(PLAYERS):
            hello = {"type": "hello", "protocol": 1, "game": "ping", "seat": seat, "players": PLAYERS,
                     "names": [], "config": {}, "match": "ping", "limits": {}}
            roundtrip(seat, (json.dumps(hello, separators=(",", ":")) + "\n").encode())
        for k in range(warmup):
            roundtrip(*exchanges[k % len(exchanges)])
        started = time.perf_counter()
        for seat, data in exchanges:
            reply = roundtrip(seat, data)
            if reply.get("type") != "action":
                raise RuntimeError(f"unexpected reply {reply}")
        return (time.perf_counter() - started) / len(exchanges) * 1e6
    finally:
        for p in procs:
            p.stdin.close()
        for p in procs:
            p.wait(5)
            p.stdout.close()


def floor(pings: int, spin_us: int = 0) -> float:
    """Microseconds per round trip of a minimal act to 4 random_bot processes, seat after seat;
    with `spin_us`, each reply is polled for that long before a blocking wait."""
    return pingpong(minimal_acts(pings), spin_us)


_recorded: dict[tuple[str, int], list[tuple[int, bytes]]] = {}


def match_messages(game_name: str, seed: int) -> list[tuple[int, bytes]]:
    """The bytes a match of `game_name` with `seed` sends each seat, cut into exchanges: one per
    act, holding the events queued for that seat since its last act and the act itself. Taken
    from the transcript of one untimed match (cached): the same messages the timed match sends."""
    key = (game_name, seed)
    if key not in _recorded:
        sent: list[tuple[int, bytes]] = []

        def transcript(seat: int):
            return lambda kind, line: sent.append((seat, line)) if kind == "send" else None

        match(game_name, seed, spin_us=0, transcript=transcript)
        queued: list[bytes] = [b""] * PLAYERS
        exchanges = []
        for seat, line in sent:
            if line.startswith(b'{"type":"act"'):
                exchanges.append((seat, queued[seat] + line))
                queued[seat] = b""
            elif line.startswith(b'{"type":"event"'):
                queued[seat] += line
        _recorded[key] = exchanges
    return _recorded[key]


def adapter_floor(pings: int, spin_us: int | None) -> float:
    """The same minimal ping-pong through the real SubprocessPlayer (limits wrapper, selectors,
    reply checks): what the adapter adds to a bare round trip, before any game or big message."""
    import tempfile

    from referee.bots.limits import subprocess_options
    from referee.players import Hello
    from referee.runner import Limits
    from referee.bots.player import SubprocessPlayer

    limits = Limits(spin_us=spin_us)
    with tempfile.TemporaryDirectory(prefix="referee-bench-") as tmp:
        players = [SubprocessPlayer([sys.executable, str(BOT)], log_path=Path(tmp) / f"seat{i}.log",
                                    **subprocess_options(limits)) for i in range(PLAYERS)]
        try:
            for seat, player in enumerate(players):
                fault = player.start(Hello("ping", seat, PLAYERS, [], {}, "ping", limits.wire()))
                if fault is not None:
                    raise RuntimeError(f"bot failed to start: {fault}")
            for k in range(1, 201):  # warm-up
                players[k % PLAYERS].act(k, {}, [{}], 1000)
            started = time.perf_counter()
            for k in range(201, 201 + pings):
                reply = players[k % PLAYERS].act(k, {}, [{}], 1000)
                if reply.index != 0:
                    raise RuntimeError(f"unexpected reply {reply}")
            return (time.perf_counter() - started) / pings * 1e6
        finally:
            for player in players:
                player.end({})
                player.close()


def match(game_name: str, seed: int, spin_us: int | None = None,
          transcript: Callable[[int], Callable[[str, bytes], None]] | None = None) -> dict[str, Any]:
    """One match against 4 random_bot processes; microseconds per decision, start-up excluded.
    `spin_us` None: the referee's default (referee.bots.limits.spin_us). `transcript(seat)`, if given,
    makes each seat's SubprocessPlayer transcript callback (for match_messages)."""
    import tempfile

    from referee.config import resolve_config
    from referee.bots.limits import subprocess_options
    from referee.plugins import load_registry
    from referee.runner import Limits, Seat, run_match
    from referee.bots.player import SubprocessPlayer

    clock: dict[str, float] = {}

    class Timed(SubprocessPlayer):
        """Notes when the first act starts and the first end is sent (one clock read per act)."""

        def act(self, id, obs, legal, time_ms, meanwhile=None):
            if "first" not in clock:
                clock["first"] = time.perf_counter()
                clock["cpu_first"] = time.process_time()
            return super().act(id, obs, legal, time_ms, meanwhile)

        def end(self, result):
            if "end" not in clock:
                clock["end"] = time.perf_counter()
                clock["cpu_end"] = time.process_time()
            super().end(result)

    registry = load_registry()
    game = registry.games[game_name]
    config = resolve_config(game, {}, PLAYERS)
    limits = Limits(spin_us=spin_us)
    spec = f"{sys.executable} {BOT}"
    seats = [Seat(f"random_bot#{i}", "command", spec) for i in range(PLAYERS)]
    with tempfile.TemporaryDirectory(prefix="referee-bench-") as tmp:
        players = [Timed([sys.executable, str(BOT)], log_path=Path(tmp) / f"seat{i}.log", **subprocess_options(limits),
                         transcript=transcript(i) if transcript is not None else None)
                   for i in range(PLAYERS)]
        result = run_match(game, config, seed, seats, players, limits, replay=Path(tmp) / "match.jsonl")
    if any(result.result["faults"]):
        raise RuntimeError(f"{game_name} seed {seed}: faults {result.result['fault_log']}")
    return {"spin_us": players[0].spin_us, "decisions": result.decisions, "us": (clock["end"] - clock["first"]) / result.decisions * 1e6,
            "referee_cpu_us": (clock["cpu_end"] - clock["cpu_first"]) / result.decisions * 1e6}


def _spin(mode: str) -> int:
    """The spin_us a match uses in this mode: the referee's default, or none."""
    from referee.bots.limits import spin_us

    return 0 if mode == "spread-nopoll" else spin_us()


def _pin(mode: str) -> set[int] | None:
    """Pin this process (and so every bot it starts) to one core; returns the previous affinity."""
    if mode != "pinned" or not hasattr(os, "sched_setaffinity"):
        return None
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(before)})
    return before


def bench(games: tuple[str, ...], repeat: int, pings: int, modes: tuple[str, ...]) -> dict[str, Any]:
    rows = []
    for mode in modes:
        before = _pin(mode)
        try:
            spin = _spin(mode)
            floors: list[float] = []
            polled: list[float] = []
            adapter: list[float] = []
            per_game: dict[str, list[dict[str, Any]]] = {g: [] for g in games}
            messages: dict[str, list[float]] = {g: [] for g in games}
            for rep in range(repeat):
                floors.append(floor(pings))
                if spin:
                    polled.append(floor(pings, spin))
                adapter.append(adapter_floor(pings, spin))
                for g in games:
                    messages[g].append(pingpong(match_messages(g, rep), spin))
                    per_game[g].append(match(g, seed=rep, spin_us=spin))
        finally:
            if before is not None:
                os.sched_setaffinity(0, before)
        floor_us = median(floors)
        polled_us = median(polled) if polled else None
        like = polled if spin else floors
        adapter_us = median(adapter)
        for g in games:
            us = [m["us"] for m in per_game[g]]

            def paired(floor_samples: list[float], samples: list[float]) -> float:
                """The median of each round's own ratio: a slow spell hits both sides of a round."""
                return median([f / x for f, x in zip(floor_samples, samples)])

            rows.append({"mode": mode, "game": g, "spin_us": spin, "us_per_decision": median(us), "floor_us": floor_us,
                         "polling_floor_us": polled_us, "like_floor_us": median(like),
                         "messages_floor_us": median(messages[g]), "best_ratio": paired(like, messages[g]),
                         "referee_us": median([x - m for x, m in zip(us, messages[g])]),
                         "adapter_floor_us": adapter_us, "adapter_floor_samples_us": [round(f, 2) for f in adapter],
                         "referee_cpu_us": median([m["referee_cpu_us"] for m in per_game[g]]),
                         "ratio": paired(like, us), "ratio_vs_blocking": paired(floors, us),
                         "decisions": [m["decisions"] for m in per_game[g]],
                         "samples_us": [round(x, 2) for x in us],
                         "messages_floor_samples_us": [round(f, 2) for f in messages[g]],
                         "floor_samples_us": [round(f, 2) for f in floors],
                         "polling_floor_samples_us": [round(f, 2) for f in polled]})
    return {"players": PLAYERS, "repeat": repeat, "pings": pings, "bot": str(BOT.relative_to(ROOT)), "rows": rows}


def where(row: dict[str, Any]) -> str:
    cores = "1 core (pinned)" if row["mode"] == "pinned" else "any core"
    return f"{cores}, polls {row['spin_us']} us" if row["spin_us"] else f"{cores}, no polling"


def summary_table(data: dict[str, Any]) -> str:
    headers = ["protocol (4 random_bot.py)", "referee", "us/decision", "referee cpu", "floor blocking",
               "floor polling", "ratio like for like", "met (>= 0.8)", "ratio vs blocking"]
    body = [[r["game"], where(r), r["us_per_decision"], r["referee_cpu_us"], r["floor_us"], r["polling_floor_us"],
             r["ratio"], "yes" if r["ratio"] >= 0.8 else "NO", r["ratio_vs_blocking"]]
            for r in data["rows"]]
    return table(headers, body, "llrrrrrlr")


def split_table(data: dict[str, Any]) -> str:
    """Where a decision's time goes: the round trip, the game's messages, the referee's work."""
    headers = ["where the time goes", "referee", "floor (like for like)", "match messages (no game)",
               "best ratio (floor / messages)", "referee adds", "match", "minimal act via adapter"]
    body = [[r["game"], where(r), r["like_floor_us"], r["messages_floor_us"], r["best_ratio"], r["referee_us"],
             r["us_per_decision"], r["adapter_floor_us"]] for r in data["rows"]]
    return table(headers, body, "llrrrrrr")


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="rounds (floor + one match per game), median")
    parser.add_argument("--pings", type=int, default=2000, help="round trips per floor measurement")
    parser.add_argument("--game", choices=GAMES, action="append", help="only this game (repeatable)")
    parser.add_argument("--mode", choices=MODES, action="append",
                        help="spread (no affinity, the referee's default polling), spread-nopoll (spin_us=0) "
                             "and/or pinned (one core); default all three")
    args = parser.parse_args(argv)
    info = machine()
    data = bench(tuple(args.game or GAMES), args.repeat, args.pings, tuple(args.mode or MODES))
    print(machine_line(info))
    print(f"protocol bench: one 4-seat match per game against {PLAYERS} copies of {data['bot']}, beside a bare "
          f"JSON-lines ping-pong ({data['pings']} round trips, blocking and polling); median of {data['repeat']} "
          f"rounds; wall clock")
    print(summary_table(data))
    print()
    print(split_table(data))
    write_results("protocol", data)
    return data


if __name__ == "__main__":
    main()
