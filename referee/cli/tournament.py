"""`referee tournament` and `referee standings`: a run with its live display, and the standings
files (computed once: the index uses them too)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from referee.bots.limits import MAX_CONCURRENCY
from referee.cli.common import _console, _errors, _plugins_dir, _registry, app


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
    from referee.tournament.config import load_tournament
    from referee.tournament.driver import Tournament

    with _errors():
        registry = _registry()
        config = load_tournament(file, registry, out=out, concurrency=concurrency, executor=executor,
                                 scheduler=scheduler, shared_out=True if shared_out else None)
        signer = None
        if sign_key is not None:
            from referee.signing import load_signer

            signer = load_signer(sign_key)
        run = Tournament(config, registry, resume=resume, plugins_dir=_plugins_dir(), signer=signer, verify=verify)
        _show(run, _console())


def _show(run: Any, console: Any) -> None:
    """Display a tournament's events as they come: the plan, a line per finished match (a live bar
    and the top of the standings on a terminal, a plain line now and then elsewhere), the
    standings, the SPRT summaries, the index; exit 130 on Ctrl-C, 1 if a replay failed --verify,
    3 if a match failed on the referee's side (the standings leave it out)."""
    from referee.tournament import events as ev

    view = _View(run, console)
    try:
        with view:
            for event in run:
                view.show(event)
    except KeyboardInterrupt:
        typer.echo(f"interrupted: {view.done} of {view.total} matches are in the journal; "
                   "run again with --resume to finish", err=True)
        raise typer.Exit(130) from None
    finished = view.finished
    assert isinstance(finished, ev.Finished)
    console.print(f"index: {finished.index}", highlight=False, markup=False)
    try:
        _report_verified(console, finished.verified)
    finally:
        _failures_reported(console, finished.standings.get("failed"))  # exit 3 rather than verify's 1


class _View:
    """The terminal side of `referee tournament`: what it shows of each event, and only that."""

    def __init__(self, run: Any, console: Any) -> None:
        self.run, self.console = run, console
        self.interactive = console.is_terminal
        self.done = self.total = self.shown = 0
        self.at = 0.0  # when the live display (or the plain line) was last drawn
        self.every = 1
        self.live: Any = None
        self.progress: Any = None
        self.task: Any = None
        self.pages: Any = None  # the index's bar (a terminal only)
        self.plain = False  # a plain line was printed for the last match
        self.finished: Any = None

    def __enter__(self) -> "_View":
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop()

    def _stop(self) -> None:
        if self.live is not None:
            self.live.stop()
            self.live = None
        if self.pages is not None:
            self.pages.__exit__(None, None, None)
            self.pages = None

    def say(self, text: str) -> None:
        """A line above the live display on a terminal, else on its own."""
        (self.live.console if self.live is not None else self.console).print(
            text, highlight=False, markup=False, soft_wrap=True)

    def show(self, event: Any) -> None:
        """Display one event."""
        import time

        from referee.tournament import events as ev
        from referee.tournament.reporting import match_line

        console = self.console
        if isinstance(event, ev.Started):
            self._start(event.plan)
        elif isinstance(event, ev.BackendReady):
            if event.kind != "local":
                console.print(f"matches run on {event.description}", highlight=False, markup=False)
        elif isinstance(event, ev.MatchFinished):
            p = event.progress
            self.done, self.total = p.done, p.total
            self.progress.update(self.task, completed=p.done, total=p.total, faults=p.faults)
            # a line per finished match (like cutechess's), above the live display on a terminal
            self.say(match_line(event.record, p.done, p.total, p.eta_s))
            now = time.monotonic()
            self.plain = False
            if self.interactive:
                if now - self.at > 0.5 or p.done == p.total:
                    self._redraw(now)
            # (once an SPRT entry decided, done == total at each of its matches still in play:
            # the last line comes once the run ends)
            elif p.done % self.every == 0 or p.done == p.total and not p.skipped or now - self.at > 30:
                self._plain_line()
                self.plain = True
        elif isinstance(event, ev.SprtStep):
            if event.decided:
                if self.interactive:
                    self._redraw(time.monotonic())
                elif not self.plain:
                    console.print(event.status, highlight=False, markup=False)
        elif isinstance(event, ev.MatchFailed):
            self.say(f"failed: match {event.record['key']} on the referee's side, counted for no one (--resume "
                     f"plays it again): {event.record['error']}")
        elif isinstance(event, ev.Notice):
            # what the run waits for (no Dask worker connected) goes to stdout, like the rest
            self.say(f"warning: {event.text}" if event.kind == "warning" else event.text)
        elif isinstance(event, ev.StandingsWritten):
            if self.live is not None:
                self._stop()
            elif not self.interactive and self.shown != self.done:
                self._plain_line()
            _print_standings(console, event.standings, self.run.config.name)
            console.print("written: " + ", ".join(str(p) for p in event.paths), highlight=False, markup=False)
            for summary in event.sprt_summaries:
                for line in summary:
                    console.print(line, highlight=False, markup=False)
        elif isinstance(event, ev.IndexProgress):
            self._pages(event)
        elif isinstance(event, ev.Finished):
            self._stop()
            self.finished = event

    def _start(self, plan: Any) -> None:
        """The run's first line, the sandbox warning, and the live display (on a terminal)."""
        from rich.live import Live
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        console = self.console
        self.done, self.total, self.shown = plan.done, plan.total, plan.done
        self.every = max(1, plan.total // 20)
        where = f"{plan.concurrency} at once" if plan.executor == "local" else "on dask"
        console.print(f"{plan.name}: {plan.total} matches{' at most' if plan.at_most else ''} ({plan.done} already "
                      f"in the journal), {where}, output in {plan.out}", highlight=False, markup=False)
        if plan.unsandboxed:
            from referee.bots.sandbox import UNSANDBOXED

            advice = UNSANDBOXED.replace("--sandbox bwrap", 'sandbox = "bwrap" in [limits]')
            typer.echo(f"warning: {advice}", err=True)
        self.progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                 TextColumn("faults: {task.fields[faults]}"), TimeRemainingColumn(),
                                 console=console)
        self.task = self.progress.add_task("matches", total=plan.total, completed=plan.done,
                                           faults=plan.faults)
        # In a terminal a live bar and the top of the standings; elsewhere (a log, CI, nohup) a
        # plain line now and then, since a live display is drawn there only at the end.
        if self.interactive:
            self.live = Live(self._view(), console=console, refresh_per_second=4, transient=False)
            self.live.start()

    def _view(self) -> Any:
        """The live display: the bar, each SPRT test's status, the top of the standings."""
        from rich.console import Group
        from rich.text import Text

        from referee.tournament import standings as st

        tests = [Text(line) for line in self.run.sprt_status()]
        top = self.run.live_table()
        if not top:
            return Group(self.progress, *tests)
        return Group(self.progress, *tests, st.rich_table(top, "Top of the standings", limit=5, points=False))

    def _redraw(self, now: float) -> None:
        self.at = now
        if self.live is not None:
            self.live.update(self._view())

    def _plain_line(self) -> None:
        import time

        self.at, self.shown = time.monotonic(), self.done
        self.console.print(f"{self.done} of {self.total} matches played, "
                           f"{self.progress.tasks[0].fields['faults']} faults", highlight=False)
        for line in self.run.sprt_status():
            self.console.print(line, highlight=False, markup=False)

    def _pages(self, event: Any) -> None:
        """The index's viewer pages as a bar on a terminal (gone once the index is written)."""
        if not self.interactive:
            return
        if self.pages is None:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            self.pages = Progress(TextColumn("index: viewer pages"), BarColumn(), MofNCompleteColumn(),
                                  TimeRemainingColumn(), console=self.console, transient=True)
            self.pages.__enter__()
            self.pages_task = self.pages.add_task("pages", total=None)
        self.pages.update(self.pages_task, completed=event.done, total=event.total)


def _report_verified(console: Any, verified: Any) -> None:
    """Print how many replays were verified (`--verify`); exit 1 if one failed."""
    from rich.markup import escape

    if verified is None:
        return
    console.print(f"verified {verified.checked} replays: "
                  f"{'all OK' if not verified.failures else f'{len(verified.failures)} failed'}", highlight=False)
    for failure in verified.failures:
        console.print(f"[red]verify[/red] {escape(failure)}", highlight=False)
    if verified.failures:
        raise typer.Exit(1)


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


@app.command()
def standings(
    journal: Annotated[Path, typer.Argument(help="A tournament's journal.jsonl.")],
    out: Annotated[Optional[Path], typer.Option(help="Where to write the standings files "
                                                "(default: beside the journal).")] = None,
    json_out: Annotated[Optional[str], typer.Option("--json", metavar="FILE", help="Also write the standings "
                                                    "(standings.json's content) to this file ('-': stdout, "
                                                    "instead of the tables).")] = None,
) -> None:
    """Recompute a tournament's standings from its journal alone, and write the standings files."""
    import json

    from referee.tournament import standings as st
    from referee.errors import UsageError
    from referee.cli.common import check_json_target, write_json

    with _errors():
        check_json_target(json_out)
        if not journal.is_file():
            raise UsageError(f"journal {str(journal)!r} " + ("is a directory (give its journal.jsonl)"
                                                            if journal.is_dir() else "does not exist"))
        head = next((r for r in st.iter_journal(journal) if r["type"] == "tournament"), None)
        if next(st.counted_journal(journal), None) is None:
            raise UsageError(f"{journal} holds no finished match")
        from referee.tournament.outputs import standings_files

        console = _console()
        name = head.get("name", "") if head else ""
        table, paths, _ = standings_files(journal, out or journal.parent, name, _registry())
        if json_out is not None:
            data = json.loads(next(p for p in paths if p.name == "standings.json").read_text(encoding="utf-8"))
            if json_out == "-":  # stdout holds the JSON alone
                write_json(console, json_out, data, "standings")
                return
        _print_standings(console, table, name)
        console.print("written: " + ", ".join(str(p) for p in paths), highlight=False, markup=False)
        if json_out is not None:
            write_json(console, json_out, data, "standings")
        for outcome in table["sprt"]:  # the tournament prints its own, longer block (Gauntlet.summary)
            lower, upper = outcome.test.bounds()
            console.print(f"sprt games[{outcome.game_index}] {outcome.focus}: LLR {outcome.llr:.2f} ({lower:.2f}, "
                          f"{upper:.2f}), {outcome.sets} sets: {outcome.result()}", highlight=False, markup=False,
                          soft_wrap=True)
        if table["failed"]:
            _print_failures(console, table["failed"])


def _print_standings(console, table: dict, name: str) -> None:
    """Print the standings `referee.tournament.outputs.standings_files` computed: each game's
    table, the cross-game one where it applies, the head-to-head matrices, the faults."""
    from referee.tournament import head_to_head
    from referee.tournament import standings as st
    from referee.tournament.reporting import rich_fault_table

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
    shown = rich_fault_table(table["faults"])
    if shown is not None:
        console.print(shown)
    for p in table.get("penalties", []):  # conduct penalties (referee.game.penalty), by entrant and reason
        console.print(f"penalised: {p['entrant']}: {p['why']} ({p['ruling']}) {p['times']} times in {p['matches']} "
                      "matches", highlight=False, markup=False)
    if table.get("resources"):  # each entrant's move times, CPU and peak memory (issue 29)
        console.print(st.rich_resources(table["resources"]))
