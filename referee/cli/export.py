"""`referee export JOURNAL --format csv|pgn`: a tournament's results for other tools."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from referee.cli.common import _errors, app


@app.command()
def export(
    journal: Annotated[Path, typer.Argument(help="A tournament's journal.jsonl (or its output folder).")],
    format: Annotated[str, typer.Option("--format", metavar="csv|pgn", help="csv: one row per match and seat; "
                                        "pgn: each match as its pairwise games (the seat ahead wins), for Ordo "
                                        "or BayesElo, which take those games as independent (see "
                                        "docs/tournaments.md).")] = "csv",
    out: Annotated[Optional[Path], typer.Option(metavar="FILE", help="Write here (default: stdout).")] = None,
) -> None:
    """Export a tournament's counted matches as CSV or PGN."""
    from referee.errors import UsageError
    from referee.tournament.export import FORMATS
    from referee.tournament.export import export as run_export

    with _errors():
        if format not in FORMATS:
            raise UsageError(f"--format must be one of {', '.join(FORMATS)}, got {format!r}")
        if journal.is_dir():
            journal = journal / "journal.jsonl"
        if not journal.is_file():
            raise UsageError(f"{str(journal)!r} is no tournament journal (no such file)")
        if out is None:
            run_export(journal, format, sys.stdout)
            return
        tmp = out.with_name(out.name + ".partial")
        try:
            with open(tmp, "w", encoding="utf-8", newline="") as f:
                count = run_export(journal, format, f)
            tmp.replace(out)
        except OSError as exc:
            tmp.unlink(missing_ok=True)
            raise UsageError(f"cannot write {str(out)!r}: {exc.strerror or exc}") from None
        typer.echo(f"{count} matches written to {out}", err=True)
