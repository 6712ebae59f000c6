"""Benchmark: start-up. Wall time of `referee --help` and `referee games` against `python -c pass`
(the interpreter alone), each run --runs times in a fresh process, median and minimum.

Two settings: "as set" runs with this environment as it is (with PYTHONDONTWRITEBYTECODE=1,
as on the development machines, every module of the project is compiled from source at each
start); "bytecode cached" lets Python keep compiled bytecode (in bench/results/pycache, through
PYTHONPYCACHEPREFIX, so the work tree is not touched), warmed by one run first: what an
installed referee costs.

Usage: python bench/startup.py [--runs 10]
Prints a table and writes bench/results/startup.json. Never asserts anything.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import RESULTS, machine, machine_line, median, table, write_results  # noqa: E402

TARGET_S = 0.3  # `referee --help`, issue 9


def commands() -> dict[str, list[str]]:
    bindir = Path(sys.executable).parent
    referee = bindir / "referee"
    cli = [str(referee)] if referee.exists() else [sys.executable, "-m", "referee"]
    return {
        "python -c pass": [sys.executable, "-c", "pass"],
        "referee --help": cli + ["--help"],
        "referee games": cli + ["games"],
    }


def environments() -> dict[str, dict[str, str]]:
    as_set = dict(os.environ)
    cached = dict(os.environ)
    cached.pop("PYTHONDONTWRITEBYTECODE", None)
    cached["PYTHONPYCACHEPREFIX"] = str(RESULTS / "pycache")
    return {"as set": as_set, "bytecode cached": cached}


def wall(argv: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   check=True)
    return time.perf_counter() - started


def bench(runs: int) -> dict[str, Any]:
    rows = []
    for setting, env in environments().items():
        for argv in commands().values():
            wall(argv, env)  # warm-up: the OS's file cache, and the bytecode cache where kept
        samples: dict[str, list[float]] = {name: [] for name in commands()}
        for _ in range(runs):  # interleaved, so a busy moment hits every command alike
            for name, argv in commands().items():
                samples[name].append(wall(argv, env))
        for name, times in samples.items():
            rows.append({"setting": setting, "command": name, "median_s": median(times), "min_s": min(times),
                         "samples_s": [round(t, 4) for t in times],
                         "target_s": TARGET_S if name == "referee --help" else None})
    return {"runs": runs, "rows": rows,
            "pythondontwritebytecode": os.environ.get("PYTHONDONTWRITEBYTECODE")}


def summary_table(data: dict[str, Any]) -> str:
    headers = ["startup", "setting", "median s", "min s", "target s", "met"]
    body = [[r["command"], r["setting"], f"{r['median_s']:.3f}", f"{r['min_s']:.3f}",
             r["target_s"], ("yes" if r["median_s"] < r["target_s"] else "NO") if r["target_s"] else ""]
            for r in data["rows"]]
    return table(headers, body, "llrrrl")


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10, help="runs per command and setting (default 10)")
    args = parser.parse_args(argv)
    info = machine()
    data = bench(args.runs)
    print(machine_line(info))
    print(f"startup bench: wall time of a fresh process, {data['runs']} runs each "
          f"(PYTHONDONTWRITEBYTECODE={data['pythondontwritebytecode'] or 'unset'} in this environment)")
    print(summary_table(data))
    write_results("startup", data)
    return data


if __name__ == "__main__":
    main()
