"""`referee validate`: check a submitted bot before it enters a tournament.

The bot plays a battery of matches against the reference strategies (`random`, `first` and the
game's own greedy strategies), which fill the other seats: every mode and variant of the game
(`Game.variants()`), a couple of table sizes when the game allows several, the bot in every
seat, over `seeds` seeds, the references taking turns. The report tells
- protocol conformance: the handshake (ready within start_ms, a name), ids (replies to old ids,
  to ids never asked), framing (lines, blank lines, lines that are not JSON, not UTF-8, too long,
  a reply left without its newline);
- faults by kind with the first examples of each: the protocol's (timeout, crash, invalid,
  illegal) and misconduct that is no protocol fault (stray-process: processes still running
  after the match's end; stderr-flood: more stderr than the log keeps; unprintable: text in
  `ready` that is no printable text, replaced);
- move times: p50, p95 and max against the limit; the bot's CPU seconds (in all, and in its
  costliest match) and its peak memory (referee.resources);
- results against the references: matches, wins (rank 1) and mean rank, per reference
  strategy and per table size.
A bot passes only if it made no fault at all. After `max_failed` matches with a fault the
battery stops early (0: never), so a broken bot is reported in seconds, not minutes.

Every failing match is kept (`out`): its replay and the bot's stderr log, with the `referee play`
command that plays it again move for move. The battery's seats are made as `play` makes them
(`referee.match.seat_names`, `play_match`: the same names, specs, match id and strategy
PRNGs), so that command with the same deal key deals the same cards and tells the bot the same
things. The key is the run's: REFEREE_DEAL_KEY, else a fresh one, which the command then carries
(`REFEREE_DEAL_KEY=<key> referee play ...`); it is printed for the person who ran validate, and
never given to the bot (referee/bots/sandbox.py NEVER_ENV). Passing matches keep nothing.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee import sealing
from referee.config import resolve_config
from referee.errors import (ConfigError, DiskFull, RefereeError, RefereeFailure, UsageError, first_line,
                            full_disk)
from referee.game import Action, Game
from referee.bots.limits import CPU_S, MEMORY_MB
from referee.match import MatchRequest, play_match, seat_names
from referee.players import Fault, Hello, Player, Reply
from referee.plugins import Registry
from referee.runner import Limits, by_ready_name
from referee.sealing import DealKey
from referee.signing import Signer

EXAMPLES = 3  # examples kept per fault kind
TAIL = 300  # characters of a bot's stderr tail kept in an example
FAILURE_TAIL = 2000  # characters of a failing match's stderr tail kept in its failure entry
PROTOCOL_KINDS = ("timeout", "crash", "invalid", "illegal")
CONDUCT_KINDS = ("stray-process", "stderr-flood", "unprintable")


@dataclass(frozen=True)
class Case:
    """One match of the battery: the variant, table size, the bot's seat, the reference, the seed."""

    variant: dict[str, Any]
    players: int
    seat: int
    reference: str
    seed: int

    def label(self) -> str:
        variant = ",".join(f"{k}={json.dumps(v)}" for k, v in self.variant.items()) or "default"
        return f"{variant} players={self.players} seat={self.seat} vs={self.reference} seed={self.seed}"

    def specs(self, argv: Sequence[str]) -> list[str]:
        """The seats' player specs in seat order, as `play -p` takes them (the bot's command line
        quoted as a shell would split it)."""
        return [shlex.join(argv) if i == self.seat else self.reference for i in range(self.players)]

    def stem(self, number: int) -> str:
        """The file name stem of this case's replay and log: `003-2p-seat1-first-seed1`."""
        reference = re.sub(r"[^A-Za-z0-9_.-]", "_", self.reference)
        return f"{number:03d}-{self.players}p-seat{self.seat}-{reference}-seed{self.seed}"


def play_command(game: str, case: Case, argv: Sequence[str], limits: Limits, key: DealKey,
                 program: Sequence[str] = ("referee",)) -> tuple[dict[str, str], list[str]]:
    """The environment and the `referee play` command line that play `case` again, move for move:
    the game, its `--set` options, the seats in order, the seed, the limits `play` takes
    (--move-ms, --start-ms, --bank-ms, --max-faults, --memory-mb, --cpu-s) and the sandbox. The
    environment holds REFEREE_DEAL_KEY when the key was made for this run (a key from the environment is
    there already, and is never printed)."""
    cmd = [*program, "play", game]
    for spec in case.specs(argv):
        cmd += ["-p", spec]
    for name, value in case.variant.items():
        text = ("true" if value else "false") if isinstance(value, bool) else str(value)
        cmd += ["--set", f"{name}={text}"]
    cmd += ["--seed", str(case.seed), "--move-ms", str(limits.move_ms), "--start-ms", str(limits.start_ms)]
    if limits.bank_ms:
        cmd += ["--bank-ms", str(limits.bank_ms)]
    if limits.max_faults != 1:
        cmd += ["--max-faults", str(limits.max_faults)]
    if limits.memory_mb != MEMORY_MB:
        cmd += ["--memory-mb", str(limits.memory_mb)]
    if limits.cpu_s != CPU_S:
        cmd += ["--cpu-s", str(limits.cpu_s)]
    cmd += ["--sandbox", limits.sandbox]
    env = {sealing.KEY_ENV: key.secret.decode("utf-8", "replace")} if key.source == "fresh" else {}
    return env, cmd


def shell_line(env: dict[str, str], cmd: Sequence[str]) -> str:
    """`NAME=value ... command ...`, quoted for a POSIX shell."""
    return " ".join([*(f"{k}={shlex.quote(v)}" for k, v in env.items()), shlex.join(cmd)])


def references(game: Game, registry: Registry) -> list[str]:
    """`random`, `first` and every strategy registered for this game alone (its greedy player)."""
    names = [n for n in ("random", "first") if n in registry.strategies]
    names += sorted(n for n, e in registry.strategies.items()
                    if e.games is not None and game.name in e.games and n not in names)
    return names


def table_sizes(game: Game) -> list[int]:
    """The smallest table, the largest and the one midway (rounded down), those the game allows:
    a 2-6 player game meets 2, 4 and 6 seats (a bot's bugs with many seats show at the largest)."""
    fewest, most = game.min_players, game.max_players
    return sorted({fewest, (fewest + most) // 2, most})


def battery(game: Game, registry: Registry, seeds: int, base_seed: int = 1) -> list[Case]:
    """Every case of the battery, in the order they are played.

    Each (variant, table size, seed) puts the bot in every seat once; the references take turns
    across those matches, so each plays the bot about as often as the others, in every seat.
    """
    refs = references(game, registry)
    cases = []
    turn = 0
    for variant in game.variants():
        for n in table_sizes(game):
            try:
                resolve_config(game, variant, n)
            except ConfigError:
                continue  # a variant that needs another table size
            for s in range(seeds):
                for seat in range(n):
                    cases.append(Case(dict(variant), n, seat, refs[turn % len(refs)], base_seed + s))
                    turn += 1
    return cases


class _Watched(Player):
    """The bot's player, recording its handshake and every reply's time."""

    kind = "command"

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.start_fault: Fault | None = None
        self.ms: list[float] = []

    def start(self, hello: Hello) -> Fault | None:
        self.start_fault = self.inner.start(hello)
        return self.start_fault

    def event(self, event: dict[str, Any]) -> None:
        self.inner.event(event)

    def act(self, id: int, obs: dict[str, Any], legal: list[Action], time_ms: int,
            meanwhile: Callable[[], None] | None = None, bank_ms: int | None = None) -> Reply:
        # inner: a SubprocessPlayer
        banked = {} if bank_ms is None else {"bank_ms": bank_ms}
        reply = self.inner.act(id, obs, legal, time_ms, meanwhile=meanwhile, **banked)
        if reply.ms > 0:
            self.ms.append(reply.ms)
        return reply

    def end(self, result: dict[str, Any]) -> None:
        self.inner.end(result)

    def close(self) -> None:
        self.inner.close()

    def stderr_log(self) -> Path | None:
        return self.inner.stderr_log()

    def announced(self) -> dict[str, str] | None:
        return self.inner.announced()

    def __getattr__(self, name: str) -> Any:
        # what the runner reads of a bot's player for its fault records (log_path, stats)
        if name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)


@dataclass
class _Tally:
    """What the battery found, added up match by match."""

    matches: int = 0
    decisions: int = 0
    ms: list[float] = field(default_factory=list)
    handshake_ok: int = 0
    handshake_failed: int = 0
    names: set[str] = field(default_factory=set)
    stats: dict[str, int] = field(default_factory=lambda: {"lines": 0, "blank": 0, "stale": 0, "late_ready": 0})
    faults: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    invalid_details: list[str] = field(default_factory=list)  # of every invalid fault
    failed_matches: int = 0
    sandboxed: int = 0
    ranks: list[tuple[Case, int]] = field(default_factory=list)
    failures: list[dict[str, Any]] = field(default_factory=list)  # every failing match, kept or not
    pending: list[dict[str, Any]] = field(default_factory=list)  # the bot's faults in the last match
    kept_error: str | None = None  # why the failing matches could not be kept
    #: the bot's conduct penalties (referee.game.penalty) per (why, ruling): times, and matches with one
    penalties: dict[tuple[str, str], list[int]] = field(default_factory=dict)
    #: the bot's CPU seconds and peak MB in each match where they were measured (referee.resources)
    cpu_s: list[float] = field(default_factory=list)
    peak_mb: list[float] = field(default_factory=list)
    measured: set[str] = field(default_factory=set)

    def fault(self, kind: str, example: dict[str, Any]) -> None:
        self.counts[kind] = self.counts.get(kind, 0) + 1
        shown = self.faults.setdefault(kind, [])
        if len(shown) < EXAMPLES:
            shown.append(example)

    def examples_of(self, label: str) -> list[dict[str, Any]]:
        """The examples shown for the match labelled `label`."""
        return [ex for shown in self.faults.values() for ex in shown if ex["match"] == label]


def run_validation(
    game: Game,
    registry: Registry,
    argv: Sequence[str],
    limits: Limits,
    seeds: int = 1,
    base_seed: int = 1,
    max_failed: int = 3,
    end_grace_ms: int = 2000,
    on_match: Callable[[int, int, Case, bool], None] | None = None,
    cases: list[Case] | None = None,
    key: DealKey | None = None,
    out: Path | None = None,
    program: Sequence[str] = ("referee",),
    signer: Signer | None = None,
    bot_options: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Play the battery and return the report (JSON-ready); `on_match(done, total, case, faulted)`.

    Deals are sealed by `key` (default: REFEREE_DEAL_KEY, else a fresh key for this battery).
    Each failing match's replay and the bot's stderr log are moved into `out` (made at the first
    failure; None: kept nowhere), and the report's `failures` give for each its files and the
    `referee play` command (`program play ...`) that reproduces it. Each match is played in a
    private temporary directory, which a sandboxed bot never sees, nor `out`, nor the `signer`'s
    key file; with a `signer` every replay is signed (referee/signing.py). `bot_options`: more
    SubprocessPlayer keywords for the bot (`cwd` and `home`: a contest submission's folder).
    """
    if not argv:
        raise UsageError("validate needs the bot's command after --")
    if seeds < 1:
        raise UsageError("--seeds must be at least 1")
    cases = cases if cases is not None else battery(game, registry, seeds, base_seed)
    key = key or sealing.for_run()
    tally = _Tally()
    started = time.perf_counter()
    stopped = False
    with tempfile.TemporaryDirectory(prefix="referee-validate-") as tmp:
        work = Path(tmp)
        hide = [work, *([out] if out is not None else []), *([signer.source] if signer is not None and signer.source
                                                              else [])]
        for k, case in enumerate(cases):
            config = resolve_config(game, case.variant, case.players)
            seats = by_ready_name(seat_names(case.specs(argv), registry))  # as `play` names them: the same hello
            stem = case.stem(k + 1)
            commands: list[dict[str, Any]] = [{} for _ in seats]
            commands[case.seat] = {"end_grace_ms": end_grace_ms, **(bot_options or {})}
            watching: list[_Watched] = []
            replay = work / f"{stem}.jsonl"
            request = MatchRequest(game, config, case.seed, tuple(seats), registry, limits, key, signer,
                                   registry.hooks, replay=replay, log_dir=work, log_stem=stem, hide=tuple(hide),
                                   commands=tuple(commands), wrap={case.seat: lambda bot: _watch(bot, watching)})
            try:
                result = play_match(request)
            except Exception as exc:  # the referee's side failed: the battery stops, saying so in one line
                raise _referee_failed(exc, case, k + 1, replay, out) from None
            watched = watching[0]
            faulted = _add(tally, case, result, watched, watched.inner)
            if faulted:
                _keep(tally, case, k + 1, work, stem, out, argv, limits, key, game.name, program)
            for path in work.iterdir():  # a passing match keeps nothing; a kept one is moved already
                shutil.rmtree(path) if path.is_dir() and not path.is_symlink() else path.unlink()
            if on_match is not None:
                on_match(k + 1, len(cases), case, faulted)
            if faulted and max_failed and tally.failed_matches >= max_failed and k + 1 < len(cases):
                stopped = True
                break
    report = _report(game, argv, limits, tally, len(cases), stopped, time.perf_counter() - started)
    report["penalties"], report["warnings"] = _penalties(game, tally)
    report["kept"] = {"dir": str(out) if out is not None and tally.failures and tally.kept_error is None else None,
                      "error": tally.kept_error}
    report["failures"] = tally.failures
    report["deal_key"] = {"id": key.id, "pinned": key.source != "fresh"}
    return report


def _watch(bot: Player, watching: list[_Watched]) -> _Watched:
    """The bot's player, watched (and noted in `watching`)."""
    watched = _Watched(bot)
    watching.append(watched)
    return watched


def _keep(tally: _Tally, case: Case, number: int, work: Path, stem: str, out: Path | None,
          argv: Sequence[str], limits: Limits, key: DealKey, game: str, program: Sequence[str]) -> None:
    """Move a failing match's replay and (non-empty) log into `out`; add its failure entry."""
    replay, log = work / f"{stem}.jsonl", work / f"{stem}.seat{case.seat}.log"
    tail = _tail(log)
    kept_replay = kept_log = None
    if out is not None and tally.kept_error is None:
        try:
            out.mkdir(parents=True, exist_ok=True)
            kept_replay = Path(shutil.move(replay, out / replay.name))
            if log.is_file() and log.stat().st_size:
                kept_log = Path(shutil.move(log, out / log.name))
        except OSError as exc:
            tally.kept_error = f"cannot keep the failing matches in {out}: {exc.strerror or exc}"
    env, cmd = play_command(game, case, argv, limits, key, program)
    label = case.label()
    if tail is None:  # no log: the tail the fault records kept
        tail = next((ex["stderr_tail"] for ex in tally.examples_of(label) if ex["stderr_tail"]), "")
    entry = {
        "number": number,
        "match": label,
        "case": {"variant": case.variant, "players": case.players, "seat": case.seat,
                 "reference": case.reference, "seed": case.seed},
        "faults": list(tally.pending),
        "replay": str(kept_replay) if kept_replay is not None else None,
        "log": str(kept_log) if kept_log is not None else None,
        "stderr_tail": tail[-FAILURE_TAIL:],
        "cwd": os.getcwd(),
        "env": env,
        "command": cmd,
        "reproduce": shell_line(env, cmd),
    }
    tally.failures.append(entry)
    for ex in tally.examples_of(label):
        ex["replay"] = entry["replay"]


def _referee_failed(exc: Exception, case: Case, number: int, replay: Path, out: Path | None) -> Exception:
    """The error that stops the battery when match `number` failed on the referee's side (not
    the bot's fault): DiskFull for a full disk, the referee's own errors as they are (a plugin's
    broken output), else RefereeFailure naming the match and where what was played is kept
    (its replay, moved into `out`)."""
    full = full_disk(exc)
    if full is not None:
        return DiskFull.of(full, replay.parent, "validate again")
    if isinstance(exc, RefereeError):
        return exc
    kept = None
    if out is not None and replay.is_file():
        try:
            out.mkdir(parents=True, exist_ok=True)
            kept = Path(shutil.move(replay, out / replay.name))
        except OSError:
            pass
    where = f"what was played is in {kept}" if kept is not None else "what was played is not kept"
    return RefereeFailure(f"match {number} ({case.label()}) failed on the referee's side, not the bot's fault: "
                          f"{first_line(exc)}; {where}")


def _tail(log: Path) -> str | None:
    """The end of a bot's stderr log (None: it has none, or an empty one)."""
    try:
        size = log.stat().st_size
        if not size:
            return None
        with open(log, "rb") as f:
            f.seek(max(0, size - FAILURE_TAIL))
            return f.read().decode("utf-8", "replace")
    except OSError:
        return None


def _add(tally: _Tally, case: Case, result: Any, watched: _Watched, bot: Any) -> bool:
    """Add one match to the tally; whether the bot faulted in it."""
    tally.matches += 1
    tally.decisions += len(watched.ms)
    tally.ms.extend(watched.ms)
    if bot.sandboxed:
        tally.sandboxed += 1
    if watched.start_fault is None:
        tally.handshake_ok += 1
        if bot.name:
            tally.names.add(bot.name)
    else:
        tally.handshake_failed += 1
    for key in tally.stats:
        tally.stats[key] += bot.stats[key]
    tally.pending = []
    for f in result.faults:
        if f.seat != case.seat:
            continue  # a reference strategy's fault: not the bot's doing
        if f.kind == "invalid":
            tally.invalid_details.append(f.detail)
        tally.pending.append({"kind": f.kind, "deal": f.deal, "act": f.act, "detail": f.detail, "hint": f.hint})
        tally.fault(f.kind, {"match": case.label(), "deal": f.deal, "act": f.act, "detail": f.detail, "raw": f.raw,
                             "legal": f.legal, "hint": f.hint, "stderr_tail": f.stderr_tail[-TAIL:]})
    for kind, detail in bot.conduct:
        tally.pending.append({"kind": kind, "deal": None, "act": None, "detail": detail, "hint": ""})
        tally.fault(kind, {"match": case.label(), "deal": None, "act": None, "detail": detail, "raw": "",
                           "legal": "", "hint": "", "stderr_tail": ""})
    for p in getattr(result, "penalties", ()):
        if p["seat"] == case.seat:
            counts = tally.penalties.setdefault((p["why"], p["ruling"]), [0, 0])
            counts[0] += p["times"]
            counts[1] += 1
    used = getattr(result, "resources", None)
    if used:
        mine = used[case.seat]
        if mine["cpu_s"] is not None:
            tally.cpu_s.append(mine["cpu_s"])
        if mine["peak_mb"] is not None:
            tally.peak_mb.append(mine["peak_mb"])
        tally.measured.add(mine["measured"])
    faulted = bool(tally.pending)
    if faulted:
        tally.failed_matches += 1
    tally.ranks.append((case, result.result["ranks"][case.seat]))
    return faulted


#: a conduct penalty paid in this many matches or more is warned of (a slip, once, is not)
PENALTY_WARN_MATCHES = 3


def _penalties(game: Game, tally: _Tally) -> tuple[list[dict[str, Any]], list[str]]:
    """The bot's conduct penalties (why, ruling, times, matches, the game's advice) and the
    warnings for those paid in PENALTY_WARN_MATCHES matches or more."""
    from referee.describe import describer_of

    describer = describer_of(game)
    rows, warnings = [], []
    for (why, ruling), (times, matches) in sorted(tally.penalties.items()):
        advice = describer.penalty_advice(why, ruling)
        rows.append({"why": why, "ruling": ruling, "times": times, "matches": matches, "advice": advice})
        if matches >= PENALTY_WARN_MATCHES:
            warnings.append(f"penalised for {why} ({ruling}) {times} times, in {matches} of {tally.matches} matches"
                            + (f": {advice}" if advice else ""))
    return rows, warnings


def _percentile(sorted_ms: list[float], q: float) -> float:
    if not sorted_ms:
        return 0.0
    return sorted_ms[min(len(sorted_ms) - 1, max(0, round(q * len(sorted_ms) + 0.5) - 1))]


def _results(ranks: list[tuple[Case, int]], key: Callable[[Case], Any]) -> dict[str, dict[str, Any]]:
    groups: dict[Any, list[int]] = {}
    for case, rank in ranks:
        groups.setdefault(key(case), []).append(rank)
    return {str(k): {"matches": len(v), "wins": sum(1 for r in v if r == 1),
                     "mean_rank": round(statistics.fmean(v), 3)} for k, v in sorted(groups.items())}


def _report(game: Game, argv: Sequence[str], limits: Limits, tally: _Tally, planned: int, stopped: bool,
            seconds: float) -> dict[str, Any]:
    ms = sorted(tally.ms)

    def count_invalid(*needles: str) -> int:
        return sum(1 for d in tally.invalid_details if any(n in d for n in needles))

    stats = tally.stats
    framing_faults = tally.counts.get("invalid", 0)
    report = {
        "game": game.name,
        "command": list(argv),
        "passed": not tally.counts and not stopped and tally.matches == planned,
        "matches": {"planned": planned, "played": tally.matches, "with_faults": tally.failed_matches,
                    "stopped_early": stopped},
        "seconds": round(seconds, 2),
        "sandbox": {"asked": limits.sandbox, "used": tally.sandboxed == tally.matches and tally.matches > 0},
        "limits": {"move_ms": limits.move_ms, "start_ms": limits.start_ms, "grace_ms": limits.grace_ms,
                   "total_ms": limits.total_ms, "bank_ms": limits.bank_ms, "max_line_bytes": limits.max_line_bytes,
                   "cpu_s": limits.cpu_s, "memory_mb": limits.memory_mb, "fsize_mb": limits.fsize_mb,
                   "nofile": limits.nofile},
        "protocol": {
            "handshake": {"ok": tally.handshake_failed == 0, "ready": tally.handshake_ok,
                          "failed": tally.handshake_failed, "names": sorted(tally.names)},
            "ids": {"ok": stats["stale"] == 0 and count_invalid("not asked yet") == 0,
                    "stale_replies": stats["stale"], "unasked_ids": count_invalid("not asked yet"),
                    "late_ready": stats["late_ready"]},
            "framing": {"ok": framing_faults == 0, "lines": stats["lines"], "blank_lines": stats["blank"],
                        "invalid_lines": framing_faults,
                        "too_long": count_invalid("line too long"),
                        "not_json": count_invalid("not JSON", "not UTF-8", "not a JSON object")},
        },
        "faults": {
            "total": sum(tally.counts.values()),
            "by_kind": {kind: {"count": tally.counts[kind], "examples": tally.faults[kind]}
                        for kind in (*PROTOCOL_KINDS, *CONDUCT_KINDS) if kind in tally.counts},
        },
        "move_time_ms": {
            "limit": limits.move_ms,
            "count": len(ms),
            "p50": round(_percentile(ms, 0.50), 3),
            "p95": round(_percentile(ms, 0.95), 3),
            "max": round(ms[-1], 3) if ms else 0.0,
            "over_limit": sum(1 for m in ms if m > limits.move_ms),
        },
        # its processes' CPU seconds (in all, and in its costliest match) and largest peak memory,
        # over the matches they were measured in (None: none was)
        "resources": {"matches": len(tally.cpu_s), "cpu_s": round(sum(tally.cpu_s), 3) if tally.cpu_s else None,
                      "cpu_s_max": max(tally.cpu_s, default=None), "peak_mb": max(tally.peak_mb, default=None),
                      "measured": sorted(tally.measured)},
        "results": {
            "overall": _results(tally.ranks, lambda c: "all").get("all", {"matches": 0, "wins": 0, "mean_rank": 0}),
            "by_reference": _results(tally.ranks, lambda c: c.reference),
            "by_players": _results(tally.ranks, lambda c: c.players),
        },
    }
    return report
