"""Benchmark: the same tournament at concurrency 1 and 2, matches/s and the speed-up.

The speed-up compares the same work per match: both runs with `spin_us = 0`. By default a
tournament at concurrency 1 on 2 cores polls for the subprocess bot's replies on the second core
(referee.bots.limits.spin_us) and one at concurrency 2 does not, which makes concurrency 1 faster
per match but is no longer one core's work; that default run is measured too and shown beside.

Usage: python bench/tournament.py [--seeds N] [--game GAME]
Prints a table and writes JSON to bench/results/tournament.json. Never asserts anything.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

TEMPLATE = """
name = "bench"
seed = 1
duplicate = true
seeds = {seeds}
[[entrants]]
strategy = "random"
[[entrants]]
strategy = "first"
[[entrants]]
name = "random2"
strategy = "random"
[[entrants]]
name = "{greedy}"
strategy = "{greedy}"
[[entrants]]
name = "bot"
command = "{python} {bot}"
[[games]]
game = "{game}"
players = 4
{limits}"""


def main() -> None:
    from referee.plugins import load_registry
    from referee.tournament.run import match_limits, run
    from referee.tournament.config import load_tournament

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=4, help="deal seeds per table (default 4)")
    parser.add_argument("--repeat", type=int, default=3, help="rounds after a warm-up round, median (default 3)")
    parser.add_argument("--game", default="presidente", choices=("maumau", "presidente", "mayor"))
    args = parser.parse_args()
    registry = load_registry()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.toml"
        runs: dict[tuple[int, bool], list[float]] = {}
        spins: dict[tuple[int, bool], int] = {}  # each configuration's spin_us, as its matches use it
        for rep in range(args.repeat + 1):  # round 0 warms the caches up and is not counted
            for concurrency, polling in ((1, False), (2, False), (1, True)):
                path.write_text(TEMPLATE.format(seeds=args.seeds, game=args.game, greedy=f"{args.game}-greedy",
                                                python=sys.executable, bot=ROOT / "bots" / "python" / "random_bot.py",
                                                limits="" if polling else "[limits]\nspin_us = 0\n"))
                config = load_tournament(path, registry, out=Path(tmp) / f"c{concurrency}{polling}{rep}",
                                         concurrency=concurrency)
                started = time.perf_counter()
                records = run(config)
                seconds = time.perf_counter() - started
                spins[concurrency, polling] = match_limits(config).spin_us
                if rep:
                    runs.setdefault((concurrency, polling), []).append(seconds)
        for (concurrency, polling), times in runs.items():
            seconds = statistics.median(times)
            rows.append({"concurrency": concurrency, "spin_us": spins[concurrency, polling],
                         "matches": len(records), "seconds": round(seconds, 3),
                         "matches_per_s": round(len(records) / seconds, 2), "samples_s": [round(t, 3) for t in times]})
    speedup = rows[1]["matches_per_s"] / rows[0]["matches_per_s"]
    speedup_default = rows[1]["matches_per_s"] / rows[2]["matches_per_s"]
    print(f"tournament bench: {args.game}, 5 entrants at tables of 4, duplicate, {args.seeds} seeds per table "
          f"({rows[0]['matches']} matches, 4 tables in 5 seat the subprocess random_bot); {os.cpu_count()} cores, "
          f"{platform.python_implementation()} {platform.python_version()}")
    print(f"{'concurrency':>11} {'polls us':>8} {'matches':>8} {'seconds':>8} {'matches/s':>10}")
    for r in rows:
        print(f"{r['concurrency']:>11} {r['spin_us']:>8} {r['matches']:>8} {r['seconds']:>8.2f} "
              f"{r['matches_per_s']:>10.2f}")
    print(f"speed-up at concurrency 2: {speedup:.2f}x (the same work per match: no polling at either); "
          f"{speedup_default:.2f}x against concurrency 1 polling on the second core (its default)")
    out = ROOT / "bench" / "results"
    out.mkdir(parents=True, exist_ok=True)
    (out / "tournament.json").write_text(json.dumps({"game": args.game, "rows": rows, "speedup": speedup,
                                                     "speedup_vs_polling": speedup_default,
                                                     "cores": os.cpu_count()}, indent=2) + "\n")


if __name__ == "__main__":
    main()
