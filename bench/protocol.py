"""Benchmark: the wire. A full 4-seat match of each game against 4 subprocess copies of
bots/python/random_bot.py (the real SubprocessPlayer, limits wrapper included), beside a bare
JSON-lines ping-pong with 4 copies of the same bot in the same run.

- match: microseconds per decision from the first `act` to the `end` (bot start-up excluded):
  the game, the observation and legal list encoded, the events piggy-backed on the next `act`,
  the bot parsing all of it and answering, the reply parsed and checked.
- floor: a minimal `act` ({"obs": {}, "legal": [{}]}) written with one write(2) and its reply read
  back with blocking reads, seat after seat: the cost of a round trip to a Python bot process.
- ratio: floor / match (1.0 = the referee and the bigger messages cost nothing; the issue's
  target is at least 0.8).
- via adapter: the same minimal ping-pong through the real SubprocessPlayer (what the adapter
  adds before any game state or big message is involved).
- referee cpu: this process's CPU time per decision during the match (the game, encoding the
  messages, parsing the replies, writing the replay); the rest of a decision is the bots and the
  kernel's wake-ups.

Both are measured spread (no affinity: the referee and the bots on any core) and pinned (this
process and every bot on one core, os.sched_setaffinity, as a tournament worker could pin
itself and its bots). Rounds alternate floor and matches; medians of --repeat rounds.

Usage: python bench/protocol.py [--repeat 5] [--pings 2000] [--game GAME] [--mode spread|pinned]
Prints a table and writes bench/results/protocol.json. Never asserts anything.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import ROOT, machine, machine_line, median, table, write_results  # noqa: E402

GAMES = ("maumau", "presidente", "mayor")
BOT = ROOT / "bots" / "python" / "random_bot.py"
PLAYERS = 4


def floor(pings: int) -> float:
    """Microseconds per round trip of a minimal act to 4 random_bot processes, seat after seat."""
    procs = [subprocess.Popen([sys.executable, str(BOT)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
             for _ in range(PLAYERS)]
    try:
        ins = [p.stdin.fileno() for p in procs]
        outs = [p.stdout.fileno() for p in procs]
        bufs = [b""] * PLAYERS

        def roundtrip(seat: int, message: dict[str, Any]) -> dict[str, Any]:
            os.write(ins[seat], (json.dumps(message, separators=(",", ":")) + "\n").encode())
            buf = bufs[seat]
            while b"\n" not in buf:
                chunk = os.read(outs[seat], 65536)
                if not chunk:
                    raise RuntimeError("the bot closed its stdout")
                buf += chunk
            line, _, bufs[seat] = buf.partition(b"\n")
            return json.loads(line)

        for seat in range(PLAYERS):
            roundtrip(seat, {"type": "hello", "protocol": 1, "game": "ping", "seat": seat, "players": PLAYERS,
                             "names": [], "config": {}, "match": "ping", "limits": {}})
        for k in range(200):  # warm-up
            roundtrip(k % PLAYERS, {"type": "act", "id": k, "obs": {}, "legal": [{}], "time_ms": 1000})
        started = time.perf_counter()
        for k in range(pings):
            reply = roundtrip(k % PLAYERS, {"type": "act", "id": k, "obs": {}, "legal": [{}], "time_ms": 1000})
            if reply.get("id") != k:
                raise RuntimeError(f"unexpected reply {reply}")
        return (time.perf_counter() - started) / pings * 1e6
    finally:
        for p in procs:
            p.stdin.close()
        for p in procs:
            p.wait(5)
            p.stdout.close()


def adapter_floor(pings: int) -> float:
    """The same minimal ping-pong through the real SubprocessPlayer (limits wrapper, selectors,
    reply checks): what the adapter adds to a bare round trip, before any game or big message."""
    import tempfile

    from referee.limits import subprocess_options
    from referee.players import Hello
    from referee.runner import Limits
    from referee.subprocess_bot import SubprocessPlayer

    limits = Limits()
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


def match(game_name: str, seed: int) -> dict[str, Any]:
    """One match against 4 random_bot processes; microseconds per decision, start-up excluded."""
    import tempfile

    from referee.config import resolve_config
    from referee.limits import subprocess_options
    from referee.plugins import load_registry
    from referee.runner import Limits, Seat, run_match
    from referee.subprocess_bot import SubprocessPlayer

    clock: dict[str, float] = {}

    class Timed(SubprocessPlayer):
        """Notes when the first act starts and the first end is sent (one clock read per act)."""

        def act(self, id, obs, legal, time_ms):
            if "first" not in clock:
                clock["first"] = time.perf_counter()
                clock["cpu_first"] = time.process_time()
            return super().act(id, obs, legal, time_ms)

        def end(self, result):
            if "end" not in clock:
                clock["end"] = time.perf_counter()
                clock["cpu_end"] = time.process_time()
            super().end(result)

    registry = load_registry()
    game = registry.games[game_name]
    config = resolve_config(game, {}, PLAYERS)
    limits = Limits()
    spec = f"{sys.executable} {BOT}"
    seats = [Seat(f"random_bot#{i}", "command", spec) for i in range(PLAYERS)]
    with tempfile.TemporaryDirectory(prefix="referee-bench-") as tmp:
        players = [Timed([sys.executable, str(BOT)], log_path=Path(tmp) / f"seat{i}.log", **subprocess_options(limits))
                   for i in range(PLAYERS)]
        result = run_match(game, config, seed, seats, players, limits, replay=Path(tmp) / "match.jsonl")
    if any(result.result["faults"]):
        raise RuntimeError(f"{game_name} seed {seed}: faults {result.result['fault_log']}")
    return {"decisions": result.decisions, "us": (clock["end"] - clock["first"]) / result.decisions * 1e6,
            "referee_cpu_us": (clock["cpu_end"] - clock["cpu_first"]) / result.decisions * 1e6}


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
            floors: list[float] = []
            adapter: list[float] = []
            per_game: dict[str, list[dict[str, Any]]] = {g: [] for g in games}
            for rep in range(repeat):
                floors.append(floor(pings))
                adapter.append(adapter_floor(pings))
                for g in games:
                    per_game[g].append(match(g, seed=rep))
        finally:
            if before is not None:
                os.sched_setaffinity(0, before)
        floor_us = median(floors)
        adapter_us = median(adapter)
        for g in games:
            us = median([m["us"] for m in per_game[g]])
            rows.append({"mode": mode, "game": g, "us_per_decision": us, "floor_us": floor_us,
                         "adapter_floor_us": adapter_us, "adapter_floor_samples_us": [round(f, 2) for f in adapter],
                         "referee_cpu_us": median([m["referee_cpu_us"] for m in per_game[g]]),
                         "ratio": floor_us / us, "decisions": [m["decisions"] for m in per_game[g]],
                         "samples_us": [round(m["us"], 2) for m in per_game[g]],
                         "floor_samples_us": [round(f, 2) for f in floors]})
    return {"players": PLAYERS, "repeat": repeat, "pings": pings, "bot": str(BOT.relative_to(ROOT)), "rows": rows}


def summary_table(data: dict[str, Any]) -> str:
    headers = ["protocol (4 random_bot.py)", "cores", "us/decision", "referee cpu", "ping-pong us", "ratio",
               "target", "met", "via adapter us"]
    body = [[r["game"], "1 (pinned)" if r["mode"] == "pinned" else "any", r["us_per_decision"], r["referee_cpu_us"],
             r["floor_us"], r["ratio"], 0.8, "yes" if r["ratio"] >= 0.8 else "NO", r["adapter_floor_us"]]
            for r in data["rows"]]
    return table(headers, body, "llrrrrrlr")


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="rounds (floor + one match per game), median")
    parser.add_argument("--pings", type=int, default=2000, help="round trips per floor measurement")
    parser.add_argument("--game", choices=GAMES, action="append", help="only this game (repeatable)")
    parser.add_argument("--mode", choices=("spread", "pinned"), action="append",
                        help="spread (no affinity) and/or pinned (one core); default both")
    args = parser.parse_args(argv)
    info = machine()
    data = bench(tuple(args.game or GAMES), args.repeat, args.pings, tuple(args.mode or ("spread", "pinned")))
    print(machine_line(info))
    print(f"protocol bench: one 4-seat match per game against {PLAYERS} copies of {data['bot']}, beside a bare "
          f"JSON-lines ping-pong ({data['pings']} round trips); median of {data['repeat']} rounds; wall clock")
    print(summary_table(data))
    write_results("protocol", data)
    return data


if __name__ == "__main__":
    main()
