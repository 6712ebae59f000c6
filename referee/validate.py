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
  after the match's end; stderr-flood: more stderr than the log keeps);
- move times: p50, p95 and max against the limit;
- results against the references: matches, wins (rank 1) and mean rank, per reference
  strategy and per table size.
A bot passes only if it made no fault at all. After `max_failed` matches with a fault the
battery stops early (0: never), so a broken bot is reported in seconds, not minutes.
"""

from __future__ import annotations

import json
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee import sealing
from referee.config import resolve_config
from referee.errors import ConfigError, UsageError
from referee.game import Action, Game
from referee.bots.limits import subprocess_options
from referee.players import Fault, Hello, Player, Reply, StrategyPlayer
from referee.plugins import Registry
from referee.runner import Limits, Seat, run_match
from referee.sealing import DealKey

EXAMPLES = 3  # examples kept per fault kind
TAIL = 300  # characters of a bot's stderr tail kept in an example
PROTOCOL_KINDS = ("timeout", "crash", "invalid", "illegal")
CONDUCT_KINDS = ("stray-process", "stderr-flood")


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


def references(game: Game, registry: Registry) -> list[str]:
    """`random`, `first` and every strategy registered for this game alone (its greedy player)."""
    names = [n for n in ("random", "first") if n in registry.strategies]
    names += sorted(n for n, e in registry.strategies.items()
                    if e.games is not None and game.name in e.games and n not in names)
    return names


def table_sizes(game: Game) -> list[int]:
    """The smallest table and, when the game allows it, one two seats larger (a couple of sizes)."""
    return sorted({game.min_players, min(game.max_players, game.min_players + 2)})


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
            meanwhile: Callable[[], None] | None = None) -> Reply:
        reply = self.inner.act(id, obs, legal, time_ms, meanwhile=meanwhile)  # inner: a SubprocessPlayer
        if reply.ms > 0:
            self.ms.append(reply.ms)
        return reply

    def end(self, result: dict[str, Any]) -> None:
        self.inner.end(result)

    def close(self) -> None:
        self.inner.close()


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

    def fault(self, kind: str, example: dict[str, Any]) -> None:
        self.counts[kind] = self.counts.get(kind, 0) + 1
        shown = self.faults.setdefault(kind, [])
        if len(shown) < EXAMPLES:
            shown.append(example)


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
) -> dict[str, Any]:
    """Play the battery and return the report (JSON-ready); `on_match(done, total, case, faulted)`.

    Deals are sealed by `key` (default: REFEREE_DEAL_KEY, else a fresh key for this battery).
    """
    from referee.bots.player import SubprocessPlayer

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
        for k, case in enumerate(cases):
            config = resolve_config(game, case.variant, case.players)
            seats, players = [], []
            bot = SubprocessPlayer(argv, log_path=Path(tmp) / f"match{k}.log", end_grace_ms=end_grace_ms,
                                   **subprocess_options(limits))
            watched = _Watched(bot)
            try:
                for i in range(case.players):
                    if i == case.seat:
                        seats.append(Seat("bot", "command", " ".join(argv)))
                        players.append(watched)
                    else:
                        entry = registry.strategies[case.reference]
                        rng = key.rng("strategy", case.seed, i, case.reference)
                        seats.append(Seat(f"{case.reference}#{i}", "strategy", case.reference))
                        players.append(StrategyPlayer(entry.factory(game.name, i, config, rng)))
            except BaseException:
                bot.close()
                raise
            result = run_match(game, config, case.seed, seats, players, limits, key=key, hooks=registry.hooks)
            faulted = _add(tally, case, result, watched, bot)
            if on_match is not None:
                on_match(k + 1, len(cases), case, faulted)
            if faulted and max_failed and tally.failed_matches >= max_failed and k + 1 < len(cases):
                stopped = True
                break
    return _report(game, argv, limits, tally, len(cases), stopped, time.perf_counter() - started)


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
    faulted = False
    for f in result.faults:
        if f.seat != case.seat:
            continue  # a reference strategy's fault: not the bot's doing
        faulted = True
        if f.kind == "invalid":
            tally.invalid_details.append(f.detail)
        tally.fault(f.kind, {"match": case.label(), "deal": f.deal, "detail": f.detail, "raw": f.raw,
                             "stderr_tail": f.stderr_tail[-TAIL:]})
    for kind, detail in bot.conduct:
        faulted = True
        tally.fault(kind, {"match": case.label(), "deal": None, "detail": detail, "raw": "", "stderr_tail": ""})
    if faulted:
        tally.failed_matches += 1
    tally.ranks.append((case, result.result["ranks"][case.seat]))
    return faulted


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
                   "total_ms": limits.total_ms, "max_line_bytes": limits.max_line_bytes,
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
        "results": {
            "overall": _results(tally.ranks, lambda c: "all").get("all", {"matches": 0, "wins": 0, "mean_rank": 0}),
            "by_reference": _results(tally.ranks, lambda c: c.reference),
            "by_players": _results(tally.ranks, lambda c: c.players),
        },
    }
    return report
