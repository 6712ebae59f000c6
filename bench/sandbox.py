"""Benchmark: the cost of the bubblewrap sandbox (issue 15). The same bots through the real
SubprocessPlayer (limits wrapper included) with `sandbox="none"` and `sandbox="bwrap"`.

- start-up: wall time of `player.start(hello)` (the bot spawned, hello sent, ready read back)
  for bots/python/random_bot.py (this Python), the C bot bots/c/bot (built with `make` if
  missing, skipped without a compiler) and bots/javascript/bot.js (if `node` exists); --runs
  starts of each in each setting, the settings taking turns; min/median/max. Ending and closing
  the bot (end, its exit, its scratch directory removed) is timed too and kept in the JSON.
  Both settings start the bots with the environment the sandbox gives (PATH, locale, TERM:
  `clean_env`), so that only the sandbox differs: one variable of a referee's environment can
  cost more than the sandbox (NODE_EXTRA_CA_CERTS makes every Node start read a CA bundle,
  about 100 ms here).
- decision: whole 4-seat Mau Mau matches against 4 random_bot.py processes, as a match runs
  them (the referee's environment), seeds 1, 2... and a fixed deal key (so both settings play
  the same moves): microseconds per decision from the first `act` to the `end` (bot start-up
  excluded). A round plays --matches matches in each setting, the settings taking turns match
  by match (none, bwrap, none, bwrap...) so that a slow spell hits both; the ratio is the median
  of the rounds' own bwrap / none ratios.

Where bwrap is missing or cannot build a sandbox here (`referee.bots.sandbox.available()` false),
it says why and gives the unsandboxed figures only.

Usage: python bench/sandbox.py [--quick] [--runs 20] [--rounds 9] [--matches 4]
Prints a table and writes bench/results/sandbox.json. Never asserts anything.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import ROOT, machine, machine_line, median, table, write_results  # noqa: E402

PLAYERS = 4
GAME = "maumau"
SEED = 1
PY_BOT = ROOT / "bots" / "python" / "random_bot.py"
C_DIR = ROOT / "bots" / "c"
JS_BOT = ROOT / "bots" / "javascript" / "bot.js"
# Fixed, so that both settings deal the same cards (referee.sealing); no secret.
DEAL_KEY = b"bench/sandbox.py: a fixed deal key, so that both settings deal alike"


def bwrap_version() -> str | None:
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return None
    try:
        out = subprocess.run([bwrap, "--version"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() or None


def bots() -> tuple[dict[str, list[str]], dict[str, str]]:
    """The bots to start, by name (argv), and why any was left out."""
    found = {"random_bot.py (python)": [sys.executable, str(PY_BOT)]}
    skipped: dict[str, str] = {}
    c_bot = C_DIR / "bot"
    if not c_bot.exists() and (shutil.which("cc") or shutil.which("gcc")):
        subprocess.run(["make", "-s", "-C", str(C_DIR)], check=False)
    if c_bot.exists():
        found["bots/c/bot (C)"] = [str(c_bot)]
    else:
        skipped["bots/c/bot (C)"] = "not built (no compiler, or make failed)"
    node = shutil.which("node")
    if node is not None:
        found["bot.js (node)"] = [node, str(JS_BOT)]
    else:
        skipped["bot.js (node)"] = "node not found"
    return found, skipped


def clean_env() -> dict[str, str]:
    """The referee's variables a sandboxed bot keeps (referee.bots.sandbox.KEPT_ENV and LC_*)."""
    from referee.bots.sandbox import KEPT_ENV

    return {k: v for k, v in os.environ.items() if k in KEPT_ENV or k.startswith("LC_")}


def start_once(argv: list[str], sandbox: str, tmp: Path) -> tuple[float, float]:
    """Milliseconds of one `start` (hello to ready), and of the `end` + `close` after it."""
    from referee.bots.limits import subprocess_options
    from referee.players import Hello
    from referee.runner import Limits
    from referee.bots.player import SubprocessPlayer

    limits = Limits(sandbox=sandbox)
    player = SubprocessPlayer(argv, log_path=tmp / "start.log", cwd=ROOT, env=clean_env(),
                              **subprocess_options(limits))
    hello = Hello(GAME, 0, PLAYERS, [f"p{i}" for i in range(PLAYERS)], {}, "bench-start", limits.wire())
    try:
        started = time.perf_counter()
        fault = player.start(hello)
        ready = time.perf_counter()
        if fault is not None:
            raise RuntimeError(f"{argv} ({sandbox}) failed to start: {fault}")
        player.end({})
        player.close()
        closed = time.perf_counter()
    finally:
        player.close()  # a no-op unless something above failed
    return (ready - started) * 1e3, (closed - ready) * 1e3


def bench_start(found: dict[str, list[str]], sandboxes: tuple[str, ...], runs: int) -> list[dict[str, Any]]:
    rows = []
    with tempfile.TemporaryDirectory(prefix="referee-bench-") as tmp:
        for name, argv in found.items():
            for sandbox in sandboxes:  # warm-up: the file cache, the bwrap probe
                start_once(argv, sandbox, Path(tmp))
            start: dict[str, list[float]] = {s: [] for s in sandboxes}
            stop: dict[str, list[float]] = {s: [] for s in sandboxes}
            for _ in range(runs):
                for sandbox in sandboxes:
                    a, b = start_once(argv, sandbox, Path(tmp))
                    start[sandbox].append(a)
                    stop[sandbox].append(b)
            for sandbox in sandboxes:
                rows.append({"bot": name, "argv": argv, "sandbox": sandbox, "min_ms": min(start[sandbox]),
                             "median_ms": median(start[sandbox]), "max_ms": max(start[sandbox]),
                             "stop_median_ms": median(stop[sandbox]),
                             "samples_ms": [round(x, 3) for x in start[sandbox]],
                             "stop_samples_ms": [round(x, 3) for x in stop[sandbox]]})
    return rows


def match(sandbox: str, seed: int) -> dict[str, Any]:
    """One Mau Mau match against 4 random_bot processes: microseconds per decision, start-up excluded."""
    from referee import sealing
    from referee.config import resolve_config
    from referee.bots.limits import subprocess_options
    from referee.plugins import load_registry
    from referee.runner import Limits, Seat, run_match
    from referee.bots.player import SubprocessPlayer

    clock: dict[str, float] = {}

    class Timed(SubprocessPlayer):
        """Notes when the first act starts and the first end is sent (one clock read per act)."""

        def act(self, id, obs, legal, time_ms, meanwhile=None):
            if "first" not in clock:
                clock["first"] = time.perf_counter()
            return super().act(id, obs, legal, time_ms, meanwhile)

        def end(self, result):
            if "end" not in clock:
                clock["end"] = time.perf_counter()
            super().end(result)

    game = load_registry().games[GAME]
    config = resolve_config(game, {}, PLAYERS)
    limits = Limits(sandbox=sandbox)
    seats = [Seat(f"random_bot#{i}", "command", f"{sys.executable} {PY_BOT}") for i in range(PLAYERS)]
    with tempfile.TemporaryDirectory(prefix="referee-bench-") as tmp:
        players = [Timed([sys.executable, str(PY_BOT)], log_path=Path(tmp) / f"seat{i}.log", cwd=ROOT,
                         **subprocess_options(limits)) for i in range(PLAYERS)]
        started = time.perf_counter()
        result = run_match(game, config, seed, seats, players, limits, replay=Path(tmp) / "match.jsonl",
                           key=sealing.DealKey(DEAL_KEY, "bench"))
        finished = time.perf_counter()
    if any(result.result["faults"]):
        raise RuntimeError(f"{sandbox} seed {seed}: faults {result.result['fault_log']}")
    if not all(p.sandboxed == (sandbox == "bwrap") for p in players):
        raise RuntimeError(f"{sandbox} seed {seed}: a bot did not run as asked")
    return {"decisions": result.decisions, "us": (clock["end"] - clock["first"]) / result.decisions * 1e6,
            "start_ms": (clock["first"] - started) * 1e3, "match_s": finished - started,
            "spin_us": players[0].spin_us}


def bench_decisions(sandboxes: tuple[str, ...], rounds: int, matches: int) -> dict[str, Any]:
    """`rounds` rounds of `matches` matches (seeds 1, 2...) in each setting, the settings taking
    turns match by match; a round's figure is its decisions' time over their number."""
    for sandbox in sandboxes:  # warm-up
        match(sandbox, SEED)
    samples: dict[str, list[list[dict[str, Any]]]] = {s: [] for s in sandboxes}
    for _ in range(rounds):
        played: dict[str, list[dict[str, Any]]] = {s: [] for s in sandboxes}
        for seed in range(SEED, SEED + matches):
            for sandbox in sandboxes:
                played[sandbox].append(match(sandbox, seed))
        for sandbox in sandboxes:
            samples[sandbox].append(played[sandbox])

    def per_decision(ms: list[dict[str, Any]]) -> float:
        return sum(m["us"] * m["decisions"] for m in ms) / sum(m["decisions"] for m in ms)

    first = samples["none"][0]
    out: dict[str, Any] = {"rounds": rounds, "matches": matches, "game": GAME, "seeds": list(range(SEED, SEED + matches)),
                           "players": PLAYERS, "spin_us": first[0]["spin_us"],
                           "decisions": sum(m["decisions"] for m in first)}
    for sandbox in sandboxes:
        played_all = [m for r in samples[sandbox] for m in r]
        us = [per_decision(r) for r in samples[sandbox]]
        out[sandbox] = {"us_per_decision": median(us), "samples_us": [round(x, 2) for x in us],
                        "start_ms": median([m["start_ms"] for m in played_all]),
                        "decisions": [m["decisions"] for m in samples[sandbox][0]],
                        "start_samples_ms": [round(m["start_ms"], 2) for m in played_all],
                        "match_samples_s": [round(m["match_s"], 4) for m in played_all]}
    if "bwrap" in sandboxes:
        pairs = [(per_decision(n), per_decision(b)) for n, b in zip(samples["none"], samples["bwrap"])]
        out["ratio"] = median([b / n for n, b in pairs])
        out["difference_us"] = median([b - n for n, b in pairs])
    return out


def summary_rows(data: dict[str, Any]) -> list[list[Any]]:
    rows: list[list[Any]] = []
    by = {(r["bot"], r["sandbox"]): r for r in data["start"]}

    def span(r: dict[str, Any] | None) -> str:
        return "-" if r is None else f"{r['min_ms']:.1f} / {r['median_ms']:.1f} / {r['max_ms']:.1f}"

    for name in dict.fromkeys(r["bot"] for r in data["start"]):
        none, bwrap = by[(name, "none")], by.get((name, "bwrap"))
        diff = "-" if bwrap is None else (f"{bwrap['median_ms'] - none['median_ms']:+.1f} ms "
                                          f"({bwrap['median_ms'] / none['median_ms']:.2f}x)")
        rows.append([f"start-up {name}, ms min / median / max", span(none), span(bwrap), diff])
    d = data["decisions"]
    bw = d.get("bwrap")
    rows.append([f"{GAME}, 4 random_bot.py: us/decision ({d['matches']} matches = {d['decisions']} decisions a round, "
                 f"median of {d['rounds']})", f"{d['none']['us_per_decision']:.1f}",
                 f"{bw['us_per_decision']:.1f}" if bw else "-",
                 f"{d['difference_us']:+.1f} us ({d['ratio']:.3f}x)" if bw else "-"])
    rows.append([f"{GAME}: a match's 4 bots' start-up, ms (median)", f"{d['none']['start_ms']:.1f}",
                 f"{bw['start_ms']:.1f}" if bw else "-",
                 f"{bw['start_ms'] - d['none']['start_ms']:+.1f} ms" if bw else "-"])
    return rows


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="5 starts per bot, 3 rounds of 2 matches")
    parser.add_argument("--runs", type=int, help="starts of each bot per setting (default 20, --quick 5)")
    parser.add_argument("--rounds", type=int, help="rounds of matches (default 9, --quick 3)")
    parser.add_argument("--matches", type=int, help="matches per round and setting (default 4, --quick 2)")
    args = parser.parse_args(argv)
    runs = args.runs or (5 if args.quick else 20)
    rounds = args.rounds or (3 if args.quick else 9)
    matches = args.matches or (2 if args.quick else 4)

    from referee.bots import sandbox

    info = machine()
    version = bwrap_version()
    reason = sandbox.unavailable_reason()
    sandboxes = ("none", "bwrap") if reason is None else ("none",)
    found, skipped = bots()
    data: dict[str, Any] = {"runs": runs, "bwrap": version, "bwrap_unavailable": reason, "skipped": skipped,
                            "start": bench_start(found, sandboxes, runs),
                            "decisions": bench_decisions(sandboxes, rounds, matches)}
    print(machine_line(info))
    print(f"nproc {info['usable_cores']}; {version or 'bwrap not found'}")
    if reason is not None:
        print(f"no sandboxed figures: {reason}")
    for name, why in skipped.items():
        print(f"skipped {name}: {why}")
    print(f"sandbox bench: the real SubprocessPlayer (limits wrapper included) with sandbox none and bwrap; "
          f"{runs} starts of each bot in each setting (the sandbox's clean environment in both), {rounds} rounds of "
          f"{matches} matches, the settings taking turns (polls {data['decisions']['spin_us']} us); wall clock")
    data["summary"] = summary_rows(data)
    print(table(["sandbox", "none", "bwrap", "difference"], data["summary"], "lrrr"))
    write_results("sandbox", data)
    return data


if __name__ == "__main__":
    main()
