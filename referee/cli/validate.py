"""`referee validate GAME -- CMD ...`: check a submitted bot (see referee/validate.py)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from referee.cli.common import _console, _errors, _registry, _state, app, check_json_target, write_json
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
    bank_ms: Annotated[int, typer.Option(min=0, max=MAX_MS, help="A time bank per match, in ms: time a decision "
                                         "takes beyond --move-ms is drawn from it (0: none).")] = 0,
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
    out: Annotated[
        Optional[Path], typer.Option(metavar="DIR", help="Keep each failing match's replay and the bot's stderr log "
                                     "here (a new or empty directory; default: a fresh matches/validate-GAME-...; "
                                     "removed again if nothing failed).")
    ] = None,
    sign_key: Annotated[
        Optional[Path], typer.Option(metavar="PATH", help="Sign the replays kept with this private key "
                                     "(`referee keygen PATH`), for `referee verify --key PATH.pub`.")
    ] = None,
) -> None:
    """Play a bot in every seat against the reference strategies over every variant; report
    protocol conformance, faults, move times and results. Exit 0 only if it made no fault."""
    from rich.console import Console
    from referee import sealing
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
        check_json_target(json_out)  # refused now, not after the whole battery
        keep, made = _keep_dir(out, g.name)
        limits = Limits(move_ms=move_ms, start_ms=start_ms, sandbox=sandbox, memory_mb=memory_mb, cpu_s=cpu_s,
                        bank_ms=bank_ms)
        key = sealing.for_run()  # the run's: a reproduce command carries it when it is fresh
        signer = None
        if sign_key is not None:
            from referee.signing import load_signer

            signer = load_signer(sign_key)
        plugins_dir = _state["plugins_dir"]
        program = ["referee", *(["--plugins-dir", str(plugins_dir)] if plugins_dir else [])]
        cases = battery(g, registry, seeds, seed)
        err = Console(stderr=True)
        to_stdout = json_out == "-"
        console = err if to_stdout else _console()
        console.print(f"Validating {' '.join(argv)!r} on {g.name}: {len(cases)} matches "
                      f"({len(g.variants())} variants, tables of {', '.join(map(str, table_sizes(g)))}, "
                      f"against {', '.join(references(g, registry))} in turn, every seat, {seeds} seed"
                      f"{'s' if seeds > 1 else ''})", highlight=False, markup=False)
        report = _played(err, len(cases), keep, made, lambda on_match: run_validation(
            g, registry, argv, limits, seeds=seeds, base_seed=seed, max_failed=max_failed, on_match=on_match,
            cases=cases, key=key, out=keep, program=program, signer=signer))
        _tidy(keep, made)
        if not to_stdout:
            print_report(console, report)  # first: a --json file that fails to write loses nothing
        if json_out is not None:
            write_json(console, json_out, report, "report")
    raise typer.Exit(0 if report["passed"] else 1)


def _played(err: Any, total: int, keep: Path, made: bool, play: Any) -> dict[str, Any]:
    """The battery's report, `play(on_match)` run under a progress bar on `err`; Ctrl-C tidies
    up, says what is kept and exits 130 (no report)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                        TextColumn("faulted: {task.fields[failed]}"), TimeElapsedColumn(),
                        console=err, transient=True)
    with progress:
        task = progress.add_task("matches", total=total, failed=0)

        def on_match(done, total, case, faulted):
            progress.update(task, completed=done,
                            failed=progress.tasks[0].fields["failed"] + (1 if faulted else 0))

        try:
            return play(on_match)
        except KeyboardInterrupt:
            progress.stop()
            kept = keep.is_dir() and any(keep.iterdir())
            _tidy(keep, made)
            typer.echo(f"interrupted after {progress.tasks[0].completed} of {total} matches: no report"
                       + (f" (the failing matches so far are in {keep})" if kept else ""), err=True)
            raise typer.Exit(130) from None


def _keep_dir(out: Path | None, game: str) -> tuple[Path, bool]:
    """Where the failing matches go, and whether validate makes that directory. `--out DIR` is
    checked (and made, if new) before any match: a new or empty directory. The default, a fresh
    `matches/validate-GAME-<time>-<random>`, is made only at the first failure."""
    import secrets
    import time

    from referee.errors import UsageError

    if out is None:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        return Path("matches") / f"validate-{game}-{stamp}-{secrets.token_hex(2)}", True
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {str(out)!r} is not a directory")
    if out.is_dir():
        try:
            if any(out.iterdir()):
                raise UsageError(f"--out {str(out)!r} is not empty (the failing matches of one run go in a "
                                 "directory of their own)")
        except OSError as exc:
            raise UsageError(f"cannot read --out {str(out)!r}: {exc.strerror or exc}") from None
        if not os.access(out, os.W_OK | os.X_OK):
            raise UsageError(f"cannot write in --out {str(out)!r}")
        return out, False
    try:
        out.mkdir(parents=True)
    except OSError as exc:
        raise UsageError(f"cannot make --out {str(out)!r}: {exc.strerror or exc}") from None
    return out, True


def _tidy(keep: Path, made: bool) -> None:
    """Remove the directory of failing matches again when it is empty and validate made it."""
    try:
        if made and keep.is_dir() and not any(keep.iterdir()):
            keep.rmdir()
    except OSError:
        pass


def _quote(arg: str) -> str:
    import shlex

    return shlex.quote(arg)


def _safe(text: Any) -> str:
    """Text from a bot, printable whatever it holds (lone surrogates, control characters), and
    escaped for rich: a bot's "[/]" is shown as it is, never read as markup."""
    from rich.markup import escape

    s = str(text).encode("utf-8", "replace").decode("utf-8")
    return escape("".join(ch if ch.isprintable() or ch == " " else "?" for ch in s))


TAIL_LINES = 12  # lines of a failing match's stderr shown
TAIL_WIDTH = 160  # characters shown of each


def _escaped(line: str) -> str:
    """A line of a bot's stderr shown as it is, its control and unprintable characters escaped
    (`\x1b`, `\t`), and escaped for rich."""
    from rich.markup import escape

    line = line.encode("utf-8", "replace").decode("utf-8")
    return escape("".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in line))


def stderr_lines(tail: str) -> list[str]:
    """The last TAIL_LINES lines of a stderr tail, each cut at TAIL_WIDTH characters, escaped."""
    lines = tail.replace("\r\n", "\n").rstrip("\n").split("\n") if tail.strip() else []
    cut = [line if len(line) <= TAIL_WIDTH else line[:TAIL_WIDTH - 3] + "..." for line in lines[-TAIL_LINES:]]
    return ([f"... ({len(lines) - TAIL_LINES} lines before)"] if len(lines) > TAIL_LINES else []) + \
        [_escaped(line) for line in cut]


def print_failures(console, report: dict[str, Any]) -> None:
    """Each failing match: its faults, the end of the bot's stderr (indented, escaped, capped),
    where its replay and log are kept, and the `referee play` command that plays it again."""
    failures = report.get("failures") or []
    if not failures:
        return
    kept = report.get("kept") or {}
    console.print(f"\nFailing matches ({len(failures)})" + (f", kept in {kept['dir']}" if kept.get("dir") else ""),
                  highlight=False, markup=False, soft_wrap=True)
    if kept.get("error"):
        console.print(f"[yellow]warning[/yellow]: {_escaped(kept['error'])} (give --out DIR)", highlight=False)
    for f in failures:
        console.print(f"[bold]match {f['number']}[/bold]: {_escaped(f['match'])}", highlight=False)
        for fault in f["faults"]:
            where = f"deal {fault['deal']}" + (f", act {fault['act']}" if fault.get("act") else "") \
                if fault["deal"] is not None else "after the match"
            console.print(f"  [red]{fault['kind']}[/red] ({where}): {_escaped(fault['detail'])}", highlight=False)
            if fault.get("hint"):
                console.print(f"    fix: {fault['hint']}", highlight=False, markup=False)
        lines = stderr_lines(f["stderr_tail"])
        if lines:
            console.print("  the bot's stderr, last lines:", highlight=False)
            for line in lines:
                console.print(f"    | {line}", highlight=False, soft_wrap=True)
        if f["replay"]:
            console.print(f"  replay: {f['replay']}", highlight=False, markup=False, soft_wrap=True)
        if f["log"]:
            console.print(f"  stderr log: {f['log']}", highlight=False, markup=False, soft_wrap=True)
        console.print("  play it again (from this directory):", highlight=False)
        console.print(f"    {f['reproduce']}", highlight=False, markup=False, soft_wrap=True)
    if failures[0]["env"]:
        console.print("(REFEREE_DEAL_KEY is this run's own deal key: with it the seed deals the same cards; "
                      "it is never given to the bot)", highlight=False, markup=False)
    elif report.get("deal_key", {}).get("pinned"):
        console.print("(with the same REFEREE_DEAL_KEY as this run: set in your environment, it is not shown)",
                      highlight=False, markup=False)


def print_report(console, report: dict[str, Any]) -> None:
    """The report for a person: conformance, faults, move times, results, the verdict."""
    from rich.markup import escape
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
        for col in ("kind", "count", "match", "detail", "sent"):
            table.add_column(col, overflow="fold")
        for kind, entry in faults.items():
            for i, ex in enumerate(entry["examples"]):
                table.add_row(kind if i == 0 else "", str(entry["count"]) if i == 0 else "", ex["match"],
                              _safe(ex["detail"]), _safe(repr(ex["raw"][:80])) if ex["raw"] else "-")
        console.print(table)
    else:
        console.print("Faults: none", highlight=False)

    t = report["move_time_ms"]
    bank = report["limits"].get("bank_ms")
    banked = f" and a time bank of {bank} ms per match" if bank else ""
    console.print(f"Move time: p50 {t['p50']} ms, p95 {t['p95']} ms, max {t['max']} ms over {t['count']} "
                  f"decisions (limit {t['limit']} ms{banked}, {t['over_limit']} over it)", highlight=False)
    r = report.get("resources") or {}
    if r.get("cpu_s") is not None or r.get("peak_mb") is not None:
        cpu = "-" if r.get("cpu_s") is None else f"{r['cpu_s']:g} s in all, at most {r['cpu_s_max']:g} s in a match"
        peak = "-" if r.get("peak_mb") is None else f"{r['peak_mb']:g} MB"
        console.print(f"Resources: CPU {cpu}; peak memory {peak} (over {r['matches']} matches, measured: "
                      f"{', '.join(r['measured'])})", highlight=False)

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

    print_failures(console, report)  # last: the commands to run next
    for warning in report.get("warnings", []):
        console.print(f"[yellow]warning[/yellow]: {escape(warning)}", highlight=False)
    if report["passed"] and report.get("warnings"):
        console.print("[green]PASSED[/green]: no fault in any match, [yellow]but the bot keeps paying rule "
                      "penalties[/yellow] (above): its results suffer")
    elif report["passed"]:
        console.print("[green]PASSED[/green]: no fault in any match")
    else:
        kinds = ", ".join(f"{k} ({v['count']})" for k, v in faults.items()) or "the battery did not finish"
        console.print(f"[red]FAILED[/red]: {kinds}")
