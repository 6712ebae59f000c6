"""`referee validate GAME -- CMD ...`: check a submitted bot (see referee/validate.py)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from referee.cli.common import _console, _errors, _registry, app
from referee.bots.limits import MAX_CPU_S, MAX_MEMORY_MB, MAX_MS


@app.command()
def validate(
    game: Annotated[str, typer.Argument(help="The game to validate the bot for (see `referee games`).")],
    command: Annotated[
        list[str], typer.Argument(help="The bot's command line, after `--` (e.g. -- python3 mybot.py).")
    ],
    seeds: Annotated[int, typer.Option(min=1, help="Seeds per variant, table size and seat.")] = 1,
    seed: Annotated[int, typer.Option(help="The first seed.")] = 1,
    move_ms: Annotated[int, typer.Option(min=1, max=MAX_MS, help="Time limit per decision, in ms.")] = 1000,
    start_ms: Annotated[int, typer.Option(min=1, max=MAX_MS, help="Time limit for the bot to answer hello, "
                                          "in ms.")] = 5000,
    sandbox: Annotated[
        str, typer.Option(metavar="bwrap|none", help="'bwrap' (the default: validate is for strangers' code): "
                          "run the bot in the bubblewrap sandbox (no network, nothing of this machine but "
                          "its system files and the bot's own, no capability; see docs/security.md), which "
                          "also catches escapes; 'none': plain resource limits only.")
    ] = "bwrap",
    memory_mb: Annotated[int, typer.Option(min=0, max=MAX_MEMORY_MB, help="Address space limit of the bot's processes, "
                                           "in MB (0: none).")] = 2048,
    cpu_s: Annotated[int, typer.Option(min=0, max=MAX_CPU_S, help="CPU seconds limit of each bot process (0: none).")] = 600,
    max_failed: Annotated[
        int, typer.Option(min=0, help="Stop after this many matches with a fault (0: play them all).")
    ] = 3,
    json_out: Annotated[
        Optional[str], typer.Option("--json", metavar="FILE", help="Also write the report as JSON to this file ('-': stdout, "
                                    "instead of the text report).")
    ] = None,
) -> None:
    """Play a bot in every seat against the reference strategies over every variant; report
    protocol conformance, faults, move times and results. Exit 0 only if it made no fault."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from referee.errors import UsageError
    from referee.match import parse_command
    from referee.runner import Limits
    from referee.bots.sandbox import SANDBOXES, require
    from referee.validate import battery, references, run_validation, table_sizes

    with _errors():
        if sandbox not in SANDBOXES:
            raise UsageError(f"--sandbox must be one of {', '.join(SANDBOXES)}, got {sandbox!r}")
        require(sandbox, "validate runs the bot in the sandbox (--sandbox bwrap, the default)")
        registry = _registry()
        g = registry.game(game)
        if not command:
            raise UsageError(f"validate needs the bot's command after --, e.g. referee validate {game} -- "
                             "python3 mybot.py")
        argv = parse_command(" ".join(_quote(a) for a in command))
        if json_out not in (None, "-"):  # refused now, not after the whole battery
            target = Path(json_out)
            if target.is_dir() or not target.parent.is_dir() or not os.access(target.parent, os.W_OK):
                raise UsageError(f"cannot write --json file {json_out!r}: "
                                 + ("it is a directory" if target.is_dir() else "its directory is missing or not writable"))
        limits = Limits(move_ms=move_ms, start_ms=start_ms, sandbox=sandbox, memory_mb=memory_mb, cpu_s=cpu_s)
        cases = battery(g, registry, seeds, seed)
        err = Console(stderr=True)
        to_stdout = json_out == "-"
        console = err if to_stdout else _console()
        console.print(f"Validating {' '.join(argv)!r} on {g.name}: {len(cases)} matches "
                      f"({len(g.variants())} variants, tables of {', '.join(map(str, table_sizes(g)))}, "
                      f"against {', '.join(references(g, registry))} in turn, every seat, {seeds} seed"
                      f"{'s' if seeds > 1 else ''})", highlight=False, markup=False)
        progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                            TextColumn("faulted: {task.fields[failed]}"), TimeElapsedColumn(),
                            console=err, transient=True)
        with progress:
            task = progress.add_task("matches", total=len(cases), failed=0)

            def on_match(done, total, case, faulted):
                progress.update(task, completed=done,
                                failed=progress.tasks[0].fields["failed"] + (1 if faulted else 0))

            try:
                report = run_validation(g, registry, argv, limits, seeds=seeds, base_seed=seed,
                                        max_failed=max_failed, on_match=on_match, cases=cases)
            except KeyboardInterrupt:
                progress.stop()
                typer.echo(f"interrupted after {progress.tasks[0].completed} of {len(cases)} matches: no report",
                           err=True)
                raise typer.Exit(130) from None
        if not to_stdout:
            print_report(console, report)  # first: a --json file that fails to write loses nothing
        if json_out is not None:
            text = json.dumps(report, indent=2, ensure_ascii=True) + "\n"
            if to_stdout:
                sys.stdout.write(text)
            else:
                try:
                    Path(json_out).write_text(text, encoding="utf-8")
                except OSError as exc:
                    raise UsageError(f"cannot write --json file: {exc}") from None
                console.print(f"report: {json_out}", highlight=False, markup=False)
    raise typer.Exit(0 if report["passed"] else 1)


def _quote(arg: str) -> str:
    import shlex

    return shlex.quote(arg)


def _safe(text: Any) -> str:
    """Text from a bot, printable whatever it holds (lone surrogates, control characters), and
    escaped for rich: a bot's "[/]" is shown as it is, never read as markup."""
    from rich.markup import escape

    s = str(text).encode("utf-8", "replace").decode("utf-8")
    return escape("".join(ch if ch.isprintable() or ch == " " else "?" for ch in s))


def print_report(console, report: dict[str, Any]) -> None:
    """The report for a person: conformance, faults, move times, results, the verdict."""
    from rich.table import Table

    def mark(ok: bool) -> str:
        return "[green]ok[/green]" if ok else "[red]FAIL[/red]"

    p = report["protocol"]
    m = report["matches"]
    console.print(f"\n{m['played']} of {m['planned']} matches played in {report['seconds']} s"
                  + (f", stopped early after {m['with_faults']} matches with faults" if m["stopped_early"] else "")
                  + (", in the bwrap sandbox" if report["sandbox"]["used"] else ""), highlight=False)

    table = Table(title="Protocol conformance")
    for col in ("check", "verdict", "details"):
        table.add_column(col)
    hs = p["handshake"]
    names = ", ".join(_safe(n) for n in hs["names"]) or "-"
    table.add_row("handshake", mark(hs["ok"]), f"{hs['ready']} ready, {hs['failed']} failed; name: {names}")
    ids = p["ids"]
    table.add_row("ids", mark(ids["ok"]), f"{ids['stale_replies']} replies to old ids, "
                  f"{ids['unasked_ids']} to ids never asked, {ids['late_ready']} late ready")
    fr = p["framing"]
    table.add_row("framing", mark(fr["ok"]), f"{fr['lines']} lines, {fr['blank_lines']} blank, "
                  f"{fr['invalid_lines']} invalid ({fr['too_long']} too long, {fr['not_json']} not JSON objects)")
    console.print(table)

    faults = report["faults"]["by_kind"]
    if faults:
        table = Table(title="Faults by kind (first examples)")
        for col in ("kind", "count", "match", "detail", "raw / stderr"):
            table.add_column(col, overflow="fold")
        for kind, entry in faults.items():
            for i, ex in enumerate(entry["examples"]):
                extra = ex["raw"][:80] or ex["stderr_tail"][-160:]
                table.add_row(kind if i == 0 else "", str(entry["count"]) if i == 0 else "", ex["match"],
                              _safe(ex["detail"]), _safe(extra))
        console.print(table)
    else:
        console.print("Faults: none", highlight=False)

    t = report["move_time_ms"]
    console.print(f"Move time: p50 {t['p50']} ms, p95 {t['p95']} ms, max {t['max']} ms over {t['count']} "
                  f"decisions (limit {t['limit']} ms, {t['over_limit']} over it)", highlight=False)

    table = Table(title="Results against the references")
    for col in ("against", "matches", "wins", "mean rank"):
        table.add_column(col)
    for name, row in report["results"]["by_reference"].items():
        table.add_row(name, str(row["matches"]), str(row["wins"]), str(row["mean_rank"]))
    for size, row in report["results"]["by_players"].items():
        table.add_row(f"{size} players", str(row["matches"]), str(row["wins"]), str(row["mean_rank"]))
    o = report["results"]["overall"]
    table.add_row("all", str(o["matches"]), str(o["wins"]), str(o["mean_rank"]))
    console.print(table)

    if report["passed"]:
        console.print("[green]PASSED[/green]: no fault in any match")
    else:
        kinds = ", ".join(f"{k} ({v['count']})" for k, v in faults.items()) or "the battery did not finish"
        console.print(f"[red]FAILED[/red]: {kinds}")
