"""What a running tournament tells: typed events, in the order they happen.

`referee.tournament.driver.Tournament` yields them (and `referee.run_tournament`); the CLI's
`referee tournament` only displays them. A run goes: Started, BackendReady, then per match
MatchStarted and MatchFinished (or MatchFailed), with an SprtStep after each match of an SPRT
entry and a Notice now and then; once every match is played, StandingsWritten, IndexProgress
while the viewer pages are written, and Finished last, carrying the standings.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Plan:
    """What a run is to play: `total` matches (at most, with an SPRT entry, which may stop
    early), `done` of them journaled already (a resumed run), on `concurrency` local workers or
    on Dask; `unsandboxed` when command entrants run without a sandbox (the CLI warns)."""

    name: str
    out: Path
    total: int
    done: int
    at_most: bool
    concurrency: int
    executor: str
    unsandboxed: bool
    faults: int = 0  # the faults of the matches journaled already


@dataclass(frozen=True)
class Progress:
    """Where the run stands: `done` of `total` matches journaled (`resumed` of them before this
    run), the faults of those matches, the scheduled matches decided SPRT entries will not play
    (`skipped`: left out of `total`), and the time left at this run's pace (None: unknown)."""

    done: int
    total: int
    faults: int
    resumed: int
    skipped: int = 0
    eta_s: float | None = None


@dataclass(frozen=True)
class Started:
    """The run holds its output directory and has read its journal once."""

    plan: Plan


@dataclass(frozen=True)
class BackendReady:
    """Where the matches run is up: `kind` "local" or "dask", in words in `description`."""

    kind: str
    description: str


@dataclass(frozen=True)
class MatchStarted:
    """A match was handed to a worker (it starts once one is free)."""

    index: int
    key: str


@dataclass(frozen=True)
class MatchFinished:
    """A match was played and journaled: its journal record, and the run's progress with it."""

    record: dict[str, Any]
    progress: Progress


@dataclass(frozen=True)
class MatchFailed:
    """A match failed on the referee's side: journaled as such (`record["error"]`), counted for
    no one; `--resume` plays it again."""

    record: dict[str, Any]
    progress: Progress


@dataclass(frozen=True)
class SprtStep:
    """An SPRT entry counted a match: its status line, and its decision once the test decided
    (the match that decided it is the last of the entry to start)."""

    game_index: int
    status: str
    decided: bool


@dataclass(frozen=True)
class Notice:
    """A sentence for the organiser: `kind` "warning" (a worker was killed, its matches played
    again) or "note" (the matches wait for a Dask worker, one joined)."""

    kind: str
    text: str


@dataclass(frozen=True)
class StandingsWritten:
    """Every match is played: the standings (`referee.tournament.standings.compute` of the
    counted matches, with "faults", "failed" and "sprt") and the files written from them."""

    standings: dict[str, Any]
    paths: tuple[Path, ...]
    sprt_summaries: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class IndexProgress:
    """`done` of `total` viewer pages of the index written."""

    done: int
    total: int


@dataclass(frozen=True)
class Verified:
    """`--verify`: how many replays were verified as their matches ended, and each failure."""

    checked: int
    failures: tuple[str, ...]


@dataclass(frozen=True)
class Finished:
    """The run is over: the standings (as in StandingsWritten), every file written (the
    standings files, then index.html), the index's path, and the replays' verification (None
    when not asked). `standings["failed"]` lists the matches that failed on the referee's side."""

    standings: dict[str, Any]
    paths: tuple[Path, ...]
    index: Path | None
    verified: Verified | None


Event = (Started | BackendReady | MatchStarted | MatchFinished | MatchFailed | SprtStep | Notice
         | StandingsWritten | IndexProgress | Finished)
