"""Benchmark: the same tournament at concurrency 1 and 2, matches/s and the speed-up.

Usage: python bench/tournament.py [--seeds N] [--game GAME]
Prints a table and writes JSON to bench/results/tournament.json. Never asserts anything.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
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
"""


def main() -> None:
    from referee.plugins import load_registry
    from referee.tournament import run
    from referee.tournament_config import load_tournament

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=4, help="deal seeds per table (default 4)")
    parser.add_argument("--game", default="presidente", choices=("maumau", "presidente", "mayor"))
    args = parser.parse_args()
    registry = load_registry()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.toml"
        path.write_text(TEMPLATE.format(seeds=args.seeds, game=args.game, greedy=f"{args.game}-greedy",
                                        python=sys.executable, bot=ROOT / "bots" / "python" / "random_bot.py"))
        for concurrency in (1, 2):
            config = load_tournament(path, registry, out=Path(tmp) / f"c{concurrency}", concurrency=concurrency)
            started = time.perf_counter()
            records = run(config)
            seconds = time.perf_counter() - started
            rows.append({"concurrency": concurrency, "matches": len(records), "seconds": round(seconds, 3),
                         "matches_per_s": round(len(records) / seconds, 2),
                         "decisions": sum(r["decisions"] for r in records)})
    speedup = rows[1]["matches_per_s"] / rows[0]["matches_per_s"]
    print(f"tournament bench: {args.game}, 5 entrants at tables of 4, duplicate, {args.seeds} seeds per table "
          f"({rows[0]['matches']} matches, 4 tables in 5 seat the subprocess random_bot); {os.cpu_count()} cores, "
          f"{platform.python_implementation()} {platform.python_version()}")
    print(f"{'concurrency':>11} {'matches':>8} {'seconds':>8} {'matches/s':>10}")
    for r in rows:
        print(f"{r['concurrency']:>11} {r['matches']:>8} {r['seconds']:>8.2f} {r['matches_per_s']:>10.2f}")
    print(f"speed-up at concurrency 2: {speedup:.2f}x")
    out = ROOT / "bench" / "results"
    out.mkdir(parents=True, exist_ok=True)
    (out / "tournament.json").write_text(json.dumps({"game": args.game, "rows": rows, "speedup": speedup,
                                                     "cores": os.cpu_count()}, indent=2) + "\n")


if __name__ == "__main__":
    main()
