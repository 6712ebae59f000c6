"""referee: a plugin-based referee and match runner for card-game bots.

Plugins implement the hooks of `referee.hookspecs` with `referee.hookimpl`.
"""

from typing import Any

from referee.version import PROTOCOL_VERSION, __version__

__all__ = ["PROTOCOL_VERSION", "__version__"]


def __getattr__(name: str) -> Any:
    # `referee.hookimpl` without importing pluggy for every `import referee` (the CLI's start-up)
    if name == "hookimpl":
        from referee.hookspecs import hookimpl

        return hookimpl
    if name == "run_tournament":  # the tournament's modules only when asked for
        from referee.tournament.driver import run_tournament

        return run_tournament
    raise AttributeError(f"module 'referee' has no attribute {name!r}")
