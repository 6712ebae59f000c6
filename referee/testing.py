"""Helpers for tests and benchmarks: play seeded matches with in-process strategies."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from referee.config import resolve_config
from referee.game import Game
from referee.players import StrategyPlayer
from referee.runner import Limits, MatchResult, Monitor, Seat, run_match
from referee_strategies.basic import RandomLegal


def random_playout(
    game: Game,
    config: dict[str, Any] | None = None,
    seed: int = 0,
    players: int | None = None,
    replay: str | Path | None = None,
    monitor: Monitor | None = None,
) -> MatchResult:
    """One match of `game` with every seat played by the seeded `random` strategy."""
    n = players if players is not None else game.min_players
    resolved = resolve_config(game, config or {}, n)
    seats = [Seat(f"random#{i}", "strategy", "random") for i in range(n)]
    strategies = [StrategyPlayer(RandomLegal(game.name, i, resolved, random.Random(f"{seed}/{i}/random")))
                  for i in range(n)]
    return run_match(game, resolved, seed, seats, strategies, Limits(), replay=replay, monitor=monitor)
