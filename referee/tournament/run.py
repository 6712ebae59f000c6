"""Running a tournament: matches in worker processes, an fsynced results journal, resume.

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
import fcntl
import hashlib
import itertools
import json
import multiprocessing
import multiprocessing.util
import os
import select
import shlex
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any, NamedTuple

from referee import sealing, signing

from referee.tournament import designs, executors, sprt

from referee.bots import sandbox
from referee.errors import DiskFull, RefereeError, RefereeFailure, UsageError, first_line, full_disk
from referee.bots.limits import spin_us
from referee.runner import Limits, Seat
from referee.tournament.config import SHARD_AT, Entrant, MatchSpec, Output, TournamentConfig, derive_seed

JOURNAL = "journal.jsonl"
SETUP_VERSION = 1  # the journal head's "setup" (sealed deals); journals without it are refused
LOCK = ".lock"  # held (flock) by the run using the output directory; holds its pid
FAILURE = "failure"  # the journal record type of a match that failed on the referee's side
FAILED_IN_A_ROW = 5  # matches failing on the referee's side one after another that stop the run
TRACEBACK_KEPT = 4000  # characters of a failed match's traceback kept in its journal record
RESUME = "run again with --resume: the journal keeps every finished match"


def fingerprint(matches: list[MatchSpec]) -> str:
    """A digest of the whole schedule: a journal only resumes the tournament it was written for.

    The digest of `json.dumps([asdict(m) for m in matches], sort_keys=True)`, hashed a match at
    a time: the whole schedule is never held as JSON (which cost 1.5 KB a match at its peak).
    """
    digest = hashlib.sha256(b"[")
    encode = json.JSONEncoder(sort_keys=True).encode
    for k, m in enumerate(matches):
        if k:
            digest.update(b", ")
        digest.update(encode(asdict(m)).encode())
    digest.update(b"]")
    return digest.hexdigest()[:16]


# -- worker side -------------------------------------------------------------------------------

_registry = None
_registries: dict[str | None, Any] = {}  # per plugins dir, in a dask worker (several threads)
_registry_lock = threading.Lock()


class _Terminated(BaseException):
    """Raised in a worker on SIGTERM, so the match's finally blocks kill its bots."""


class InFlight:
    """The match each local worker is playing, in memory the driver shares with its workers.

    A worker notes a match's schedule index as it starts it and clears it once the match has
    stopped, even when stopped by SIGTERM. So once every worker of a broken pool has ended, an
    index still noted is that of a match whose worker was killed outright (SIGKILL, OOM).
    """

    def __init__(self, workers: int) -> None:
        # per worker: its pid, and 1 + the index of the match it plays (0: none)
        self._slots = multiprocessing.get_context("forkserver").Array("q", 2 * workers)
        self._mine: int | None = None

    def start(self, index: int) -> None:
        """In a worker: it plays match `index` (its slot is taken at its first match)."""
        slots = self._slots
        if self._mine is None:
            with slots.get_lock():
                self._mine = next(k for k in range(0, len(slots), 2) if slots[k] == 0)
                slots[self._mine] = os.getpid()
        slots[self._mine + 1] = index + 1

    def stop(self) -> None:
        """In a worker: its match has stopped."""
        if self._mine is not None:
            self._slots[self._mine + 1] = 0

    def left(self) -> list[int]:
        """In the driver, once every worker has ended: the matches whose worker was killed."""
        return [v - 1 for v in self._slots[1::2] if v]

    def clear(self) -> None:
        """In the driver, before new workers start: every slot free."""
        self._slots[:] = [0] * len(self._slots)


_idle = threading.Event()  # set while this worker plays no match (see play_local)
_idle.set()
_playing = False  # True while a match runs that SIGTERM has not stopped yet (see _on_term)
_stopping = False  # SIGTERM came: the worker exits once its match has stopped


_in_flight: InFlight | None = None  # where this worker notes the match it plays
_pool = None  # this worker's BotPool: bot processes kept between its matches (None: no reuse)

#: the most processes a worker keeps idle per entrant command (see `reuse_pool`)
POOL_MAX = 8
#: the processes a worker keeps idle per entrant command when no SPRT entry needs more: in the
#: play order a process plays a seating's seeds in a run, then waits for another entry's deals
#: (the shipped tournament at one worker: 1,018 starts with 2 kept, 966 with 8, for a quarter of
#: the idle processes: 8 kept took 1.2 GB at two workers)
KEPT = 2
#: the most deals of an entrant a worker's pool is told (see `reuse_pool`)
SPENT_MAX = 1000


def _end_pool(grace: bool) -> None:
    """End every bot process this worker keeps (at its exit: with their grace after EOF)."""
    global _pool
    pool, _pool = _pool, None
    if pool is not None:
        pool.close(grace)


def _on_term(signum, frame):
    """SIGTERM (the pool broken or stopped, the driver gone): stop the match, then exit.

    A worker never goes back to wait for tasks after a SIGTERM: from Python 3.12 a broken pool
    sends its workers no sentinel to stop on, it only terminates them and waits for them to end
    (the driver then waited forever for a worker that had stopped its match and taken the next
    task off the queue). A second SIGTERM while the match stops does nothing more."""
    global _playing, _stopping
    _stopping = True
    if _idle.is_set():
        # between matches: only the kept bots to kill; exit at once (no traceback, and no waiting
        # for a lock on the pool's queues that a worker killed outright may have left held)
        _end_pool(grace=False)
        os._exit(1)
    if _playing:
        _playing = False
        raise _Terminated()  # the match's finally blocks kill its bots; play_local exits after


def _worker_init(plugins_dir: str | None, driver: int | None = None, in_flight: InFlight | None = None,
                 scratch: str | None = None, reuse: tuple[int, int, dict[str, frozenset]] | None = None) -> None:
    """A local worker's set-up; with `reuse` (pool size, most matches per process, the deals of
    entrants: `reuse_pool`) it keeps the bot processes that declared reuse between its matches,
    ending them when it exits."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the driver decides what Ctrl-C means
    if scratch is not None:
        sandbox.use_scratch_root(scratch)  # the run's one scratch root, which the driver removes
    signal.signal(signal.SIGTERM, _on_term)
    global _in_flight, _pool
    if reuse is not None:
        from referee.bots.pool import BotPool

        _pool = BotPool(*reuse)
        # run when the worker exits (multiprocessing's exit function; atexit is not run there)
        multiprocessing.util.Finalize(None, _end_pool, args=(True,), exitpriority=10)
    if driver is not None:
        _exit_with(driver)
    _in_flight = in_flight
    global _registry
    from referee.plugins import load_registry

    _registry = load_registry(plugins_dir)


def _exit_with(driver: int) -> None:
    """End this worker when the driver process ends, however it ended (even SIGKILL).

    A watcher thread waits for the driver; then it stops the match in progress, if any (SIGTERM
    to the main thread: the match's finally blocks kill its bots), and ends the worker once no
    match is in progress. Without it an orphaned worker played on, writing replays that a
    `--resume` run was writing too.
    """
    main = threading.main_thread().ident

    def watch() -> None:
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})  # SIGTERM is the main thread's
        _wait_for_exit(driver)
        signal.pthread_kill(main, signal.SIGTERM)
        _idle.wait()
        _end_pool(grace=False)
        os._exit(1)

    threading.Thread(target=watch, name="referee-driver-watch", daemon=True).start()


def _wait_for_exit(pid: int) -> None:
    """Return once process `pid` has ended: a pidfd where the kernel has them, else polling."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return
    except (AttributeError, OSError):  # no pidfd_open (kernel < 5.3, not Linux)
        while True:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return
            except PermissionError:
                pass
            time.sleep(0.5)
    try:
        select.select([fd], [], [])  # readable once the process has ended
    finally:
        os.close(fd)


def _registry_for(plugins_dir: str | None):
    """The plugin registry of this worker: loaded once per process (and plugins dir)."""
    if _registry is not None:
        return _registry
    with _registry_lock:
        if plugins_dir not in _registries:
            from referee.plugins import load_registry

            _registries[plugins_dir] = load_registry(plugins_dir)
        return _registries[plugins_dir]


_GUARD: list[str] | None = None


def _guard_prefix() -> list[str]:
    """`setpriv --pdeathsig KILL --` if this machine has a setpriv that takes it, else [].

    A bot run under it is SIGKILLed by the kernel when the worker thread that started it dies,
    even if the worker is SIGKILLed and no cleanup of ours runs (util-linux >= 2.33).
    """
    global _GUARD
    if _GUARD is None:
        prefix: list[str] = []
        setpriv = shutil.which("setpriv")
        if setpriv is not None:
            try:
                ok = subprocess.run([setpriv, "--pdeathsig", "KILL", "--", "true"], stdin=subprocess.DEVNULL,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=5).returncode == 0
            except (OSError, subprocess.SubprocessError):
                ok = False
            if ok:
                prefix = [setpriv, "--pdeathsig", "KILL", "--"]
        _GUARD = prefix
    return _GUARD


def _guard(players: list[Any]) -> None:
    """Prefix every subprocess bot's command with the parent-death guard (before it starts)."""
    from referee.match import program_exists
    from referee.bots.player import SubprocessPlayer

    prefix = _guard_prefix()
    if not prefix:
        return
    for p in players:
        # a program that cannot start is left unguarded, to fail as usual
        if isinstance(p, SubprocessPlayer) and p.argv and program_exists(p.argv[0], p.cwd, p.env):
            p.argv = prefix + p.argv


def play(spec: MatchSpec, entrants: dict[str, Entrant], limits: Limits, out_dir: str,
         plugins_dir: str | None = None, guard: bool = False, key: sealing.DealKey | None = None,
         hide: list[str] | None = None, output: Output = Output(), pool: Any = None,
         signer: signing.Signer | None = None) -> dict[str, Any]:
    """Play one scheduled match (in a worker) and return its journal record.

    The deal is sealed by the tournament's `key`. With `guard`, each bot runs under a
    parent-death guard (`setpriv --pdeathsig KILL`), so it dies with the worker even when the
    worker is killed without any cleanup. A sandboxed bot sees nothing of `out_dir` (journal,
    deal key, replays, logs) nor of the directories in `hide`. With a `pool`
    (referee.bots.pool.BotPool) a seat may be played by a bot process kept from an earlier
    match (`reuse_keys`), which keeps it afterwards if the bot declared reuse.

    The replay is written under a temporary name and renamed once the match is over, so no
    attempt ever leaves a torn replay or writes into another's; with `output.replays` "faults"
    a match without a fault keeps no replay and no log (its record's "replay" is None).

    With a `signer` the replay's result is signed, and the record names the replay's SHA-256
    (`replay_sha256`), which `referee verify` checks (the driver signs the record itself).
    """
    from referee.match import make_players
    from referee.runner import run_match

    registry = _registry_for(plugins_dir)
    game = registry.games[spec.game]
    chosen = [entrants[name] for name in spec.seats]
    seats = [Seat(e.name, "strategy" if e.strategy else "command", e.spec, e.move_ms) for e in chosen]
    commands = [
        None if e.strategy else {"cwd": e.cwd, "env": {**os.environ, **e.env} if e.env else None,
                                 **({"start_ms": e.start_ms} if e.start_ms else {}),
                                 **({"home": e.dir} if e.dir else {}), **({"shared": e.shared} if e.shared else {})}
        for e in chosen
    ]
    relative = output.replay(spec.index, spec.key)
    final = Path(out_dir) / relative
    replay_dir = final.parent
    replay_dir.mkdir(parents=True, exist_ok=True)
    # the same suffix (.gz: compressed) under a name no other attempt uses
    partial = replay_dir / f".{final.stem}.part-{os.getpid()}-{os.urandom(4).hex()}{final.suffix}"
    started = time.perf_counter()
    wall = time.monotonic()
    outputs = Path(out_dir)
    # The whole output directory, and by name what it holds (for a bot whose own directory it holds)
    secret = [outputs, outputs / "replays", replay_dir, outputs / JOURNAL, outputs / sealing.KEY_FILE,
              outputs / signing.KEY_FILE, *([signer.source] if signer is not None and signer.source else [])]
    players = make_players(game, spec.config, spec.seed, seats, registry, limits, replay_dir, spec.key, commands,
                           key=key, hide=[*secret, *(hide or ())])
    if guard:
        _guard(players)
    if pool is not None:
        players = pool.seat(players, reuse_keys(players, chosen, outputs, hide), (spec.game, spec.seed))
    try:
        result = run_match(game, spec.config, spec.seed, seats, players, limits, replay=partial, key=key,
                           hooks=registry.hooks, signer=signer)
        res = result.result
        if output.replays == "faults" and not any(res["faults"]):
            relative = None
            partial.unlink()
            for seat in range(len(seats)):
                (replay_dir / f"{spec.key}.seat{seat}.log").unlink(missing_ok=True)
        else:
            os.replace(partial, final)
    finally:
        partial.unlink(missing_ok=True)  # a match stopped halfway leaves nothing behind
    record = {
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
        "replay": relative,
    }
    if signer is not None and relative is not None:
        record["replay_sha256"] = result.digest
    return record


def reuse_keys(players: list[Any], chosen: list[Entrant], outputs: Path,
               hide: list[str] | None = None) -> list[tuple | None]:
    """Per seat, the key of the bot process a BotPool may seat there (None: a fresh process
    only): the entrant and everything that makes its process, the outputs it may not see.

    A sandboxed bot whose own files (its `dir`, scripts, interpreter) lie inside the
    output directory is never reused: its sandbox hides this match's replay and logs one by one,
    and another match's would be in sight."""
    from referee.bots.limits import wrapper
    from referee.bots.player import SubprocessPlayer

    root = Path(os.path.abspath(outputs))
    keys: list[tuple | None] = []
    for player, entrant in zip(players, chosen):
        if not isinstance(player, SubprocessPlayer):
            keys.append(None)
            continue
        if player.sandbox == "bwrap":
            workdir = Path(os.path.abspath(player.cwd if player.cwd is not None else os.getcwd()))
            home = Path(os.path.abspath(player.home)) if player.home is not None else None
            own = sandbox.own_paths(wrapper(player.resources) + player.argv, workdir, home)
            if any(path == root or root in path.parents for path in own):
                keys.append(None)
                continue
        keys.append((entrant.name, player.process_key(), str(root), tuple(map(str, hide or ()))))
    return keys


def reuse_pool(config: TournamentConfig) -> tuple[int, int, dict[str, frozenset]] | None:
    """(processes kept idle per entrant command, most matches per process, every deal of each
    entrant that has fewer than that) of each local worker's BotPool, or None without reuse
    (`reuse_matches` 0 or 1, or not the local executor).

    A process plays no deal twice, so the seatings of one seed need as many processes. An SPRT
    entry plays each duplicate set whole (its seatings of one deal back to back), so the pool
    keeps as many as its largest set, at most POOL_MAX; any other entry is played a seating's
    seeds at a time (`TournamentConfig.play_order`), and KEPT do. A process that has played
    every deal of its entrant is ended at once (an entrant with as many deals as reuse_matches
    or more, or over SPENT_MAX, is not listed: its processes end at reuse_matches first, or
    wait idle)."""
    if config.reuse_matches < 2 or config.executor != "local":
        return None
    sets = [designs.size(g.seating, g.players) for g in config.games if g.duplicate and g.sprt is not None]
    deals: dict[str, set] = {}
    for g_index, entry in enumerate(config.games):
        seeds = [(entry.game, derive_seed(config.seed, entry.game, g_index, i)) for i in range(entry.seeds)]
        for name in entry.entrants:
            if config.entrants[name].command is not None:
                deals.setdefault(name, set()).update(seeds)
    few = {name: frozenset(d) for name, d in deals.items() if len(d) < min(config.reuse_matches, SPENT_MAX + 1)}
    return min(POOL_MAX, max([KEPT, *sets])), config.reuse_matches, few


def play_local(spec: MatchSpec, entrants: dict[str, Entrant], limits: Limits, out_dir: str,
               key: sealing.DealKey, output: Output = Output(), signer: signing.Signer | None = None) -> dict[str, Any]:
    """One match in a local worker process (see `_worker_init`): `play`, its bots guarded, so a
    worker killed outright (SIGKILL, OOM) takes its bots with it; kept bots from this worker's
    pool, if it has one. Once SIGTERM has stopped the match, the worker exits (see `_on_term`)."""
    global _playing
    _playing = True  # before _idle is cleared: a SIGTERM in between finds the worker idle
    try:
        _idle.clear()
        if _in_flight is not None:
            _in_flight.start(spec.index)
        try:
            return play(spec, entrants, limits, out_dir, None, True, key, output=output, pool=_pool, signer=signer)
        except Exception as exc:
            return failure_record(spec, exc, out_dir)
    finally:
        _playing = False  # a SIGTERM from here on no longer raises: the match is over
        if _in_flight is not None:
            _in_flight.stop()
        _idle.set()
        if _stopping:
            _end_pool(grace=False)
            os._exit(1)


FILES = "files"  # the key of a task's returned files; never journaled


def play_task(spec: MatchSpec, entrants: dict[str, Entrant], limits: Limits, out_dir: str,
              plugins_dir: str | None, shared_out: bool, key: sealing.DealKey,
              output: Output = Output(), signer: signing.Signer | None = None) -> dict[str, Any]:
    """One match as a task on a (dask) worker that may be another machine or die mid-match.

    The bots are guarded (they die with the worker). With `shared_out` the worker writes the
    replay and bot logs into the output directory itself; otherwise it plays into a temporary
    directory and returns them with the record, under FILES ({"replays/<name>": bytes}), for
    the driver to write.
    """
    try:
        if shared_out:
            return play(spec, entrants, limits, out_dir, plugins_dir, guard=True, key=key, output=output,
                        signer=signer)
        # under the worker's scratch root: a worker killed mid-match leaves it to the next `sweep`
        with tempfile.TemporaryDirectory(prefix="match-", dir=sandbox.scratch_root()) as tmp:
            record = play(spec, entrants, limits, tmp, plugins_dir, guard=True, key=key, hide=[out_dir],
                          output=output, signer=signer)
            replays = Path(tmp) / "replays"
            files = {p.relative_to(tmp).as_posix(): p.read_bytes() for p in sorted(replays.rglob("*"))
                     if p.is_file()} if replays.is_dir() else {}
    except Exception as exc:  # a failure record is a result: no retry by Dask, which would fail alike
        return failure_record(spec, exc, out_dir)
    record[FILES] = files
    return record


def failure_record(spec: MatchSpec, exc: Exception, out_dir: str) -> dict[str, Any]:
    """The journal record of match `spec` failed on the referee's side with `exc`: no seat
    blamed, no result counted; the error's first line and its traceback's end. A full disk is
    noted (`full`: the line that stops the run), never journaled as the match's failure."""
    record: dict[str, Any] = {
        "type": FAILURE, "index": spec.index, "key": spec.key, "game": spec.game, "seed": spec.seed,
        "seats": list(spec.seats), "error": first_line(exc),
        "traceback": "".join(traceback.format_exception(exc))[-TRACEBACK_KEPT:], "pid": os.getpid(),
        "ended": time.monotonic(),
    }
    full = full_disk(exc)
    if full is not None:
        record["full"] = str(DiskFull.of(full, out_dir, RESUME))
    return record


# -- driver side -------------------------------------------------------------------------------


class Journal:
    """The append-only results journal: one fsynced line per finished match.

    With a `signer` every line is signed (referee/signing.py) over the SHA-256 of every line
    before it: a chain, picked up from the file's own bytes when a run resumes it."""

    def __init__(self, path: Path, head: dict[str, Any], signer: signing.Signer | None = None) -> None:
        self.path = path
        self._signer = signer
        self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        self._chain = hashlib.sha256()
        if signer is not None and os.fstat(self._fd).st_size:
            with open(path, "rb") as f:  # streamed: the journal is never held whole
                for block in iter(lambda: f.read(1 << 20), b""):
                    self._chain.update(block)
        if os.fstat(self._fd).st_size == 0:
            try:
                self.append(head)
            except BaseException:
                os.close(self._fd)
                raise

    def append(self, record: dict[str, Any]) -> None:
        """Write one record as a line (signed, with a signer), fsynced."""
        line = (json.dumps(record, separators=(",", ":")) + "\n").encode()
        if self._signer is not None:
            line = signing.signed_line(self._signer, signing.JOURNAL, self._chain.digest(), line)
        self._write(line)
        if self._signer is not None:
            self._chain.update(line)  # only a line the journal holds is chained

    def _write(self, line: bytes) -> None:
        """Append one whole line, fsynced. A write that fails (a full disk writes part of a
        line, then fails) cuts the journal back to where the line began, so it never ends in
        part of a line (which a later append would bury, making the journal unreadable):
        DiskFull for a full disk, else RefereeError."""
        start = os.lseek(self._fd, 0, os.SEEK_END)  # the run holds the journal: no other writer
        try:
            view = memoryview(line)
            while view:
                view = view[os.write(self._fd, view):]
            os.fsync(self._fd)
        except OSError as exc:
            try:
                os.ftruncate(self._fd, start)  # frees what was written: works on a full disk
                os.fsync(self._fd)
            except OSError:
                pass  # _repair cuts a torn last line when the run resumes
            if full_disk(exc) is not None:
                raise DiskFull.of(exc, self.path, RESUME) from None
            raise RefereeError(f"cannot write the journal {str(self.path)!r}: {exc.strerror or exc}; "
                               f"once fixed, {RESUME}") from None

    def close(self) -> None:
        os.close(self._fd)


def _repair(path: Path) -> None:
    """Cut a line torn by a crash off the end of the journal, so appends stay line-aligned.

    Read backwards from the end a block at a time to its last newline (the journal is never read
    whole), and cut in place (never a rewrite, which a second crash could leave half done)."""
    with open(path, "r+b") as f:
        end = f.seek(0, os.SEEK_END)
        if not end:
            return
        f.seek(end - 1)
        if f.read(1) == b"\n":
            return
        cut = 0  # no newline at all: nothing of it was ever a whole line
        stop = end
        while stop > 0:
            start = max(0, stop - 65536)
            f.seek(start)
            at = f.read(stop - start).rfind(b"\n")
            if at >= 0:
                cut = start + at + 1
                break
            stop = start
        f.truncate(cut)
        os.fsync(f.fileno())


_claimed: dict[Path, int] = {}  # output directories this process holds: the lock file's fd


@contextmanager
def claim(out: Path) -> Iterator[None]:
    """Hold output directory `out` (created if need be) for this run; UsageError if another run
    holds it. Held by this process already, it is a no-op: the outermost claim releases it.

    An exclusive flock on `out/.lock`, which the kernel releases when the run ends, however it
    ends; the file stays (removing it would let two runs lock two different files).
    """
    key = out.resolve()
    if key in _claimed:
        yield
        return
    try:
        out.mkdir(parents=True, exist_ok=True)
        fd = os.open(out / LOCK, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise UsageError(f"cannot use {out} as the output directory: {exc.strerror}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = os.read(fd, 32).decode(errors="replace").strip()
        os.close(fd)
        raise UsageError(f"{out} is in use by another run{f' (pid {holder})' if holder.isdigit() else ''}: "
                         "wait for it to end, or choose another --out") from None
    os.ftruncate(fd, 0)
    try:
        os.write(fd, f"{os.getpid()}\n".encode())
    except OSError as exc:
        os.close(fd)
        if full_disk(exc) is not None:
            raise DiskFull.of(exc, out / LOCK, "run again") from None
        raise UsageError(f"cannot use {out} as the output directory: {exc.strerror}") from None
    _claimed[key] = fd
    try:
        yield
    finally:
        del _claimed[key]
        os.ftruncate(fd, 0)
        os.close(fd)


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

    matches = config.matches()
    key = sealing.for_directory(config.out)
    signer = signer or signing.for_directory(config.out)
    head = {"type": "tournament", "name": config.name, "file": str(config.path),
            "matches": len(matches), "fingerprint": fingerprint(matches), "setup": setup(config, key),
            "sign_key": signer.id}
    tests = sprt.heads(config)
    if tests:  # only then: a journal without an SPRT keeps the head it always had
        head["sprt"] = tests
    if config.min_sets():  # the same: only when a game's differs from the default (the standings read it)
        head["min_sets"] = config.min_sets()
    journal = config.out / JOURNAL
    done: set[int] = set()
    gauntlets = sprt.Gauntlets(config)
    if journal.exists() and journal.stat().st_size > 0:
        if not resume:
            raise UsageError(f"{journal} already holds results: add --resume to continue that run, "
                             "or choose another --out")
        _repair(journal)
        checked = False
        for record in iter_journal(journal):
            if record["type"] == "tournament":
                _check_head(journal, record, head, tests)
                checked = True
                continue
            if not checked:  # a match before any head: no journal this referee wrote
                _check_head(journal, None, head, tests)
            done.add(record["index"])
            gauntlets.add(record)
            if each is not None:
                each(record)
        if not checked:
            _check_head(journal, None, head, tests)
    todo = [m for m in config.play_order(matches) if m.index not in done and not gauntlets.stopped(m.index)]
    signing.publish(config.out, signer)  # once the journal is known to be this key's
    return Prepared(todo, done, gauntlets, head, signer)


def _check_head(journal: Path, old_head: dict[str, Any] | None, head: dict[str, Any],
                tests: dict[str, dict[str, float]]) -> None:
    """Raise UsageError unless the journal's head `old_head` is one this run may resume: the
    same schedule, a sealed set-up, the same set-up and SPRT tests (saying what changed)."""
    if old_head is None or old_head.get("fingerprint") != head["fingerprint"]:
        raise UsageError(f"{journal} was written for a different schedule; cannot resume it "
                         "with this tournament file")
    old_setup = old_head.get("setup")
    if not isinstance(old_setup, dict) or old_setup.get("version") != SETUP_VERSION:
        raise UsageError(f"{journal} was written by an older referee (its deals were not sealed); "
                         "cannot resume it: start the tournament again in another --out")
    changed = _changed(old_setup, head["setup"])
    old_tests = old_head.get("sprt") or {}
    if changed is None and old_tests != tests:
        g = next(g for g in sorted(set(old_tests) | set(tests), key=int) if old_tests.get(g) != tests.get(g))
        changed = f"games[{g}].sprt changed ({_sprt_shown(old_tests.get(g))} then, {_sprt_shown(tests.get(g))} now)"
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
    limits = {k: v for k, v in asdict(match_limits(config)).items() if k != "spin_us"}  # timing only
    entrants = {}
    for name, e in sorted(config.entrants.items()):
        entrants[name] = {
            "strategy": e.strategy, "command": e.command, "cwd": os.path.abspath(e.cwd) if e.cwd else None,
            "env": {var: f"{key.derive('env', var, value):064x}"[:16] for var, value in sorted(e.env.items())},
            "move_ms": e.move_ms, "start_ms": e.start_ms, **({"dir": e.dir} if e.dir else {}),
        }
    return {"version": SETUP_VERSION, "deal_key": key.id, "limits": limits, "entrants": entrants}


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
    on_start: Callable[[executors.Backend], None] | None = None,
    keep: bool = True,
    on_warning: Callable[[str], None] | None = None,
    prepared: Prepared | None = None,
    on_note: Callable[[str], None] | None = None,
    on_failure: Callable[[dict[str, Any]], None] | None = None,
    signer: signing.Signer | None = None,
) -> list[dict[str, Any]]:
    """Play every match not yet journaled; returns every record (old and new) in schedule order.

    `prepared` is what `prepare(config, resume)` returned to a caller holding the output
    directory (`claim`) since: the journal is then not read again while the matches run.

    With `keep` False nothing is kept in memory (it returns []): results go to the journal and
    `on_result` only, so memory stays flat however long the tournament. With `keep` the
    records are read back from the journal once the run is over.

    A game entry with an SPRT (referee/tournament/sprt.py) stops once the test decides: no new match of it
    is started (those not started are cancelled), those in play finish and are journaled, and
    the decision is journaled as an "sprt" record. The records returned include those beyond
    the deciding set: the standings count `sprt.counted(records, decisions)`.

    The matches run on `config.executor` (see referee/tournament/executors.py); `on_start` is told which
    backend once it is up. The output directory is held (`claim`) for the whole run: a second
    run on it is refused. `on_warning` is told, in a sentence, when a worker was killed and its
    matches are played again. `on_note` is told, in a sentence, when the matches wait for a
    worker (a Dask scheduler with none connected: how many are, now and then) and when one
    joins. A Dask scheduler lost mid-run ends it with a RefereeError naming the scheduler.

    A match that fails on the referee's side is journaled as a FAILURE record, handed to
    `on_failure`, and played again by `--resume`; FAILED_IN_A_ROW in a row end the run with a
    RefereeFailure, and a full disk under the outputs ends it at once with a DiskFull.
    """
    if prepared is not None and config.out.resolve() not in _claimed:
        raise ValueError("run(prepared=...) needs the claim under which prepare() ran")
    with claim(config.out), _disk_checked(config.out):
        _run(config, prepared or prepare(config, resume, signer=signer), plugins_dir, on_result, on_start, on_warning,
             on_note, on_failure)
        if not keep:
            return []
        from referee.tournament.standings import read_journal

        return sorted(read_journal(config.out / JOURNAL)[1], key=lambda r: r["index"])


def _run(config: TournamentConfig, prepared: Prepared, plugins_dir: str | None,
         on_result: Callable[[dict[str, Any]], None] | None,
         on_start: Callable[[executors.Backend], None] | None,
         on_warning: Callable[[str], None] | None = None,
         on_note: Callable[[str], None] | None = None,
         on_failure: Callable[[dict[str, Any]], None] | None = None) -> None:
    todo, journaled, gauntlets, head, signer = prepared
    executors.require(config.executor, config.scheduler)
    if not todo:
        journal = Journal(config.out / JOURNAL, head, signer)
        try:
            _journal_decisions(journal, gauntlets)  # a run killed between a match and its decision
        finally:
            journal.close()
        return
    limits = match_limits(config)
    key = sealing.for_directory(config.out)
    output = replace(config.output, shard=head["matches"] > SHARD_AT)
    _remove_partials(config.out)
    if limits.sandbox == "bwrap":
        sandbox.require("bwrap", "the tournament's limits.sandbox = \"bwrap\"")
    out = config.out.resolve()
    # Absolute working directories: a worker may run in another directory, or on another machine
    # where the same paths hold the same bots.
    entrants = {name: replace(e, cwd=os.path.abspath(e.cwd)) if e.cwd else e for name, e in config.entrants.items()}
    if limits.sandbox == "bwrap":
        entrants = own_views(entrants, config.path)
    workers = min(config.concurrency, len(todo))
    in_flight = InFlight(workers) if config.executor == "local" else None
    # The journal is opened once the backend is up: a scheduler that cannot be reached leaves no
    # journal behind (which would ask for --resume next time).
    with _scratch_root() as scratch, executors.open_backend(
            config.executor, workers, scheduler=config.scheduler, shared_out=config.shared_out,
            initializer=_worker_init, initargs=(plugins_dir, os.getpid(), in_flight, scratch,
                                                reuse_pool(config))) as backend:
        journal = Journal(config.out / JOURNAL, head, signer)
        try:
            _journal_decisions(journal, gauntlets)
            if on_start is not None:
                on_start(backend)
            if backend.kind == "local":
                def submit(spec):
                    return backend.submit(play_local, spec, entrants, limits, str(out), key, output, signer,
                                          name=spec.key)
            else:
                plugins = os.path.abspath(plugins_dir) if plugins_dir else None

                def submit(spec):
                    return backend.submit(play_task, spec, entrants, limits, str(out), plugins, backend.shared_out,
                                          key, output, signer, name=spec.key)
            # A bounded window of matches in flight, not every match submitted at once: the
            # futures held do not grow with the schedule, and Ctrl-C has little to cancel.
            window = max(8, 4 * config.concurrency)

            def unstopped(specs: Iterable[MatchSpec]) -> Iterator[MatchSpec]:
                """The specs still to play, asked as each is launched: none of a decided SPRT entry."""
                return (spec for spec in specs if not gauntlets.stopped(spec.index))

            queue: Iterator[MatchSpec] = unstopped(todo)
            pending: dict[cf.Future, MatchSpec] = {}
            kills: Counter[int | None] = Counter()  # workers killed, per match played (None: none)
            failing = 0  # matches failed on the referee's side since the last one that did not
            watch = executors.WorkerWatch(backend, on_note)  # says when no worker takes the matches

            def launch(spec: MatchSpec) -> None:
                try:
                    future = submit(spec)
                except Exception as exc:  # the pool broke since the last wait
                    if not backend.broken(exc):
                        raise
                    future = cf.Future()
                    future.set_exception(exc)
                pending[future] = spec

            def settle(future: cf.Future) -> MatchSpec | None:
                """Journal a finished match; the match instead if a worker died under it."""
                nonlocal failing
                spec = pending.pop(future)  # drop our reference: the result may hold a replay
                try:
                    record = future.result()
                except Exception as exc:
                    if backend.broken(exc):
                        return spec
                    err = backend.failure(exc, spec.key)
                    if err is exc:
                        raise
                    raise err from exc
                files = record.pop(FILES, None)
                if record["index"] in journaled:
                    return None  # a match is journaled once, whatever ran it twice
                if record["type"] == FAILURE:
                    if record.get("full"):
                        raise DiskFull(record["full"])
                    journal.append(record)  # not `journaled`: --resume plays it again
                    failing += 1
                    if on_failure is not None:
                        on_failure(record)
                    if failing >= FAILED_IN_A_ROW:
                        raise RefereeFailure(
                            f"{failing} matches in a row failed on the referee's side, the last ({record['key']}) "
                            f"with {record['error']}: stopped; the journal keeps every finished match and "
                            "each failure's traceback: once the cause is fixed, run again with --resume, "
                            "which plays the failed matches again")
                    return None
                failing = 0
                if files:
                    _write_files(out, files)
                journal.append(record)
                journaled.add(record["index"])
                decision = gauntlets.add(record)
                if decision is not None:
                    journal.append(decision.record())
                    # its matches not started yet are not played (with Dask, where a queued task
                    # looks like a running one, those in play too: their results are not counted)
                    for other, other_spec in list(pending.items()):
                        if decision.first <= other_spec.index < decision.end and other.cancel():
                            del pending[other]
                if on_result is not None:
                    on_result(record)
                return None

            while True:
                for spec in itertools.islice(queue, window - len(pending)):
                    launch(spec)
                if not pending:
                    break
                done, _ = cf.wait(pending, timeout=watch.timeout, return_when=cf.FIRST_COMPLETED)
                lost = [spec for spec in map(settle, _finished_first(done)) if spec is not None]
                watch.check(bool(done))  # after the results are journaled: it may raise (scheduler lost)
                if not lost:
                    continue
                # A worker was killed outright: every match in its pool fails with it (the other
                # workers stop theirs, killing their bots). Play them all again in a new pool,
                # unless the match the killed worker played had killed one before.
                lost += [spec for spec in map(settle, _finished_first(cf.wait(list(pending))[0])) if spec is not None]
                backend.restart()  # returns once every old worker has ended
                blamed: list[int | None] = [None]  # None: killed between matches, none to blame
                if in_flight is not None:
                    blamed = in_flight.left() or blamed
                    in_flight.clear()
                kills.update(blamed)
                again = {k for k in blamed if kills[k] > 1}
                if again:
                    raise _killed_twice([s for s in lost if s.index in again] or lost)
                if on_warning is not None:
                    culprit = [s.key for s in lost if s.index in blamed]
                    on_warning(f"a worker process was killed outright{' playing ' + culprit[0] if culprit else ''} "
                               f"(a bot, or the OOM killer; run untrusted bots with --sandbox bwrap): "
                               f"{len(lost)} {'match' if len(lost) == 1 else 'matches'} in flight played again")
                queue = unstopped(itertools.chain(sorted(lost, key=lambda s: s.index), queue))
        finally:
            journal.close()


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
