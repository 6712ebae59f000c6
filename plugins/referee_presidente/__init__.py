"""Presidente rules plugin: registers the `presidente` game (seed 004, rulings P-1..P-10)."""

from referee.hookspecs import hookimpl


@hookimpl
def register_games(register):
    from referee_presidente.game import Presidente

    register(Presidente())
