"""Run every benchmark and print one table: engine, protocol, tournament, startup, memory, sandbox, reuse.

Each part prints its own table as it goes and writes bench/results/<part>.json; this script
then prints the summary against the issue 9 targets and writes bench/results/run.json.
Figures are medians of several runs, but on a shared 2-core machine they still move with
whatever else runs: the load average is printed with them.

Usage: python bench/run.py [--quick] [--only engine,protocol,tournament,startup,memory,sandbox,reuse]
Never asserts anything.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import engine  # noqa: E402
import memory  # noqa: E402
import protocol  # noqa: E402
import reuse  # noqa: E402
import sandbox  # noqa: E402
import startup  # noqa: E402
from common import RESULTS, ROOT, machine, machine_line, table, write_results  # noqa: E402

PARTS = ("engine", "protocol", "tournament", "startup", "memory", "sandbox", "reuse")


def tournament(quick: bool) -> dict:
    """bench/tournament.py, as it is (the same tournament at concurrency 1 and 2)."""
    seeds = "2" if quick else "4"
    subprocess.run([sys.executable, str(ROOT / "bench" / "tournament.py"), "--seeds", seeds], check=True)
    return json.loads((RESULTS / "tournament.json").read_text())


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions (a rough look in about 35 s)")
    parser.add_argument("--only", default=",".join(PARTS), help=f"comma-separated parts (default: {','.join(PARTS)})")
    args = parser.parse_args(argv)
    parts = [p.strip() for p in args.only.split(",") if p.strip()]
    unknown = set(parts) - set(PARTS)
    if unknown:
        parser.error(f"unknown parts: {', '.join(sorted(unknown))}")
    info = machine()
    started = time.perf_counter()
    data: dict[str, dict] = {}
    for part in parts:
        print(f"\n== {part} ==", flush=True)
        if part == "engine":
            data[part] = engine.main(["--repeat", "3" if args.quick else "5"] + (["--scale", "0.5"] if args.quick else []))
        elif part == "protocol":
            data[part] = protocol.main(["--repeat", "3" if args.quick else "5", "--pings", "1000" if args.quick else "2000"])
        elif part == "tournament":
            data[part] = tournament(args.quick)
        elif part == "startup":
            data[part] = startup.main(["--runs", "5" if args.quick else "10"])
        elif part == "memory":
            # the full bench plays 1,000 and 10,000 matches (about 4 minutes); quick: 100 and 1,000
            data[part] = memory.main(["--matches", "100", "--matches", "1000"] if args.quick else [])
        elif part == "sandbox":
            data[part] = sandbox.main(["--quick"] if args.quick else [])
        elif part == "reuse":  # the full bench: every match of the shipped file (twice) and the gauntlet
            data[part] = reuse.main(["--quick", "--only", "gauntlet", "--gauntlet-seeds", "25"] if args.quick else [])
        sys.stdout.flush()
    after = machine()
    print("\n== summary (issue 9 targets) ==")
    print(f"machine: {machine_line(info)}; load average at the end "
          f"{'/'.join(str(x) for x in after['loadavg']) if after['loadavg'] else '?'}; "
          f"{time.perf_counter() - started:.0f} s in all")
    print(summary(data))
    write_results("run", {"parts": parts, "summary": summary_rows(data), "seconds": time.perf_counter() - started})


def summary_rows(data: dict[str, dict]) -> list[list]:
    rows: list[list] = []
    if "engine" in data:
        for s in data["engine"]["summary"]:
            rows.append([f"engine {s['game']}", f"{s['us_cpu_off']:.2f} us/decision cpu ({s['us_wall_off']:.2f} wall); "
                         f"replay on {s['us_cpu_on']:.2f} cpu; {s['matches_s_wall_off']:.0f} matches/s",
                         f"<= {s['target_us']:g} us", "yes" if s["met"] else "NO"])
    if "protocol" in data:
        for r in data["protocol"]["rows"]:
            polled = f", vs the blocking one {r['ratio_vs_blocking']:.2f}x" if r["spin_us"] else ""
            rows.append([f"protocol {r['game']} ({protocol.where(r)})",
                         f"{r['us_per_decision']:.0f} us/decision vs ping-pong {r['like_floor_us']:.0f} us waiting "
                         f"alike: {r['ratio']:.2f}x{polled}; the match's messages with no game: "
                         f"{r['best_ratio']:.2f}x", ">= 0.8x", "yes" if r["ratio"] >= 0.8 else "NO"])
    if "tournament" in data:
        t = data["tournament"]
        one, two = t["rows"][0], t["rows"][1]
        rows.append([f"tournament {t['game']}", f"{one['matches_per_s']:.2f} -> {two['matches_per_s']:.2f} matches/s "
                     f"({one['matches']} matches, no polling at either): {t['speedup']:.2f}x; concurrency 1 "
                     f"polling {t['rows'][2]['matches_per_s']:.2f} matches/s", ">= 1.8x",
                     "yes" if t["speedup"] >= 1.8 else "NO"])
    if "startup" in data:
        for r in data["startup"]["rows"]:
            if r["setting"] == "as set":
                target = f"< {r['target_s']} s" if r["target_s"] else ""
                met = ("yes" if r["median_s"] < r["target_s"] else "NO") if r["target_s"] else ""
                rows.append([f"startup {r['command']}", f"{r['median_s']:.3f} s (min {r['min_s']:.3f})", target, met])
    if "reuse" in data:
        for s in data["reuse"]["speedups"]:
            same = {True: "; standings identical", False: "; standings DIFFER", None: ""}[s.get("identical_standings")]
            rows.append([f"reuse {s['tournament']} (concurrency {s['concurrency']})",
                         f"{s['speedup']:.2f}x the matches/s without reuse, {s['cpu_ratio']:.2f}x less CPU per match"
                         f"{same}", f">= {data['reuse']['target']:g}x", "yes" if s["met"] else "NO"])
    if "memory" in data:
        rows.append(["memory (peak RSS)", "; ".join(f"{r['matches']} matches: driver {r['driver_peak_kb'] / 1024:.1f} MB, "
                                                     f"worker {r['worker_peak_kb'] / 1024:.1f} MB, standings "
                                                     f"{r['standings_stream_peak_kb'] / 1024:.1f} MB streamed "
                                                     f"({r['standings_peak_kb'] / 1024:.1f} from a list)"
                                                     for r in data["memory"]["rows"]), "flat", ""])
        for r in data["memory"].get("replays", []):
            rows.append([f"gzip replay, maumau {r['config']}", f"{r['bytes_per_match']} bytes per match", "< 3000",
                         "yes" if r["bytes_per_match"] < 3000 else "NO"])
    return rows


def summary(data: dict[str, dict]) -> str:
    return table(["bench", "figure", "target", "met"], summary_rows(data), "llll")


if __name__ == "__main__":
    main()
