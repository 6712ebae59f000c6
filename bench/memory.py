"""Benchmark: a tournament's memory as the number of matches grows, and a resume of its journal.

The same cheap tournament (Mau Mau to target=20, four in-process strategies at tables of 4, no
replay kept for a match without a fault: `[output] replays = "faults"`, as a big run would) with
1,000 and with 10,000 matches by default. Each size runs in fresh processes, as `referee
tournament` runs it (`prepare`, then `run(keep=False)` with the live tally and SPRT state fed as
matches finish, then the final standings from the journal):

- play: the peak RSS of the driver while the matches run (it journals every result), and of the
  largest worker process (sampled every 20 ms);
- standings: the driver's peak computing the final standings from the journal, twice: streamed
  (`standings.compute_journal`, which keeps a small `standings.Result` per match, and the fault
  rows from a second streamed pass: as referee/cli/tournament.py computes them), and read whole
  (every record read into a list first, as the CLI did before; for comparison);
- index: the driver's peak writing index.html from the journal as the CLI does after the
  standings (streamed: a row's fields per match), without viewer pages;
- resume: a new process running `--resume` on the full journal (`prepare` streams it: the
  indices, the SPRT state, the live tally, the fault count, never the records), then its
  standings.

Flat means the journal is streamed and no record or replay is held while matches run or resume:
10x the matches should cost about the same there (the streamed standings grow by a Result a
match; the list of records by several kilobytes a match). Peaks are
VmHWM, reset between phases (/proc/self/clear_refs) where the kernel allows it.

Then the gzip replay bytes per Mau Mau match (`[output] compress = true`, every replay kept;
issue 19 asks under 3 KB on average), under the shipped tournament's config (target = 100) and
the game's default, 200 matches each.

Usage: python bench/memory.py [--matches 1000 --matches 10000] [--concurrency 2] [--keep DIR]
       [--replay-matches N]
Prints a table and writes bench/results/memory.json. Never asserts anything. About 4 minutes on
2 cores, nearly all of it the 10,000 matches.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
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
[[entrants]]
strategy = "first"
[[entrants]]
name = "random2"
strategy = "random"
[[games]]
game = "maumau"
players = 4
config = {{ target = 20 }}
[output]
replays = "faults"
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


def _peak_kb(pid: int | str = "self") -> int:
    """VmHWM: the process's peak resident set so far, in kB (0 if gone)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def _reset_peak() -> bool:
    """Reset this process's VmHWM to its current RSS (Linux 4.0+); False where not allowed."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


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


def _as_the_cli_runs_it(config: Any, resume: bool, sampler: WorkerPeaks | None) -> dict[str, Any]:
    """`referee tournament [--resume]` without its display: prepare (the live tally, the SPRT
    state and the fault count fed from the journal as it streams), run, then the standings."""
    from referee.tournament import run as tour
    from referee.tournament import sprt
    from referee.tournament import standings as st
    from referee.tournament.reporting import fault_rows
    from referee.tournament.index import write_index

    gauntlets = sprt.Gauntlets(config)
    live = st.Tally(points=False)
    faults = [0]

    def tally(record: dict[str, Any]) -> None:
        gauntlets.add(record)
        live.add(record)
        faults[0] += sum(record["faults"])

    before = _peak_kb()
    started = time.perf_counter()
    played = [0]
    with tour.claim(config.out):
        prepared = tour.prepare(config, resume, each=tally)
        journaled = len(prepared.done)
        if sampler is not None:
            sampler.start()

        def on_result(record: dict[str, Any]) -> None:
            tally(record)
            played[0] += 1

        tour.run(config, keep=False, prepared=prepared, on_result=on_result)
        del prepared
    seconds = time.perf_counter() - started
    if sampler is not None:
        sampler.stop.set()
        sampler.join()
    run_peak = _peak_kb()
    journal = config.out / tour.JOURNAL
    # streamed, as referee/cli/tournament.py computes them: standings.compute_journal, the fault
    # rows from a second streamed pass
    reset = _reset_peak()
    started = time.perf_counter()
    table = st.compute_journal(journal)
    table["faults"] = fault_rows(st.counted_journal(journal))
    stream_seconds, stream_peak = time.perf_counter() - started, _peak_kb()
    # then the index, as the CLI writes it (the standings held; no viewer page: the memory, not
    # the pages' CPU, is measured here)
    reset = _reset_peak() and reset
    started = time.perf_counter()
    write_index(config.out, standings=table, viewers=False)
    index_seconds, index_peak = time.perf_counter() - started, _peak_kb()
    del table
    # read whole, as the CLI did before (every record read into a list first), for comparison
    reset = _reset_peak() and reset
    started = time.perf_counter()
    _, records = st.read_journal(journal)
    records = sprt.counted(records, sprt.read_decisions(journal))
    table = st.compute(records)
    table["faults"] = fault_rows(records)
    del records, table
    return {
        "journaled_before": journaled,
        "played": played[0],
        "seconds": seconds,
        "driver_before_kb": before,
        "driver_peak_kb": run_peak,
        "standings_seconds": time.perf_counter() - started,
        # with the peak reset: the standings' own; without: the whole process's
        "standings_peak_kb": _peak_kb(),
        "standings_stream_seconds": stream_seconds,
        "standings_stream_peak_kb": stream_peak,
        "index_seconds": index_seconds,
        "index_peak_kb": index_peak,
        "standings_peak_reset": reset,
        "faults": faults[0],
    }


def child(matches: int, concurrency: int, out: Path, resume: bool) -> None:
    """Run the tournament (or resume it) in this process; print its figures as one JSON line."""
    from referee.plugins import load_registry
    from referee.tournament.config import load_tournament

    path = out.parent / "memory.toml"
    if not resume:
        path.write_text(TEMPLATE.format(matches=matches))
    config = load_tournament(path, load_registry(), out=out, concurrency=concurrency)
    sampler = None if resume else WorkerPeaks()
    figures = _as_the_cli_runs_it(config, resume, sampler)
    figures["worker_peak_kb"] = max(sampler.peaks.values(), default=0) if sampler else 0  # the largest worker
    figures["workers_seen"] = len(sampler.peaks) if sampler else 0
    figures["journal_bytes"] = (out / "journal.jsonl").stat().st_size
    print(json.dumps(figures))


def _child(matches: int, concurrency: int, out: Path, resume: bool) -> dict[str, Any]:
    argv = [sys.executable, __file__, "--child", str(matches), "--concurrency", str(concurrency), "--out", str(out)]
    done = subprocess.run(argv + (["--resume"] if resume else []), capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"bench child failed ({' '.join(argv)}):\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def bench(sizes: list[int], concurrency: int, keep: Path | None = None) -> dict[str, Any]:
    rows = []
    for matches in sizes:
        tmp = Path(tempfile.mkdtemp(prefix="referee-bench-memory-"))
        try:
            out = tmp / "out"
            play = _child(matches, concurrency, out, resume=False)
            resume = _child(matches, concurrency, out, resume=True)
            rows.append({
                "matches": play["played"],
                "seconds": play["seconds"],
                "driver_peak_kb": play["driver_peak_kb"],
                "worker_peak_kb": play["worker_peak_kb"],
                "workers_seen": play["workers_seen"],
                "standings_peak_kb": play["standings_peak_kb"],
                "standings_seconds": play["standings_seconds"],
                "standings_stream_peak_kb": play["standings_stream_peak_kb"],
                "standings_stream_seconds": play["standings_stream_seconds"],
                "index_peak_kb": play["index_peak_kb"],
                "index_seconds": play["index_seconds"],
                "resume_journaled": resume["journaled_before"],
                "resume_played": resume["played"],
                "resume_seconds": resume["seconds"],
                "resume_peak_kb": resume["driver_peak_kb"],
                "resume_standings_peak_kb": resume["standings_peak_kb"],
                "peaks_reset": play["standings_peak_reset"],
                "journal_bytes": play["journal_bytes"],
            })
            if keep is not None:
                target = keep / f"memory-{matches}"
                shutil.rmtree(target, ignore_errors=True)
                shutil.copytree(tmp, target)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return {"concurrency": concurrency, "game": "maumau", "players": 4, "config": {"target": 20},
            "output": {"replays": "faults"}, "rows": rows}


REPLAYS = """
name = "replay bytes"
seed = 2
seeds = {matches}
[[entrants]]
strategy = "random"
[[entrants]]
strategy = "maumau-greedy"
[[entrants]]
strategy = "first"
[[entrants]]
name = "random2"
strategy = "random"
[[games]]
game = "maumau"
players = 4
config = {config}
[output]
compress = true
"""


def replay_bytes(matches: int, concurrency: int) -> list[dict[str, Any]]:
    """The gzip replay bytes per Mau Mau match (four strategies at a table of 4, every replay kept,
    compressed), under the shipped tournament's config (target = 100) and the game's default."""
    from referee.plugins import load_registry
    from referee.tournament import run as tour
    from referee.tournament.config import load_tournament

    rows = []
    for config in ("{ target = 100 }", "{}"):
        tmp = Path(tempfile.mkdtemp(prefix="referee-bench-replays-"))
        try:
            path = tmp / "replays.toml"
            path.write_text(REPLAYS.format(matches=matches, config=config))
            out = tmp / "out"
            records = tour.run(load_tournament(path, load_registry(), out=out, concurrency=concurrency))
            files = [p for p in (out / "replays").rglob("*.jsonl.gz")]
            rows.append({"config": config, "matches": len(records), "replays": len(files),
                         "bytes_per_match": round(sum(p.stat().st_size for p in files) / len(records)),
                         "decisions_per_match": round(sum(r["decisions"] for r in records) / len(records), 1)})
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return rows


def summary_table(data: dict[str, Any]) -> str:
    headers = ["memory (maumau 4 seats, target=20)", "matches", "seconds", "driver MB", "worker MB",
               "standings MB (list)", "standings MB (streamed)", "index MB", "resume s", "resume MB", "journal MB"]
    body = [["tournament, then --resume on its journal", r["matches"], r["seconds"], r["driver_peak_kb"] / 1024,
             r["worker_peak_kb"] / 1024, r["standings_peak_kb"] / 1024, r["standings_stream_peak_kb"] / 1024,
             r.get("index_peak_kb", 0) / 1024, r["resume_seconds"], r["resume_peak_kb"] / 1024, r["journal_bytes"] / 2**20] for r in data["rows"]]
    replays = table(["gzip replays (maumau 4 seats, every replay kept)", "matches", "bytes/match", "decisions/match"],
                    [[f"config = {r['config']}", r["matches"], r["bytes_per_match"], r["decisions_per_match"]]
                     for r in data.get("replays", [])])
    return table(headers, body, "l" + "r" * 10) + "\n\n" + replays


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, action="append", help="tournament sizes (default 1000 and 10000)")
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--replay-matches", type=int, default=200,
                        help="matches per config of the gzip replay bytes (default 200)")
    parser.add_argument("--keep", type=Path, help="copy each size's output directory here (memory-N/)")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--resume", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child is not None:
        child(args.child, args.concurrency, args.out, args.resume)
        return {}
    info = machine()
    data = bench(args.matches or [1000, 10000], args.concurrency, args.keep)
    data["replays"] = replay_bytes(args.replay_matches, args.concurrency)
    print(machine_line(info))
    print(f"memory bench: peak RSS at concurrency {data['concurrency']}, each size and its resume in fresh "
          "processes; driver and worker MB while the matches run, standings MB computing the final standings "
          "(peak reset before them" + ("" if all(r["peaks_reset"] for r in data["rows"]) else
                                       ": not allowed here, so the whole run's") + "), resume MB: --resume on the "
          "full journal (streamed), its standings apart")
    print(summary_table(data))
    write_results("memory", data)
    return data


if __name__ == "__main__":
    main()
