"""The `referee` command line: the typer app, its global options, and what every command shares
(the only place that turns exceptions into output and exit codes: `_errors`).

Heavy imports (rich, the plugins) happen inside the commands, so `referee --help` stays fast.
"""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from pathlib import Path
from collections.abc import Callable, Iterator
from typing import Annotated, Any, Optional

import typer

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
    from referee.errors import PluginError, RefereeError, RefereeFailure, UsageError

    try:
        yield
    except UsageError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    except PluginError as exc:
        typer.echo(f"plugin error: {exc}", err=True)
        raise typer.Exit(1) from None
    except RefereeFailure as exc:  # the referee failed (an error in a match), not a bot nor the user
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(3) from None
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


def _plugins_dir() -> str | None:
    """This invocation's --plugins-dir (REFEREE_PLUGINS_DIR), None without one."""
    return _state["plugins_dir"]  # type: ignore[return-value]


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




def check_json_target(json_out: str | None) -> None:
    """UsageError unless `--json FILE` can be written (checked before anything is played; `-`,
    standard output, and no --json pass)."""
    from referee.errors import UsageError

    if json_out in (None, "-"):
        return
    target = Path(json_out)
    if target.is_dir() or not target.parent.is_dir() or not os.access(target.parent, os.W_OK):
        raise UsageError(f"cannot write --json file {json_out!r}: "
                         + ("it is a directory" if target.is_dir() else "its directory is missing or not writable"))


def write_json(console, json_out: str, data: object, what: str) -> None:
    """Write `data` as indented JSON to standard output (`-`: nothing else is printed there) or
    to the file `json_out`, then say `<what>: <file>`; UsageError if the file cannot be written."""
    import json

    from referee.errors import UsageError

    text = json.dumps(data, indent=2, ensure_ascii=True) + "\n"
    if json_out == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    try:
        Path(json_out).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write --json file {json_out!r}: {exc.strerror or exc}") from None
    console.print(f"{what}: {json_out}", highlight=False, markup=False, soft_wrap=True)


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



def main() -> None:
    """Console-script entry point."""
    for stream in (sys.stdout, sys.stderr):
        # Text that is no Unicode (a lone surrogate in a replay someone wrote) never stops the
        # output (issue 25): it is written as its escape, "\ud800"; valid text is unchanged.
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
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


@contextmanager
def rich_progress(console: Any) -> Iterator[Callable[[int, int], None] | None]:
    """A `progress` for `write_index` on a rich console: a bar of the matches' viewer pages on a
    terminal (gone once the index is written); None off one, where nothing extra is printed."""
    if not console.is_terminal:
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    with Progress(TextColumn("index: viewer pages"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                  console=console, transient=True) as bar:
        task = bar.add_task("pages", total=None)
        yield lambda done, total: bar.update(task, completed=done, total=total)
