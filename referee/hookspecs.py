"""The hooks a referee plugin may implement, grouped by phase.

Implement them with `referee.hookimpl` (the same marker as `referee.hookspecs.hookimpl`):

    import referee

    @referee.hookimpl
    def register_games(register):
        register(MyGame())
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

import pluggy

if TYPE_CHECKING:
    import typer

    from referee.game import Game
    from referee.players import Strategy

hookspec = pluggy.HookspecMarker("referee")
hookimpl = pluggy.HookimplMarker("referee")


# -- registration ------------------------------------------------------------------------------

#: what `register_strategies` registers: `factory(game, seat, config, rng)` makes a seat's strategy
StrategyFactory = Callable[["Game", int, dict[str, Any], random.Random], "Strategy"]


class RegisterGame(Protocol):
    """The `register` a `register_games` hook is given."""

    def __call__(self, game: Game) -> None: ...


class RegisterStrategy(Protocol):
    """The `register` a `register_strategies` hook is given."""

    def __call__(self, name: str, factory: StrategyFactory, help: str = "",
                 games: tuple[str, ...] | None = None) -> None: ...



@hookspec
def register_games(register: RegisterGame) -> None:
    """Register games: call `register(game)` with a `referee.game.Game` instance per game.

    Called once per plugin manager; a game name registered twice is an error naming both plugins.
    """


@hookspec
def register_strategies(register: RegisterStrategy) -> None:
    """Register in-process strategies: call `register(name, factory, help=..., games=None)`.

    `factory(game, seat, config, rng)` returns a `referee.players.Strategy`; `games` is a tuple
    of game names the strategy plays, or None for any game. A duplicate name is an error.
    """


# -- match lifecycle ---------------------------------------------------------------------------


@hookspec
def match_started(header: dict[str, Any]) -> None:
    """Called once before the first deal of every match (`play`, `validate`, every match of a
    tournament, in the process that plays it: a worker), with the replay header record."""


@hookspec
def match_finished(header: dict[str, Any], result: dict[str, Any]) -> None:
    """Called once after every match that ends (as `match_started`), with the header and the
    replay's `result` record."""


# -- CLI ---------------------------------------------------------------------------------------


@hookspec
def register_commands(cli: typer.Typer) -> None:
    """Add commands to the `referee` CLI: `cli` is the typer.Typer application."""
