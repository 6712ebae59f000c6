"""`referee tournament` and `referee standings`: a run with its live display, and the standings
files (computed once: the index uses them too)."""

from __future__ import annotations

import os
from contextlib import ExitStack, contextmanager, nullcontext
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from referee.bots.limits import MAX_CONCURRENCY
from referee.cli.common import _console, _errors, _registry, _state, app, rich_progress


@app.command()
def tournament(
    file: Annotated[Path, typer.Argument(help="The tournament file (see docs/tournaments.md).")] = Path(
        "tournament.toml"
    ),
    concurrency: Annotated[
        Optional[int], typer.Option(min=0, max=MAX_CONCURRENCY, help="Matches played at once, each in its own "
                                    "process; 0: one per core (default: the file's, else one per core).")
    ] = None,
    resume: Annotated[bool, typer.Option(help="Continue an interrupted run: skip what the journal holds.")] = False,
    out: Annotated[Optional[Path], typer.Option(help="Output directory (default: the file's `out`).")] = None,
    executor: Annotated[
        Optional[str], typer.Option(metavar="local|dask", help="Where matches run: local worker processes, or a "
                                    "Dask cluster (needs the dask extra: pip install -e '.[dask]' in the checkout; "
                                    "see docs/distributed.md).")
    ] = None,
    scheduler: Annotated[
        Optional[str], typer.Option(metavar="ADDRESS", help="The Dask scheduler, like tcp://HOST:8786 (default: "
                                    "$DASK_SCHEDULER_ADDRESS, the file's, else a local Dask cluster).")
    ] = None,
    shared_out: Annotated[
        bool, typer.Option("--shared-out", help="The output directory is shared storage every Dask worker "
                           "sees: workers write the replays there themselves.")
    ] = False,
    verify: Annotated[
        bool, typer.Option("--verify", help="Verify each replay as its match ends (see `referee verify`); "
                           "exit 1 if one fails.")
    ] = False,
    sign_key: Annotated[
        Optional[Path], typer.Option(metavar="PATH", help="Sign every replay and journal record with this private "
                                     "key (`referee keygen PATH`); default: the tournament's own sign.key in its "
                                     "output directory, made on its first run. The public key is written there "
                                     "as sign.pub, for `referee verify --key`.")
    ] = None,
) -> None:
    """Run a tournament: every scheduled match, a crash-safe journal, standings at the end."""
    import time as _time

    from rich.console import Group
    from rich.live import Live
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
    from rich.text import Text

    from referee.tournament import sprt
    from referee.tournament import standings as st
    from referee.tournament import run as tour
    from referee.tournament.reporting import match_line
    from referee.tournament.config import load_tournament

    with _errors(), ExitStack() as stack:
        registry = _registry()
        config = load_tournament(file, registry, out=out, concurrency=concurrency, executor=executor,
                                 scheduler=scheduler, shared_out=True if shared_out else None)
        from referee.tournament.executors import require

        require(config.executor, config.scheduler)
        stack.enter_context(tour.claim(config.out))  # no other run on this output directory
        # The journal is read once, streamed (run() is given what prepare() found), and the live
        # display keeps of its records only what it shows: the SPRT tests (an SPRT entry,
        # referee/tournament/sprt.py, may stop early: the total is what is left to play of it),
        # the top of the standings (memory grows with the entrants, not the matches), the faults.
        gauntlets = sprt.Gauntlets(config)
        live_tally = st.Tally(points=False)
        journaled = {"faults": 0}

        def tally(record):
            gauntlets.add(record)
            live_tally.add(record)
            journaled["faults"] += sum(record["faults"])

        signer = None
        if sign_key is not None:
            from referee.signing import load_signer

            signer = load_signer(sign_key)
        prepared = tour.prepare(config, resume, each=tally, signer=signer)
        done = len(prepared.done)
        scheduled = sum(len(span) for span in config.spans())
        total = scheduled - gauntlets.unplayed()
        console = _console()
        where = f"{config.concurrency} at once" if config.executor == "local" else "on dask"
        console.print(f"{config.name}: {total} matches{' at most' if gauntlets else ''} ({done} already "
                      f"in the journal), {where}, output in {config.out}", highlight=False, markup=False)
        playing = {name for g in config.games for name in g.entrants}
        if config.bot_limits.get("sandbox", "none") == "none" and any(
                config.entrants[name].command for name in playing):
            from referee.bots.sandbox import UNSANDBOXED

            advice = UNSANDBOXED.replace("--sandbox bwrap", 'sandbox = "bwrap" in [limits]')
            typer.echo(f"warning: {advice}", err=True)
        progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                            TextColumn("faults: {task.fields[faults]}"), TimeRemainingColumn(),
                            console=console)
        task = progress.add_task("matches", total=total, completed=done, faults=journaled["faults"])
        # The live top is tallied as matches finish; the final standings are computed from the
        # journal, in schedule order.
        finished = {"count": done, "at": 0.0, "total": total, "shown": done, "resumed": done,
                    "since": _time.monotonic()}
        verifier = TournamentVerifier(config.out, registry, verify, prepared.signer)

        def view():
            tests = [Text(g.status()) for g in gauntlets]
            if not finished["count"]:
                return Group(progress, *tests)
            top = live_tally.table()
            return Group(progress, *tests, st.rich_table(top, "Top of the standings", limit=5, points=False))

        # In a terminal a live bar and the top of the standings; elsewhere (a log, CI, nohup) a
        # plain line now and then, since a live display is drawn there only at the end.
        interactive = console.is_terminal
        every = max(1, total // 20)
        with Live(view(), console=console, refresh_per_second=4, transient=False) if interactive \
                else nullcontext() as live:

            def on_result(record):
                verifier.check(record)
                live_tally.add(record)
                decided = gauntlets.add(record)
                finished["count"] += 1
                total = finished["total"] = scheduled - gauntlets.unplayed()
                progress.update(task, advance=1, total=total,
                                faults=progress.tasks[0].fields["faults"] + sum(record["faults"]))
                now = _time.monotonic()
                count = finished["count"]
                # a line per finished match (like cutechess's), above the live display on a terminal
                played = count - finished["resumed"]
                eta = (now - finished["since"]) / played * (total - count) if played and total > count else None
                line = match_line(record, count, total, eta)
                (live.console if interactive else console).print(line, highlight=False, markup=False,
                                                                 soft_wrap=True)
                if interactive:
                    if now - finished["at"] > 0.5 or count == total or decided:
                        finished["at"] = now
                        live.update(view())
                # (once an SPRT entry decided, count == total at each of its matches still in play:
                # the last line comes once the run ends)
                elif count % every == 0 or count == total and not gauntlets.unplayed() or now - finished["at"] > 30:
                    plain_line()
                elif decided:
                    console.print(gauntlets.of(record["index"]).status(), highlight=False, markup=False)

            def plain_line():
                finished["at"], finished["shown"] = _time.monotonic(), finished["count"]
                console.print(f"{finished['count']} of {finished['total']} matches played, "
                              f"{progress.tasks[0].fields['faults']} faults", highlight=False)
                for g in gauntlets:
                    console.print(g.status(), highlight=False, markup=False)

            def on_start(backend):
                if backend.kind != "local":
                    console.print(f"matches run on {backend.description}", highlight=False, markup=False)

            def say(text):
                (live.console if interactive else console).print(text, highlight=False, markup=False,
                                                                 soft_wrap=True)

            def on_failure(record):
                say(f"failed: match {record['key']} on the referee's side, counted for no one (--resume plays "
                    f"it again): {record['error']}")

            try:
                # what the run waits for (no Dask worker connected) goes to stdout, like the rest
                tour.run(config, resume=resume, plugins_dir=_state["plugins_dir"], on_result=on_result,
                         on_start=on_start, keep=False, prepared=prepared,
                         on_warning=lambda text: say(f"warning: {text}"), on_note=say, on_failure=on_failure)
            except KeyboardInterrupt:
                if interactive:
                    live.stop()
                typer.echo(f"interrupted: {finished['count']} of {finished['total']} matches are in the journal; "
                           "run again with --resume to finish", err=True)
                raise typer.Exit(130) from None
            if not interactive and finished["shown"] != finished["count"]:
                plain_line()
        del prepared  # its indices: no use now
        # streamed from the journal; the matches of an SPRT entry beyond its deciding set are not
        # counted (timing chose them)
        table = _show_standings(console, config.out / tour.JOURNAL, config.out, config.name)
        for g in gauntlets:
            for line in g.summary():
                console.print(line, highlight=False, markup=False)
        from referee.replay.index import write_index

        with rich_progress(console) as progress, _writing_index(config.out):  # a bar on a terminal
            # the pages on as many processes as the matches ran on (all cores after a Dask run)
            jobs = config.concurrency if config.executor == "local" and config.concurrency > 0 else os.cpu_count()
            path = write_index(config.out, registry, table, progress=progress, jobs=jobs or 1,
                               viewers=config.output.viewers)
        console.print(f"index: {path}", highlight=False, markup=False)
        try:
            verifier.report(console)
        finally:
            _failures_reported(console, table.get("failed"))  # exit 3 rather than verify's 1


def _failures_reported(console, failed) -> None:
    """Say how many matches failed on the referee's side (`_print_failures`), and end the run
    with RefereeFailure (exit 3) if any did: the standings leave them out."""
    from referee.errors import RefereeFailure

    if not failed:
        return
    _print_failures(console, failed)
    n = len(failed)
    raise RefereeFailure(f"{n} {'match' if n == 1 else 'matches'} failed on the referee's side (see above): the "
                         "standings leave them out; once the cause is fixed, run again with --resume, which plays "
                         "them again")


def _print_failures(console, failed) -> None:
    """How many matches failed on the referee's side, by error (the first line of each), with
    the first keys of each group."""
    from referee.tournament.standings import failure_groups

    n = len(failed)
    console.print(f"{n} {'match' if n == 1 else 'matches'} failed on the referee's side, counted for no one "
                  "(the journal keeps each traceback):", highlight=False, markup=False)
    for error, keys in failure_groups(failed):
        shown = ", ".join(keys[:3]) + (f", ... ({len(keys) - 3} more)" if len(keys) > 3 else "")
        console.print(f"  {len(keys)} x {error} ({shown})", highlight=False, markup=False, soft_wrap=True)


@contextmanager
def _writing_index(out: Path):
    """An OSError writing the index under `out` as one line (DiskFull for a full disk): the
    journal and standings are whole, and the index can be built again."""
    from referee.errors import DiskFull, RefereeError, full_disk

    try:
        yield
    except OSError as exc:
        full = full_disk(exc)
        if full is not None:
            raise DiskFull.of(full, out, f"build the index with `referee replay --index {out}`") from None
        raise RefereeError(f"cannot write the index into {str(out)!r}: {exc.strerror or exc}") from None


@app.command()
def standings(
    journal: Annotated[Path, typer.Argument(help="A tournament's journal.jsonl.")],
    out: Annotated[Optional[Path], typer.Option(help="Where to write the standings files "
                                                "(default: beside the journal).")] = None,
) -> None:
    """Recompute a tournament's standings from its journal alone, and write the standings files."""
    from referee.tournament import standings as st
    from referee.errors import UsageError

    with _errors():
        if not journal.is_file():
            raise UsageError(f"journal {str(journal)!r} " + ("is a directory (give its journal.jsonl)"
                                                            if journal.is_dir() else "does not exist"))
        head = next((r for r in st.iter_journal(journal) if r["type"] == "tournament"), None)
        if next(st.counted_journal(journal), None) is None:
            raise UsageError(f"{journal} holds no finished match")
        console = _console()
        table = _show_standings(console, journal, out or journal.parent, head.get("name", "") if head else "")
        for outcome in table["sprt"]:  # the tournament prints its own, longer block (Gauntlet.summary)
            lower, upper = outcome.test.bounds()
            console.print(f"sprt games[{outcome.game_index}] {outcome.focus}: LLR {outcome.llr:.2f} ({lower:.2f}, "
                          f"{upper:.2f}), {outcome.sets} sets: {outcome.result()}", highlight=False, markup=False,
                          soft_wrap=True)
        if table["failed"]:
            _print_failures(console, table["failed"])


def _show_standings(console, journal: Path, out_dir: Path, name: str) -> dict:
    """Print the standings of a journal's counted matches (as `referee tournament` counts them,
    read in streamed passes: memory never holds every record) and write the standings files;
    returns them (computed once: the index uses them too)."""
    from referee.tournament import head_to_head
    from referee.tournament import standings as st

    table = st.compute_journal(journal)
    few = st.few_sets(table)  # why a range is "-" (issue 26)
    for game, rows in table["games"].items():  # each game's standings lead (issue 26)
        console.print(st.rich_table(rows, f"Standings: {name}: {game}", note=few.get(game)))
    across = st.across_games(table["overall"], table["games"])
    if across is not None:
        console.print(st.rich_table(across, f"Standings: {name} ({st.ACROSS_NOTE})", points=False,
                                    note=st.overall_note(table)))
    for game, pairs in table["head_to_head"].items():
        order = [r.entrant for r in table["games"][game]]
        console.print(head_to_head.rich_table(pairs, f"{game}: head to head", order,
                                              min_sets=table["min_sets"][game]))
    for line in st.fit_lines(table):  # each game's goodness of fit, the model of ties (issue 26)
        console.print(line, style="bold yellow" if "does not fit" in line else "italic", highlight=False,
                      markup=False)
    from referee.tournament.reporting import fault_rows, rich_fault_table

    faults = fault_rows(st.counted_journal(journal))
    shown = rich_fault_table(faults)
    if shown is not None:
        console.print(shown)
    table["faults"] = faults
    table["failed"] = st.failed_matches(journal)  # in the files when there are some
    table["sprt"] = st.sprt_outcomes(journal)  # each SPRT entry's verdict, LLR, bounds and sets
    notes = _score_notes(table["games"])
    try:
        paths = st.write_all(table, out_dir, name, notes)
    except OSError as exc:
        from referee.errors import DiskFull, UsageError, full_disk

        full = full_disk(exc)
        if full is not None:
            raise DiskFull.of(full, out_dir, f"run `referee standings {journal}`") from None
        raise UsageError(f"cannot write the standings into {str(out_dir)!r}: {exc.strerror or exc}") from None
    console.print("written: " + ", ".join(str(p) for p in paths), highlight=False, markup=False)
    return table


def _score_notes(games) -> list[str]:
    """What the points of these games are, where their describers say ("<title>: <what>")."""
    from referee.describe import describer_of

    registry = _registry()
    notes = []
    for name in games:
        game = registry.games.get(name)
        note = describer_of(game).score_note() if game is not None else None
        if note:
            notes.append(f"{game.title}: {note}")
    return notes


class TournamentVerifier:
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

    def report(self, console) -> None:
        """Print how many replays were verified; exit 1 if one failed."""
        from rich.markup import escape

        if not self.enabled:
            return
        console.print(f"verified {self.checked} replays: "
                      f"{'all OK' if not self.failures else f'{len(self.failures)} failed'}", highlight=False)
        for failure in self.failures:
            console.print(f"[red]verify[/red] {escape(failure)}", highlight=False)
        if self.failures:
            raise typer.Exit(1)
