"""Built-in strategies: `random` and `first` for any game, plus a greedy player per game.

Each greedy strategy lives in its own module, imported only when a match asks for it.
"""

from __future__ import annotations

import importlib

from referee.hookspecs import hookimpl
from referee_strategies.basic import FirstLegal, RandomLegal


def _lazy(module: str, cls: str):
    def factory(game, seat, config, rng):
        strategy = getattr(importlib.import_module(f"referee_strategies.{module}"), cls)
        return strategy(game, seat, config, rng)

    return factory


@hookimpl
def register_strategies(register):
    register("random", RandomLegal, help="A uniformly random legal action (seeded per seat).")
    register("first", FirstLegal, help="Always the first legal action.")
    register(
        "maumau-greedy",
        _lazy("maumau_greedy", "MauMauGreedy"),
        help="Mau Mau heuristic: always announces, keeps a Jack, passes 7s on, 8s against a near winner.",
        games=("maumau",),
    )
    register(
        "presidente-greedy",
        _lazy("presidente_greedy", "PresidenteGreedy"),
        help="Presidente heuristic: lowest cards that beat the table, saves 8s, 2s and 3C, revolts when low.",
        games=("presidente",),
    )
    register(
        "mayor-greedy",
        _lazy("mayor_greedy", "MayorGreedy"),
        help="Mayor heuristic: calls its weakest long suit, protects points, low trumps, uses Specials.",
        games=("mayor",),
    )
