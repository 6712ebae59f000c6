"""The plugin manager and the registry of games and strategies it yields.

Plugins come from three places: the entry-point group `referee` (built-in plugins included),
`.py` files in a plugins directory (`--plugins-dir` or REFEREE_PLUGINS_DIR), and plugin objects
registered by code (tests). REFEREE_LOAD_PLUGINS limits autoloading: unset loads every entry
point; a comma-separated list loads only those entry-point names; an empty value loads none.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pluggy

import referee.hookspecs as hookspecs
from referee.errors import PluginError, UsageError
from referee.game import Game

ENTRY_POINT_GROUP = "referee"


def get_plugin_manager(
    plugins_dir: str | os.PathLike | None = None,
    extra: Iterable[object] = (),
    autoload: bool = True,
) -> pluggy.PluginManager:
    """A fresh plugin manager with entry points, a plugins directory and `extra` plugins loaded."""
    pm = pluggy.PluginManager("referee")
    pm.add_hookspecs(hookspecs)
    if autoload:
        wanted = os.environ.get("REFEREE_LOAD_PLUGINS")
        if wanted is None:
            pm.load_setuptools_entrypoints(ENTRY_POINT_GROUP)
        else:
            names = {n.strip() for n in wanted.split(",") if n.strip()}
            for name in sorted(names):
                if not pm.load_setuptools_entrypoints(ENTRY_POINT_GROUP, name=name):
                    from importlib.metadata import entry_points

                    known = sorted({ep.name for ep in entry_points(group=ENTRY_POINT_GROUP)})
                    raise UsageError(f"REFEREE_LOAD_PLUGINS names {name!r}, which is no installed plugin "
                                     f"(installed: {', '.join(known) or 'none'})")
    plugins_dir = plugins_dir or os.environ.get("REFEREE_PLUGINS_DIR")
    if plugins_dir:
        _load_directory(pm, Path(plugins_dir))
    for plugin in extra:
        pm.register(plugin)
    try:
        pm.check_pending()
    except pluggy.PluginValidationError as exc:
        raise PluginError(str(exc)) from None
    return pm


def _load_directory(pm: pluggy.PluginManager, directory: Path) -> None:
    if not directory.is_dir():
        what = "is not a directory" if directory.exists() else "does not exist"
        source = " (from REFEREE_PLUGINS_DIR)" if os.environ.get("REFEREE_PLUGINS_DIR") == str(directory) else ""
        raise UsageError(f"plugins directory {str(directory)!r}{source} {what}")
    for path in sorted(directory.glob("*.py")):
        name = f"referee_dir_plugin_{path.stem}"
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise PluginError(f"cannot load plugin file {path}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except Exception as exc:
            raise PluginError(f"plugin file {path} failed to import: {exc}") from exc
        except SystemExit as exc:  # sys.exit() in a plugin file must not end every command silently
            raise PluginError(f"plugin file {path} called sys.exit({exc.code!r}) while loading") from None
        pm.register(module, name=path.stem)


@dataclass(frozen=True)
class StrategyEntry:
    """A registered in-process strategy."""

    name: str
    factory: Callable[..., Any]
    help: str
    games: tuple[str, ...] | None
    plugin: str


@dataclass
class Registry:
    """The games and strategies registered by the loaded plugins."""

    games: dict[str, Game]
    game_plugins: dict[str, str]
    strategies: dict[str, StrategyEntry]
    #: the plugin manager's hook relay (match lifecycle hooks), None for a registry built by hand
    hooks: Any = None

    def game(self, name: str) -> Game:
        """The game called `name`; raises UsageError listing the known games."""
        try:
            return self.games[name]
        except KeyError:
            known = ", ".join(sorted(self.games)) or "none installed"
            raise UsageError(f"unknown game {name!r} (games: {known})") from None


def build_registry(pm: pluggy.PluginManager) -> Registry:
    """Collect every registration; a duplicate name is a PluginError naming both plugins."""
    games: dict[str, Game] = {}
    game_plugins: dict[str, str] = {}
    strategies: dict[str, StrategyEntry] = {}

    for impl in pm.hook.register_games.get_hookimpls():
        plugin = impl.plugin_name

        def register_game(game: Game, _plugin: str = plugin) -> None:
            if not isinstance(game, Game):
                raise PluginError(f"plugin {_plugin!r} registered {game!r}, not a referee.game.Game")
            if game.name in games:
                raise PluginError(
                    f"game {game.name!r} is registered by both {game_plugins[game.name]!r} and {_plugin!r}"
                )
            games[game.name] = game
            game_plugins[game.name] = _plugin

        impl.function(register=register_game)

    for impl in pm.hook.register_strategies.get_hookimpls():
        plugin = impl.plugin_name

        def register_strategy(name, factory, help="", games=None, _plugin: str = plugin) -> None:
            if name in strategies:
                raise PluginError(
                    f"strategy {name!r} is registered by both {strategies[name].plugin!r} and {_plugin!r}"
                )
            strategies[name] = StrategyEntry(name, factory, help, tuple(games) if games else None, _plugin)

        impl.function(register=register_strategy)

    return Registry(games, game_plugins, strategies, pm.hook)


def plugin_versions(pm: pluggy.PluginManager) -> dict[str, str | None]:
    """The distribution version of every loaded plugin, by plugin name (None if unknown)."""
    versions: dict[str, str | None] = {}
    for plugin, dist in pm.list_plugin_distinfo():
        versions[pm.get_name(plugin)] = dist.version if dist is not None else None
    for plugin in pm.get_plugins():
        versions.setdefault(pm.get_name(plugin), None)
    return versions


def load_registry(plugins_dir: str | os.PathLike | None = None) -> Registry:
    """The registry of every installed plugin (the CLI's entry point to plugins)."""
    return build_registry(get_plugin_manager(plugins_dir))


__all__ = [
    "Registry",
    "StrategyEntry",
    "build_registry",
    "get_plugin_manager",
    "load_registry",
    "plugin_versions",
]
