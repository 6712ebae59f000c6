"""The Mau Mau rules plugin: registers the game `maumau` (see docs/rules/maumau.md)."""

from referee.hookspecs import hookimpl


@hookimpl
def register_games(register):
    from referee_maumau.game import MauMau

    register(MauMau())
