"""Playing one scheduled match, in a worker, into its journal record: `play` (the seats, the
players, the guard, a kept bot process from the worker's pool, the replay), `play_local` in a
local worker process, `play_task` on a Dask worker, `failure_record` for a match that failed on
the referee's side. Also the state a worker keeps between its matches (set by
workers._worker_init): its plugin registry, its BotPool (`reuse_pool`, `reuse_keys`), and
whether it plays a match now.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
import threading
import time
import traceback
from pathlib import Path
from typing import Any

import referee.sealing as sealing
import referee.signing as signing

from referee.tournament import designs

from referee.bots import sandbox
from referee.errors import DiskFull, first_line, full_disk
from referee.runner import Limits, Seat
from referee.tournament.config import Entrant, Output, TournamentConfig
from referee.tournament.schedule import MatchSpec, derive_seed

from referee.tournament.journal import JOURNAL, RESUME

FAILURE = "failure"  # the journal record type of a match that failed on the referee's side
TRACEBACK_KEPT = 4000  # characters of a failed match's traceback kept in its journal record


_registry = None
_registries: dict[str | None, Any] = {}  # per plugins dir, in a dask worker (several threads)
_registry_lock = threading.Lock()


_idle = threading.Event()  # set while this worker plays no match (see play_local)
_idle.set()
_playing = False  # True while a match runs that SIGTERM has not stopped yet (see workers._on_term)
_stopping = False  # SIGTERM came: the worker exits once its match has stopped


_in_flight: Any = None  # where this worker notes the match it plays (a workers.InFlight, set by _worker_init)
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


def _registry_for(plugins_dir: str | None):
    """The plugin registry of this worker: loaded once per process (and plugins dir)."""
    if _registry is not None:
        return _registry
    with _registry_lock:
        if plugins_dir not in _registries:
            from referee.plugins import load_registry

            _registries[plugins_dir] = load_registry(plugins_dir)
        return _registries[plugins_dir]


_guard_prefix = sandbox.guard_prefix  # the parent-death guard's command prefix, under its old name


def _guard(players: list[Any]) -> None:
    """Prefix every subprocess bot's command with the parent-death guard (referee.match.guard)."""
    from referee.match import guard

    guard(players)


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
    from referee.match import MatchRequest, Reuse, play_match

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
    request = MatchRequest(game, spec.config, spec.seed, tuple(seats), registry, limits, key, signer, registry.hooks,
                           replay=partial, log_dir=replay_dir, log_stem=spec.key, hide=(*secret, *(hide or ())),
                           commands=tuple(commands), guard=guard,
                           reuse=Reuse(pool, outputs, tuple(hide or ())) if pool is not None else None)
    try:
        result = play_match(request)
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
    if result.penalties:  # conduct penalties (referee.game.penalty): seat, why, ruling, times
        record["penalties"] = result.penalties
    if result.resources:  # each seat's times, CPU and peak memory, with its times' histogram for the standings
        from referee.resources import histogram

        record["resources"] = [{**r, "ms_hist": histogram(ms)} for r, ms in zip(result.resources, result.times)]
    if signer is not None and relative is not None:
        record["replay_sha256"] = result.digest
    return record


def reuse_keys(players: list[Any], chosen: list[Entrant], outputs: Path,
               hide: list[str] | None = None) -> list[tuple | None]:
    """Per seat, the key of the bot process a BotPool may seat there (referee.match.reuse_keys,
    by entrant)."""
    from referee.match import reuse_keys as keys

    return keys(players, [e.name for e in chosen], outputs, hide)


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
    pool, if it has one. Once SIGTERM has stopped the match, the worker exits (see workers._on_term)."""
    global _playing, _pool
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
        if _stopping:  # never back to the task queue after a SIGTERM (Python 3.12+ sends no sentinel)
            pool, _pool = _pool, None
            if pool is not None:
                pool.close(False)
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


def unrooted(text: str, out_dir: str) -> str:
    """`text` without the folders of this machine a journal would publish: the output folder,
    the working directory and Python's import roots (a traceback's files name their module's
    path from its package instead: referee/tournament/play.py)."""
    roots = {os.path.abspath(out_dir), os.getcwd(), *(os.path.abspath(p) for p in sys.path if p)}
    for root in sorted((r for r in roots if r != os.sep), key=len, reverse=True):
        text = text.replace(root + os.sep, "")
    return _FOLDERS.sub(".../", text)  # any other folder (a plugin's, a temporary one) by its file's name


#: an absolute path's folders (what `unrooted` leaves of them: ".../")
_FOLDERS = re.compile(r"(?<![\w./~-])/(?:[\w.+@~-]+/)+")


def failure_record(spec: MatchSpec, exc: Exception, out_dir: str) -> dict[str, Any]:
    """The journal record of match `spec` failed on the referee's side with `exc`: no seat
    blamed, no result counted; the error's first line and its traceback's end. A full disk is
    noted (`full`: the line that stops the run), never journaled as the match's failure."""
    record: dict[str, Any] = {
        "type": FAILURE, "index": spec.index, "key": spec.key, "game": spec.game, "seed": spec.seed,
        "seats": list(spec.seats), "error": unrooted(first_line(exc), out_dir),
        "traceback": unrooted("".join(traceback.format_exception(exc)), out_dir)[-TRACEBACK_KEPT:],
        "pid": os.getpid(),
        "ended": time.monotonic(),
    }
    full = full_disk(exc)
    if full is not None:
        record["full"] = str(DiskFull.of(full, out_dir, RESUME))
    return record
