"""Benchmark: the engine. Full seeded matches of every game, mode and main variant
(`Game.variants()`), 4 seats played by the `random` strategy, through the real match runner:
legal actions, the acting seat's observation, the move record, events to every seat.

Measured per game and variant, replay writing off and on (a new .jsonl file per match), plus the
bare game (legal_actions + observe + apply + drain in a loop, no runner) to tell the game's cost
from the runner's: microseconds per decision (observation included) and matches per second.
Each figure is the median of --repeat runs of the same seeded matches. Both clocks are kept:
CPU time of this process (time.process_time: what the referee costs, the honest figure on a
shared, busy machine) and wall time (what a user waits, inflated by whatever else runs).

`--instructions GAME` counts instead the instructions per decision with valgrind's cachegrind
(replay off and on), a figure a loaded machine does not move, for a before and after.

`--sign` signs the replays written (referee/signing.py: a running SHA-256 and the result's
Ed25519 signature), as a tournament does: "+replay" is then the signed replay's cost.

Usage: python bench/engine.py [--repeat 5] [--scale 1.0] [--game GAME] [--profile GAME] [--instructions GAME] [--sign]
Prints a table and writes bench/results/engine.json. Never asserts anything.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import machine, machine_line, median, table, write_results  # noqa: E402

GAMES = ("maumau", "presidente", "mayor")
PLAYERS = 4
#: matches per variant in one run (about 0.1-0.2 s each at the targets)
MATCHES = {"maumau": 24, "presidente": 16, "mayor": 16}
#: the deal key of --instructions' children: the same deals in every count (a bench's key, no secret)
BENCH_KEY = "bench-engine-instructions-0123456789abcdef"
#: issue 9's targets, microseconds per decision through the runner, observation included
TARGET_US = {"maumau": 6.0, "presidente": 15.0, "mayor": 10.0}


def _setup():
    from referee.config import resolve_config
    from referee.plugins import load_registry

    registry = load_registry()
    return registry, resolve_config


def run_matches(game, config: dict[str, Any], seeds: range, replay_dir: Path | None) -> tuple[float, float, int]:
    """Play the seeded matches through run_match; (CPU seconds, wall seconds, decisions)."""
    from referee.players import StrategyPlayer
    from referee.runner import Limits, Seat, run_match
    from referee_strategies.basic import RandomLegal

    seats = [Seat(f"random#{i}", "strategy", "random") for i in range(PLAYERS)]
    limits = Limits()
    signer = _signer()
    decisions = 0
    cpu, started = time.process_time(), time.perf_counter()
    for seed in seeds:
        players = [StrategyPlayer(RandomLegal(game.name, i, config, random.Random(f"{seed}/{i}/random")))
                   for i in range(PLAYERS)]
        # a file per match, as play and tournaments write (truncating one file again and again
        # costs ~3 ms a match on ext4: that, not the writing, was most of "+replay")
        replay = replay_dir / f"{game.name}-{seed}.jsonl" if replay_dir is not None else None
        decisions += run_match(game, config, seed, seats, players, limits, replay=replay, signer=signer).decisions
    return time.process_time() - cpu, time.perf_counter() - started, decisions


def _signer():
    """The replays' signing key with --sign (REFEREE_BENCH_SIGN, so that --instructions' children
    sign too), else None."""
    import os

    if not os.environ.get("REFEREE_BENCH_SIGN"):
        return None
    from referee.signing import generate

    return generate()


def run_bare(game, config: dict[str, Any], seeds: range) -> tuple[float, float, int]:
    """The game alone: legal actions, the acting seat's observation, a random choice, apply, drain."""
    from referee.chance import Sampler, Streams, settle

    decisions = 0
    cpu, started = time.process_time(), time.perf_counter()
    for seed in seeds:
        state = game.new_state(config, PLAYERS)
        sampler = Sampler(Streams(random.Random(seed)))  # chance answered as the runner does
        settle(state, sampler)
        rng = random.Random(f"bare/{seed}")
        state.drain()
        while (seat := state.to_act()) is not None or (settle(state, sampler) and (seat := state.to_act()) is not None):
            legal = state.legal_actions()
            state.observe(seat)
            state.apply(legal[rng.randrange(len(legal))])
            state.drain()
            decisions += 1
    return time.process_time() - cpu, time.perf_counter() - started, decisions


def bench(games: tuple[str, ...], repeat: int, scale: float) -> dict[str, Any]:
    registry, resolve_config = _setup()
    cells = []  # (game, variant, resolved config, matches)
    for name in games:
        game = registry.games[name]
        count = max(1, round(MATCHES[name] * scale))
        for variant in game.variants():
            cells.append((game, variant, resolve_config(game, variant, PLAYERS), count))
    runs: list[dict[str, list[tuple[float, float, int]]]] = [{"bare": [], "off": [], "on": []} for _ in cells]
    with tempfile.TemporaryDirectory(prefix="referee-bench-") as tmp:
        replay_dir = Path(tmp)
        for game, _, config, _ in cells:
            run_matches(game, config, range(1), None)  # warm-up (imports, caches)
        # Repetitions go round every cell, so a slow spell of a shared machine hits every game
        # alike instead of one game's every run.
        for _ in range(repeat):
            for (game, _, config, count), cell in zip(cells, runs):
                seeds = range(count)
                cell["bare"].append(run_bare(game, config, seeds))
                cell["off"].append(run_matches(game, config, seeds, None))
                cell["on"].append(run_matches(game, config, seeds, replay_dir))
    rows = []
    for (game, variant, _, count), cell in zip(cells, runs):
        row: dict[str, Any] = {"game": game.name, "variant": variant, "matches": count,
                               "decisions": cell["off"][0][2], "bare_decisions": cell["bare"][0][2]}
        for mode, samples in cell.items():
            row[f"cpu_{mode}"] = [round(c, 5) for c, _, _ in samples]
            row[f"wall_{mode}"] = [round(w, 5) for _, w, _ in samples]
        rows.append(row)
    summary = []
    for name in games:
        mine = [r for r in rows if r["game"] == name]
        entry: dict[str, Any] = {"game": name, "target_us": TARGET_US[name],
                                 "matches": sum(r["matches"] for r in mine)}
        for row in mine + [entry]:
            group = [row] if row is not entry else mine
            for mode in ("bare", "off", "on"):
                decisions = sum(r["bare_decisions" if mode == "bare" else "decisions"] for r in group)
                matches = sum(r["matches"] for r in group)
                for clock in ("cpu", "wall"):
                    # every variant's matches together: total time over total decisions, per run
                    per_run = [sum(r[f"{clock}_{mode}"][k] for r in group) for k in range(repeat)]
                    row[f"us_{clock}_{mode}"] = median([t / decisions * 1e6 for t in per_run])
                    row[f"matches_s_{clock}_{mode}"] = median([matches / t for t in per_run])
        entry["met"] = entry["us_cpu_off"] <= TARGET_US[name]
        summary.append(entry)
    return {"players": PLAYERS, "repeat": repeat, "rows": rows, "summary": summary}


def variant_label(variant: dict[str, Any]) -> str:
    return ",".join(f"{k}={v}" for k, v in variant.items()) or "default"


def print_tables(data: dict[str, Any]) -> None:
    print(f"engine bench: {data['players']} seats of `random` through run_match; us per decision, observation "
          f"included; median of {data['repeat']} runs; cpu = process CPU time, wall = elapsed")
    headers = ["game", "variant", "dec/match", "bare cpu", "cpu us", "wall us", "+replay cpu", "+replay wall",
               "matches/s"]
    body = [[r["game"], variant_label(r["variant"]), round(r["decisions"] / r["matches"]), r["us_cpu_bare"],
             r["us_cpu_off"], r["us_wall_off"], r["us_cpu_on"], r["us_wall_on"], r["matches_s_wall_off"]]
            for r in data["rows"]]
    print(table(headers, body, "llrrrrrrr"))
    print()
    print(summary_table(data))


def summary_table(data: dict[str, Any]) -> str:
    headers = ["engine, all variants", "cpu us/dec", "wall us/dec", "+replay cpu", "+replay wall", "target",
               "met (cpu)", "matches/s", "+replay"]
    body = [[s["game"], s["us_cpu_off"], s["us_wall_off"], s["us_cpu_on"], s["us_wall_on"], s["target_us"],
             "yes" if s["met"] else "NO", s["matches_s_wall_off"], s["matches_s_wall_on"]]
            for s in data["summary"]]
    return table(headers, body, "lrrrrrlrr")


def profile(name: str, seconds: float = 3.0) -> None:
    """A statistical profile of the runner playing `name` (pyinstrument if installed, else cProfile)."""
    registry, resolve_config = _setup()
    game = registry.games[name]
    configs = [resolve_config(game, v, PLAYERS) for v in game.variants()]

    def work():
        end = time.perf_counter() + seconds
        seed = 0
        while time.perf_counter() < end:
            run_matches(game, configs[seed % len(configs)], range(seed, seed + 1), None)
            seed += 1

    try:
        from pyinstrument import Profiler
    except ImportError:
        import cProfile
        import pstats

        prof = cProfile.Profile()
        prof.runcall(work)
        pstats.Stats(prof).sort_stats("tottime").print_stats(25)
        return
    profiler = Profiler(interval=0.0001)
    profiler.start()
    work()
    profiler.stop()
    print(profiler.output_text(unicode=False, color=False, show_all=False))


def instructions(name: str, matches: int) -> dict[str, Any]:
    """Instructions per decision of the runner on `name` (its default variant), replay off and on,
    counted by valgrind's cachegrind: a figure the machine's load does not move, for a before
    and after. Each count is a child run playing `matches` matches less one playing none (the
    interpreter's start and the imports), over the matches' decisions. The children deal under
    one fixed deal key and hash seed (BENCH_KEY): with the process's fresh key each count played
    other deals, and moved by a percent or two from run to run."""
    import os
    import re
    import shutil
    import subprocess

    if shutil.which("valgrind") is None:
        raise SystemExit("--instructions needs valgrind (cachegrind)")

    def counted(count: int, replay: bool) -> tuple[int, int]:
        with tempfile.TemporaryDirectory(prefix="referee-bench-cg-") as tmp:
            argv = ["valgrind", "--tool=cachegrind", "--cache-sim=no", f"--cachegrind-out-file={tmp}/cg.out",
                    sys.executable, __file__, "--instructions-child", name, str(count), tmp if replay else "-"]
            env = dict(os.environ, REFEREE_DEAL_KEY=BENCH_KEY, PYTHONHASHSEED="0")
            done = subprocess.run(argv, capture_output=True, text=True, check=True, env=env)
        found = re.search(r"I\s+refs:\s+([\d,]+)", done.stderr)
        if found is None:
            raise SystemExit(f"no instruction count from cachegrind:\n{done.stderr[-1000:]}")
        return int(found.group(1).replace(",", "")), int(done.stdout.split()[-1])

    base, _ = counted(0, False)
    out: dict[str, Any] = {"game": name, "matches": matches}
    for mode, replay in (("off", False), ("on", True)):
        total, decisions = counted(matches, replay)
        out["decisions"] = decisions
        out[f"instructions_per_decision_{mode}"] = round((total - base) / decisions)
    return out


def _instructions_child(name: str, matches: int, replay_dir: str) -> None:
    """Play `matches` seeded matches of `name` (default variant), printing the decisions."""
    registry, resolve_config = _setup()
    game = registry.games[name]
    config = resolve_config(game, game.variants()[0], PLAYERS)
    _, _, decisions = run_matches(game, config, range(matches), None if replay_dir == "-" else Path(replay_dir))
    print(decisions)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs per figure, the median is reported (default 5)")
    parser.add_argument("--scale", type=float, default=1.0, help="multiply the matches per variant (default 1)")
    parser.add_argument("--game", choices=GAMES, action="append", help="only this game (repeatable)")
    parser.add_argument("--profile", choices=GAMES, help="profile the runner on this game instead")
    parser.add_argument("--instructions", choices=GAMES,
                        help="count instructions per decision on this game instead (valgrind's cachegrind)")
    parser.add_argument("--sign", action="store_true", help="sign the replays written, as a tournament does")
    parser.add_argument("--instructions-child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.sign:
        import os

        os.environ["REFEREE_BENCH_SIGN"] = "1"
    if args.instructions_child:
        name, count, replay_dir = args.instructions_child
        _instructions_child(name, int(count), replay_dir)
        return {}
    if args.profile:
        profile(args.profile)
        return {}
    if args.instructions:
        counts = instructions(args.instructions, max(1, round(MATCHES[args.instructions] * args.scale)))
        print(table(["engine (cachegrind)", "matches", "decisions", "instructions/decision", "+replay"],
                    [[counts["game"], counts["matches"], counts["decisions"], counts["instructions_per_decision_off"],
                      counts["instructions_per_decision_on"]]]))
        write_results("engine-instructions", counts)
        return counts
    info = machine()
    data = bench(tuple(args.game or GAMES), args.repeat, args.scale)
    print(machine_line(info))
    print_tables(data)
    path = write_results("engine", data)
    print(f"(written to {path.relative_to(Path.cwd()) if path.is_relative_to(Path.cwd()) else path})")
    return data


if __name__ == "__main__":
    main()
