"""The Mayor rules plugin: 4 players, a candidate and a secret ally, Specials, a counter (M-1..M-15)."""

from referee.hookspecs import hookimpl


@hookimpl
def register_games(register):
    from referee_mayor.game import Mayor

    register(Mayor())
