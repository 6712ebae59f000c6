"""The ladder's loop: look at the submissions folder, take each new or changed one in, play the
next duplicate set, refit the ratings, write the site every few sets; and again.

Long work as a generator of typed events (`Ladder.run`): the CLI only shows them. Everything
lives in the SQLite state (referee.ladder.state): a rerun goes on where the last one stopped, a
set left halfway first (its missing seatings only). The deal key (`out/deal.key`) seals every
deal, as a tournament's does; replays are kept under `out/replays/` and their SHA-256 in the db
(`verify` checks both)."""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shlex
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee import sealing
from referee.errors import UsageError
from referee.ladder import schedule, submissions
from referee.ladder.config import LadderConfig
from referee.ladder.state import State
from referee.tournament.head_to_head import MIN_SETS

DB = "ladder.db"
#: seconds between looks at the submissions folder while fewer entrants than seats are active
IDLE_S = 2.0
#: the most idle processes kept per entrant (as a tournament's worker keeps)
POOL_MAX = 8


@dataclass(frozen=True)
class Event:
    """Something the ladder did: "intake", "match", "set", "fit", "site", "idle" or "stop"."""

    kind: str
    detail: dict[str, Any] = field(default_factory=dict)


def set_seed(seed: int, number: int) -> int:
    """The deal seed of the ladder's set `number` (every seating of the set plays it)."""
    return int.from_bytes(hashlib.sha256(f"ladder/{seed}/{number}".encode()).digest()[:6], "big")


class Ladder:
    """A ladder at work: its config, the registry, its state and deal key (one process per `out`)."""

    def __init__(self, config: LadderConfig, registry: Any, executor: str = "local", scheduler: str | None = None,
                 workers: int = 2) -> None:
        from referee.tournament import designs

        self.config = config
        self.registry = registry
        self.game = registry.game(config.game)
        self.out = Path(config.out)
        self.out.mkdir(parents=True, exist_ok=True)
        os.chmod(self.out, 0o755)  # the sandboxed bots reach their files under out/intake
        self._lock = open(self.out / "ladder.lock", "w")
        try:
            fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise UsageError(f"another ladder is running on {str(self.out)!r}") from None
        for torn in (self.out / "replays").glob(".set*.part-*"):  # a match in flight when a run was killed
            torn.unlink(missing_ok=True)
        self.key = sealing.for_directory(self.out)
        self.state = State(self.out / DB)
        self.seatings = designs.seatings(config.seating, config.players)
        self.pool = None
        self.backend = None  # None: matches played here, one at a time
        if executor == "dask":  # a set's seatings at once on a Dask cluster (as a tournament's)
            from referee.tournament.executors import DaskBackend, require

            require("dask", scheduler)
            self.backend = DaskBackend(scheduler, workers, shared_out=False)
        elif config.reuse_matches >= 2:  # a bot that declared reuse keeps its process between matches
            from referee.bots.pool import BotPool

            # a process plays no deal twice: a set's seatings need as many processes of each entrant
            self.pool = BotPool(min(len(self.seatings), POOL_MAX), config.reuse_matches)
        for strategy in config.house:
            if strategy not in registry.strategies:
                raise UsageError(f"`house`: {strategy!r} is not a registered strategy")
            self.state.add_house(strategy)

    def close(self) -> None:
        """End the kept bot processes, close the state and free the output folder."""
        if self.pool is not None:
            self.pool.close()
        if self.backend is not None:
            self.backend.close()
        self.state.close()
        self._lock.close()

    def run(self, max_matches: int | None = None) -> Iterator[Event]:
        """Play on (forever, or until `max_matches` were played, or, with `max_matches`, until
        there is nothing to play), yielding what happens."""
        played = 0
        since_site = 0
        idle = False
        from referee.ladder.site import write_site

        write_site(self)
        while max_matches is None or played < max_matches:
            taken = list(self.watch())
            yield from taken
            if any(e.detail["entrant"] for e in taken):  # a version retired: the active are others now
                yield Event("fit", {"ratings": self.refit()})
            job = self._next_set()
            if job is None:
                if max_matches is not None:
                    break
                if not idle:  # said once, until there is something to play again
                    yield Event("idle", {"entrants": len(self.state.entrants(active_only=True))})
                idle = True
                time.sleep(IDLE_S)
                continue
            idle = False
            missing = [s for s in range(job["seatings"]) if s not in job["done"]]
            todo = missing if max_matches is None else missing[: max_matches - played]
            for record in self.play_all(job, todo):
                played += 1
                yield Event("match", record)
            if len(todo) == len(missing):
                yield Event("set", {"set": job["id"], "table": job["table"]})
                yield Event("fit", {"ratings": self.refit()})
                since_site += 1
                if since_site >= self.config.site_every:
                    write_site(self)
                    since_site = 0
                    yield Event("site", {"path": str(self.out / "site")})
        write_site(self)
        pool = self.pool
        yield Event("stop", {"played": played, "started": pool.started if pool else None,
                             "reused": pool.reused if pool else None})

    def watch(self) -> Iterator[Event]:
        """Take every new or changed submission in (one at a time, in name order)."""
        from referee.intake.run import Options, take_in

        c = self.config
        options = Options(seeds=c.intake_seeds, max_failed=c.intake_max_failed, jobs=1,
                          move_ms=c.move_ms, start_ms=c.start_ms, sandbox=c.sandbox, players=c.players,
                          variant=dict(c.config))
        for entry, content in submissions.changed(Path(c.submissions), self.state.seen()):
            report = take_in(entry, self.game, self.registry, self.out / "intake", options)
            entrant = self.state.record_intake(entry.name, content, report)
            yield Event("intake", {"entry": entry.name, "status": report.get("status"),
                                   "reason": report.get("reason"), "entrant": entrant.key if entrant else None})

    def _next_set(self) -> dict[str, Any] | None:
        """A set left halfway, else a new one at the table schedule.choose picks, else None."""
        unfinished = self.state.unfinished()
        if unfinished:
            return unfinished[0]
        active = [e.key for e in self.state.entrants(active_only=True)]
        latest = self.state.latest_ratings()
        counts = self.set_counts()
        intervals = {k: (r["low"], r["high"]) if r["low"] is not None else None for k, r in latest.items()}
        number = 1 + self.state.db.execute("SELECT COUNT(*) FROM sets").fetchone()[0]
        table = schedule.choose(active, counts, intervals, self.config.players, self.config.seed, number)
        if table is None:
            return None
        set_id = self.state.open_set(set_seed(self.config.seed, number), table, len(self.seatings))
        return next(s for s in self.state.unfinished() if s["id"] == set_id)

    def set_counts(self) -> dict[str, int]:
        """Each entrant's complete sets."""
        counts: dict[str, int] = {}
        for row in self.state.db.execute("SELECT tables FROM sets WHERE complete = 1"):
            for key in json.loads(row[0]):
                counts[key] = counts.get(key, 0) + 1
        return counts

    def task(self, job: dict[str, Any], seating: int) -> Task:
        """One seating of a set, as a task a worker can play."""
        from referee.runner import Limits

        c = self.config
        entrants = [self.state.entrant(job["table"][p]) for p in self.seatings[seating]]
        limits = Limits(move_ms=c.move_ms, start_ms=c.start_ms, total_ms=c.total_ms, sandbox=c.sandbox)
        return Task(c.game, dict(c.config), job["seed"], tuple((e.key, e.kind, e.spec, e.dir) for e in entrants),
                    limits, self.key, str(self.out), f"set{job['id']:06d}-{seating:03d}",
                    tuple(map(str, self.secret())), self.backend is None or self.backend.shared_out)

    def play_all(self, job: dict[str, Any], seatings: list[int]) -> Iterator[dict[str, Any]]:
        """Play these seatings of a set (one after another here, at once on Dask), each recorded
        as it finishes (one transaction); their records, in the order they finish."""
        if self.backend is None:
            for seating in seatings:
                yield self._record(job, seating, play_task(self.task(job, seating), self.registry, self.pool))
            return
        import concurrent.futures as cf

        futures = {self.backend.submit(play_task, self.task(job, s), name=f"{job['id']}-{s}"): s for s in seatings}
        for future in cf.as_completed(futures):
            seating = futures[future]
            try:
                result = future.result()
            except Exception as exc:  # noqa: BLE001  one line, and the set goes on at the next run
                raise self.backend.failure(exc, f"set {job['id']} seating {seating}") from None
            yield self._record(job, seating, result)

    def _record(self, job: dict[str, Any], seating: int, result: dict[str, Any]) -> dict[str, Any]:
        """A played match kept: its replay written if a worker sent it, its row committed."""
        data = result.pop("data", None)
        final = self.out / result["replay"]
        if data is not None:
            partial = final.with_name(f".{final.stem}.part-{os.getpid()}.jsonl")
            partial.write_bytes(data)
            os.replace(partial, final)
        record = {"set": job["id"], "seating": seating, "seed": job["seed"], **result}
        self.state.finish_match(job["id"], seating, record)
        return record

    def secret(self) -> list[Path]:
        """What no bot may see: the ladder's own files (its bots' files lie in out/intake)."""
        o = self.out
        return [o / "replays", o / DB, o / f"{DB}-wal", o / f"{DB}-shm", o / sealing.KEY_FILE, o / "site",
                o / "viewers", o / "ladder.lock"]

    def rated_sets(self) -> list[dict[str, Any]]:
        """The complete sets the ratings come from: those whose entrants are all active."""
        active = {e.key for e in self.state.entrants(active_only=True)}
        return [s for s in self.state.complete_sets() if set(s["table"]) <= active]

    def refit(self) -> dict[str, dict[str, Any]]:
        """Refit the ratings from every rated set (ratings(), stored as a new fit); by entrant key."""
        sets = self.rated_sets()
        rows = ratings_of(sets, self.config.min_sets)
        self.state.record_fit(len(sets), sum(len(s["matches"]) for s in sets), rows)
        return rows


@dataclass(frozen=True)
class Task:
    """One match of a set, with all a worker needs: the game, its options and the deal seed, the
    seats (entrant key, kind, command or strategy, folder), the limits, the deal key, the ladder's
    folder, the replay's stem, what no bot may see, and whether the worker writes the replay into
    the ladder's folder itself (`shared`) or sends it back."""

    game: str
    config: dict[str, Any]
    seed: int
    seats: tuple[tuple[str, str, str, str | None], ...]
    limits: Any
    key: sealing.DealKey
    out: str
    stem: str
    hide: tuple[str, ...]
    shared: bool = True


def play_task(task: Task, registry: Any = None, pool: Any = None) -> dict[str, Any]:
    """Play one match (here, or on a worker: `registry` None loads the plugins) through
    referee.match.play_match; its result: seats, ranks, scores, faults, the replay's path under
    the ladder's folder and SHA-256, seconds (and, not `shared`, the replay's bytes as `data`).
    With a `pool` (referee.bots.pool.BotPool) a bot that declared reuse may keep its process."""
    import tempfile

    from referee.match import MatchRequest, Reuse, play_match
    from referee.plugins import load_registry

    registry = registry if registry is not None else load_registry()
    seats = tuple(_seat(key, kind, spec) for key, kind, spec, _ in task.seats)
    commands = tuple(None if kind == "strategy" else {"cwd": folder, "home": folder}
                     for _, kind, _, folder in task.seats)
    relative = f"replays/{task.stem}.jsonl"
    with tempfile.TemporaryDirectory(prefix="ladder-") as tmp:
        replays = Path(task.out) / "replays" if task.shared else Path(tmp)
        replays.mkdir(exist_ok=True)
        final = replays / f"{task.stem}.jsonl"
        partial = replays / f".{task.stem}.part-{os.getpid()}.jsonl"
        started = time.perf_counter()
        try:
            result = play_match(MatchRequest(
                registry.game(task.game), task.config, task.seed, seats, registry, task.limits, task.key, None,
                registry.hooks, replay=partial, log_dir=replays, log_stem=task.stem,
                hide=(*task.hide, tmp), commands=commands, guard=True,
                reuse=Reuse(pool, replays) if pool is not None else None))
            os.replace(partial, final)
        finally:
            partial.unlink(missing_ok=True)
        res = result.result
        out = {"seats": [key for key, _, _, _ in task.seats], "ranks": res["ranks"], "scores": res["scores"],
               "faults": res["faults"], "replay": relative, "sha256": _sha256(final),
               "seconds": round(time.perf_counter() - started, 4)}
        if not task.shared:
            out["data"] = final.read_bytes()
    return out


def ratings_of(sets: list[dict[str, Any]], min_sets: int = MIN_SETS) -> dict[str, dict[str, Any]]:
    """The batch fit over complete duplicate sets (Plackett-Luce, ties by Davidson-Luce), each set
    a bootstrap unit (referee.tournament.ratings), units in the order of their deal seeds (as a
    tournament's: not the order they were played in). An entrant's interval only once it sat in
    `min_sets` sets, as a tournament's standings give theirs (issue 26: no number without its
    certainty); with fewer than two sets, the point ratings alone."""
    from referee.tournament import ratings

    sets = sorted(sets, key=lambda s: (s["seed"], s["id"]))
    units = [ratings.Stats.of((m["seats"], m["ranks"]) for m in s["matches"]) for s in sets]
    counts: dict[str, int] = {}
    for s in sets:
        for key in s["table"]:
            counts[key] = counts.get(key, 0) + 1
    if len(units) >= 2:
        fitted = ratings.bootstrap([units])
        return {k: {"rating": r.rating, **({"se": r.se, "low": r.low, "high": r.high} if counts[k] >= min_sets
                                           else {"se": None, "low": None, "high": None}), "sets": counts[k]}
                for k, r in fitted.items()}
    stats = ratings.Stats.of((m["seats"], m["ranks"]) for s in sets for m in s["matches"])
    points = ratings.centred(ratings.fit(stats)) if stats.wins else {}
    return {k: {"rating": v, "se": None, "low": None, "high": None, "sets": counts[k]} for k, v in points.items()}


def _seat(key: str, kind: str, spec: str) -> Any:
    from referee.runner import Seat

    if kind == "strategy":
        return Seat(key, "strategy", spec)
    return Seat(key, "command", shlex.join(json.loads(spec)))


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def verify(state: State, out: Path, registry: Any = None) -> tuple[int, list[str]]:
    """Every kept replay against its SHA-256 in the db, and (given a `registry`) replayed under
    the game's rules (referee.replay.verify, as `referee verify` does a tournament's): how many
    replays were checked, and the problems found (none: all agree)."""
    from referee.replay.verify import verify_file

    problems, checked = [], 0
    for m in reversed(state.matches()):
        if m["replay"] is None:
            continue
        where = f"set {m['set']} seating {m['seating']} ({m['replay']})"
        path = out / m["replay"]
        try:
            data = path.read_bytes()
        except OSError as exc:
            problems.append(f"{where}: cannot be read: {exc.strerror or exc}")
            continue
        checked += 1
        if hashlib.sha256(data).hexdigest() != m["sha256"]:
            problems.append(f"{where}: differs from the SHA-256 the ladder recorded")
            continue
        if registry is not None:
            try:
                verdict = verify_file(path, registry, data=data)
            except UsageError as exc:
                problems.append(f"{where}: {exc}")
                continue
            if not verdict.ok:
                problems.append(f"{where}: {verdict.discrepancy}")
    return checked, problems
