"""The files a tournament leaves beside its journal once its matches are played: the standings
files (computed once from the journal, counted as `referee tournament` counts them) and the
index page. `referee tournament` and `referee standings` both write them through here."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from referee.errors import DiskFull, RefereeError, UsageError, full_disk


def standings_files(journal: Path, out_dir: Path, name: str, registry: Any) -> tuple[dict[str, Any], list[Path]]:
    """The standings of a journal's counted matches (read in streamed passes: memory never holds
    every record), with their "faults", "failed" and "sprt", and the standings files written
    from them into `out_dir` (DiskFull or UsageError, in one line, if they cannot be)."""
    from referee.tournament import standings as st
    from referee.tournament.reporting import fault_rows

    table = st.compute_journal(journal)
    table["faults"] = fault_rows(st.counted_journal(journal))
    table["failed"] = st.failed_matches(journal)  # in the files when there are some
    table["sprt"] = st.sprt_outcomes(journal)  # each SPRT entry's verdict, LLR, bounds and sets
    try:
        paths = st.write_all(table, out_dir, name, score_notes(registry, table["games"]))
    except OSError as exc:
        full = full_disk(exc)
        if full is not None:
            raise DiskFull.of(full, out_dir, f"run `referee standings {journal}`") from None
        raise UsageError(f"cannot write the standings into {str(out_dir)!r}: {exc.strerror or exc}") from None
    return table, paths


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
               progress: Callable[[int, int], None] | None = None) -> Path:
    """Write the output directory's index.html from the standings (`write_index`); an OSError
    as one line (DiskFull for a full disk): the journal and standings are whole, and the index
    can be built again."""
    from referee.tournament.index import write_index

    try:
        return write_index(out, registry, standings, progress=progress, jobs=jobs, viewers=viewers)
    except OSError as exc:
        full = full_disk(exc)
        if full is not None:
            raise DiskFull.of(full, out, f"build the index with `referee replay --index {out}`") from None
        raise RefereeError(f"cannot write the index into {str(out)!r}: {exc.strerror or exc}") from None
