"""The `referee` command line. The only module that turns exceptions into output and exit codes.

Heavy imports (rich, the plugins) happen inside the commands, so `referee --help` stays fast.
"""

from __future__ import annotations

import os
import random
import sys
from contextlib import ExitStack, contextmanager, nullcontext
from pathlib import Path
from typing import Annotated, Optional

import typer

from referee.limits import MAX_CONCURRENCY, MAX_FAULT_COUNT, MAX_MS

app = typer.Typer(
    name="referee",
    help="Referee and match runner for card-game bots: the games of every installed plugin (see `referee games`).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)

_state: dict[str, object] = {"plugins_dir": None}


def _version(value: bool) -> None:
    """--version: the referee's version and protocol, then exit (before any command is needed)."""
    if value:
        from referee import PROTOCOL_VERSION, __version__

        typer.echo(f"referee {__version__} (protocol {PROTOCOL_VERSION})")
        raise typer.Exit(0)


@app.callback()
def _main(
    plugins_dir: Annotated[
        Optional[str],
        typer.Option(
            "--plugins-dir",
            envvar="REFEREE_PLUGINS_DIR",
            metavar="<path>",
            help="Also load every .py file in this directory as a plugin.",
        ),
    ] = None,
    version: Annotated[
        bool, typer.Option("--version", is_eager=True, callback=lambda value: _version(value),
                           help="Print the referee's version and protocol, and exit.")
    ] = False,
) -> None:
    """Referee and match runner for card-game bots."""
    if plugins_dir is not None and not plugins_dir.strip():
        # Path("") is ".": an empty value (an unset shell variable) must not load the files of
        # the current directory, which may be the bots being judged.
        typer.echo("error: --plugins-dir is empty (REFEREE_PLUGINS_DIR too, if set): give a directory", err=True)
        raise typer.Exit(2)
    _state["plugins_dir"] = plugins_dir


@contextmanager
def _errors():
    """Turn the referee's own errors into a one-line message and an exit code."""
    from referee.errors import PluginError, RefereeError, UsageError

    try:
        yield
    except UsageError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    except PluginError as exc:
        typer.echo(f"plugin error: {exc}", err=True)
        raise typer.Exit(1) from None
    except RefereeError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from None


_managers: dict[str | None, object] = {}


def _plugin_manager(plugins_dir=None):
    """The plugin manager for `plugins_dir` (default: the --plugins-dir option), built once per
    process: plugin files are executed once, not again for each use."""
    from referee.plugins import get_plugin_manager

    if plugins_dir is None:
        plugins_dir = _state["plugins_dir"]
    key = str(Path(plugins_dir)) if plugins_dir else None
    if key not in _managers:
        _managers[key] = get_plugin_manager(key)
    return _managers[key]


def _registry():
    from referee.plugins import build_registry

    return build_registry(_plugin_manager())


def _console():
    from rich.console import Console

    class OurConsole(Console):
        def on_broken_pipe(self) -> None:
            # rich exits 1 silently when the reader of stdout has gone: say why, once, and how to go on
            _stdout_closed()
            super().on_broken_pipe()

    # Not a terminal (a log, a pipe): COLUMNS if set, else wide enough for every table instead of
    # rich's 80 columns.
    columns = os.environ.get("COLUMNS", "")
    width = int(columns) if columns.isdigit() and int(columns) > 0 else 120
    return OurConsole(width=None if sys.stdout.isatty() else width)


@app.command()
def games() -> None:
    """List the installed games."""
    from rich.table import Table

    with _errors():
        registry = _registry()
        table = Table(title="Games")
        for col in ("name", "title", "players", "options", "plugin"):
            table.add_column(col, overflow="fold")
        for name, game in sorted(registry.games.items()):
            players = (
                str(game.min_players)
                if game.min_players == game.max_players
                else f"{game.min_players}-{game.max_players}"
            )
            table.add_row(name, game.title, players, ", ".join(o.name for o in game.options),
                          registry.game_plugins[name])
        _console().print(table)


@app.command()
def strategies() -> None:
    """List the installed in-process strategies (usable as --player NAME)."""
    from rich.table import Table

    with _errors():
        registry = _registry()
        table = Table(title="Strategies")
        for col in ("name", "games", "description", "plugin"):
            table.add_column(col, overflow="fold")
        for name, entry in sorted(registry.strategies.items()):
            table.add_row(name, ", ".join(entry.games) if entry.games else "any", entry.help, entry.plugin)
        _console().print(table)


@app.command()
def plugins() -> None:
    """List the loaded plugins with their versions and the hooks they implement."""
    from rich.table import Table

    from referee.plugins import plugin_versions

    with _errors():
        pm = _plugin_manager()
        versions = plugin_versions(pm)
        table = Table(title="Plugins")
        for col in ("name", "version", "hooks"):
            table.add_column(col, overflow="fold")
        for plugin in pm.get_plugins():
            name = pm.get_name(plugin)
            hooks = sorted(h.name for h in pm.get_hookcallers(plugin) or [])
            table.add_row(name, versions.get(name) or "-", ", ".join(hooks))
        _console().print(table)


@app.command()
def rules(game: Annotated[str, typer.Argument(help="A game name, as `referee games` lists them.")]) -> None:
    """Show a game's rules summary and every configuration key with its default."""
    from rich.table import Table

    with _errors():
        g = _registry().game(game)
        console = _console()
        players = str(g.min_players) if g.min_players == g.max_players else f"{g.min_players}-{g.max_players}"
        console.print(f"[bold]{g.title}[/bold] ({g.name}, {players} players)\n")
        console.print(g.summary.strip() + "\n", highlight=False, markup=False)
        table = Table(title="Options (set with --set KEY=VALUE)")
        for col in ("key", "type", "default", "allowed", "meaning"):
            table.add_column(col, overflow="fold")
        for o in g.options:
            if o.choices is not None:
                allowed = ", ".join(str(c) for c in o.choices)
            elif o.min is not None or o.max is not None:
                allowed = f"{'' if o.min is None else o.min}..{'' if o.max is None else o.max}"
            else:
                allowed = ""
            default = str(o.default).lower() if isinstance(o.default, bool) else str(o.default)
            table.add_row(o.name, o.type.__name__, default, allowed, o.help)
        console.print(table)


@app.command()
def play(
    game: Annotated[str, typer.Argument(help="The game to play (see `referee games`).")],
    player: Annotated[
        list[str],
        typer.Option(
            "--player", "-p",
            metavar="SPEC",
            help="A seat, in seat order: a strategy name (see `referee strategies`), `human` (you, at this terminal) or a command line "
            "run as a subprocess bot. Repeat once per seat.",
        ),
    ],
    seed: Annotated[Optional[int], typer.Option(help="The match seed (default: a random one, printed).")] = None,
    set_: Annotated[
        list[str], typer.Option("--set", metavar="KEY=VALUE", help="A game option, KEY=VALUE (see `referee rules GAME`). Repeatable.")
    ] = [],
    move_ms: Annotated[int, typer.Option(min=1, max=MAX_MS, help="Time limit per decision, in ms.")] = 1000,
    start_ms: Annotated[int, typer.Option(min=1, max=MAX_MS,
                                          help="Time limit for a bot to answer hello, in ms.")] = 5000,
    max_faults: Annotated[int, typer.Option(min=1, max=MAX_FAULT_COUNT,
                                            help="Faults before a bot is disqualified.")] = 1,
    out: Annotated[
        Optional[Path], typer.Option(help="Replay file to write (default: matches/<match id>.jsonl).")
    ] = None,
    log_protocol: Annotated[
        Optional[Path], typer.Option(help="Write every line exchanged with the external bots to this file "
                                     "('<seat> > line' sent, '<seat> < line' received).")
    ] = None,
    sandbox: Annotated[
        str, typer.Option(metavar="none|bwrap", help="Run external bots in the bubblewrap sandbox (no network, "
                          "nothing of this machine but its system files and the bot's own, no capability, "
                          "own PID namespace; see docs/security.md). Without it a warning is printed.")
    ] = "none",
) -> None:
    """Play one match and print the result; writes the replay and the bots' stderr logs.

    The deal is sealed by a secret key (REFEREE_DEAL_KEY, else a fresh one): pin the key to
    repeat a seed exactly (see docs/security.md)."""
    from referee.config import parse_assignments, resolve_config
    from referee.errors import UsageError
    from referee.match import seat_names
    from referee import sealing
    from referee.plugins import build_registry
    from referee.runner import Limits, match_id
    from referee.sandbox import UNSANDBOXED, require

    with _errors():
        pm = _plugin_manager()
        registry = build_registry(pm)
        g = registry.game(game)
        config = resolve_config(g, parse_assignments(set_), len(player))
        seats = seat_names(player, registry)
        if seed is None:
            seed = random.SystemRandom().randrange(2**31)
        if sandbox not in ("none", "bwrap"):
            raise UsageError(f"--sandbox must be none or bwrap, got {sandbox!r}")
        commands = any(s.kind == "command" for s in seats)
        if commands:
            require(sandbox)
        limits = Limits(move_ms=move_ms, start_ms=start_ms, max_faults=max_faults, sandbox=sandbox)
        key = sealing.for_run()
        mid = match_id(g.name, config, seed, [s.spec for s in seats], key)
        replay = out if out is not None else Path("matches") / f"{mid}.jsonl"
        if replay.exists() and replay.is_dir():
            raise UsageError(f"--out {str(replay)!r} is a directory")
        try:
            replay.parent.mkdir(parents=True, exist_ok=True)
        except FileExistsError:
            raise UsageError(f"cannot write the replay {str(replay)!r}: {str(replay.parent)!r} is not a "
                             "directory") from None
        except OSError as exc:
            raise UsageError(f"cannot write the replay {str(replay)!r}: {exc.strerror or exc}") from None
        # the bots' logs: <replay stem>.seat<N>.log ("m.2024-01-01.jsonl.gz" -> "m.2024-01-01")
        stem = Path(replay.name.removesuffix(".gz")).stem or replay.name
        if commands and sandbox == "none":
            typer.echo(f"warning: {UNSANDBOXED}", err=True)
        try:
            result = _play_match(g, config, seed, seats, registry, limits, replay, stem, log_protocol, pm, key)
        except OSError as exc:  # the replay or the protocol log cannot be written (a full disk...)
            raise UsageError(f"cannot write {exc.filename or str(replay)!r}: {exc.strerror or exc}") from None
        except KeyboardInterrupt:  # the bots are gone (run_match closes them); the replay is cut short
            typer.echo(f"interrupted: {replay} holds the moves played so far, without a result", err=True)
            raise typer.Exit(130) from None
        console = _console()
        _print_result(console, result, g)
        console.print(f"replay: {replay}", highlight=False, markup=False)
        if log_protocol is not None:
            console.print(f"protocol log: {log_protocol}", highlight=False, markup=False)


def _play_match(g, config, seed, seats, registry, limits, replay, stem, log_protocol, pm, key):
    """`play`'s match: the players made, the protocol log open for its length; a sandboxed bot
    sees none of the outputs (the replay, the logs, the protocol log), wherever they are."""
    from referee.errors import UsageError
    from referee.match import make_players
    from referee.runner import run_match

    with ExitStack() as stack:
        transcript = None
        if log_protocol is not None:
            try:
                transcript = stack.enter_context(open(log_protocol, "w", encoding="utf-8"))
            except OSError as exc:
                raise UsageError(f"cannot write --log-protocol file: {exc}") from None
        hide = [replay.parent, replay] + ([log_protocol] if log_protocol is not None else [])
        players = make_players(g, config, seed, seats, registry, limits, replay.parent, stem, protocol_log=transcript,
                               key=key, hide=hide)
        _console().print(f"{g.title}: {len(seats)} players, seed {seed}", highlight=False)
        return run_match(g, config, seed, seats, players, limits, replay=replay, hooks=pm.hook, key=key)


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
) -> None:
    """Run a tournament: every scheduled match, a crash-safe journal, standings at the end."""
    import time as _time

    from rich.console import Group
    from rich.live import Live
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
    from rich.text import Text

    from referee import sprt
    from referee import standings as st
    from referee import tournament as tour
    from referee.reporting import match_line
    from referee.tournament_config import load_tournament

    with _errors(), ExitStack() as stack:
        registry = _registry()
        config = load_tournament(file, registry, out=out, concurrency=concurrency, executor=executor,
                                 scheduler=scheduler, shared_out=True if shared_out else None)
        from referee.executors import require

        require(config.executor, config.scheduler)
        stack.enter_context(tour.claim(config.out))  # no other run on this output directory
        todo, done, _ = tour.prepare(config, resume)
        # an SPRT entry (referee/sprt.py) may stop early: the total is what is left to play of it
        gauntlets = sprt.Gauntlets(config)
        for record in done:
            gauntlets.add(record)
        scheduled = sum(len(span) for span in config.spans())
        total = scheduled - gauntlets.unplayed()
        console = _console()
        where = f"{config.concurrency} at once" if config.executor == "local" else "on dask"
        console.print(f"{config.name}: {total} matches{' at most' if gauntlets else ''} ({len(done)} already "
                      f"in the journal), {where}, output in {config.out}", highlight=False, markup=False)
        playing = {name for g in config.games for name in g.entrants}
        if config.bot_limits.get("sandbox", "none") == "none" and any(
                config.entrants[name].command for name in playing):
            from referee.sandbox import UNSANDBOXED

            advice = UNSANDBOXED.replace("--sandbox bwrap", 'sandbox = "bwrap" in [limits]')
            typer.echo(f"warning: {advice}", err=True)
        progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                            TextColumn("faults: {task.fields[faults]}"), TimeRemainingColumn(),
                            console=console)
        task = progress.add_task("matches", total=total, completed=len(done),
                                 faults=sum(sum(r["faults"]) for r in done))
        # The live top is tallied as matches finish (memory grows with the entrants, not the
        # matches); the final standings are computed from the journal, in schedule order.
        live_tally = st.Tally(points=False)
        for record in done:
            live_tally.add(record)
        finished = {"count": len(done), "at": 0.0, "total": total, "shown": len(done), "resumed": len(done),
                    "since": _time.monotonic()}
        del done
        from referee.cli_replay import TournamentVerifier

        verifier = TournamentVerifier(config.out, registry, verify)

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

            try:
                tour.run(config, resume=True, plugins_dir=_state["plugins_dir"], on_result=on_result,
                         on_start=on_start, keep=False,
                         on_warning=lambda text: console.print(f"warning: {text}", highlight=False, markup=False,
                                                              soft_wrap=True))
            except KeyboardInterrupt:
                if interactive:
                    live.stop()
                typer.echo(f"interrupted: {finished['count']} of {finished['total']} matches are in the journal; "
                           "run again with --resume to finish", err=True)
                raise typer.Exit(130) from None
            if not interactive and finished["shown"] != finished["count"]:
                plain_line()
        _, records = st.read_journal(config.out / tour.JOURNAL)
        # the matches of an SPRT entry beyond its deciding set are not counted (timing chose them)
        records = sprt.counted(records, sprt.read_decisions(config.out / tour.JOURNAL))
        table = _show_standings(console, records, config.out, config.name)
        for g in gauntlets:
            for line in g.summary():
                console.print(line, highlight=False, markup=False)
        from referee.replay_html import write_index

        console.print(f"index: {write_index(config.out, registry, table)}", highlight=False, markup=False)
        verifier.report(console)


@app.command()
def standings(
    journal: Annotated[Path, typer.Argument(help="A tournament's journal.jsonl.")],
    out: Annotated[Optional[Path], typer.Option(help="Where to write the standings files "
                                                "(default: beside the journal).")] = None,
) -> None:
    """Recompute a tournament's standings from its journal alone, and write the standings files."""
    from referee import standings as st
    from referee.errors import UsageError

    with _errors():
        if not journal.is_file():
            raise UsageError(f"journal {str(journal)!r} " + ("is a directory (give its journal.jsonl)"
                                                            if journal.is_dir() else "does not exist"))
        head, records = st.read_journal(journal)
        if not records:
            raise UsageError(f"{journal} holds no finished match")
        from referee import sprt

        records = sprt.counted(records, sprt.read_decisions(journal))  # as `referee tournament` counts them
        _show_standings(_console(), records, out or journal.parent, head.get("name", "") if head else "")


def _show_standings(console, records, out_dir: Path, name: str) -> dict:
    """Print the standings of `records` and write the standings files; returns them (computed once:
    the index uses them too)."""
    from referee import head_to_head
    from referee import standings as st

    table = st.compute(records)
    console.print(st.rich_table(table["overall"], f"Standings: {name} ({st.OVERALL_NOTE})", points=False))
    for game, rows in table["games"].items():
        console.print(st.rich_table(rows, f"{game}"))
    for game, pairs in table["head_to_head"].items():
        order = [r.entrant for r in table["games"][game]]
        console.print(head_to_head.rich_table(pairs, f"{game}: head to head", order))
    from referee.reporting import fault_rows, rich_fault_table

    faults = fault_rows(records)
    shown = rich_fault_table(faults)
    if shown is not None:
        console.print(shown)
    table["faults"] = faults
    notes = _score_notes(table["games"])
    try:
        paths = st.write_all(table, out_dir, name, notes)
    except OSError as exc:
        from referee.errors import UsageError

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


def _print_result(console, result, game=None) -> None:
    """`play`'s report: a row per deal in the game's words (its describer's), then the result."""
    from rich.markup import escape
    from rich.table import Table
    from rich.text import Text

    from referee.describe import describer_of

    if result.deals:
        describer = describer_of(game)
        players = len(result.header["players"])
        deals = Table(title="Deals")
        deals.add_column("deal", justify="right")
        for p in result.header["players"]:
            deals.add_column(Text(p["name"]), justify="right")
        for d in result.deals:
            label, cells = describer.deal_summary(d, players)  # text, never markup (but highlighted)
            deals.add_row(escape(label), *[escape(cell) for cell in cells])
        console.print(deals)
    res = result.result
    table = Table(title="Result")
    for col in ("seat", "player", "kind", "score", "rank", "faults"):
        table.add_column(col, overflow="fold")
    for i, p in enumerate(result.header["players"]):
        faults = str(res["faults"][i]) + (" (disqualified)" if i in res["disqualified"] else "")
        table.add_row(str(i), Text(p["name"]), p["kind"], str(res["scores"][i]), str(res["ranks"][i]), faults)
    console.print(table)
    folder = result.replay.parent if result.replay is not None else None
    for f in result.faults:  # a bot's text is never read as markup ("[/]" would stop the CLI)
        console.print(
            f"[red]fault[/red] seat {f.seat} deal {f.deal}{f', act {f.act}' if f.act else ''}: {escape(f.kind)}: "
            f"{escape(f.detail)}" + (f" (raw: {escape(repr(f.raw[:80]))})" if f.raw else ""),
            highlight=False,
        )
        if f.legal:
            console.print(f"  legal: {f.legal}", highlight=False, markup=False)
        if f.hint:
            console.print(f"  fix: {f.hint}", highlight=False, markup=False)
        log = folder / f.log if folder is not None and f.log else None
        if log is not None and log.is_file() and log.stat().st_size:
            console.print(f"  its stderr: {log}", highlight=False, markup=False)


def _load_command_modules() -> None:
    """Import every `referee/cli_*.py`: each adds its own commands to `app` (one feature a module)."""
    import importlib
    import pkgutil

    import referee

    for info in sorted(pkgutil.iter_modules(referee.__path__), key=lambda i: i.name):
        if info.name.startswith("cli_"):
            importlib.import_module(f"referee.{info.name}")


def _load_plugin_commands() -> None:
    """Let plugins add commands (the `register_commands` hook)."""
    from referee.errors import RefereeError

    plugins_dir = os.environ.get("REFEREE_PLUGINS_DIR") or None
    argv = sys.argv[1:]
    i = 0
    while i < len(argv):  # the global option, before typer has parsed anything
        if argv[i] == "--plugins-dir" and i + 1 < len(argv):
            plugins_dir, i = argv[i + 1], i + 2
        elif argv[i].startswith("--plugins-dir="):
            plugins_dir, i = argv[i].split("=", 1)[1], i + 1
        else:
            break  # the command: what follows is its own (a bot's arguments after -- too)
    if plugins_dir is not None and not plugins_dir.strip():
        return  # refused by the option's own check
    try:
        pm = _plugin_manager(plugins_dir)
    except RefereeError:  # reported, once, by the command that needs plugins
        return
    pm.hook.register_commands(cli=app)


_load_command_modules()


def main() -> None:
    """Console-script entry point."""
    _load_plugin_commands()
    try:
        app()
    except BrokenPipeError:  # rich's consoles say so themselves (_console); this is for any other write
        _stdout_closed()
        sys.exit(1)


def _stdout_closed() -> None:
    """Say on stderr that the run stopped because its output was closed (`... | head` ended)."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), 1)  # no second error at exit
    except OSError:
        pass
    resume = " (the journal keeps every finished match: run again with --resume to finish)" \
        if "tournament" in sys.argv[1:] else ""
    sys.stderr.write(f"referee: standard output was closed; stopped{resume}\n")
    sys.stderr.flush()


if __name__ == "__main__":  # pragma: no cover
    main()
