"""referee: a plugin-based referee and match runner for card-game bots.

Plugins implement the hooks of `referee.hookspecs` with `referee.hookimpl`. From Python:
`referee.play(...)` plays a match, `referee.load_replay(path)` reads one (docs/python-api.md).
"""

from typing import Any

from referee.version import PROTOCOL_VERSION, __version__

__all__ = ["PROTOCOL_VERSION", "__version__"]

#: the Python API (docs/python-api.md), imported on first use
_API = ("play", "load_replay", "MatchResult", "Replay")


def __getattr__(name: str) -> Any:
    # `referee.hookimpl` and the API without importing pluggy, rich... for every `import referee`
    # (the CLI's start-up)
    if name == "hookimpl":
        from referee.hookspecs import hookimpl

        return hookimpl
    if name in _API:
        from referee import api

        return getattr(api, name)
    if name == "run_tournament":  # the tournament's modules only when asked for
        from referee.tournament.driver import run_tournament

        return run_tournament
    raise AttributeError(f"module 'referee' has no attribute {name!r}")
