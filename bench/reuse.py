"""Benchmark: reusing bot processes (issue 19), on and off, at concurrency 1 and 2, in one run.

Each tournament is played with `[limits] reuse_matches = 100` (the default: bots that declare
reuse keep their process between matches) and `= 0` (a fresh process per match, as before):

- "shipped": the repository's tournament.toml as it is, every match (600: three games, 4-seat
  tables under all 24 seatings, one seed), its bots started with the commands it names
  (`python3` is whatever PATH gives: on a pyenv machine a shim, a shell script that costs about
  100 ms more per Python bot start). A process never plays a deal twice, and every table of a
  game entry plays the entry's seeds, so with `seeds = 1` a process plays at most one match per
  game: reuse can only cut the starts to the most matches an entrant plays in one game (the
  "fewest starts" column), however the matches are ordered.
- "shipped-real": the same with `python3` replaced by the real interpreter (`--python`, default
  this Python's own executable resolved), so a bot start costs what the interpreter costs.
- "shipped-seedsN" (`--shipped-seeds N`, reuse on only): the shipped file with `seeds = N` and
  the real interpreter: what a different tournament.toml would give. Its speed-up is taken
  against shipped-real without reuse at the same concurrency (a match costs the same whatever
  its seed: without reuse each starts its bots).
- "gauntlet": a 1,000-match Mau Mau gauntlet of subprocess bots, bots/python/random_bot.py
  (this Python, not a shim) as the focus against bots/python/smart_bot.py, the Node bot and the C
  bot at one table of 4 (the C bot built with `make` if missing; a Python random_bot stands in
  for a missing runtime), 250 seeds under the 4 rotations (`--gauntlet-seeds`).

Each run is a fresh `python -c` process calling `referee.tournament.run.run` (no standings or HTML
afterwards), made a child of this process, which is a child subreaper: every process of the run
(driver, forkserver, workers, bots) is reaped into this process's RUSAGE_CHILDREN, so CPU per
match is the whole run's (user + system). Peak RSS is the largest sum of the resident sets of
every process of the run, sampled every 0.1 s (and the largest single process).
Share of time starting bots: the time the workers spent in `SubprocessPlayer.start` (spawn,
hello, ready; for a kept process hello and ready only), timed by a bench plugin
(REFEREE_PLUGINS_DIR: it wraps `start` and writes each match's total at `match_finished`), over
the journal's `seconds`, summed over the matches; the same plugin counts the seats given a fresh
process (starts per match) and those given a kept one. Output bytes per match: everything the
run wrote under its output directory (replays, logs, journal), per match. The deal key is pinned
(REFEREE_DEAL_KEY), so both settings play the same matches; the standings of each run
(`standings.compute_journal`) and every match's result are compared between reuse on and off.

Usage: python bench/reuse.py [--quick] [--only shipped,shipped-real,gauntlet] [--concurrency 1,2]
       [--shipped-seeds N] [--gauntlet-seeds N]
Prints a table and writes bench/results/reuse.json (with the machine, the load and the commit),
after every run (`"complete": false` until the last).
Never asserts anything.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import ROOT, machine, machine_line, table, write_results  # noqa: E402

TARGET = 4.0  # issue 19: with reuse at least 4x the matches/s of without
DEAL_KEY = "bench/reuse.py: a published deal key, so every run deals alike"
PR_SET_CHILD_SUBREAPER = 36

RUNNER = """
import json, sys, time
from referee.plugins import load_registry
from referee.tournament.run import run
from referee.tournament.config import load_tournament
config = load_tournament(sys.argv[1], load_registry(), out=sys.argv[2], concurrency=int(sys.argv[3]))
started = time.perf_counter()
records = run(config, keep=False)
print(json.dumps({"seconds": time.perf_counter() - started}))
"""

# A plugin file (REFEREE_PLUGINS_DIR) timing the bot starts of every match in the workers.
TIMER = """
import json, os, time
from referee import hookimpl
from referee.bots.player import SubprocessPlayer

if not hasattr(SubprocessPlayer, "_bench_total"):  # once per process, however often it is loaded
    SubprocessPlayer._bench_total = [0.0]
    _start = SubprocessPlayer.start

    SubprocessPlayer._bench_seats = [0, 0]  # seats given a fresh process, and a kept one

    def start(self, hello):
        SubprocessPlayer._bench_seats[self.kept] += 1
        began = time.perf_counter()
        try:
            return _start(self, hello)
        finally:
            SubprocessPlayer._bench_total[0] += time.perf_counter() - began

    SubprocessPlayer.start = start


@hookimpl
def match_finished(header, result):
    with open(os.environ["REUSE_BENCH_STARTS"], "a") as f:
        fresh, kept = SubprocessPlayer._bench_seats
        f.write(json.dumps({"match": header["match"], "start_s": SubprocessPlayer._bench_total[0],
                            "fresh": fresh, "kept": kept}) + "\\n")
    SubprocessPlayer._bench_total[0] = 0.0
    SubprocessPlayer._bench_seats[:] = [0, 0]
"""

GAUNTLET = """
name = "reuse bench gauntlet"
seed = 19
schedule = "gauntlet"
focus = "random-bot"
duplicate = true
seating = "rotation"
seeds = {seeds}
[limits]
reuse_matches = {reuse}
{entrants}
[[games]]
game = "maumau"
players = 4
"""


def _subreaper() -> bool:
    """Make this process the reaper of its orphaned descendants (Linux): their CPU then counts."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _reap_all(deadline: float) -> None:
    """Wait for every child (the run's orphans: the forkserver, the resource tracker) to end."""
    while time.monotonic() < deadline:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            time.sleep(0.02)


class RssSampler:
    """The largest sum of the resident set sizes of every descendant of this process."""

    def __init__(self, interval: float = 0.1) -> None:
        self.peak_kb = 0
        self.largest_kb = 0  # the largest single process
        self._interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> RssSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        me = os.getpid()
        while not self._stop.wait(self._interval):
            parents: dict[int, int] = {}
            rss: dict[int, int] = {}
            for entry in os.listdir("/proc"):
                if not entry.isdigit():
                    continue
                try:
                    with open(f"/proc/{entry}/stat", "rb") as f:
                        data = f.read()
                    fields = data[data.rindex(b")") + 2:].split()
                    parents[int(entry)] = int(fields[1])
                    rss[int(entry)] = int(fields[21]) * os.sysconf("SC_PAGE_SIZE") // 1024
                except (OSError, ValueError, IndexError):
                    continue
            total, todo = 0, [me]
            while todo:
                pid = todo.pop()
                for child, parent in parents.items():
                    if parent == pid:
                        total += rss.get(child, 0)
                        self.largest_kb = max(self.largest_kb, rss.get(child, 0))
                        todo.append(child)
            self.peak_kb = max(self.peak_kb, total)


def _dir_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def run_once(path: Path, out: Path, concurrency: int, plugins: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """One tournament run in a fresh process: its figures (wall, CPU of every process of it, RSS,
    outputs, starts), and what it decided (the standings, each match's result) to compare."""
    from referee.tournament import standings

    starts_log = out.with_name(out.name + ".starts.jsonl")
    before = os.times()
    env = {**os.environ, "REFEREE_DEAL_KEY": DEAL_KEY, "REFEREE_PLUGINS_DIR": str(plugins),
           "REUSE_BENCH_STARTS": str(starts_log)}
    started = time.perf_counter()
    with RssSampler() as rss:
        proc = subprocess.run([sys.executable, "-c", RUNNER, str(path), str(out), str(concurrency)], cwd=ROOT,
                              env=env, capture_output=True, text=True)
        wall = time.perf_counter() - started
        _reap_all(time.monotonic() + 10)
    after = os.times()
    if proc.returncode != 0:
        raise SystemExit(f"the run of {path} failed:\n{proc.stderr[-2000:]}")
    inner = json.loads(proc.stdout.strip().splitlines()[-1])["seconds"]
    journal = out / "journal.jsonl"
    records = [r for r in standings.iter_journal(journal) if r["type"] == "match"]
    n = len(records)
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    seconds = sum(r["seconds"] for r in records)
    starts = [json.loads(line) for line in starts_log.read_text().splitlines()]
    starting = sum(s["start_s"] for s in starts)
    fresh, kept = sum(s["fresh"] for s in starts), sum(s["kept"] for s in starts)
    figures = {
        "matches": n,
        "seconds": round(inner, 3),
        "wall_s": round(wall, 3),
        "matches_per_s": round(n / inner, 3),
        "cpu_ms_per_match": round(1000 * cpu / n, 2),
        "start_share": round(starting / seconds, 4) if seconds else 0.0,
        "start_ms_per_match": round(1000 * starting / n, 2),
        "starts_per_match": round(fresh / n, 3),
        "kept_seats_per_match": round(kept / n, 3),
        "match_ms": round(1000 * seconds / n, 2),
        "peak_rss_mb": round(rss.peak_kb / 1024, 1),
        "largest_process_rss_mb": round(rss.largest_kb / 1024, 1),
        "output_bytes_per_match": round(_dir_bytes(out) / n),
        "faults": sum(sum(r["faults"]) for r in records),
    }
    decided = {"standings": standings.as_dict(standings.compute_journal(journal)),
               "results": {r["key"]: (r["ranks"], r["scores"], r["faults"]) for r in records}}
    return figures, decided


def _c_bot() -> str | None:
    binary = ROOT / "bots" / "c" / "bot"
    if not binary.exists() and shutil.which("make") and (shutil.which("cc") or shutil.which("gcc")):
        subprocess.run(["make", "-s", "-C", str(ROOT / "bots" / "c")], check=False)
    return str(binary) if binary.exists() else None


def gauntlet_file(tmp: Path, seeds: int, reuse: int) -> Path:
    python_bot = f"{sys.executable} {ROOT / 'bots' / 'python' / 'random_bot.py'}"
    node = shutil.which("node")
    c_bot = _c_bot()
    entrants = [("random-bot", python_bot),
                ("smart-bot", f"{sys.executable} {ROOT / 'bots' / 'python' / 'smart_bot.py'}"),
                ("js-bot", f"{node} {ROOT / 'bots' / 'javascript' / 'bot.js'}" if node else python_bot),
                ("c-bot", c_bot or python_bot)]
    text = "".join(f'[[entrants]]\nname = "{name}"\ncommand = "{command}"\n' for name, command in entrants)
    path = tmp / f"gauntlet-{reuse}.toml"
    path.write_text(GAUNTLET.format(seeds=seeds, reuse=reuse, entrants=text))
    return path


def shipped_file(tmp: Path, name: str, seating: str | None, reuse: int, python: str | None = None,
                 seeds: int | None = None) -> Path:
    """tournament.toml with `reuse_matches` set in its [limits] (and its seating, its seeds and
    the interpreter of its Python bots, if given); its relative commands run from the repository
    (cwd = its folder), as they do there."""
    text = (ROOT / "tournament.toml").read_text()
    text = text.replace("[limits]\n", f"[limits]\nreuse_matches = {reuse}\n", 1)
    if seating is not None:
        text = text.replace("duplicate = true", f'duplicate = true\nseating = "{seating}"', 1)
    if seeds is not None:
        text = re.sub(r"(?m)^seeds = \d+", f"seeds = {seeds}", text, count=1)
    if python is not None:
        text = text.replace('command = "python3 ', f'command = "{python} ')
    # commands run from the file's folder: this copy's commands from the checkout, as the file's do
    text = text.replace('\ncommand = "', f'\ncwd = "{ROOT}"\ncommand = "')
    path = tmp / f"{name}-{reuse}.toml"
    path.write_text(text)
    return path


def fewest_starts(path: Path) -> int:
    """The fewest bot processes a tournament can start with reuse (one worker): a process plays
    at most one match per seed of a game entry, so each command entrant needs at least as many
    as it plays matches in one entry, divided by the entry's seeds, in the entry where that is
    most (the processes go from entry to entry), and at least its matches over reuse_matches."""
    from referee.plugins import load_registry
    from referee.tournament.config import load_tournament

    config = load_tournament(path, load_registry())
    matches = config.matches()
    need: dict[str, int] = {}
    total: dict[str, int] = {}
    for entry, span in zip(config.games, config.spans()):
        played: dict[str, int] = {}
        for m in matches[span.start:span.stop]:
            for name in m.seats:
                if config.entrants[name].command is not None:
                    played[name] = played.get(name, 0) + 1
        for name, count in played.items():
            need[name] = max(need.get(name, 0), -(-count // entry.seeds))
            total[name] = total.get(name, 0) + count
    return sum(max(n, -(-total[name] // config.reuse_matches)) for name, n in need.items())


def _commit() -> str:
    """The checkout's commit, with "+changes" if files it tracks differ from it."""
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT, capture_output=True,
                           text=True)
    return head.stdout.strip() + ("+changes" if dirty.stdout.strip() else "")


def _real_python() -> str:
    """This Python's interpreter itself (a venv's python resolved to its base, never a shim)."""
    return os.path.realpath(getattr(sys, "_base_executable", sys.executable))


def compare(rows: list[dict[str, Any]], decided: dict[tuple[str, int, int], Any], parts: list[str],
            levels: list[int]) -> list[dict[str, Any]]:
    """Each tournament's speed-up with reuse at each concurrency (of the runs done so far), and
    whether reuse left the standings and every result as they were."""
    def row(part: str, concurrency: int, reuse: int) -> dict[str, Any] | None:
        return next((r for r in rows if (r["tournament"], r["concurrency"], r["reuse_matches"])
                     == (part, concurrency, reuse)), None)

    speedups = []
    for part in parts:
        base = "shipped-real" if part.startswith("shipped-seeds") else part
        for concurrency in levels:
            off, on = row(base, concurrency, 0), row(part, concurrency, 100)
            if off is None or on is None:
                continue
            same = None
            if base == part:  # the same matches with and without reuse: the same standings?
                same = decided[part, concurrency, 0] == decided[part, concurrency, 100]
            speedups.append({"tournament": part, "against": base, "concurrency": concurrency,
                             "speedup": round(on["matches_per_s"] / off["matches_per_s"], 2),
                             "cpu_ratio": round(off["cpu_ms_per_match"] / on["cpu_ms_per_match"], 2),
                             "starts_ratio": round(off["starts_per_match"] / on["starts_per_match"], 2)
                             if on["starts_per_match"] else None,
                             "met": on["matches_per_s"] >= TARGET * off["matches_per_s"],
                             "identical_standings": same})
    return speedups


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="the shipped file under 4 rotations (100 matches), a 200-match gauntlet")
    parser.add_argument("--only", default="shipped,shipped-real,gauntlet",
                        help="comma-separated: shipped, shipped-real, gauntlet (default all three)")
    parser.add_argument("--concurrency", default="1,2", help="comma-separated (default 1,2)")
    parser.add_argument("--gauntlet-seeds", type=int, default=None, help="seeds of the gauntlet (default 250)")
    parser.add_argument("--shipped-seating", default=None, help="seating of the shipped file (default: its own)")
    parser.add_argument("--shipped-seeds", type=int, action="append", default=[],
                        help="also the shipped file with this many seeds, reuse on only (repeatable)")
    parser.add_argument("--commit", default=None, help="the commit to name (default: the checkout's, from git)")
    parser.add_argument("--python", default=None, help="the interpreter of shipped-real (default: this one's)")
    args = parser.parse_args(argv)
    parts = [p.strip() for p in args.only.split(",") if p.strip()]
    parts += [f"shipped-seeds{n}" for n in args.shipped_seeds]
    levels = [int(c) for c in args.concurrency.split(",") if c.strip()]
    seeds = args.gauntlet_seeds or (50 if args.quick else 250)
    seating = args.shipped_seating or ("rotation" if args.quick else None)
    python = args.python or _real_python()
    subreaper = _subreaper()
    _c_bot()
    info = machine()
    commit = args.commit or _commit()
    print(f"reuse bench: {machine_line(info)}; commit {commit}; subreaper "
          f"{'on' if subreaper else 'off (CPU of orphans missed)'}; python3 on PATH: {shutil.which('python3')}",
          flush=True)
    rows: list[dict[str, Any]] = []
    decided: dict[tuple[str, int, int], dict[str, Any]] = {}
    data: dict[str, Any] = {"target": TARGET, "gauntlet_seeds": seeds,
                            "shipped_seating": seating or "as in tournament.toml", "subreaper": subreaper,
                            "commit": commit, "python3": shutil.which("python3"), "real_python": python,
                            "load_at_start": info["loadavg"], "node_extra_ca_certs": os.environ.get("NODE_EXTRA_CA_CERTS")}
    with tempfile.TemporaryDirectory(prefix="referee-reuse-bench-") as tmp_name:
        tmp = Path(tmp_name)
        plugins = tmp / "plugins"
        plugins.mkdir()
        (plugins / "reuse_bench_timer.py").write_text(TIMER)
        for part in parts:
            for concurrency in levels:
                for reuse in (0, 100) if not part.startswith("shipped-seeds") else (100,):
                    if part == "gauntlet":
                        path = gauntlet_file(tmp, seeds, reuse)
                    elif part == "shipped":
                        path = shipped_file(tmp, part, seating, reuse)
                    elif part == "shipped-real":
                        path = shipped_file(tmp, part, seating, reuse, python)
                    else:
                        path = shipped_file(tmp, part, seating, reuse, python, int(part[len("shipped-seeds"):]))
                    out = tmp / f"out-{part}-{concurrency}-{reuse}"
                    figures, decided[part, concurrency, reuse] = run_once(path, out, concurrency, plugins)
                    row = {"tournament": part, "concurrency": concurrency, "reuse_matches": reuse, **figures,
                           "fewest_starts_per_match": round(fewest_starts(path) / figures["matches"], 3) if reuse
                           else None, "loadavg": [round(x, 2) for x in os.getloadavg()]}
                    shutil.rmtree(out, ignore_errors=True)
                    rows.append(row)
                    # written after every run: a bench cut short keeps what it measured
                    write_results("reuse", {**data, "rows": rows, "speedups": compare(rows, decided, parts, levels),
                                            "complete": False})
                    print(f"  {part} concurrency {concurrency} reuse_matches {reuse}: {row['matches']} matches in "
                          f"{row['seconds']:.1f} s, {row['matches_per_s']:.2f}/s, {row['starts_per_match']:.2f} "
                          f"starts a match, load {row['loadavg'][0]}", flush=True)
    speedups = compare(rows, decided, parts, levels)
    headers = ["tournament", "conc.", "reuse", "matches", "s", "matches/s", "CPU ms/match", "start share",
               "start ms/match", "starts/match", "fewest", "peak RSS MB", "max proc MB", "out B/match", "faults"]
    body = [[r["tournament"], r["concurrency"], "on" if r["reuse_matches"] else "off", r["matches"], r["seconds"],
             r["matches_per_s"], r["cpu_ms_per_match"], f"{100 * r['start_share']:.0f}%", r["start_ms_per_match"],
             r["starts_per_match"], r["fewest_starts_per_match"], r["peak_rss_mb"], r["largest_process_rss_mb"],
             r["output_bytes_per_match"], r["faults"]] for r in rows]
    print()
    print(table(headers, body))
    print()
    print(table(["tournament", "against", "concurrency", "speed-up with reuse", "CPU saved (off/on)", "starts (off/on)",
                 f"target {TARGET:g}x", "standings on = off"],
                [[s["tournament"], s["against"], s["concurrency"], f"{s['speedup']:.2f}x", f"{s['cpu_ratio']:.2f}x",
                  s["starts_ratio"], "met" if s["met"] else "NOT met",
                  {True: "identical", False: "DIFFER", None: "-"}[s["identical_standings"]]] for s in speedups]))
    after = machine()
    print(f"\nload average at the end {'/'.join(str(x) for x in after['loadavg'] or [])}")
    data.update(rows=rows, speedups=speedups, load_at_end=after["loadavg"], complete=True)
    write_results("reuse", data)
    return data


if __name__ == "__main__":
    main()
