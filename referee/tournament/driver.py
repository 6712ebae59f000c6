"""A tournament as a generator of typed events (referee/tournament/events.py).

`Tournament(config, registry)` holds everything a run keeps while it plays: the output
directory (claimed for the whole run), the journal read once (`run.prepare`), one SPRT state
(the driver's, `run.play_events`), the live table of the matches so far, the replays' checks
(`--verify`). Iterating it plays the tournament and yields what happens; once every match is
played it computes the standings once, writes the standings files and the index, and yields
Finished last. Closing the iteration early (`break` then `close()`, or dropping it) stops the
workers: the journal keeps every finished match, and `--resume` plays the rest.

`referee tournament` only displays these events; `referee.run_tournament` hands them to Python.
"""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from referee.tournament import run
from referee.tournament.events import (Event, Finished, IndexProgress, MatchFinished, Plan, StandingsWritten,
                                       Started, Verified)


class Tournament:
    """One run of a tournament file's schedule; iterate it for its events."""

    def __init__(self, config: Any, registry: Any, *, resume: bool = False, plugins_dir: str | None = None,
                 signer: Any = None, verify: bool = False, index: bool = True) -> None:
        self.config, self.registry = config, registry
        self.resume, self.plugins_dir, self.signer, self.verify, self.index = resume, plugins_dir, signer, verify, index
        self._live: Any = None  # the live table (standings.Tally), from the run's first event
        self._gauntlets: Any = None  # the SPRT tests' one state (the driver's)

    def live_table(self) -> list[Any]:
        """The standings of the matches journaled so far: a rating, no interval (a live view)."""
        return self._live.table() if self._live is not None and self._live.rows else []

    def sprt_status(self) -> list[str]:
        """Each SPRT entry's status line now (none before the run has started)."""
        return [g.status() for g in self._gauntlets] if self._gauntlets is not None else []

    def __iter__(self) -> Iterator[Event]:
        from referee.tournament import executors
        from referee.tournament import standings as st

        config = self.config
        executors.require(config.executor, config.scheduler)
        with run.claim(config.out):  # no other run on this output directory
            # The journal is read once, streamed: the live table keeps of its records only the
            # counts (memory grows with the entrants, not the matches).
            self._live = st.Tally(points=False)
            prepared = run.prepare(config, self.resume, each=self._live.add, signer=self.signer)
            self._gauntlets = gauntlets = prepared.gauntlets
            playing = {name for g in config.games for name in g.entrants}
            yield Started(Plan(
                name=config.name, out=config.out, total=prepared.head["matches"] - gauntlets.unplayed(),
                done=len(prepared.done), at_most=bool(gauntlets), concurrency=config.concurrency,
                executor=config.executor,
                unsandboxed=config.bot_limits.get("sandbox", "none") == "none"
                and any(config.entrants[name].command for name in playing), faults=prepared.faults))
            checker = ReplayChecker(config.out, self.registry, self.verify, prepared.signer)
            for event in run.play_events(config, prepared, self.plugins_dir):
                if isinstance(event, MatchFinished):
                    checker.check(event.record)
                    self._live.add(event.record)
                yield event
            del prepared  # its indices: no use now
            # the standings once, from one streamed pass over the journal; the matches of an SPRT
            # entry beyond its deciding set are not counted (timing chose them): the decisions are
            # the run's own SPRT state's
            from referee.tournament.outputs import standings_files

            decisions = [g.decision.record() for g in gauntlets if g.decision is not None]
            table, paths, rows = standings_files(config.out / run.JOURNAL, config.out, config.name, self.registry,
                                                 decisions)
            yield StandingsWritten(table, tuple(paths), tuple(tuple(g.summary()) for g in gauntlets))
            index = None
            if self.index:
                index = yield from self._index(table, rows)
            yield Finished(table, (*paths, *([index] if index else [])), index,
                           Verified(checker.checked, tuple(checker.failures)) if self.verify else None)

    def _index(self, table: dict[str, Any], rows: Any) -> Iterator[IndexProgress]:
        """Write the index (in a thread), yielding its pages' progress; returns its path."""
        from referee.tournament.outputs import index_page

        config = self.config
        # the pages on as many processes as the matches ran on (all cores after a Dask run)
        jobs = config.concurrency if config.executor == "local" and config.concurrency > 0 else os.cpu_count()
        told: queue.Queue[tuple[int, int] | None] = queue.Queue()
        outcome: dict[str, Any] = {}

        def write() -> None:
            try:
                outcome["path"] = index_page(config.out, self.registry, table, jobs or 1, config.output.viewers,
                                             lambda done, total: told.put((done, total)), rows)
            except BaseException as exc:  # raised again by the generator
                outcome["error"] = exc
            finally:
                told.put(None)

        writer = threading.Thread(target=write, name="referee-index", daemon=True)
        writer.start()
        try:
            while (step := told.get()) is not None:
                yield IndexProgress(*step)
        finally:
            writer.join()  # the output directory stays claimed until the index is whole
        if "error" in outcome:
            raise outcome["error"]
        return outcome["path"]


def run_tournament(path_or_config: str | Path | Any, *, resume: bool = False, out: str | Path | None = None,
                   concurrency: int | None = None, executor: str | None = None, scheduler: str | None = None,
                   shared_out: bool | None = None, verify: bool = False, sign_key: str | Path | None = None,
                   plugins_dir: str | None = None, index: bool = True) -> Iterator[Event]:
    """Run a tournament file (or a loaded `TournamentConfig`), yielding its events; the last,
    Finished, carries the standings. The options are `referee tournament`'s."""
    from referee.plugins import load_registry
    from referee.tournament.config import TournamentConfig, load_tournament

    registry = load_registry(plugins_dir)
    if isinstance(path_or_config, TournamentConfig):
        config = path_or_config
    else:
        config = load_tournament(Path(path_or_config), registry, out=Path(out) if out is not None else None,
                                 concurrency=concurrency, executor=executor, scheduler=scheduler,
                                 shared_out=shared_out)
    signer = None
    if sign_key is not None:
        from referee.signing import load_signer

        signer = load_signer(Path(sign_key))
    return iter(Tournament(config, registry, resume=resume, plugins_dir=plugins_dir, signer=signer, verify=verify,
                           index=index))


class ReplayChecker:
    """`referee tournament --verify`: verify each replay as its match ends, count failures."""

    def __init__(self, out_dir: Path, registry: Any, enabled: bool, signer: Any = None) -> None:
        self.out_dir, self.registry, self.enabled = Path(out_dir), registry, enabled
        # the signatures too, with the public key of the run's signer
        self.key = None
        if signer is not None:
            from referee.signing import Verifier

            self.key = Verifier(signer.public)
        self.checked = 0
        self.failures: list[str] = []

    def check(self, record: dict[str, Any]) -> None:
        """Verify the replay of one journal record (a no-op when not enabled)."""
        if not self.enabled or not record.get("replay"):
            return
        from referee.errors import UsageError
        from referee.replay.verify import verify_file

        path = self.out_dir / record["replay"]
        self.checked += 1
        try:
            verdict = verify_file(path, self.registry, self.key)
        except UsageError as exc:
            self.failures.append(f"{path}: {exc}")
            return
        if not verdict.ok:
            self.failures.append(f"{path}: {verdict.discrepancy}")
