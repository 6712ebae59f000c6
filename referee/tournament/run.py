"""Running a tournament: the driver. It reads the journal once (`prepare`), hands the matches to
the workers and journals their results (`play_events`, a generator of events: events.py).
The journal and the output directory are journal.py's, the worker processes workers.py's,
playing one match play.py's.

The driver alone writes the journal (`journal.jsonl` in the output dir): a first line naming the
tournament and a fingerprint of its schedule, then one JSON line per finished match, flushed and
fsynced, so a killed run loses only the matches in flight. `--resume` skips what the journal holds,
read in one streamed pass (`prepare`) that keeps the journaled indices and the SPRT state, never
the records: its memory does not grow with the records.

Where matches run is the executor seam's business (referee/tournament/executors.py): one task = one match,
played by `play_local` (local worker processes) or `play_task` (Dask workers, possibly on other
machines), which returns the journal record; the driver appends each schedule index only once.
A local worker killed outright (in plain mode a bot can SIGKILL it) breaks the pool: the matches
in flight are played again in a new one, unless the killed worker's match (see `InFlight`) had
already killed one.

A match that fails on the referee's side (an exception in `play`: a referee or plugin bug, a
write that failed) is journaled as such (`failure_record`: no seat blamed, no result) and the
run goes on; `--resume` plays it again, and FAILED_IN_A_ROW of them in a row stop the run. A full
disk (ENOSPC, EDQUOT) under the outputs stops the run at once (`DiskFull`): the journal is cut
back to its last whole line whenever an append fails, so `--resume` finishes once space is freed.

A gauntlet with an SPRT (referee/tournament/sprt.py) stops early: once the journaled results decide its
test, the driver starts no more of its matches and journals the decision.

Each local worker keeps the bot processes that declared reuse between its matches, in a
`referee.bots.pool.BotPool` (`reuse_pool`, `reuse_keys`; [limits] reuse_matches), and ends
them when it exits, whatever ends it. The matches are started in `TournamentConfig.play_order`,
which lets a kept process play on (it never plays a deal twice); the journal and everything else
go by schedule index, whatever the order.
"""

from __future__ import annotations

import concurrent.futures as cf
import itertools
import json
import os
import shlex
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any, NamedTuple

import referee.sealing as sealing
import referee.signing as signing

from referee.tournament import executors, schedule, sprt

from referee.bots import sandbox
from referee.errors import DiskFull, RefereeError, RefereeFailure, UsageError, full_disk
from referee.bots.limits import spin_us
from referee.runner import Limits
from referee.tournament.config import SHARD_AT, Entrant, TournamentConfig
from referee.tournament.schedule import MatchSpec
from referee.tournament.events import BackendReady, MatchFailed, MatchFinished, MatchStarted, Notice, Progress, SprtStep
from referee.tournament.journal import JOURNAL, RESUME, Journal, _claimed, _repair, claim, fingerprint
from referee.tournament.play import FAILURE, FILES, play_local, play_task, reuse_pool
from referee.tournament.play import KEPT, POOL_MAX, play  # noqa: F401 (where the tests and bench/ look them up)
from referee.tournament.workers import InFlight, _worker_init

SETUP_VERSION = 1  # the journal head's "setup" (sealed deals); journals without it are refused
FAILED_IN_A_ROW = 5  # matches failing on the referee's side one after another that stop the run


class Prepared(NamedTuple):
    """What `prepare` found, for one run: the matches still to play, the schedule indices the
    journal holds (each once; their records are not kept), the SPRT tests' state after those
    matches (referee/tournament/sprt.py), and the journal's head line. The run moves the set
    and the tests on as it journals matches."""

    todo: list[MatchSpec]
    done: set[int]
    gauntlets: sprt.Gauntlets
    head: dict[str, Any]
    signer: signing.Signer | None = None  # signs the replays and the journal (referee/signing.py)
    faults: int = 0  # the faults of the journaled matches


def prepare(config: TournamentConfig, resume: bool,
            each: Callable[[dict[str, Any]], None] | None = None, signer: signing.Signer | None = None) -> Prepared:
    """The matches still to play (none of an SPRT game entry the journal's results decided), the
    schedule indices already journaled, the SPRT tests' state, and the journal's head line.

    The journal is streamed, in one pass that keeps no record: memory grows with the number of
    indices, not with the records. Each journaled match record (the first of its index) is
    handed to `each` as it is read, for a caller that keeps something of them (a live tally, a
    fault count). A journal for another schedule or set-up is a UsageError, raised once the
    reading reaches its head (its first line), before any record is handed on.

    Call it holding the output directory (`claim`): no other run then writes the journal. Pass
    what it returns to `run` (under the same claim), and the journal is read once.

    The results are signed by `signer`, else by the tournament's own key (`sign.key` in the output
    directory, made on its first run); its public key is published there as `sign.pub`, and its
    id is in the journal's head: a run resumes only with the key that signed the journal."""
    from referee.tournament.standings import iter_journal

    journal = config.out / JOURNAL
    if journal.exists() and journal.stat().st_size > 0:
        if not resume:
            raise UsageError(f"{journal} already holds results: add --resume to continue that run, "
                             "or choose another --out")
        _repair(journal)
    # a journal whose head has no "schedule" was written before issue 29, with the keys of then
    # (its fingerprint covers them): it goes on with those
    old_head = _first_head(journal)
    dotted = old_head is not None and "schedule" not in old_head
    matches = config.matches(dotted)
    key = sealing.for_directory(config.out)
    signer = signer or signing.for_directory(config.out)
    # the tournament file by its name, entrants' folders relative to it: the journal is published
    # with the results, and holds no path of the organiser's machine
    head = {"type": "tournament", "name": config.name, "file": config.path.name,
            "matches": len(matches), "fingerprint": fingerprint(matches), "setup": setup(config, key),
            "sign_key": signer.id}
    if not dotted:
        head["schedule"] = schedule.describe(config.seed, config.games)
    tests = sprt.heads(config)
    if tests:  # only then: a journal without an SPRT keeps the head it always had
        head["sprt"] = tests
    if config.min_sets():  # the same: only when a game's differs from the default (the standings read it)
        head["min_sets"] = config.min_sets()
    if config.ties != "davidson":  # the same: only a model of ties other than the default (the standings read it)
        head["ties"] = config.ties
    done: set[int] = set()
    faults = 0
    gauntlets = sprt.Gauntlets(config)
    if journal.exists() and journal.stat().st_size > 0:
        checked = False
        for record in iter_journal(journal):
            if record["type"] == "tournament":
                _check_head(journal, record, head, tests, config.path.parent)
                checked = True
                continue
            if not checked:  # a match before any head: no journal this referee wrote
                _check_head(journal, None, head, tests, config.path.parent)
            done.add(record["index"])
            faults += sum(record["faults"])
            gauntlets.add(record)
            if each is not None:
                each(record)
        if not checked:
            _check_head(journal, None, head, tests, config.path.parent)
    todo = [m for m in config.play_order(matches) if m.index not in done and not gauntlets.stopped(m.index)]
    signing.publish(config.out, signer)  # once the journal is known to be this key's
    return Prepared(todo, done, gauntlets, head, signer, faults)


def _first_head(journal: Path) -> dict[str, Any] | None:
    """The journal's head (its first line, when that is one), or None (no journal, or none there)."""
    from referee.tournament.standings import iter_journal

    if not (journal.exists() and journal.stat().st_size > 0):
        return None
    first = next(iter_journal(journal), None)
    return first if first is not None and first["type"] == "tournament" else None


def _check_head(journal: Path, old_head: dict[str, Any] | None, head: dict[str, Any],
                tests: dict[str, dict[str, float]], base: Path) -> None:
    """Raise UsageError unless the journal's head `old_head` is one this run may resume: the
    same schedule, a sealed set-up, the same set-up and SPRT tests (saying what changed).
    `base`: the tournament file's folder (a journal of before kept entrants' folders absolute)."""
    if old_head is None:
        raise UsageError(f"{journal} holds no tournament head; cannot resume it with this tournament file")
    old_setup = old_head.get("setup")
    if not isinstance(old_setup, dict) or old_setup.get("version") != SETUP_VERSION:
        raise UsageError(f"{journal} was written by an older referee (its deals were not sealed); "
                         "cannot resume it: start the tournament again in another --out")
    for entrant in (old_setup.get("entrants") or {}).values():
        if isinstance(entrant, dict) and isinstance(entrant.get("cwd"), str) and os.path.isabs(entrant["cwd"]):
            entrant["cwd"] = os.path.relpath(entrant["cwd"], os.path.abspath(base))
    changed = _changed(old_setup, head["setup"])
    if changed is None and isinstance(old_head.get("schedule"), dict) and "schedule" in head:
        changed = _schedule_changed(old_head["schedule"], head["schedule"])
    old_tests = old_head.get("sprt") or {}
    if changed is None and old_tests != tests:
        g = next(g for g in sorted(set(old_tests) | set(tests), key=int) if old_tests.get(g) != tests.get(g))
        changed = f"games[{g}].sprt changed ({_sprt_shown(old_tests.get(g))} then, {_sprt_shown(tests.get(g))} now)"
    if changed is None and old_head.get("fingerprint") != head["fingerprint"]:
        # a journal without the schedule's description (before issue 29), or another referee's
        # way of making the schedule from the same file
        counts = (f": {old_head.get('matches')} matches then, {head['matches']} now"
                  if old_head.get("matches") != head["matches"] else "")
        changed = f"the schedule changed (games, seeds, table sizes, seatings or entrants' games){counts}"
    if changed is not None:
        raise UsageError(f"cannot resume {journal}: {changed} since it was written (its results would "
                         "mix two set-ups); restore it, or start again in another --out")
    if old_head.get("sign_key") != head["sign_key"]:
        then = f"key {old_head['sign_key']}" if old_head.get("sign_key") else "no key"
        raise UsageError(f"cannot resume {journal}: it was signed by {then}, and this run signs with key "
                         f"{head['sign_key']} (give the same --sign-key, or none for the tournament's own "
                         f"{signing.KEY_FILE}), or start again in another --out")


def _sprt_shown(params: dict[str, Any] | None) -> str:
    """An entry's SPRT parameters as the file writes them, or "none"."""
    if not params:
        return "none"
    return "{ " + ", ".join(f"{k} = {v:g}" if isinstance(v, (int, float)) else f'{k} = "{v}"'
                            for k, v in params.items()) + " }"


def setup(config: TournamentConfig, key: sealing.DealKey) -> dict[str, Any]:
    """What besides the schedule decides a result, as the journal's head keeps it for --resume:
    each entrant's strategy or command, working directory, environment and own limits, the
    match limits and sandbox, and the deal key's public id. Environment values are kept only
    as digests keyed by the deal key (they may hold secrets)."""
    # spin_us: timing only; no time bank is no key, as in journals from before bank_ms
    limits = {k: v for k, v in asdict(match_limits(config)).items() if k != "spin_us" and (v or k != "bank_ms")}
    entrants = {}
    for name, e in sorted(config.entrants.items()):
        entrants[name] = {
            "strategy": e.strategy, "command": e.command, "cwd": _from_file(config, e.cwd),
            "env": {var: f"{key.derive('env', var, value):064x}"[:16] for var, value in sorted(e.env.items())},
            "move_ms": e.move_ms, "start_ms": e.start_ms, **({"dir": e.dir} if e.dir else {}),
        }
    return {"version": SETUP_VERSION, "deal_key": key.id, "limits": limits, "entrants": entrants}


def _from_file(config: TournamentConfig, path: str | None) -> str | None:
    """A path as the journal keeps it: relative to the tournament file's folder (published, it
    names no folder of the organiser's machine; the same folder reads the same wherever the
    tournament moves)."""
    if not path:
        return None
    return os.path.relpath(os.path.abspath(path), os.path.abspath(config.path.parent))


def _changed(old: dict[str, Any], new: dict[str, Any]) -> str | None:
    """What differs between two set-ups, in words (the first difference found), or None."""
    if old.get("deal_key") != new["deal_key"]:
        return (f"the deal key changed (id {old.get('deal_key')} then, {new['deal_key']} now: "
                f"{sealing.KEY_ENV} set differently, or {sealing.KEY_FILE} replaced)")
    old_limits, new_limits = old.get("limits") or {}, new["limits"]
    for name in sorted(set(old_limits) | set(new_limits)):
        if old_limits.get(name) != new_limits.get(name):
            return f"limit {name} changed ({old_limits.get(name)!r} then, {new_limits.get(name)!r} now)"
    old_e, new_e = old.get("entrants") or {}, new["entrants"]
    for name in sorted(set(old_e) | set(new_e)):
        if name not in new_e:
            return f"entrant {name!r} was removed"
        if name not in old_e:
            return f"entrant {name!r} was added"
        for field_name in sorted(set(old_e[name]) | set(new_e[name])):
            then, now = old_e[name].get(field_name), new_e[name].get(field_name)
            if then != now:
                if field_name == "env":
                    then, now = then or {}, now or {}
                    var = next(v for v in sorted(set(then) | set(now)) if then.get(v) != now.get(v))
                    return f"entrant {name!r}: environment variable {var} changed"
                return f"entrant {name!r}: {field_name} changed ({then!r} then, {now!r} now)"
    return None


def _schedule_changed(old: dict[str, Any], new: dict[str, Any]) -> str | None:
    """What differs between two schedules (`schedule.describe`), in words (the first difference
    found, as the tournament file names it), or None."""
    if old.get("seed") != new["seed"]:
        return f"seed changed ({_shown(old.get('seed'))} then, {_shown(new['seed'])} now)"
    then_games, now_games = old.get("games") or [], new["games"]
    for g in range(max(len(then_games), len(now_games))):
        if g >= len(now_games):
            return f"games[{g}] ({then_games[g].get('game') if isinstance(then_games[g], dict) else '?'}) was removed"
        if g >= len(then_games) or not isinstance(then_games[g], dict):
            return f"games[{g}] ({now_games[g]['game']}) was added"
        then, now = then_games[g], now_games[g]
        for name in [*now, *(n for n in then if n not in now)]:
            a, b = then.get(name), now.get(name)
            if a == b:
                continue
            if name == "entrants" and isinstance(a, list) and isinstance(b, list):
                return _entrants_changed(f"games[{g}] ({now['game']})", a, b)
            if name == "config" and isinstance(a, dict) and isinstance(b, dict):
                k = next(k for k in [*b, *(k for k in a if k not in b)] if a.get(k) != b.get(k))
                name, a, b = f"config.{k}", a.get(k), b.get(k)
            return f"games[{g}].{name} changed ({_shown(a)} then, {_shown(b)} now)"
    return None


def _entrants_changed(entry: str, then: list[Any], now: list[Any]) -> str:
    """How a game entry's entrants changed: one added or removed, or their order."""
    added, removed = [e for e in now if e not in then], [e for e in then if e not in now]
    for names, done in ((added, "added to"), (removed, "removed from")):
        if names:
            more = f" (and {len(names) - 1} more)" if len(names) > 1 else ""
            return f"entrant {names[0]!r} was {done} {entry}{more}"
    return f"the entrants of {entry} were reordered ({_shown(then)} then, {_shown(now)} now)"


def _shown(value: Any) -> str:
    """A value as the tournament file would write it (JSON, which TOML's values read alike), cut short."""
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."


def match_limits(config: TournamentConfig) -> Limits:
    """Every match's limits: the file's, and by default polling for replies only with a core to
    spare per match in flight. Matches run on this machine's cores with local workers or a Dask
    LocalCluster; on a remote cluster the cores per match are unknown, so no polling."""
    bot_limits = dict(config.bot_limits)
    if "spin_us" not in bot_limits:
        on_this_machine = config.executor == "local" or config.scheduler is None
        bot_limits["spin_us"] = spin_us(config.concurrency) if on_this_machine else 0
    return Limits(move_ms=config.move_ms, start_ms=config.start_ms, max_faults=config.max_faults, **bot_limits)


def run(
    config: TournamentConfig,
    resume: bool = False,
    plugins_dir: str | None = None,
    on_result: Callable[[dict[str, Any]], None] | None = None,
    on_start: Callable[[BackendReady], None] | None = None,
    keep: bool = True,
    on_warning: Callable[[str], None] | None = None,
    prepared: Prepared | None = None,
    on_note: Callable[[str], None] | None = None,
    on_failure: Callable[[dict[str, Any]], None] | None = None,
    signer: signing.Signer | None = None,
) -> list[dict[str, Any]]:
    """Play every match not yet journaled; returns every record (old and new) in schedule order.

    `play_events` with callbacks: `on_result` is handed each record journaled, `on_failure` each
    match failed on the referee's side, `on_start` the backend once it is up, `on_warning` and
    `on_note` each Notice's sentence (see `play_events`).

    `prepared` is what `prepare(config, resume)` returned to a caller holding the output
    directory (`claim`) since: the journal is then not read again while the matches run.

    With `keep` False nothing is kept in memory (it returns []): results go to the journal and
    `on_result` only, so memory stays flat however long the tournament. With `keep` the
    records are read back from the journal once the run is over. The records returned include
    those of an SPRT entry beyond its deciding set: the standings count `sprt.counted(records,
    decisions)`.
    """
    if prepared is not None and config.out.resolve() not in _claimed:
        raise ValueError("run(prepared=...) needs the claim under which prepare() ran")
    with claim(config.out):
        with _disk_checked(config.out):
            prepared = prepared or prepare(config, resume, signer=signer)
        for event in play_events(config, prepared, plugins_dir):
            if isinstance(event, MatchFinished):
                if on_result is not None:
                    on_result(event.record)
            elif isinstance(event, MatchFailed):
                if on_failure is not None:
                    on_failure(event.record)
            elif isinstance(event, BackendReady):
                if on_start is not None:
                    on_start(event)  # its kind and description, as the backend's
            elif isinstance(event, Notice):
                told = on_warning if event.kind == "warning" else on_note
                if told is not None:
                    told(event.text)
        if not keep:
            return []
        from referee.tournament.standings import read_journal

        return sorted(read_journal(config.out / JOURNAL)[1], key=lambda r: r["index"])


def play_events(config: TournamentConfig, prepared: Prepared, plugins_dir: str | None = None
                ) -> Iterator[BackendReady | MatchStarted | MatchFinished | MatchFailed | SprtStep | Notice]:
    """Play every match `prepared` (see `prepare`, under the same `claim`) left to play, as a
    generator of events (referee/tournament/events.py): BackendReady, then MatchStarted as each
    match is handed to a worker, MatchFinished (or MatchFailed) once it is journaled, SprtStep
    after each match of an SPRT entry, Notice for a worker killed (its matches played again) or
    the matches waiting for a Dask worker. Closing the generator stops the workers: the journal
    keeps every finished match, and `--resume` plays the rest.

    A game entry with an SPRT (referee/tournament/sprt.py) stops once the test decides: no new match of it
    is started (those not started are cancelled), those in play finish and are journaled, and
    the decision is journaled as an "sprt" record.

    The matches run on `config.executor` (see referee/tournament/executors.py). A Dask scheduler
    lost mid-run ends it with a RefereeError naming the scheduler. A match that fails on the
    referee's side is journaled as a FAILURE record and played again by `--resume`;
    FAILED_IN_A_ROW in a row end the run with a RefereeFailure, and a full disk under the
    outputs ends it at once with a DiskFull.
    """
    with _disk_checked(config.out):
        yield from _run(config, prepared, plugins_dir)


def _run(config: TournamentConfig, prepared: Prepared, plugins_dir: str | None
         ) -> Iterator[BackendReady | MatchStarted | MatchFinished | MatchFailed | SprtStep | Notice]:
    todo, journaled, gauntlets, head, signer, faults = prepared
    executors.require(config.executor, config.scheduler)
    if not todo:
        journal = Journal(config.out / JOURNAL, head, signer)
        try:
            _journal_decisions(journal, gauntlets)  # a run killed between a match and its decision
        finally:
            journal.close()
        return
    run = _Driving(config, prepared, plugins_dir)
    # The journal is opened once the backend is up: a scheduler that cannot be reached leaves no
    # journal behind (which would ask for --resume next time).
    with _scratch_root() as scratch, executors.open_backend(
            config.executor, run.workers, scheduler=config.scheduler, shared_out=config.shared_out,
            initializer=_worker_init, initargs=(plugins_dir, os.getpid(), run.in_flight, scratch,
                                                reuse_pool(config))) as backend:
        journal = Journal(config.out / JOURNAL, head, signer)
        try:
            _journal_decisions(journal, gauntlets)
            yield BackendReady(backend.kind, backend.description)
            yield from run.drive(backend, journal)
        finally:
            journal.close()


class _Driving:
    """The driver's side of one run, in its steps: `drive` keeps a window of matches in flight
    (`launch`), journals each as it ends (`settle`), and plays again the matches of a pool a
    worker's death broke (`replay_lost`); the events each step yields are the run's."""

    def __init__(self, config: TournamentConfig, prepared: Prepared, plugins_dir: str | None) -> None:
        self.config, self.plugins_dir = config, plugins_dir
        self.todo, self.journaled, self.gauntlets, self.head, self.signer, faults = prepared
        self.limits = match_limits(config)
        self.key = sealing.for_directory(config.out)
        self.output = replace(config.output, shard=self.head["matches"] > SHARD_AT)
        _remove_partials(config.out)
        if self.limits.sandbox == "bwrap":
            sandbox.require("bwrap", "the tournament's limits.sandbox = \"bwrap\"")
        self.out = config.out.resolve()
        # Absolute working directories: a worker may run in another directory, or on another machine
        # where the same paths hold the same bots.
        entrants = {name: replace(e, cwd=os.path.abspath(e.cwd)) if e.cwd else e
                    for name, e in config.entrants.items()}
        if self.limits.sandbox == "bwrap":
            entrants = own_views(entrants, config.path)
        self.entrants = entrants
        self.workers = min(config.concurrency, len(self.todo))
        self.in_flight = InFlight(self.workers) if config.executor == "local" else None
        self.resumed, self.since = len(self.journaled), time.monotonic()
        self.faults = faults
        self.pending: dict[cf.Future, MatchSpec] = {}
        self.kills: Counter[int | None] = Counter()  # workers killed, per match played (None: none)
        self.failing = 0  # matches failed on the referee's side since the last one that did not

    def progress(self) -> Progress:
        """The run's progress now (the time left at this run's pace)."""
        skipped = self.gauntlets.unplayed()
        count, total = len(self.journaled), self.head["matches"] - skipped
        played = count - self.resumed
        eta = (time.monotonic() - self.since) / played * (total - count) if played and total > count else None
        return Progress(count, total, self.faults, self.resumed, skipped, eta)

    def submit(self, spec: MatchSpec) -> cf.Future:
        """Hand a match to the backend's workers."""
        backend = self.backend
        if backend.kind == "local":
            return backend.submit(play_local, spec, self.entrants, self.limits, str(self.out), self.key, self.output,
                                  self.signer, name=spec.key)
        plugins = os.path.abspath(self.plugins_dir) if self.plugins_dir else None
        return backend.submit(play_task, spec, self.entrants, self.limits, str(self.out), plugins,
                              backend.shared_out, self.key, self.output, self.signer, name=spec.key)

    def launch(self, spec: MatchSpec) -> None:
        """Start a match; a pool broken since the last wait shows in its future."""
        try:
            future = self.submit(spec)
        except Exception as exc:  # the pool broke since the last wait
            if not self.backend.broken(exc):
                raise
            future = cf.Future()
            future.set_exception(exc)
        self.pending[future] = spec

    def unstopped(self, specs: Iterable[MatchSpec]) -> Iterator[MatchSpec]:
        """The specs still to play, asked as each is launched: none of a decided SPRT entry."""
        return (spec for spec in specs if not self.gauntlets.stopped(spec.index))

    def drive(self, backend: executors.Backend, journal: Journal
              ) -> Iterator[MatchStarted | MatchFinished | MatchFailed | SprtStep | Notice]:
        """Play every match still to play, a bounded window of them in flight (the futures held do
        not grow with the schedule, and Ctrl-C has little to cancel)."""
        self.backend, self.journal = backend, journal
        window = max(8, 4 * self.config.concurrency)
        queue: Iterator[MatchSpec] = self.unstopped(self.todo)
        notes: list[str] = []  # what the watch said since the last look
        watch = executors.WorkerWatch(backend, notes.append)  # says when no worker takes the matches
        pending = self.pending
        while True:
            for spec in itertools.islice(queue, window - len(pending)):
                self.launch(spec)
                yield MatchStarted(spec.index, spec.key)
            if not pending:
                break
            done, _ = cf.wait(pending, timeout=watch.timeout, return_when=cf.FIRST_COMPLETED)
            lost = []
            for future in _finished_first(done):
                spec = yield from self.settle(future)
                if spec is not None:
                    lost.append(spec)
            watch.check(bool(done))  # after the results are journaled: it may raise (scheduler lost)
            for text in notes:
                yield Notice("note", text)
            notes.clear()
            if lost:
                lost = yield from self.replay_lost(lost)
                queue = self.unstopped(itertools.chain(sorted(lost, key=lambda s: s.index), queue))

    def settle(self, future: cf.Future) -> Iterator[MatchFinished | MatchFailed | SprtStep]:
        """Journal a finished match (yielding its events); returns the match instead if a worker
        died under it."""
        spec = self.pending.pop(future)  # drop our reference: the result may hold a replay
        try:
            record = future.result()
        except Exception as exc:
            if self.backend.broken(exc):
                return spec
            err = self.backend.failure(exc, spec.key)
            if err is exc:
                raise
            raise err from exc
        files = record.pop(FILES, None)
        if record["index"] in self.journaled:
            return None  # a match is journaled once, whatever ran it twice
        if record["type"] == FAILURE:
            if record.get("full"):
                raise DiskFull(record["full"])
            self.journal.append(record)  # not `journaled`: --resume plays it again
            self.failing += 1
            yield MatchFailed(record, self.progress())
            if self.failing >= FAILED_IN_A_ROW:
                raise RefereeFailure(
                    f"{self.failing} matches in a row failed on the referee's side, the last ({record['key']}) "
                    f"with {record['error']}: stopped; the journal keeps every finished match and "
                    "each failure's traceback: once the cause is fixed, run again with --resume, "
                    "which plays the failed matches again")
            return None
        self.failing = 0
        if files:
            _write_files(self.out, files)
        self.journal.append(record)
        self.journaled.add(record["index"])
        self.faults += sum(record["faults"])
        decision = self.gauntlets.add(record)
        if decision is not None:
            self.journal.append(decision.record())
            # its matches not started yet are not played (with Dask, where a queued task
            # looks like a running one, those in play too: their results are not counted)
            for other, other_spec in list(self.pending.items()):
                if decision.first <= other_spec.index < decision.end and other.cancel():
                    del self.pending[other]
        yield MatchFinished(record, self.progress())
        entry = self.gauntlets.of(record["index"])
        if entry is not None:
            yield SprtStep(entry.game_index, entry.status(), decision is not None)
        return None

    def replay_lost(self, lost: list[MatchSpec]) -> Iterator[MatchFinished | MatchFailed | SprtStep | Notice]:
        """A worker was killed outright: every match in its pool fails with it (the other workers
        stop theirs, killing their bots). The matches to play again in a new pool (returned),
        unless the match the killed worker played had killed one before."""
        for future in _finished_first(cf.wait(list(self.pending))[0]):
            spec = yield from self.settle(future)
            if spec is not None:
                lost.append(spec)
        self.backend.restart()  # returns once every old worker has ended
        blamed: list[int | None] = [None]  # None: killed between matches, none to blame
        if self.in_flight is not None:
            blamed = self.in_flight.left() or blamed
            self.in_flight.clear()
        self.kills.update(blamed)
        again = {k for k in blamed if self.kills[k] > 1}
        if again:
            raise _killed_twice([s for s in lost if s.index in again] or lost)
        culprit = [s.key for s in lost if s.index in blamed]
        yield Notice("warning", f"a worker process was killed outright"
                     f"{' playing ' + culprit[0] if culprit else ''} (a bot, or the OOM killer; run "
                     f"untrusted bots with --sandbox bwrap): {len(lost)} "
                     f"{'match' if len(lost) == 1 else 'matches'} in flight played again")
        return lost


@contextmanager
def _disk_checked(out: Path) -> Iterator[None]:
    """A full disk met anywhere in the block (the deal key, the replays' folders, the scratch
    root...) as DiskFull: one line, never a traceback."""
    try:
        yield
    except OSError as exc:
        full = full_disk(exc)
        if full is None:
            raise
        raise DiskFull.of(full, out, RESUME) from None


def _finished_first(done: Iterable[cf.Future]) -> list[cf.Future]:
    """Done futures, those with a record first, in the order their matches ended (so failures
    count in a row as they came), then those that failed: each record is journaled before a
    failure ends the run (a lost Dask scheduler cancels the rest in the same instant)."""
    def order(f: cf.Future) -> tuple[int, float]:
        if f.cancelled() or f.exception() is not None:
            return 1, 0.0
        return 0, f.result().get("ended", 0.0)

    return sorted(done, key=order)


def _journal_decisions(journal: Journal, gauntlets: sprt.Gauntlets) -> None:
    """Journal the decisions the journaled results made that the journal does not hold yet."""
    held = {d["game_index"] for d in sprt.read_decisions(journal.path)} if gauntlets else set()
    for g in gauntlets:
        if g.decision is not None and g.game_index not in held:
            journal.append(g.decision.record())


def _remove_partials(out: Path) -> None:
    """Delete what attempts killed outright left: replays written under a temporary name (the
    run holds the directory, so none of them is still being written)."""
    replays = out / "replays"
    if replays.is_dir():
        for path in replays.rglob(".*.part-*"):
            path.unlink(missing_ok=True)


def own_views(entrants: dict[str, Entrant], path: Path) -> dict[str, Entrant]:
    """The entrants, each with the directories its sandbox never shows whole (`shared`): the
    tournament file's folder and every other command entrant's own directory (its `dir`, else
    its first script's directory: referee.bots.sandbox.home_of) but its own (entrants the
    organiser put in one directory share it)."""
    homes = {}
    for name, e in entrants.items():
        if e.command is not None:
            workdir = Path(os.path.abspath(e.cwd or path.parent))
            home = sandbox.home_of(shlex.split(e.command), workdir, Path(e.dir) if e.dir else None)
            if home is not None:
                homes[name] = str(home)
    folder = os.path.abspath(path.parent)
    return {name: replace(e, shared=(folder, *dict.fromkeys(h for h in homes.values() if h != homes.get(name))))
            if e.command is not None else e for name, e in entrants.items()}


@contextmanager
def _scratch_root() -> Iterator[str]:
    """The run's one root of bot scratch directories, shared by its local workers; removed at
    the end, whatever the bots did to it."""
    root = str(sandbox.new_root())  # a killed run's root is removed by the next run's
    try:
        yield root
    finally:
        sandbox.remove_scratch(Path(root))


def _killed_twice(matches: list[MatchSpec]) -> RefereeError:
    """The error that ends a run when the same match was in flight in two worker processes that
    were killed outright (or twice no match was, then naming the matches in flight)."""
    which = ", ".join(m.key for m in matches)
    return RefereeError(
        f"a worker process was killed outright, twice, with {'match' if len(matches) == 1 else 'matches'} "
        f"{which} in flight: by a bot (in plain mode a bot can signal the referee: run untrusted bots "
        "with --sandbox bwrap, where they cannot) or by the OOM killer; the journal keeps every "
        "finished match, and --resume plays the rest")


def _write_files(out: Path, files: dict[str, bytes]) -> None:
    """Write a remote match's replay and bot logs under out/replays/ (before its journal line)."""
    for name, data in files.items():
        parts = Path(name).parts
        # only replays/<file> or replays/<shard>/<file>: nothing else of the output directory
        if not (2 <= len(parts) <= 3 and parts[0] == "replays" and all(p not in ("", ".", "..") for p in parts)):
            continue
        target = out.joinpath(*parts)
        partial = target.with_name(f".{target.name}.part-{os.getpid()}")
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            partial.write_bytes(data)
            os.replace(partial, target)  # never a torn file, whatever stops the driver
        except OSError as exc:
            partial.unlink(missing_ok=True)
            if full_disk(exc) is not None:
                raise DiskFull.of(exc, target, RESUME) from None
            raise
