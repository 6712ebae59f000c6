"""Crazy Eights, a rules plugin for the referee: registers the game `crazy_eights`.

The referee finds this module through the entry point in pyproject.toml
(`[project.entry-points.referee] crazy_eights = "referee_crazy_eights"`) and calls the hook below.
"""

from referee.hookspecs import hookimpl


@hookimpl
def register_games(register):
    from referee_crazy_eights.game import CrazyEights

    register(CrazyEights())
