"""The listing commands: `games`, `strategies`, `plugins`, `rules`; each also as JSON (`--json`)."""

from __future__ import annotations

from typing import Annotated, Any, Optional

import typer

from referee.cli.common import _console, _errors, _plugin_manager, _registry, app, check_json_target, write_json

#: the `--json` option of the listing commands
JsonOut = Annotated[Optional[str], typer.Option("--json", metavar="FILE", help="Write the listing as JSON to "
                                                "this file ('-': stdout, instead of the table).")]


def _emit(json_out: str | None, data: Any, what: str, table: Any) -> None:
    """The table, unless the JSON goes to stdout; the JSON where --json says."""
    console = _console()
    if json_out != "-":
        console.print(table)
    if json_out is not None:
        write_json(console, json_out, data, what)


@app.command()
def games(json_out: JsonOut = None) -> None:
    """List the installed games."""
    from rich.table import Table

    with _errors():
        check_json_target(json_out)
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
        data = [{"name": name, "title": game.title, "min_players": game.min_players, "max_players": game.max_players,
                 "options": [o.name for o in game.options], "plugin": registry.game_plugins[name]}
                for name, game in sorted(registry.games.items())]
        _emit(json_out, data, "games", table)


@app.command()
def strategies(json_out: JsonOut = None) -> None:
    """List the installed in-process strategies (usable as --player NAME)."""
    from rich.table import Table

    with _errors():
        check_json_target(json_out)
        registry = _registry()
        table = Table(title="Strategies")
        for col in ("name", "games", "description", "plugin"):
            table.add_column(col, overflow="fold")
        for name, entry in sorted(registry.strategies.items()):
            table.add_row(name, ", ".join(entry.games) if entry.games else "any", entry.help, entry.plugin)
        data = [{"name": name, "games": list(entry.games) if entry.games else None, "description": entry.help,
                 "plugin": entry.plugin} for name, entry in sorted(registry.strategies.items())]
        _emit(json_out, data, "strategies", table)


@app.command()
def plugins(json_out: JsonOut = None) -> None:
    """List the loaded plugins with their versions and the hooks they implement."""
    from rich.table import Table

    from referee.plugins import plugin_versions

    with _errors():
        check_json_target(json_out)
        pm = _plugin_manager()
        versions = plugin_versions(pm)
        table = Table(title="Plugins")
        for col in ("name", "version", "hooks"):
            table.add_column(col, overflow="fold")
        data = []
        for plugin in pm.get_plugins():
            name = pm.get_name(plugin)
            hooks = sorted(h.name for h in pm.get_hookcallers(plugin) or [])
            table.add_row(name, versions.get(name) or "-", ", ".join(hooks))
            data.append({"name": name, "version": versions.get(name), "hooks": hooks})
        _emit(json_out, data, "plugins", table)


@app.command()
def rules(game: Annotated[str, typer.Argument(help="A game name, as `referee games` lists them.")],
          json_out: JsonOut = None) -> None:
    """Show a game's rules summary and every configuration key with its default."""
    from rich.table import Table

    with _errors():
        check_json_target(json_out)
        g = _registry().game(game)
        console = _console()
        players = str(g.min_players) if g.min_players == g.max_players else f"{g.min_players}-{g.max_players}"
        if json_out != "-":
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
        data = {"name": g.name, "title": g.title, "min_players": g.min_players, "max_players": g.max_players,
                "summary": g.summary.strip(),
                "options": [{"key": o.name, "type": o.type.__name__, "default": o.default,
                             "choices": list(o.choices) if o.choices is not None else None, "min": o.min,
                             "max": o.max, "meaning": o.help} for o in g.options]}
        _emit(json_out, data, "rules", table)

