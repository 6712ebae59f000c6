"""The files a tournament leaves beside its journal once its matches are played: the standings
files (computed once from the journal, counted as `referee tournament` counts them) and the
index page. `referee tournament` and `referee standings` both write them through here."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from referee.errors import DiskFull, RefereeError, UsageError, full_disk


def standings_files(journal: Path, out_dir: Path, name: str, registry: Any,
                    decisions: list[dict[str, Any]] | None = None) -> tuple[dict[str, Any], list[Path], Any]:
    """The standings of a journal's counted matches, with their "faults", "failed" and "sprt",
    and the standings files written from them into `out_dir` (DiskFull or UsageError, in one
    line, if they cannot be); and what the index keeps of the journal (`index.JournalRows`).

    The journal is read in one streamed pass (`read_once`) given the SPRT `decisions` (the
    run's own, else read from the journal)."""
    from referee.tournament import sprt
    from referee.tournament.standings import write_all

    if decisions is None:
        decisions = sprt.read_decisions(journal)
    table, rows = read_once(journal, decisions)
    try:
        paths = write_all(table, out_dir, name, score_notes(registry, table["games"]))
    except OSError as exc:
        full = full_disk(exc)
        if full is not None:
            raise DiskFull.of(full, out_dir, f"run `referee standings {journal}`") from None
        raise UsageError(f"cannot write the standings into {str(out_dir)!r}: {exc.strerror or exc}") from None
    return table, paths, rows


def read_once(journal: Path, decisions: list[dict[str, Any]]) -> tuple[dict[str, Any], Any]:
    """The standings of a journal and what its index keeps, from ONE streamed pass: the counted
    matches (`sprt.counted` by `decisions`: an SPRT entry's matches beyond its deciding set left
    out) as `standings.compute` keeps them (a `Result` each), the fault rows of those with a
    fault, their resources per entrant (`standings.ResourceTally`), the matches failed on the
    referee's side and not played since (`failed_matches`), the SPRT outcomes (`sprt_outcomes`),
    the index's rows. The same numbers as those functions
    reading the journal each on its own (tests/test_events.py compares them)."""
    from referee.tournament import sprt
    from referee.tournament import standings as st
    from referee.tournament.index import JournalRows
    from referee.tournament.reporting import fault_rows, penalty_rows

    cut = [(d["last"], d["end"]) for d in decisions]
    head: dict[str, Any] | None = None
    shared: dict[Any, Any] = {}
    results: list[Any] = []
    faulty: list[dict[str, Any]] = []  # the counted records with a fault: what fault_rows reads
    penalised: list[dict[str, Any]] = []  # the counted records with a conduct penalty: what penalty_rows reads
    tested: list[dict[str, Any]] = []  # the counted records as sprt.outcomes reads them
    failed: dict[int, dict[str, Any]] = {}
    played: set[int] = set()
    rows = JournalRows()
    resources = st.ResourceTally()  # each entrant's times, CPU and peak memory, over the counted matches
    for rec in st.iter_journal(journal, failures=True):
        kind = rec["type"]
        if kind == "tournament":
            head = head or rec  # the first, as compute_journal takes it (the index: the last)
            rows.add(rec)
        elif kind == "failure":
            if rec["index"] not in played:
                failed[rec["index"]] = {k: v for k, v in rec.items() if k != "traceback"}
        else:
            rows.add(rec)
            played.add(rec["index"])
            failed.pop(rec["index"], None)
            if any(last < rec["index"] < end for last, end in cut):
                continue
            results.append(st.Result(rec, shared))
            resources.add(rec)
            if rec.get("penalties"):
                penalised.append({"seats": rec["seats"], "penalties": rec["penalties"]})
            if rec.get("fault_log"):
                faulty.append({k: rec.get(k) for k in ("index", "key", "seats", "replay", "fault_log")})
            if (head or {}).get("sprt"):
                tested.append({k: rec[k] for k in ("key", "game", "seats", "ranks")})
    table = st.compute(results, st.journal_min_sets(head or {}), st.journal_ties(head or {}))
    table["faults"] = fault_rows(faulty)
    table["penalties"] = penalty_rows(penalised)
    table["resources"] = resources.rows()  # in the files when a record had some
    table["failed"] = [failed[index] for index in sorted(failed)]  # in the files when there are some
    # each SPRT entry's verdict, LLR, bounds and sets
    table["sprt"] = sprt.outcomes(head, tested, decisions) if (head or {}).get("sprt") else []
    return table, rows


def score_notes(registry: Any, games: Any) -> list[str]:
    """What the points of these games are, where their describers say ("<title>: <what>")."""
    from referee.describe import describer_of

    notes = []
    for name in games:
        game = registry.games.get(name)
        note = describer_of(game).score_note() if game is not None else None
        if note:
            notes.append(f"{game.title}: {note}")
    return notes


def index_page(out: Path, registry: Any, standings: dict[str, Any], jobs: int, viewers: bool,
               progress: Callable[[int, int], None] | None = None, read: Any = None) -> Path:
    """Write the output directory's index.html from the standings (`write_index`); an OSError
    as one line (DiskFull for a full disk): the journal and standings are whole, and the index
    can be built again."""
    from referee.tournament.index import write_index

    try:
        return write_index(out, registry, standings, progress=progress, jobs=jobs, viewers=viewers, read=read)
    except OSError as exc:
        full = full_disk(exc)
        if full is not None:
            raise DiskFull.of(full, out, f"build the index with `referee replay --index {out}`") from None
        raise RefereeError(f"cannot write the index into {str(out)!r}: {exc.strerror or exc}") from None
