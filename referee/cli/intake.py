"""`referee intake SUBMISSION... --game GAME`: take contest submissions in (referee/intake/run.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from referee.cli.common import _console, _errors, _registry, app, check_json_target, write_json


@app.command()
def intake(
    submissions: Annotated[list[Path], typer.Argument(
        help="Submissions: archives (.zip, .tar, .tar.gz, .tgz) or folders holding bot.toml; a folder "
             "without bot.toml holds submissions.")],
    game: Annotated[str, typer.Option(help="The game the submissions play (see `referee games`).")],
    out: Annotated[Optional[Path], typer.Option(metavar="DIR", help="The intake's folder (default: "
                                                "matches/intake-GAME); a later intake into it adds to it.")] = None,
    json_out: Annotated[Optional[str], typer.Option("--json", metavar="FILE", help="Also write the summary as "
                                                    "JSON to this file ('-': stdout, instead of the table).")] = None,
    jobs: Annotated[int, typer.Option(min=1, max=64, help="Submissions built and validated at once.")] = 2,
    seeds: Annotated[int, typer.Option(min=1, help="The validation battery's seeds per case.")] = 1,
    sandbox: Annotated[str, typer.Option(metavar="bwrap|none", help="Where submissions are validated: 'bwrap' "
                                         "(the default: strangers' code); builds always run in the sandbox.")] = "bwrap",
) -> None:
    """Unpack, build and validate every submission; a report per submission and a summary.
    Exit 0 only if every submission was accepted."""
    from rich.table import Table

    from referee.bots.sandbox import SANDBOXES, require
    from referee.errors import UsageError
    from referee.intake.run import Options, find
    from referee.intake.run import intake as take_in

    with _errors():
        if sandbox not in SANDBOXES:
            raise UsageError(f"--sandbox must be one of {', '.join(SANDBOXES)}, got {sandbox!r}")
        require("bwrap", "intake builds each submission in the sandbox")
        registry = _registry()
        g = registry.game(game)
        check_json_target(json_out)
        find(submissions)  # refused now, before any folder is made
        target = out if out is not None else Path("matches") / f"intake-{g.name}"
        _check_open(target)
        console = _console()
        to_stdout = json_out == "-"

        def on_event(stage, sub) -> None:
            if stage == "done" and not to_stdout:
                r = sub.report
                console.print(f"{r['submission']}: {r['status']}"
                              + (f" ({r['stage']}: {r['reason']})" if r["status"] != "accepted" else ""),
                              highlight=False, markup=False, soft_wrap=True)

        summary = take_in(submissions, g, registry, target, Options(jobs=jobs, seeds=seeds, sandbox=sandbox),
                          on_event=on_event)
        if not to_stdout:
            table = Table(title=f"Intake: {g.name} ({summary['accepted']} accepted, {summary['rejected']} rejected)")
            for col in ("submission", "name", "author", "version", "status", "reason"):
                table.add_column(col)
            for r in summary["submissions"]:
                table.add_row(*(str(r[c] or "") for c in ("submission", "name", "author", "version", "status",
                                                           "reason")))
            console.print(table)
            console.print(f"reports: {target / 'index.html'}", highlight=False, markup=False, soft_wrap=True)
        if json_out is not None:
            write_json(console, json_out, summary, "summary")
    raise typer.Exit(0 if summary["rejected"] == 0 else 1)


def _check_open(target: Path) -> None:
    """As root the sandboxed builds and bots run under uids of their own: the intake's folder must
    be reachable by other users (UsageError naming the closed folder)."""
    from referee.bots.sandbox import closed_to_bots
    from referee.errors import UsageError

    folder = closed_to_bots(target)
    if folder is not None:
        raise UsageError(f"the intake's folder {str(target)!r} lies in {str(folder)!r}, which other users "
                         "cannot enter: as root, sandboxed submissions run as users of their own; choose "
                         "--out elsewhere")
