"""Benchmark: `referee ladder`'s throughput (issue 28): submissions taken in a minute, matches a second.

Intake: `--submissions` Python submissions (copies of bots/python/random_bot.py, each its own
name) dropped into a fresh ladder's folder and taken in by the ladder's own loop (unpack,
manifest, name, validation at the ladder's table size and options: a 2-seat Mau Mau ladder, so
2 validation matches each), in the sandbox given (`--sandbox`, default bwrap when usable):
submissions a minute, by wall time.

Ladder: then `--matches` matches of that ladder (the submissions and the house strategies
random and maumau-greedy, 2 seats, every seating; bot processes kept between matches as by
default, and with `reuse_matches = 1` for comparison), and a ladder of in-process strategies
only (random, first, maumau-greedy): matches a second, by wall time, the refits, the site and
the database included. One run each (the machine's load is printed with the figures).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import ROOT, machine, machine_line, table, write_results  # noqa: E402


def _ladder_file(folder: Path, house: list[str], sandbox: str, reuse: int) -> Path:
    (folder / "subs").mkdir(exist_ok=True)
    path = folder / "L.toml"
    path.write_text(f'game = "maumau"\nplayers = 2\nsubmissions = "subs"\nout = "out"\nseed = 1\n'
                    f"house = {house!r}\n".replace("'", '"')
                    + f'[limits]\nsandbox = "{sandbox}"\nreuse_matches = {reuse}\n')
    return path


def _submit(subs: Path, n: int, python: str) -> None:
    for i in range(n):
        tmp = subs / f".bot{i:03d}"
        tmp.mkdir()
        shutil.copy(ROOT / "bots" / "python" / "random_bot.py", tmp / "bot.py")
        (tmp / "bot.toml").write_text(f'name = "bot{i:03d}"\nauthor = "bench"\nrun = "{python} bot.py"\n')
        tmp.rename(subs / f"bot{i:03d}")


def _play(path: Path, matches: int) -> dict[str, float]:
    from referee.ladder.config import load
    from referee.ladder.run import Ladder
    from referee.plugins import load_registry

    ladder = Ladder(load(path), load_registry())
    try:
        started = time.perf_counter()
        intake = 0.0
        taken = played = 0
        for event in ladder.run(matches):
            if event.kind == "intake":
                taken += 1
                intake = time.perf_counter() - started  # intake runs first, before any match
            elif event.kind == "match":
                played += 1
        total = time.perf_counter() - started
    finally:
        ladder.close()
    return {"taken": taken, "intake_s": intake, "played": played, "play_s": total - intake}


def main() -> None:
    from referee.bots import sandbox as sb

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--submissions", type=int, default=10)
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--sandbox", choices=["bwrap", "none"], default="bwrap" if sb.available() else "none")
    args = parser.parse_args()
    info = machine()
    # as root, sandboxed bots run as users of their own: a Python every user can read
    python = shutil.which("python3", path="/usr/local/bin:/usr/bin:/bin") or sys.executable
    rows, results = [], {"machine": info, "args": vars(args), "runs": []}
    for label, house, subs, reuse in [("submissions + house", ["random", "maumau-greedy"], args.submissions, 100),
                                      ("submissions + house, no reuse", ["random", "maumau-greedy"], args.submissions, 1),
                                      ("house strategies only", ["random", "first", "maumau-greedy"], 0, 100)]:
        folder = Path(tempfile.mkdtemp(prefix="bench-ladder-"))
        folder.chmod(0o755)
        try:
            path = _ladder_file(folder, house, args.sandbox, reuse)
            _submit(folder / "subs", subs, python)
            r = _play(path, args.matches)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        per_minute = 60 * r["taken"] / r["intake_s"] if r["taken"] else None
        rows.append([label, r["taken"], f"{per_minute:.1f}" if per_minute else "-", r["played"],
                     f"{r['played'] / r['play_s']:.2f}"])
        results["runs"].append({"label": label, **r, "submissions_per_minute": per_minute,
                                "matches_per_second": r["played"] / r["play_s"]})
    print(machine_line(info))
    print(f"sandbox: {args.sandbox}; 2-seat Mau Mau, every seating; one run each, wall time")
    print(table(["ladder", "taken in", "submissions/min", "matches", "matches/s"], rows))
    print(f"results: {write_results('ladder', results)}")


if __name__ == "__main__":
    main()
