"""Running a tournament: matches in worker processes, an fsynced results journal, resume.

The driver alone writes the journal (`journal.jsonl` in the output dir): a first line naming the
tournament and a fingerprint of its schedule, then one JSON line per finished match, flushed and
fsynced, so a killed run loses only the matches in flight. `--resume` skips what the journal holds.
"""

from __future__ import annotations

import concurrent.futures as cf
import hashlib
import json
import multiprocessing
import os
import signal
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from referee.errors import UsageError
from referee.runner import Limits, Seat
from referee.tournament_config import Entrant, MatchSpec, TournamentConfig

JOURNAL = "journal.jsonl"


def fingerprint(matches: list[MatchSpec]) -> str:
    """A digest of the whole schedule: a journal only resumes the tournament it was written for."""
    blob = json.dumps([asdict(m) for m in matches], sort_keys=True).encode()
    return hashlib.sha256(blob).hexdigest()[:16]


# -- worker side -------------------------------------------------------------------------------

_registry = None


class _Terminated(BaseException):
    """Raised in a worker on SIGTERM, so the match's finally blocks kill its bots."""


def _on_term(signum, frame):
    raise _Terminated()


def _worker_init(plugins_dir: str | None) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the driver decides what Ctrl-C means
    signal.signal(signal.SIGTERM, _on_term)
    global _registry
    from referee.plugins import load_registry

    _registry = load_registry(plugins_dir)


def play(spec: MatchSpec, entrants: dict[str, Entrant], limits: Limits, out_dir: str) -> dict[str, Any]:
    """Play one scheduled match (in a worker) and return its journal record."""
    from referee.match import make_players
    from referee.runner import run_match

    registry = _registry
    if registry is None:  # called outside a pool (tests, concurrency in-process)
        from referee.plugins import load_registry

        registry = load_registry()
    game = registry.games[spec.game]
    chosen = [entrants[name] for name in spec.seats]
    seats = [Seat(e.name, "strategy" if e.strategy else "command", e.spec, e.move_ms) for e in chosen]
    commands = [
        None if e.strategy else {"cwd": e.cwd, "env": {**os.environ, **e.env} if e.env else None,
                                 **({"start_ms": e.start_ms} if e.start_ms else {})}
        for e in chosen
    ]
    replay_dir = Path(out_dir) / "replays"
    started = time.perf_counter()
    wall = time.monotonic()
    players = make_players(game, spec.config, spec.seed, seats, registry, limits, replay_dir, spec.key, commands)
    result = run_match(game, spec.config, spec.seed, seats, players, limits, replay=replay_dir / f"{spec.key}.jsonl")
    res = result.result
    return {
        "type": "match",
        "index": spec.index,
        "key": spec.key,
        "game": spec.game,
        "seed": spec.seed,
        "seats": list(spec.seats),
        "scores": res["scores"],
        "ranks": res["ranks"],
        "faults": res["faults"],
        "disqualified": res["disqualified"],
        "fault_log": res["fault_log"],
        "decisions": result.decisions,
        "seconds": round(time.perf_counter() - started, 4),
        "pid": os.getpid(),
        "started": wall,
        "ended": time.monotonic(),
        "replay": f"replays/{spec.key}.jsonl",
    }


# -- driver side -------------------------------------------------------------------------------


class Journal:
    """The append-only results journal: one fsynced line per finished match."""

    def __init__(self, path: Path, head: dict[str, Any]) -> None:
        self.path = path
        self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        if os.fstat(self._fd).st_size == 0:
            self.append(head)

    def append(self, record: dict[str, Any]) -> None:
        os.write(self._fd, (json.dumps(record, separators=(",", ":")) + "\n").encode())
        os.fsync(self._fd)

    def close(self) -> None:
        os.close(self._fd)


def _repair(path: Path) -> None:
    """Cut a line torn by a crash off the end of the journal, so appends stay line-aligned."""
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        path.write_bytes(data[: data.rfind(b"\n") + 1])


def prepare(config: TournamentConfig, resume: bool) -> tuple[list[MatchSpec], list[dict[str, Any]], dict]:
    """The matches still to play, the records already journaled, and the journal's head line."""
    from referee.standings import read_journal

    matches = config.matches()
    head = {"type": "tournament", "name": config.name, "file": str(config.path),
            "matches": len(matches), "fingerprint": fingerprint(matches)}
    journal = config.out / JOURNAL
    done: list[dict[str, Any]] = []
    if journal.exists() and journal.stat().st_size > 0:
        if not resume:
            raise UsageError(f"{journal} already holds results: add --resume to continue that run, "
                             "or choose another --out")
        _repair(journal)
        old_head, done = read_journal(journal)
        if old_head is None or old_head.get("fingerprint") != head["fingerprint"]:
            raise UsageError(f"{journal} was written for a different schedule; cannot resume it "
                             "with this tournament file")
        seen: set[int] = set()
        unique = []
        for rec in done:
            if rec["index"] not in seen:
                seen.add(rec["index"])
                unique.append(rec)
        done = unique
    done_idx = {r["index"] for r in done}
    return [m for m in matches if m.index not in done_idx], done, head


def run(
    config: TournamentConfig,
    resume: bool = False,
    plugins_dir: str | None = None,
    on_result: Callable[[dict[str, Any]], None] | None = None,
) -> list[dict[str, Any]]:
    """Play every match not yet journaled; returns every record (old and new) in schedule order."""
    todo, records, head = prepare(config, resume)
    config.out.mkdir(parents=True, exist_ok=True)
    journal = Journal(config.out / JOURNAL, head)
    limits = Limits(move_ms=config.move_ms, start_ms=config.start_ms, max_faults=config.max_faults)
    try:
        if todo:
            ctx = multiprocessing.get_context("forkserver")
            pool = cf.ProcessPoolExecutor(max_workers=min(config.concurrency, len(todo)), mp_context=ctx,
                                          initializer=_worker_init, initargs=(plugins_dir,))
            try:
                pending = {pool.submit(play, spec, config.entrants, limits, str(config.out)) for spec in todo}
                for future in cf.as_completed(pending):
                    record = future.result()
                    journal.append(record)
                    records.append(record)
                    if on_result is not None:
                        on_result(record)
            except BaseException:
                _stop(pool)
                raise
            pool.shutdown(wait=True)
    finally:
        journal.close()
    return sorted(records, key=lambda r: r["index"])


def _stop(pool: cf.ProcessPoolExecutor) -> None:
    """Stop every worker so that each kills its own bots (SIGTERM runs their cleanup)."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in processes:
        try:
            proc.terminate()
        except (OSError, ValueError):
            pass
    for proc in processes:
        proc.join(timeout=5)
        if proc.is_alive():
            proc.kill()
            proc.join(timeout=1)
