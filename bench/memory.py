"""Benchmark: a tournament's memory as the number of matches grows.

The same cheap tournament (Mau Mau to target=20, `random` against `maumau-greedy` at tables of
2, in-process strategies) with 100 and with 1,000 matches, each in a fresh process: the peak RSS
of the driver (which journals every result) and of the largest worker. Flat means the journal is
streamed and no replay is held in memory: 10x the matches should cost about the same.

Usage: python bench/memory.py [--matches 100 --matches 1000] [--concurrency 2]
Prints a table and writes bench/results/memory.json. Never asserts anything.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import machine, machine_line, table, write_results  # noqa: E402

TEMPLATE = """
name = "memory"
seed = 1
seeds = {matches}
[[entrants]]
strategy = "random"
[[entrants]]
strategy = "maumau-greedy"
[[games]]
game = "maumau"
players = 2
config = {{ target = 20 }}
"""


def _descendants(root: int) -> list[int]:
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as f:
                    data = f.read()
                parents[int(entry)] = int(data[data.rindex(b")") + 2:].split()[1])
            except (OSError, ValueError, IndexError):
                continue
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        for child_pid, parent in parents.items():
            if parent == pid:
                found.append(child_pid)
                todo.append(child_pid)
    return found


def _peak_kb(pid: int) -> int:
    """VmHWM: the process's peak resident set so far, in kB (0 if gone)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


class WorkerPeaks(threading.Thread):
    """Samples the peak RSS of every descendant process (the workers) every 20 ms."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.peaks: dict[int, int] = {}
        self.stop = threading.Event()

    def run(self) -> None:
        me = os.getpid()
        while not self.stop.wait(0.02):
            for pid in _descendants(me):
                self.peaks[pid] = max(self.peaks.get(pid, 0), _peak_kb(pid))


def child(matches: int, concurrency: int) -> None:
    """Run the tournament in this process; print its figures as one JSON line."""
    from referee.plugins import load_registry
    from referee.tournament.run import run
    from referee.tournament.config import load_tournament

    with tempfile.TemporaryDirectory(prefix="referee-bench-") as tmp:
        path = Path(tmp) / "memory.toml"
        path.write_text(TEMPLATE.format(matches=matches))
        config = load_tournament(path, load_registry(), out=Path(tmp) / "out", concurrency=concurrency)
        # VmHWM, not getrusage's ru_maxrss: that one keeps the peak of the process this child was
        # forked from (bench/run.py, bigger than a tournament driver) across the exec.
        before = _peak_kb(os.getpid())
        sampler = WorkerPeaks()
        sampler.start()
        started = time.perf_counter()
        played = []
        run(config, keep=False, on_result=lambda record: played.append(record["index"]))  # as the CLI runs it
        seconds = time.perf_counter() - started
        sampler.stop.set()
        sampler.join()
        journal = (Path(tmp) / "out" / "journal.jsonl").stat().st_size
    print(json.dumps({
        "matches": len(played),
        "seconds": seconds,
        "driver_before_kb": before,
        "driver_peak_kb": _peak_kb(os.getpid()),
        "worker_peak_kb": max(sampler.peaks.values(), default=0),  # the largest worker (sampled)
        "workers_seen": len(sampler.peaks),
        "journal_bytes": journal,
    }))


def bench(sizes: list[int], concurrency: int) -> dict[str, Any]:
    rows = []
    for matches in sizes:
        out = subprocess.run([sys.executable, __file__, "--child", str(matches), "--concurrency", str(concurrency)],
                             capture_output=True, text=True, check=True)
        rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
    return {"concurrency": concurrency, "game": "maumau", "config": {"target": 20}, "rows": rows}


def summary_table(data: dict[str, Any]) -> str:
    headers = ["memory (maumau target=20)", "matches", "seconds", "driver peak MB", "worker peak MB", "journal KB"]
    body = [["tournament", r["matches"], r["seconds"], r["driver_peak_kb"] / 1024, r["worker_peak_kb"] / 1024,
             r["journal_bytes"] / 1024] for r in data["rows"]]
    return table(headers, body, "lrrrrr")


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, action="append", help="tournament sizes (default 100 and 1000)")
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child is not None:
        child(args.child, args.concurrency)
        return {}
    info = machine()
    data = bench(args.matches or [100, 1000], args.concurrency)
    print(machine_line(info))
    print(f"memory bench: peak RSS of a tournament at concurrency {data['concurrency']}, each size in a fresh process")
    print(summary_table(data))
    write_results("memory", data)
    return data


if __name__ == "__main__":
    main()
