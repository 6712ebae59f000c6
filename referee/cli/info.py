"""The listing commands: `games`, `strategies`, `plugins`, `rules`."""

from __future__ import annotations

from typing import Annotated

import typer

from referee.cli.common import _console, _errors, _plugin_manager, _registry, app


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

